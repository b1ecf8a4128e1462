/**
 * Durable commands through the hub: delivery on connect and reconnect (oldest first), never
 * twice on one connection, compare-and-set transitions, payload cleared at every terminal state,
 * expiry, and acks or results from the wrong daemon changing nothing.
 */
import { describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { PANEL_LABELS } from '../compose/naming.ts';
import { container, daemonCommand, deployment } from '../db/schema/index.ts';
import { insertCommand } from '../domain/commands/service.ts';
import { insertDeployment } from '../domain/deployments/queries.ts';
import { enrolledServer, FakeSocket, helloFrame } from '../../test/daemon.ts';
import { createTestApp, type TestApp } from '../../test/harness.ts';
import { createOwner } from '../../test/identity.ts';
import { seedTree } from '../../test/seed.ts';
import type { HubConnection } from './hub/connection.ts';

const HOUR = 3_600_000;

function setup() {
  const t = createTestApp();
  const owner = createOwner(t);
  const tree = seedTree(t, owner.organizationId);
  const node = enrolledServer(t, owner.organizationId);
  const queue = (kind: 'deploy' | 'stop' | 'destroy' = 'stop', ttl = HOUR) => {
    const row = insertDeployment(t.db, { environmentId: tree.environmentId, serverId: node.id, kind, desiredGeneration: 0 });
    const payload = { deploymentId: row.id, project: `pn-${tree.environmentId}` };
    return insertCommand(t.db, { serverId: node.id, deploymentId: row.id, kind, payload, expiresAt: new Date(t.clock.now().getTime() + ttl) });
  };
  const connect = () => {
    const socket = new FakeSocket();
    const connection = t.hub.open(socket, { listener: 'tcp', serverId: node.id });
    t.hub.receive(connection, JSON.stringify(helloFrame({ serverId: node.id, machineId: node.machineId })));
    return { socket, connection };
  };
  return { t, owner, tree, node, queue, connect };
}

const commandRow = (t: TestApp, id: string) => t.db.select().from(daemonCommand).where(eq(daemonCommand.id, id)).get()!;
/** The deployment of a deploy, stop or destroy command (theirs is never null). */
const deploymentRow = (t: TestApp, id: string | null) => t.db.select().from(deployment).where(eq(deployment.id, id!)).get()!;
const send = (t: TestApp, connection: HubConnection, frame: object) => t.hub.receive(connection, JSON.stringify(frame));

describe('command lifecycle', () => {
  test('queued -> delivered -> acknowledged -> succeeded; the payload is cleared at the end', () => {
    const { t, queue, connect } = setup();
    const command = queue('stop');
    expect(commandRow(t, command.id).status).toBe('queued');
    const { socket, connection } = connect();
    const [frame] = socket.framesOf('command');
    expect(frame).toEqual({ type: 'command', id: command.id, kind: 'stop', payload: command.payload as never });
    expect(commandRow(t, command.id).status).toBe('delivered');

    send(t, connection, { type: 'ack', id: command.id });
    expect(commandRow(t, command.id).status).toBe('acknowledged');
    expect(deploymentRow(t, command.deploymentId).status).toBe('running');

    send(t, connection, { type: 'result', id: command.id, ok: true, data: {} });
    const done = commandRow(t, command.id);
    expect(done).toMatchObject({ status: 'succeeded', payload: null, error: null });
    expect(done.finishedAt).not.toBeNull();
    expect(deploymentRow(t, command.deploymentId)).toMatchObject({ status: 'succeeded', error: null });
  });

  test("a failed result fails the deployment with the agent's error", () => {
    const { t, queue, connect } = setup();
    const command = queue('deploy');
    const { connection } = connect();
    send(t, connection, { type: 'ack', id: command.id });
    send(t, connection, { type: 'result', id: command.id, ok: false, error: { code: 'compose_up_failed', message: 'pull access denied' } });
    expect(commandRow(t, command.id)).toMatchObject({ status: 'failed', payload: null, error: 'compose_up_failed: pull access denied' });
    expect(deploymentRow(t, command.deploymentId)).toMatchObject({ status: 'failed', error: 'compose_up_failed: pull access denied' });
  });

  test('commands queued while offline are delivered on connect, oldest first; dispatch sends only new ones', () => {
    const { t, node, queue, connect } = setup();
    const first = queue();
    const second = queue();
    expect(t.hub.dispatch(node.id)).toBe(0); // nobody connected
    const { socket } = connect();
    expect(socket.framesOf('command').map((frame) => frame.id)).toEqual([first.id, second.id]);
    expect(socket.frames()[0]!.type).toBe('welcome');
    const third = queue();
    expect(t.hub.dispatch(node.id)).toBe(1);
    expect(t.hub.dispatch(node.id)).toBe(0);
    expect(socket.framesOf('command').map((frame) => frame.id)).toEqual([first.id, second.id, third.id]);
  });

  test('never delivered twice on one connection; a reconnect gets the unfinished ones again, never the finished', () => {
    const { t, node, queue, connect } = setup();
    const finished = queue();
    const pending = queue();
    const a = connect();
    send(t, a.connection, { type: 'ack', id: finished.id });
    send(t, a.connection, { type: 'result', id: finished.id, ok: true });
    send(t, a.connection, { type: 'ack', id: pending.id });
    t.hub.dispatch(node.id);
    t.hub.dispatch(node.id);
    expect(a.socket.framesOf('command').map((frame) => frame.id)).toEqual([finished.id, pending.id]);

    t.hub.closed(a.connection, 1006, '');
    const b = connect();
    expect(b.socket.framesOf('command').map((frame) => frame.id)).toEqual([pending.id]);
    // The redelivered command keeps its state; the daemon's journal answers it with the result.
    expect(commandRow(t, pending.id).status).toBe('acknowledged');
    send(t, b.connection, { type: 'ack', id: pending.id });
    send(t, b.connection, { type: 'result', id: pending.id, ok: true });
    expect(commandRow(t, pending.id).status).toBe('succeeded');
  });

  test('duplicate results change nothing (compare-and-set)', () => {
    const { t, queue, connect } = setup();
    const command = queue();
    const { connection } = connect();
    send(t, connection, { type: 'result', id: command.id, ok: true });
    send(t, connection, { type: 'result', id: command.id, ok: false, error: { code: 'late', message: 'second answer' } });
    send(t, connection, { type: 'ack', id: command.id });
    expect(commandRow(t, command.id)).toMatchObject({ status: 'succeeded', error: null });
    expect(deploymentRow(t, command.deploymentId).status).toBe('succeeded');
  });

  test("another daemon's acks, results and reports change nothing", () => {
    const { t, owner, queue } = setup();
    const command = queue();
    const stranger = enrolledServer(t, owner.organizationId);
    const socket = new FakeSocket();
    const connection = t.hub.open(socket, { listener: 'tcp', serverId: stranger.id });
    send(t, connection, helloFrame({ serverId: stranger.id, machineId: stranger.machineId }));
    send(t, connection, { type: 'ack', id: command.id });
    send(t, connection, { type: 'result', id: command.id, ok: false, error: { code: 'x', message: 'y' } });
    send(t, connection, { type: 'report', commandId: command.id, project: (command.payload as { project: string }).project, containers: [] });
    expect(commandRow(t, command.id).status).toBe('queued');
    expect(deploymentRow(t, command.deploymentId).status).toBe('queued');
    expect(socket.closedWith).toBeNull();
  });
});

describe('reports on the daemon\'s own account (no command id)', () => {
  test('apply to an environment last deployed to this server only', () => {
    const { t, owner, tree, queue, connect } = setup();
    const project = `pn-${tree.environmentId}`;
    const listed = (serviceId: string) => ({
      containerId: 'c1',
      name: 'web-1',
      service: 'web',
      state: 'running',
      labels: { [PANEL_LABELS.serviceId]: serviceId, [PANEL_LABELS.role]: 'service', [PANEL_LABELS.ordinal]: '1' },
    });
    const { connection } = connect();
    // Never deployed here: ignored.
    send(t, connection, { type: 'report', project, containers: [listed(tree.serviceId)] });
    expect(t.db.select().from(container).all()).toEqual([]);
    queue('deploy');
    send(t, connection, { type: 'report', project, containers: [listed(tree.serviceId)] });
    expect(t.db.select().from(container).all()).toMatchObject([{ serviceId: tree.serviceId, containerId: 'c1', status: 'running' }]);
    // Another organization's environment, or a project name that names none: ignored.
    const foreign = seedTree(t, createOwner(t).organizationId);
    send(t, connection, { type: 'report', project: `pn-${foreign.environmentId}`, containers: [listed(foreign.serviceId)] });
    send(t, connection, { type: 'report', project: 'someone-else', containers: [] });
    expect(t.db.select().from(container).all()).toHaveLength(1);
    expect(owner.organizationId).not.toBe(foreign.organizationId);
  });

  test('a state outside the list is stored as unknown and the connection stays open', () => {
    const { t, tree, queue, connect } = setup();
    queue('deploy');
    const { socket, connection } = connect();
    const labels = { [PANEL_LABELS.serviceId]: tree.serviceId, [PANEL_LABELS.role]: 'service', [PANEL_LABELS.ordinal]: '1' };
    for (const state of ['hibernating', 'Running', '', 42, null]) {
      send(t, connection, { type: 'report', project: `pn-${tree.environmentId}`, containers: [{ containerId: 'c1', name: 'web-1', service: 'web', state, labels }] });
      expect(t.db.select().from(container).all()).toMatchObject([{ containerId: 'c1', status: 'unknown' }]);
      send(t, connection, { type: 'report', project: `pn-${tree.environmentId}`, containers: [{ containerId: 'c1', name: 'web-1', service: 'web', state: 'running', labels }] });
      expect(t.db.select().from(container).all()).toMatchObject([{ status: 'running' }]);
    }
    expect(socket.closedWith).toBeNull();
  });
});

describe('expiry', () => {
  test('the sweep expires open commands past their TTL, clears the payload and fails the deployment', () => {
    const { t, node, queue, connect } = setup();
    const stale = queue('deploy', HOUR);
    const fresh = queue('stop', 2 * HOUR);
    t.hub.tick(); // the first tick sweeps
    expect(commandRow(t, stale.id).status).toBe('queued');
    t.clock.advance(HOUR);
    t.hub.tick();
    expect(commandRow(t, stale.id)).toMatchObject({ status: 'expired', payload: null });
    expect(commandRow(t, stale.id).error).toStartWith('command_expired');
    expect(deploymentRow(t, stale.deploymentId)).toMatchObject({ status: 'failed' });
    expect(deploymentRow(t, stale.deploymentId).error).toStartWith('command_expired');
    expect(commandRow(t, fresh.id).status).toBe('queued');

    // An expired command is never delivered, and a late result for it is ignored.
    const { socket, connection } = connect();
    expect(socket.framesOf('command').map((frame) => frame.id)).toEqual([fresh.id]);
    send(t, connection, { type: 'result', id: stale.id, ok: true });
    expect(commandRow(t, stale.id).status).toBe('expired');
    expect(t.hub.dispatch(node.id)).toBe(0);
  });

  test('a command past its expiry is not delivered even before the sweep runs', () => {
    const { t, queue, connect } = setup();
    queue('stop', 1_000);
    t.clock.advance(1_000);
    const { socket } = connect();
    expect(socket.framesOf('command')).toEqual([]);
  });
});
