/**
 * Tenancy, generated from the route table: for every route and method under /api/client/v1 of
 * the built app, a caller from organization B using the ids of organization A's resources gets
 * 404 (403 where the route is not scoped by a resource id), and no table changes. A route added
 * later is covered without editing this file:
 *
 * - Both organizations get one row of every resource kind; a new table without a seed row fails
 *   the "every table is seeded" test below, so this file learns about it.
 * - Id slots and the other required values come from each route's own schemas (test/route-table.ts),
 *   so a request reaches the tenancy check instead of stopping at 422.
 * - Pure variant: every id slot holds A's id -> 404; or 403 where the route refuses the caller
 *   whatever the ids (not resource-scoped: unknown ids get the very same 403); nothing changes.
 * - Mixed variants: one slot holds A's id, the others B's own -> refused exactly like a missing
 *   id (same status and code as a random UUID in that slot); nothing changes.
 * - Routes without id slots (sign-in, the caller's own account…) must neither touch nor show A.
 *
 * Each pass runs as B's session (B is also a superadmin: that grants nothing on client routes)
 * and as B's API token.
 */
import { describe, expect, test } from 'bun:test';
import { newId } from '../src/lib/ids.ts';
import { loadEveryRouteGroup } from '../src/http/route-groups.ts';
import { createTestApp } from './harness.ts';
import { buildRequest, dump, party, PREFIX, rowsOf, shapeOf, type Slot, slotSets, UNSEEDED_TABLES, userTables } from './route-table.ts';

// ---- the test ---------------------------------------------------------------------------------

function world() {
  const t = createTestApp();
  const a = party(t);
  const b = party(t, { isSuperadmin: true });
  return { t, a, b };
}

const discovery = world();
// The table as the API description has it: every lazily registered route group loaded.
await loadEveryRouteGroup(discovery.t.app);
const clientRoutes = discovery.t.app.routes
  .filter((route) => route.path.startsWith(`${PREFIX}/`) && ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].includes(route.method))
  .map((route) => shapeOf(route, discovery.a.ids));

describe('tenancy across the client route table', () => {
  test('every table holds a seeded row, and the route table is not empty', () => {
    const { t } = discovery;
    for (const table of userTables(t.sqlite)) {
      if (UNSEEDED_TABLES.has(table)) continue;
      const rows = (t.sqlite.query(`SELECT count(*) AS n FROM "${table}"`).get() as { n: number }).n;
      expect({ table, seeded: rows >= 2 }).toEqual({ table, seeded: true });
    }
    expect(clientRoutes.length).toBeGreaterThan(20);
  });

  for (const shape of clientRoutes) {
    test(`${shape.method} ${shape.path.slice(PREFIX.length)}`, async () => {
      const { t, a, b } = world();
      const aIds = new Set(a.ids.values());
      for (const [label, headers] of [
        ['token', b.bearer],
        ['session', b.caller.headers],
      ] as const) {
        // The first use of a token records lastUsedAt: do it before the snapshot.
        await t.request('GET', `${PREFIX}/auth/session`, undefined, headers);
        const before = dump(t.sqlite);
        const send = async (values: Map<Slot, string>) => {
          const { path, body } = buildRequest(shape, values);
          return t.request(shape.method, path, body, headers);
        };
        const sets = slotSets(shape);

        if (sets.length === 0) {
          // Not resource-scoped: the caller's own account, sign-in and the like.
          const res = await send(new Map());
          expect(res.status).toBeLessThan(500);
          for (const id of aIds) expect(res.text).not.toContain(id);
          expect(rowsOf(dump(t.sqlite), aIds)).toEqual(rowsOf(before, aIds));
          continue;
        }

        for (const slots of sets) {
          const where = `${label}: ${slots.map((slot) => `${slot.where}.${slot.name}`).join(', ')}`;
          // Pure: every id is A's.
          const pure = await send(new Map(slots.map((slot) => [slot, a.ids.get(slot.kind)!])));
          expect(dump(t.sqlite)).toEqual(before);
          // 404; or 403 when the route refuses this caller whatever the ids (not resource-scoped),
          // which a request with unknown ids must show by answering the very same.
          const missing = pure.status === 403 ? await send(new Map(slots.map((slot) => [slot, newId()]))) : undefined;
          const notScoped = missing?.status === 403 && missing.json?.error?.code === pure.json?.error?.code;
          expect({ where, status: pure.status, refused: pure.status === 404 || notScoped }).toEqual({ where, status: pure.status, refused: true });
          expect(dump(t.sqlite)).toEqual(before);

          // Mixed: one of A's ids among B's own; refused exactly like a missing id.
          if (slots.length < 2) continue;
          for (const foreign of slots) {
            const others = slots.filter((slot) => slot !== foreign).map((slot) => [slot, b.ids.get(slot.kind)!] as [Slot, string]);
            const withA = await send(new Map([...others, [foreign, a.ids.get(foreign.kind)!]]));
            expect(dump(t.sqlite)).toEqual(before);
            const withMissing = await send(new Map([...others, [foreign, newId()]]));
            expect(dump(t.sqlite)).toEqual(before);
            const mixed = `${where} (A's ${foreign.name})`;
            expect({ mixed, status: withA.status, code: withA.json?.error?.code }).toEqual({
              mixed,
              status: withMissing.status,
              code: withMissing.json?.error?.code,
            });
            expect({ mixed, refused: withA.status >= 400 }).toEqual({ mixed, refused: true });
          }
        }
      }
    });
  }
});
