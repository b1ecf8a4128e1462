/**
 * Contract tests generated from the route table (issue 15 §5): every route of the built app
 * under /api/client/v1 behind the client guard is probed, and a route added later is covered
 * without editing this file. Requests are built from each route's own schemas
 * (test/route-table.ts) with the ids of the caller's organization, so only the property under
 * test can refuse them; nothing may change in the database.
 *
 * - 401 `unauthenticated` without credentials.
 * - Every route declares the role it needs (`role` on the route; `x-panel-role` in the API
 *   description), and the declaration is what is enforced:
 * - 403 `forbidden` for a member (session and member API token) where the operation needs more
 *   than membership, and for an admin where it needs the owner; 200 for a member reading what
 *   is declared for members.
 * - 422 `validation_failed` for a body missing any required field: `path` names the field and the
 *   message says it is required (not "unknown field").
 *
 * 404 for another organization's ids is test/tenancy.security.test.ts, from the same table.
 */
import { describe, expect, test } from 'bun:test';
import { buildOpenApiDocument } from '../src/http/openapi.ts';
import { CLIENT_GUARD, guardOf } from '../src/http/plugins/security.ts';
import { loadEveryRouteGroup } from '../src/http/route-groups.ts';
import { createTestApp } from './harness.ts';
import { addMember, tokenFor } from './identity.ts';
import { buildRequest, dump, OPTIONAL, party, PREFIX, type RouteShape, type Schema, shapeOf, slotSets } from './route-table.ts';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

function world() {
  const t = createTestApp();
  const a = party(t);
  return { t, a };
}

const discovery = world();
// The table as the API description has it: every lazily registered route group loaded.
await loadEveryRouteGroup(discovery.t.app);
const description = buildOpenApiDocument(discovery.t.app, { publicUrl: discovery.t.config.publicUrl });
const toOpenApiPath = (path: string) => path.replace(/:([A-Za-z0-9_]+)/g, '{$1}').replace(/(.)\/$/, '$1');

interface Probe {
  shape: RouteShape;
  role: string | undefined;
}

const probes: Probe[] = discovery.t.app.routes
  .filter((route) => route.path.startsWith(`${PREFIX}/`) && METHODS.includes(route.method) && guardOf(route.hooks as never) === CLIENT_GUARD)
  .map((route) => {
    const operation = (description.paths[toOpenApiPath(route.path)] as Record<string, { 'x-panel-role'?: string }> | undefined)?.[route.method.toLowerCase()];
    return { shape: shapeOf(route, discovery.a.ids), role: operation?.['x-panel-role'] };
  });

const label = ({ shape }: Probe) => `${shape.method} ${shape.path.slice(PREFIX.length)}`;

/** The request with every id slot (path and required ones) holding the organization's own ids. */
function ownRequest(shape: RouteShape, ids: Map<string, string>) {
  const slots = slotSets(shape)[0] ?? [];
  return buildRequest(shape, new Map(slots.map((slot) => [slot, ids.get(slot.kind)!])));
}

/** Required entries of an object body schema; none for bodies that are not objects. */
function requiredFields(schema: Schema | undefined): string[] {
  const wrapped = schema && OPTIONAL.has(schema.type) ? (schema.wrapped as Schema) : schema;
  const entries = (wrapped?.entries ?? {}) as Record<string, Schema>;
  return Object.entries(entries)
    .filter(([, entry]) => !OPTIONAL.has(entry.type))
    .map(([name]) => name);
}

describe('contract of the client route table', () => {
  test('the table is walked: guarded routes, role-restricted ones and bodies with required fields', () => {
    expect(probes.length).toBeGreaterThan(100);
    expect(probes.filter((probe) => probe.role === 'admin').length).toBeGreaterThan(50);
    expect(probes.filter((probe) => probe.role === 'owner').length).toBeGreaterThan(3);
    expect(probes.filter((probe) => requiredFields(probe.shape.bodySchema).length > 0).length).toBeGreaterThan(20);
  });

  test('401 unauthenticated without credentials, on every guarded route', async () => {
    const { t, a } = world();
    const before = dump(t.sqlite);
    const answers: string[] = [];
    for (const probe of probes) {
      const { path, body } = ownRequest(probe.shape, a.ids);
      const res = await t.request(probe.shape.method, path, body);
      answers.push(`${label(probe)}: ${res.status} ${res.json?.error?.code}`);
    }
    expect(answers.filter((answer) => !answer.endsWith(': 401 unauthenticated'))).toEqual([]);
    expect(dump(t.sqlite)).toEqual(before);
  });

  test('every guarded route declares its role: an organization role, or self for the caller’s own account', () => {
    const undeclared = probes.filter(({ role }) => !['self', 'member', 'admin', 'owner'].includes(role ?? '')).map(label);
    expect(undeclared).toEqual([]);
    expect(probes.filter(({ role }) => role === 'self').every(({ shape }) => shape.path.startsWith(`${PREFIX}/auth/`))).toBe(true);
  });

  const BELOW: Record<string, readonly ('member' | 'admin')[]> = { admin: ['member'], owner: ['member', 'admin'] };

  test('403 forbidden below the declared role, by session and by API token', async () => {
    const { t, a } = world();
    const callers = (['member', 'admin'] as const).map((role) => {
      const caller = addMember(t, a.caller.organizationId, role);
      return { role, session: caller.headers, token: tokenFor(t, caller, role) };
    });
    // The first use of a token records lastUsedAt: do it before the snapshot.
    for (const { token } of callers) await t.request('GET', `${PREFIX}/auth/session`, undefined, token);
    const before = dump(t.sqlite);
    const answers: string[] = [];
    for (const probe of probes.filter(({ role }) => role && BELOW[role])) {
      for (const caller of callers.filter(({ role }) => BELOW[probe.role!]!.includes(role))) {
        for (const [via, headers] of [
          ['session', caller.session],
          ['token', caller.token],
        ] as const) {
          const { path, body } = ownRequest(probe.shape, a.ids);
          const res = await t.request(probe.shape.method, path, body, headers);
          answers.push(`${label(probe)} (${caller.role} by ${via}, needs ${probe.role}): ${res.status} ${res.json?.error?.code}`);
        }
      }
    }
    expect(answers.length).toBeGreaterThan(60);
    expect(answers.filter((answer) => !answer.endsWith(': 403 forbidden'))).toEqual([]);
    expect(dump(t.sqlite)).toEqual(before);
  });

  test('a member reads every route declared for members, by session and by API token', async () => {
    const { t, a } = world();
    const member = addMember(t, a.caller.organizationId, 'member');
    const memberToken = tokenFor(t, member, 'member');
    const answers: string[] = [];
    for (const probe of probes.filter(({ role, shape }) => role === 'member' && shape.method === 'GET')) {
      for (const [via, headers] of [
        ['session', member.headers],
        ['token', memberToken],
      ] as const) {
        const { path } = ownRequest(probe.shape, a.ids);
        const res = await t.request('GET', path, undefined, headers);
        answers.push(`${label(probe)} (${via}): ${res.status}`);
      }
    }
    expect(answers.length).toBeGreaterThan(80);
    expect(answers.filter((answer) => !answer.endsWith(': 200'))).toEqual([]);
  });

  test('422 validation_failed naming the field, for a body missing any required field', async () => {
    const { t, a } = world();
    await t.request('GET', `${PREFIX}/auth/session`, undefined, a.bearer);
    const before = dump(t.sqlite);
    const answers: string[] = [];
    for (const probe of probes) {
      for (const field of requiredFields(probe.shape.bodySchema)) {
        const { path, body } = ownRequest(probe.shape, a.ids);
        const { [field]: _dropped, ...rest } = body as Record<string, unknown>;
        const res = await t.request(probe.shape.method, path, rest, a.caller.headers);
        const error = res.json?.error;
        answers.push(`${label(probe)} without ${field}: ${res.status} ${error?.code} at ${error?.path} (${error?.message})`);
        expect(res.status === 422 && error.path === field && error.message === 'is required' ? 'named' : answers.at(-1)).toBe('named');
      }
    }
    expect(answers.length).toBeGreaterThan(20);
    expect(dump(t.sqlite)).toEqual(before);
  });
});
