/**
 * Fixtures for observability tests: an organization with a connected daemon (announcing the
 * observability features) and a container row, and builders for the frames a daemon sends.
 */
import { container, type ContainerRole } from '../src/db/schema/index.ts';
import type { ContainerLines, Frame, Line } from '../src/contract/daemon-protocol.ts';
import { enrolledServer, FakeSocket, helloFrame, sayHello } from './daemon.ts';
import { createTestApp, type TestApp } from './harness.ts';
import { createOwner } from './identity.ts';
import { seedTree } from './seed.ts';

let dockerIds = 0;

export function observedWorld(t: TestApp = createTestApp()) {
  const owner = createOwner(t);
  const tree = seedTree(t, owner.organizationId);
  const node = enrolledServer(t, owner.organizationId);
  const row = t.db
    .insert(container)
    .values({ serviceId: tree.serviceId, serverId: node.id, containerName: 'web-1', composeServiceName: 'web', role: 'service', ordinal: 1 })
    .returning()
    .get();
  const socket = new FakeSocket();
  const connection = t.hub.open(socket, { listener: 'tcp', serverId: node.id });
  const send = (frame: Frame | object) => t.hub.receive(connection, JSON.stringify(frame));
  sayHello(t, connection, helloFrame({ serverId: node.id, machineId: node.machineId, features: ['output', 'logs', 'metrics', 'watch'] }));
  return { t, owner, tree, node, row, socket, connection, send };
}

export type ObservedWorld = ReturnType<typeof observedWorld>;

/** The slot of a container of `serviceId` in `environmentId` as the agent reads its labels. */
export function slot(environmentId: string, serviceId: string, fields: { containerId?: string; name?: string; role?: ContainerRole; ordinal?: number } = {}) {
  return {
    containerId: fields.containerId ?? `docker${++dockerIds}`.padEnd(64, '0'),
    name: fields.name ?? 'web-1',
    environmentId,
    serviceId,
    role: fields.role ?? 'service',
    ordinal: fields.ordinal ?? 1,
  };
}

export function logsFrame(containers: ContainerLines[]): Frame {
  return { type: 'logs', containers };
}

/** `count` lines, one a second from `start`, each `width` characters wide. */
export function lines(start: number, count: number, text = (i: number) => `line ${i}`, stream: Line[1] = 'stdout'): Line[] {
  return Array.from({ length: count }, (_, i) => [start + i * 1000, stream, text(i)] as Line);
}
