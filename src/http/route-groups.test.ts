import { describe, expect, test } from 'bun:test';
import { type AnyElysia, Elysia } from 'elysia';
import { createTestApp } from '../../test/harness.ts';
import { lazyRouteGroups, loadEveryRouteGroup, type RouteGroup } from './route-groups.ts';

/** An app with the test harness's hooks (request ids, error body, body parser) and a lazy surface of counted groups. */
function lazyApp(groups: { segments: string[]; routes: () => AnyElysia; fail?: () => boolean }[]) {
  const t = createTestApp();
  const loads = groups.map(() => 0);
  const counted: RouteGroup<unknown>[] = groups.map((group, index) => ({
    segments: group.segments,
    async load() {
      loads[index]! += 1;
      if (group.fail?.()) throw new Error('import failed');
      return group.routes();
    },
  }));
  t.app.use(lazyRouteGroups(undefined, { prefix: '/api/lazy/v1', groups: counted }));
  const send = (method: string, path: string, body?: unknown) =>
    t.app.handle(
      new Request(`http://localhost/api/lazy/v1${path}`, {
        method,
        ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
      }),
    );
  return { t, loads, send };
}

const widgets = () =>
  new Elysia()
    .get('/widgets/:id', ({ params }) => ({ widget: params.id }))
    .post('/widgets', ({ body }) => ({ created: body }))
    .get('/gadgets/:id/widgets', ({ params }) => ({ gadgetWidgets: params.id }));
const gadgets = () => new Elysia().get('/gadgets/:id', ({ params }) => ({ gadget: params.id }));

describe('route groups registered at their first request', () => {
  test('the first request under a segment loads the groups serving it and is answered by their route', async () => {
    const { loads, send } = lazyApp([{ segments: ['widgets', 'gadgets'], routes: widgets }, { segments: ['gadgets'], routes: gadgets }]);
    const first = await send('GET', '/widgets/7');
    expect(first.status).toBe(200);
    expect(await first.json()).toEqual({ widget: '7' });
    expect(loads).toEqual([1, 0]);
    expect(await (await send('GET', '/gadgets/3')).json()).toEqual({ gadget: '3' });
    expect(await (await send('GET', '/gadgets/3/widgets')).json()).toEqual({ gadgetWidgets: '3' });
    expect(loads).toEqual([1, 1]);
  });

  test('a body reaches the route it is handed to unread', async () => {
    const { send } = lazyApp([{ segments: ['widgets'], routes: widgets }]);
    const created = await send('POST', '/widgets', { name: 'first' });
    expect(created.status).toBe(200);
    expect(await created.json()).toEqual({ created: { name: 'first' } });
  });

  test('requests arriving together load a group once', async () => {
    const { loads, send } = lazyApp([{ segments: ['widgets'], routes: widgets }]);
    const answers = await Promise.all([1, 2, 3].map((n) => send('GET', `/widgets/${n}`)));
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200]);
    expect(loads).toEqual([1]);
  });

  test('a path no group serves answers 404 with the error body and loads nothing; a loaded segment too', async () => {
    const { loads, send } = lazyApp([{ segments: ['widgets'], routes: widgets }]);
    const unknown = await send('GET', '/sprockets/1');
    expect(unknown.status).toBe(404);
    expect((await unknown.json()).error).toMatchObject({ code: 'not_found', message: 'no such route' });
    expect(loads).toEqual([0]);
    expect((await send('DELETE', '/widgets/1')).status).toBe(404);
    expect(loads).toEqual([1]);
    expect((await send('DELETE', '/widgets/1')).status).toBe(404);
    expect(loads).toEqual([1]);
  });

  test('a request handed on keeps its request id', async () => {
    const { loads, send } = lazyApp([{ segments: ['widgets'], routes: widgets }]);
    // Handed on, then refused by the loaded routes: the body's id is the header's.
    const failed = await send('GET', '/widgets');
    expect(loads).toEqual([1]);
    expect(failed.status).toBe(404);
    expect(failed.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect((await failed.json()).error.requestId).toBe(failed.headers.get('x-request-id'));
  });

  test('a group whose import fails answers 500 and is loaded again by the next request', async () => {
    let failing = true;
    const { loads, send } = lazyApp([{ segments: ['widgets'], routes: widgets, fail: () => failing }]);
    const failed = await send('GET', '/widgets/1');
    expect(failed.status).toBe(500);
    expect((await failed.json()).error.code).toBe('internal_error');
    failing = false;
    expect((await send('GET', '/widgets/1')).status).toBe(200);
    expect(loads).toEqual([2]);
  });

  test('loadEveryRouteGroup registers every group of every lazy surface of the app', async () => {
    const { t, loads } = lazyApp([{ segments: ['widgets'], routes: widgets }, { segments: ['gadgets'], routes: gadgets }]);
    await loadEveryRouteGroup(t.app);
    expect(loads).toEqual([1, 1]);
    const paths = t.app.routes.map((route) => `${route.method} ${route.path}`);
    expect(paths).toContain('GET /api/lazy/v1/widgets/:id');
    expect(paths).toContain('GET /api/lazy/v1/gadgets/:id');
  });
});
