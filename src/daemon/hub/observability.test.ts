/**
 * What the hub makes of what it sees: deploy logs from `output` frames (only for an open command
 * of the sending daemon), and the events feed: servers connecting and disconnecting, deploy
 * outcomes, container state changes reported between deploys; each bounded.
 */
import { describe, expect, test } from 'bun:test';
import { eq, sql } from 'drizzle-orm';
import { PANEL_LABELS } from '../../compose/naming.ts';
import { type Event, event } from '../../db/schema/index.ts';
import { insertCommand } from '../../domain/commands/service.ts';
import { deploymentLogOf, MAX_DEPLOYMENT_LOG_LINES } from '../../domain/deployments/logs.ts';
import { insertDeployment } from '../../domain/deployments/queries.ts';
import { countEvents, MAX_EVENTS_PER_ORGANIZATION, pruneEvents } from '../../domain/events/queries.ts';
import { enrolledServer, FakeSocket, helloFrame, sayHello } from '../../../test/daemon.ts';
import { observedWorld } from '../../../test/observe.ts';
import { insertRow } from '../../../test/db.ts';
import type { DeploymentLogEvent } from './observability.ts';

function withCommand(kind: 'deploy' | 'stop' = 'deploy') {
  const world = observedWorld();
  const { t, tree, node } = world;
  const deployment = insertDeployment(t.db, { environmentId: tree.environmentId, serverId: node.id, kind, desiredGeneration: 1 });
  const command = insertCommand(t.db, {
    serverId: node.id,
    deploymentId: deployment.id,
    kind,
    payload: { deploymentId: deployment.id, project: `pn-${tree.environmentId}` },
    expiresAt: new Date(t.clock.now().getTime() + 3_600_000),
  });
  t.hub.dispatch(node.id);
  return { ...world, deployment, command };
}

const eventsOf = (world: ReturnType<typeof observedWorld>) =>
  world.t.db.select().from(event).where(eq(event.organizationId, world.owner.organizationId)).orderBy(event.id).all();

describe('deploy logs', () => {
  test("output of an open command is kept on its deployment, in order, and handed to its live readers", () => {
    const { t, send, command, deployment } = withCommand();
    const live: DeploymentLogEvent[] = [];
    t.hub.observe.deploymentLogs.add(deployment.id, (entry) => void live.push(entry));
    send({ type: 'ack', id: command.id });
    send({ type: 'output', commandId: command.id, lines: [[1, 'stdout', '▸ Pulling'], [2, 'stderr', 'pull access denied for nope/nope']] });
    send({ type: 'output', commandId: command.id, omitted: 40, lines: [[3, 'stderr', 'the end']] });
    const expected: any[] = [
      { seq: 1, at: 1, stream: 'stdout', text: '▸ Pulling' },
      { seq: 2, at: 2, stream: 'stderr', text: 'pull access denied for nope/nope' },
      { seq: 3, at: 3, stream: 'panel', text: expect.stringContaining('40 lines of output left out') },
      { seq: 4, at: 3, stream: 'stderr', text: 'the end' },
    ];
    expect(deploymentLogOf(t.db, deployment.id)).toEqual(expected);
    expect(live.flatMap((entry) => entry.lines)).toEqual(expected);
  });

  test("output after the result, for another server's command or an unknown one, is dropped", () => {
    const world = withCommand();
    const { t, send, command, deployment, owner } = world;
    const other = enrolledServer(t, owner.organizationId);
    const otherSocket = new FakeSocket();
    const otherConnection = t.hub.open(otherSocket, { listener: 'tcp', serverId: other.id });
    sayHello(t, otherConnection, helloFrame({ serverId: other.id, machineId: other.machineId }));
    t.hub.receive(otherConnection, JSON.stringify({ type: 'output', commandId: command.id, lines: [[1, 'stdout', 'not yours']] }));
    send({ type: 'output', commandId: 'no-such-command', lines: [[1, 'stdout', 'nobody']] });
    send({ type: 'result', id: command.id, ok: true });
    send({ type: 'output', commandId: command.id, lines: [[1, 'stdout', 'too late']] });
    expect(deploymentLogOf(t.db, deployment.id)).toEqual([]);
  });

  test('a deploy placed on two servers says whose output each line is', () => {
    const { t, send, command, deployment, owner } = withCommand();
    const other = enrolledServer(t, owner.organizationId, { name: 'edge-2' });
    insertCommand(t.db, { serverId: other.id, deploymentId: deployment.id, kind: 'deploy', payload: {}, expiresAt: new Date(t.clock.now().getTime() + 60_000) });
    send({ type: 'output', commandId: command.id, lines: [[1, 'stdout', 'pulled']] });
    const [line] = deploymentLogOf(t.db, deployment.id);
    expect(line!.text).toMatch(/^\[node-\d+\] pulled$/);
  });

  test(`a deployment keeps at most ${MAX_DEPLOYMENT_LOG_LINES} lines`, () => {
    const { t, send, command, deployment } = withCommand();
    for (let frame = 0; frame < 6; frame++) {
      send({ type: 'output', commandId: command.id, lines: Array.from({ length: 1_000 }, (_, i) => [i, 'stdout', `line ${frame * 1000 + i}`]) });
    }
    const kept = deploymentLogOf(t.db, deployment.id);
    expect(kept).toHaveLength(MAX_DEPLOYMENT_LOG_LINES);
    expect(kept.at(-1)!.text).toBe(`line ${MAX_DEPLOYMENT_LOG_LINES - 1}`);
  });
});

describe('events', () => {
  test('a server connecting and disconnecting, each once, to live readers too', () => {
    const world = observedWorld();
    const live: Event[] = [];
    world.t.hub.observe.eventFeed.add(world.owner.organizationId, (row) => void live.push(row));
    world.t.hub.closed(world.connection, 1000, 'bye');
    // Disconnects are written in batches after the turn that closed them.
    world.t.hub.flushDisconnects();
    expect(eventsOf(world).map((row) => [row.kind, row.severity, row.serverId])).toEqual([
      ['server.connected', 'info', world.node.id],
      ['server.disconnected', 'warning', world.node.id],
    ]);
    expect(live.map((row) => row.kind)).toEqual(['server.disconnected']);
  });

  test('a failed deploy is an error event naming the environment and the reason', () => {
    const world = withCommand();
    const { send, command, deployment } = world;
    send({ type: 'result', id: command.id, ok: false, error: { code: 'compose_up_failed', message: 'pull access denied for nope/nope' } });
    const [failed] = eventsOf(world).filter((row) => row.kind.startsWith('deployment.'));
    expect(failed).toMatchObject({ kind: 'deployment.failed', severity: 'error', deploymentId: deployment.id, environmentId: deployment.environmentId });
    expect(failed!.message).toContain('Deploy of ');
    expect(failed!.message).toContain('pull access denied');
  });

  test('containers changing state between deploys are events with the exit code; a deploy report raises none', () => {
    const world = withCommand();
    const { send, tree, command, row } = world;
    const project = `pn-${tree.environmentId}`;
    const reported = (state: string, status: string) => ({
      containerId: 'd'.repeat(64),
      name: 'web-1',
      service: 'web',
      state,
      status,
      labels: { [PANEL_LABELS.serviceId]: tree.serviceId, [PANEL_LABELS.role]: 'service', [PANEL_LABELS.ordinal]: '1' },
    });
    send({ type: 'report', commandId: command.id, project, containers: [reported('running', 'Up 1 second')] });
    send({ type: 'result', id: command.id, ok: true });
    send({ type: 'report', project, containers: [reported('exited', 'Exited (137) 2 seconds ago')] });
    send({ type: 'report', project, containers: [reported('exited', 'Exited (137) 3 seconds ago')] });
    const containerEvents = eventsOf(world).filter((entry) => entry.kind.startsWith('container.'));
    expect(containerEvents).toEqual([
      expect.objectContaining({ kind: 'container.exited', severity: 'error', containerId: row.id, serviceId: tree.serviceId, data: expect.objectContaining({ from: 'running', to: 'exited', exitCode: 137 }) }),
    ]);
    expect(containerEvents[0]!.message).toContain('code 137');
  });

  test(`an organization keeps its newest ${MAX_EVENTS_PER_ORGANIZATION} events and none older than 90 days`, () => {
    const world = observedWorld();
    const { t, owner } = world;
    const now = t.clock.now().getTime();
    t.sqlite.transaction(() => {
      insertRow(t.sqlite, 'event', { organization_id: owner.organizationId, kind: 'server.connected', severity: 'info', message: 'ancient', created_at: now - 91 * 86_400_000 });
      for (let i = 0; i < MAX_EVENTS_PER_ORGANIZATION + 10; i++) insertRow(t.sqlite, 'event', { organization_id: owner.organizationId, kind: 'server.connected', severity: 'info', message: `n${i}`, created_at: now });
    })();
    pruneEvents(t.db, t.clock.now());
    expect(countEvents(t.db, owner.organizationId)).toBe(MAX_EVENTS_PER_ORGANIZATION);
    const oldest = t.db.select({ message: event.message }).from(event).orderBy(event.id).limit(1).get();
    expect(oldest!.message).toBe('n10');
    expect(t.db.select({ n: sql<number>`count(*)` }).from(event).where(eq(event.message, 'ancient')).get()!.n).toBe(0);
  });
});
