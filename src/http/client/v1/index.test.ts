import { describe, expect, test } from 'bun:test';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Elysia } from 'elysia';
import { createTestApp } from '../../../../test/harness.ts';
import { createOwner } from '../../../../test/identity.ts';
import { CLIENT_ROUTE_GROUPS, CLIENT_SURFACE } from './index.ts';

const firstSegment = (path: string) => path.slice(CLIENT_SURFACE.prefix.length + 1).split('/')[0]!;

describe('the client surface route groups', () => {
  test('each group declares exactly the first path segments its routes use', async () => {
    const t = createTestApp();
    for (const group of CLIENT_ROUTE_GROUPS) {
      const routes = new Elysia({ prefix: CLIENT_SURFACE.prefix }).use(await group.load(t.deps)).routes;
      expect(routes.length).toBeGreaterThan(0);
      expect([...new Set(routes.map((route) => firstSegment(route.path)))].sort()).toEqual([...group.segments].sort());
    }
  });

  test('every route file of the surface is one of the groups', () => {
    const dir = import.meta.dir;
    const exported = readdirSync(dir)
      .filter((file) => file.endsWith('.ts') && !file.includes('.test.') && file !== 'index.ts')
      .flatMap((file) => [...readFileSync(join(dir, file), 'utf8').matchAll(/^export const (\w+Routes) = /gm)].map((match) => match[1]!));
    const loaded = CLIENT_ROUTE_GROUPS.map((group) => group.load.toString().match(/\)\)\.(\w+Routes)\(/)?.[1]);
    expect(exported.length).toBeGreaterThan(30);
    expect(new Set(loaded)).toEqual(new Set(exported));
  });

  test("a group's routes are guarded from their first request on: without credentials each answers 401", async () => {
    const t = createTestApp();
    let checked = 0;
    for (const group of CLIENT_ROUTE_GROUPS) {
      const routes = new Elysia({ prefix: CLIENT_SURFACE.prefix }).use(await group.load(t.deps)).routes;
      // The first request under each segment of a fresh (installed) app is the one that loads the group.
      const fresh = createTestApp();
      createOwner(fresh);
      // Routes taking no body or query: a missing one answers 422 before the guard runs.
      const bodiless = routes.filter((route) => ['GET', 'DELETE'].includes(route.method) && !route.hooks.query && !route.path.includes('/auth/'));
      for (const route of bodiless) {
        const path = route.path.replace(/:[A-Za-z]+/g, '01940000-0000-7000-8000-000000000001');
        const answer = await fresh.app.handle(new Request(`http://localhost${path}`, { method: route.method }));
        expect({ route: `${route.method} ${route.path}`, status: answer.status }).toEqual({ route: `${route.method} ${route.path}`, status: 401 });
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(40);
  });
});
