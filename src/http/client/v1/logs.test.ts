/**
 * GET /logs and /logs/download: any member reads the history of a container, a service or an
 * environment; exactly one target; foreign ids 404; paging and filters as the query says.
 */
import { describe, expect, test } from 'bun:test';
import { clientAs } from '../../../../test/client.ts';
import { addMember, createOwner } from '../../../../test/identity.ts';
import { lines, logsFrame, observedWorld, slot } from '../../../../test/observe.ts';
import { seedService } from '../../../../test/seed.ts';

function world() {
  const observed = observedWorld();
  const { t, tree, send } = observed;
  const second = seedService(t, tree.environmentId);
  const start = Date.parse('2026-01-01T00:00:00Z');
  send(logsFrame([{ ...slot(tree.environmentId, tree.serviceId), lines: lines(start, 5, (i) => (i === 3 ? 'ERROR: disk full' : `web ${i}`)) }]));
  send(logsFrame([{ ...slot(tree.environmentId, second, { name: 'worker-1' }), lines: lines(start + 500, 2, (i) => `worker ${i}`, 'stderr') }]));
  return { ...observed, second, start, member: addMember(t, observed.owner.organizationId, 'member') };
}

describe('GET /logs', () => {
  test('a member reads a service, its container row or the whole environment, oldest first', async () => {
    const { t, tree, member, row } = world();
    const as = clientAs(t, member);
    const service = await as('GET', `/logs?serviceId=${tree.serviceId}`);
    expect(service.status).toBe(200);
    expect(service.json.data.map((line: { text: string }) => line.text)).toEqual(['web 0', 'web 1', 'web 2', 'ERROR: disk full', 'web 4']);
    expect(service.json.data[0]).toEqual({
      at: '2026-01-01T00:00:00.000Z',
      stream: 'stdout',
      text: 'web 0',
      serviceId: tree.serviceId,
      containerId: row.id,
      ordinal: 1,
      containerName: 'web-1',
    });
    expect(service.json).toMatchObject({ nextCursor: null, complete: true });
    expect((await as('GET', `/logs?containerId=${row.id}`)).json.data).toHaveLength(5);
    const environment = await as('GET', `/logs?environmentId=${tree.environmentId}`);
    expect(environment.json.data.map((line: { text: string }) => line.text)).toEqual(['web 0', 'worker 0', 'web 1', 'worker 1', 'web 2', 'ERROR: disk full', 'web 4']);
  });

  test('filters by text, stream and time range; pages with the cursor it gave', async () => {
    const { t, tree, owner, start } = world();
    const as = clientAs(t, owner);
    const found = await as('GET', `/logs?environmentId=${tree.environmentId}&q=error`);
    expect(found.json.data.map((line: { text: string }) => line.text)).toEqual(['ERROR: disk full']);
    const errors = await as('GET', `/logs?environmentId=${tree.environmentId}&stream=stderr`);
    expect(errors.json.data.map((line: { text: string }) => line.text)).toEqual(['worker 0', 'worker 1']);
    const range = await as('GET', `/logs?serviceId=${tree.serviceId}&since=${new Date(start + 1000).toISOString()}&until=${new Date(start + 2000).toISOString()}`);
    expect(range.json.data.map((line: { text: string }) => line.text)).toEqual(['web 1', 'web 2']);
    const first = await as('GET', `/logs?serviceId=${tree.serviceId}&limit=2`);
    expect(first.json.data.map((line: { text: string }) => line.text)).toEqual(['ERROR: disk full', 'web 4']);
    const older = await as('GET', `/logs?serviceId=${tree.serviceId}&limit=2&cursor=${first.json.nextCursor}`);
    expect(older.json.data.map((line: { text: string }) => line.text)).toEqual(['web 1', 'web 2']);
    const forward = await as('GET', `/logs?serviceId=${tree.serviceId}&limit=2&direction=forward`);
    expect(forward.json.data.map((line: { text: string }) => line.text)).toEqual(['web 0', 'web 1']);
  });

  test('lines sent moments ago are read (the buffer is written first)', async () => {
    const { t, tree, owner, send } = world();
    send(logsFrame([{ ...slot(tree.environmentId, tree.serviceId), lines: lines(Date.parse('2026-01-01T01:00:00Z'), 1, () => 'just now') }]));
    const read = await clientAs(t, owner)('GET', `/logs?serviceId=${tree.serviceId}&limit=1`);
    expect(read.json.data.map((line: { text: string }) => line.text)).toEqual(['just now']);
  });

  test('401 without credentials; 404 for another organization; 422 for no target, two targets, a bad time or cursor', async () => {
    const { t, tree, owner } = world();
    expect((await clientAs(t)('GET', `/logs?serviceId=${tree.serviceId}`)).status).toBe(401);
    const stranger = clientAs(t, createOwner(t));
    expect((await stranger('GET', `/logs?serviceId=${tree.serviceId}`)).json.error.code).toBe('not_found');
    expect((await stranger('GET', `/logs/download?environmentId=${tree.environmentId}`)).status).toBe(404);
    const as = clientAs(t, owner);
    expect((await as('GET', '/logs')).status).toBe(422);
    expect((await as('GET', `/logs?serviceId=${tree.serviceId}&environmentId=${tree.environmentId}`)).status).toBe(422);
    expect((await as('GET', `/logs?serviceId=${tree.serviceId}&since=yesterday`)).json.error.path).toBe('since');
    expect((await as('GET', `/logs?serviceId=${tree.serviceId}&cursor=abc`)).json.error.path).toBe('cursor');
    expect((await as('GET', `/logs?serviceId=${tree.serviceId}&since=2026-01-02T00:00:00Z&until=2026-01-01T00:00:00Z`)).status).toBe(422);
  });
});

describe('GET /logs/download', () => {
  test('the lines as text, oldest first, one per line with time, container and stream', async () => {
    const { t, tree, member } = world();
    const res = await clientAs(t, member)('GET', `/logs/download?environmentId=${tree.environmentId}&stream=stderr`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toStartWith('text/plain');
    expect(res.headers.get('content-disposition')).toStartWith('attachment; filename="logs-environment-');
    expect(res.text).toBe('2026-01-01T00:00:00.500Z worker-1 stderr worker 0\n2026-01-01T00:00:01.500Z worker-1 stderr worker 1\n');
  });
});
