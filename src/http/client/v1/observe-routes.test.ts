/**
 * The read routes of issue 19 besides logs: GET /metrics (series of a server, a container, a
 * service or an environment), GET /events, GET /deployments/:id/logs, and the organization's log
 * bounds; each with 401, 404 for another organization and 422.
 */
import { describe, expect, test } from 'bun:test';
import { insertCommand } from '../../../domain/commands/service.ts';
import { insertDeployment } from '../../../domain/deployments/queries.ts';
import { clientAs } from '../../../../test/client.ts';
import { addMember, createOwner } from '../../../../test/identity.ts';
import { observedWorld, slot } from '../../../../test/observe.ts';

const HOST = { cpuCount: 2, cpu: 0.5, memoryUsed: 100, memoryTotal: 1000, diskUsed: 1, diskTotal: 10, load1: 0.1, load5: 0.2, load15: 0.3 };

describe('GET /metrics', () => {
  test('a server series and the container series of a service, environment or container row', async () => {
    const world = observedWorld();
    const { t, node, tree, row, owner, send } = world;
    const at = t.clock.now().getTime();
    send({ type: 'metrics', at, host: HOST, containers: [{ ...slot(tree.environmentId, tree.serviceId), cpu: 0.1, memory: 50, memoryLimit: null, netRx: null, netTx: null, blockRead: 0, blockWrite: 0 }] });
    const as = clientAs(t, addMember(t, owner.organizationId, 'member'));
    const server = await as('GET', `/metrics?serverId=${node.id}`);
    expect(server.status).toBe(200);
    expect(server.json.resolution).toBe(0);
    expect(server.json.series).toEqual([
      { serverId: node.id, containerId: null, serviceId: null, ordinal: null, name: expect.any(String), points: [expect.objectContaining({ at: new Date(at).toISOString(), cpu: 0.5, cpuCount: 2, memory: 100, memoryLimit: 1000 })] },
    ]);
    for (const query of [`serviceId=${tree.serviceId}`, `environmentId=${tree.environmentId}`, `containerId=${row.id}`]) {
      const res = await as('GET', `/metrics?${query}`);
      expect(res.json.series).toEqual([{ serverId: null, containerId: row.id, serviceId: tree.serviceId, ordinal: 1, name: 'web-1', points: [expect.objectContaining({ cpu: 0.1, memory: 50, memoryLimit: null })] }]);
    }
    const week = await as('GET', `/metrics?serverId=${node.id}&since=${new Date(at - 3 * 86_400_000).toISOString()}&until=${new Date(at).toISOString()}`);
    expect(week.json.resolution).toBe(300);
  });

  test('401, 404 for another organization, 422 for no target or a span beyond 90 days', async () => {
    const { t, node, tree, owner } = observedWorld();
    expect((await clientAs(t)('GET', `/metrics?serverId=${node.id}`)).status).toBe(401);
    const stranger = clientAs(t, createOwner(t));
    expect((await stranger('GET', `/metrics?serverId=${node.id}`)).status).toBe(404);
    expect((await stranger('GET', `/metrics?environmentId=${tree.environmentId}`)).status).toBe(404);
    const as = clientAs(t, owner);
    expect((await as('GET', '/metrics')).status).toBe(422);
    expect((await as('GET', `/metrics?serverId=${node.id}&serviceId=${tree.serviceId}`)).status).toBe(422);
    expect((await as('GET', `/metrics?serverId=${node.id}&since=2020-01-01T00:00:00Z&until=2026-01-01T00:00:00Z`)).status).toBe(422);
  });
});

describe('GET /events', () => {
  test('newest first, filtered by family or subject; foreign filters are 404', async () => {
    const world = observedWorld();
    const { t, owner, node, tree } = world;
    const record = (kind: string, extra = {}) => t.hub.observe.events.record({ organizationId: owner.organizationId, kind, severity: 'info', message: kind, ...extra });
    record('deployment.succeeded', { environmentId: tree.environmentId });
    record('container.exited', { serviceId: tree.serviceId });
    const as = clientAs(t, addMember(t, owner.organizationId, 'member'));
    const all = await as('GET', `/events?organizationId=${owner.organizationId}`);
    expect(all.json.data.map((row: { kind: string }) => row.kind)).toEqual(['container.exited', 'deployment.succeeded', 'server.connected']);
    expect((await as('GET', `/events?organizationId=${owner.organizationId}&kind=deployment`)).json.data.map((row: { kind: string }) => row.kind)).toEqual(['deployment.succeeded']);
    expect((await as('GET', `/events?organizationId=${owner.organizationId}&serverId=${node.id}`)).json.data.map((row: { kind: string }) => row.kind)).toEqual(['server.connected']);
    const page = await as('GET', `/events?organizationId=${owner.organizationId}&limit=2`);
    expect((await as('GET', `/events?organizationId=${owner.organizationId}&limit=2&cursor=${page.json.nextCursor}`)).json.data.map((row: { kind: string }) => row.kind)).toEqual(['server.connected']);
    const stranger = createOwner(t);
    expect((await clientAs(t, stranger)('GET', `/events?organizationId=${owner.organizationId}`)).status).toBe(404);
    expect((await as('GET', `/events?organizationId=${owner.organizationId}&serviceId=${crypto.randomUUID()}`)).status).toBe(404);
    expect((await as('GET', `/events?organizationId=${owner.organizationId}&kind=Bad Kind`)).status).toBe(422);
  });
});

describe('GET /deployments/:id/logs', () => {
  test("the deployment's output, continued with `after`; another organization's is 404", async () => {
    const { t, node, tree, owner, send } = observedWorld();
    const deployment = insertDeployment(t.db, { environmentId: tree.environmentId, serverId: node.id, kind: 'deploy', desiredGeneration: 1 });
    const command = insertCommand(t.db, { serverId: node.id, deploymentId: deployment.id, kind: 'deploy', payload: {}, expiresAt: new Date(t.clock.now().getTime() + 60_000) });
    send({ type: 'output', commandId: command.id, lines: [[1_000, 'stdout', '▸ Pulling'], [2_000, 'stderr', 'manifest unknown']] });
    const as = clientAs(t, owner);
    const log = await as('GET', `/deployments/${deployment.id}/logs`);
    expect(log.status).toBe(200);
    expect(log.json.deployment.id).toBe(deployment.id);
    expect(log.json.data).toEqual([
      { seq: 1, at: '1970-01-01T00:00:01.000Z', stream: 'stdout', text: '▸ Pulling' },
      { seq: 2, at: '1970-01-01T00:00:02.000Z', stream: 'stderr', text: 'manifest unknown' },
    ]);
    expect((await as('GET', `/deployments/${deployment.id}/logs?after=1`)).json.data.map((line: { seq: number }) => line.seq)).toEqual([2]);
    expect((await clientAs(t, createOwner(t))('GET', `/deployments/${deployment.id}/logs`)).status).toBe(404);
    expect((await as('GET', `/deployments/${deployment.id}/logs?after=x`)).status).toBe(422);
  });
});

describe('log bounds of an organization', () => {
  test("admins set them up to the operator's bound; null returns to the operator's", async () => {
    const { t, owner } = observedWorld();
    const as = clientAs(t, owner);
    const set = await as('PATCH', `/organizations/${owner.organizationId}`, { logRetentionBytes: 64 * 1024 * 1024, logRetentionDays: 3 });
    expect(set.json).toMatchObject({ logRetentionBytes: 64 * 1024 * 1024, logRetentionDays: 3 });
    const tooMuch = await as('PATCH', `/organizations/${owner.organizationId}`, { logRetentionDays: t.config.logRetentionDays + 1 });
    expect(tooMuch.status).toBe(422);
    expect(tooMuch.json.error.path).toBe('logRetentionDays');
    expect((await as('PATCH', `/organizations/${owner.organizationId}`, { logRetentionBytes: 10 })).status).toBe(422);
    expect((await as('PATCH', `/organizations/${owner.organizationId}`, { logRetentionBytes: null })).json.logRetentionBytes).toBeNull();
    const member = clientAs(t, addMember(t, owner.organizationId, 'member'));
    expect((await member('PATCH', `/organizations/${owner.organizationId}`, { logRetentionDays: 1 })).status).toBe(403);
  });
});
