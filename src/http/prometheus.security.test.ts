/**
 * GET /metrics: readable with the operator's token from anywhere, else only from this host
 * without a proxy in between; and whatever it shows names no tenant (no ids, names or paths).
 */
import { afterEach, describe, expect, test } from 'bun:test';
import { clientAs } from '../../test/client.ts';
import { createTestApp } from '../../test/harness.ts';
import { lines, logsFrame, observedWorld, slot } from '../../test/observe.ts';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

const TOKEN = 'metrics-token-0123456789';

describe('who may read /metrics', () => {
  test('without a token: a loopback caller, but not one that came through a proxy', async () => {
    const t = createTestApp();
    const app = t.app.listen({ hostname: '127.0.0.1', port: 0, reusePort: false });
    cleanups.push(() => app.stop(true));
    const url = `http://127.0.0.1:${app.server!.port}/metrics`;
    const direct = await fetch(url);
    expect(direct.status).toBe(200);
    expect(direct.headers.get('content-type')).toStartWith('text/plain; version=0.0.4');
    for (const header of ['x-forwarded-for', 'forwarded', 'x-real-ip']) {
      const proxied = await fetch(url, { headers: { [header]: '203.0.113.7' } });
      expect({ header, status: proxied.status }).toEqual({ header, status: 403 });
    }
  });

  test('with a token: only with that bearer token, from anywhere', async () => {
    const t = createTestApp({ metricsToken: TOKEN });
    expect((await t.request('GET', '/metrics')).status).toBe(401);
    expect((await t.request('GET', '/metrics', undefined, { authorization: 'Bearer metrics-token-0123456788' })).status).toBe(401);
    expect((await t.request('GET', '/metrics', undefined, { authorization: `Bearer ${TOKEN}x` })).status).toBe(401);
    const ok = await t.request('GET', '/metrics', undefined, { authorization: `Bearer ${TOKEN}`, 'x-forwarded-for': '203.0.113.7' });
    expect(ok.status).toBe(200);
  });
});

describe('what /metrics shows', () => {
  test('requests by route pattern, daemons, the command queue and log counters, and nothing that names a tenant', async () => {
    const world = observedWorld(createTestApp({ metricsToken: TOKEN }));
    const { t, tree, owner, node, send } = world;
    send(logsFrame([{ ...slot(tree.environmentId, tree.serviceId), dropped: 3, lines: lines(1_000, 2, () => 'tenant log text') }]));
    await clientAs(t, owner)('GET', `/projects/${tree.projectId}`);
    await clientAs(t, owner)('GET', `/logs?serviceId=${tree.serviceId}`);
    await new Promise((resolve) => setImmediate(resolve)); // the counting hook runs after the response
    const text = (await t.request('GET', '/metrics', undefined, { authorization: `Bearer ${TOKEN}` })).text;
    expect(text).toContain('panel_http_requests_total{method="GET",route="/api/client/v1/projects/:id",status="200"} 1');
    expect(text).toMatch(/panel_http_request_duration_seconds_count\{method="GET",route="\/api\/client\/v1\/projects\/:id"\} 1/);
    expect(text).toContain('panel_daemons_connected 1');
    expect(text).toContain('panel_commands_open{status="queued"} 0');
    expect(text).toContain('panel_log_lines_received_total 2');
    expect(text).toContain('panel_log_lines_dropped_total 3');
    expect(text).toMatch(/^panel_events_total\{family="server"\} 1$/m);
    for (const secret of [owner.organizationId, tree.projectId, tree.serviceId, tree.environmentId, node.id, 'tenant log text']) expect(text).not.toContain(secret);
    // Every sample line is `name{labels} number`: the format Prometheus parses.
    for (const line of text.split('\n').filter((l) => l && !l.startsWith('#'))) expect(line).toMatch(/^[a-z_]+(\{[^}]*\})? -?[0-9.e+-]+$/);
  });

  test('paths no route names share the catch-all label, so random URLs cannot grow it', async () => {
    const t = createTestApp();
    for (const path of ['/api/nope/1', '/api/nope/2', '/api/client/v1/zzz']) await t.request('GET', path);
    await new Promise((resolve) => setImmediate(resolve));
    const text = (await t.request('GET', '/metrics')).text;
    expect(text).not.toContain('/api/nope');
    expect(text).toContain('panel_http_requests_total{method="GET",route="/*",status="404"} 3');
  });
});
