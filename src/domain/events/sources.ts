/**
 * The events the platform itself raises, worded for people: deploy outcomes, servers connecting
 * and disconnecting, and container state changes seen between deploys.
 */
import type { Container, Deployment, Server } from '../../db/schema/index.ts';
import { findEnvironment } from '../environments/queries.ts';
import { findProject } from '../projects/queries.ts';
import type { Queryable } from '../shared/database.ts';
import type { NewEventInput } from './record.ts';

const VERB = { deploy: 'Deploy', stop: 'Stop', destroy: 'Destroy' } as const;

/** `<project> / <environment>`, or the environment id when it is gone. */
function environmentLabel(db: Queryable, environmentId: string): { organizationId: string; label: string } | null {
  const environment = findEnvironment(db, environmentId);
  if (!environment) return null;
  const project = findProject(db, environment.projectId);
  return { organizationId: environment.organizationId, label: `${project?.name ?? 'project'} / ${environment.name ?? 'environment'}` };
}

/** A finished deployment (succeeded or failed); null while it runs or when its environment is gone. */
export function deploymentEvent(db: Queryable, row: Deployment): NewEventInput | null {
  if (row.status !== 'succeeded' && row.status !== 'failed') return null;
  const owner = environmentLabel(db, row.environmentId);
  if (!owner) return null;
  const ok = row.status === 'succeeded';
  return {
    organizationId: owner.organizationId,
    kind: `deployment.${row.status}`,
    severity: ok ? 'info' : 'error',
    message: `${VERB[row.kind]} of ${owner.label} ${ok ? 'succeeded' : `failed${row.error ? `: ${row.error.slice(0, 500)}` : ''}`}`,
    serverId: row.serverId,
    environmentId: row.environmentId,
    deploymentId: row.id,
    data: { kind: row.kind, generation: row.desiredGeneration },
  };
}

export function serverEvent(row: Server, connected: boolean): NewEventInput {
  return {
    organizationId: row.organizationId,
    kind: connected ? 'server.connected' : 'server.disconnected',
    severity: connected ? 'info' : 'warning',
    message: `Server ${row.name} ${connected ? 'connected' : 'disconnected'}`,
    serverId: row.id,
    data: row.hostname ? { hostname: row.hostname } : null,
  };
}

const CONTAINER_KINDS: Partial<Record<Container['status'], { kind: string; severity: NewEventInput['severity']; says: string }>> = {
  running: { kind: 'container.started', severity: 'info', says: 'is running' },
  exited: { kind: 'container.exited', severity: 'warning', says: 'exited' },
  dead: { kind: 'container.died', severity: 'error', says: 'is dead' },
  restarting: { kind: 'container.restarting', severity: 'warning', says: 'is restarting' },
  paused: { kind: 'container.paused', severity: 'info', says: 'was paused' },
  unknown: { kind: 'container.unknown', severity: 'warning', says: 'is in a state Panel does not know' },
};

/**
 * One event per container whose status changed (between deploys: a crash, an OOM kill, a
 * restart, a manual start), with the runtime's own words when it gave them (`Exited (137) …`).
 */
export function containerEvents(
  db: Queryable,
  environmentId: string,
  serverId: string,
  before: ReadonlyMap<string, Container['status']>,
  changed: readonly Container[],
  statusText: ReadonlyMap<string, string>,
): NewEventInput[] {
  const owner = environmentLabel(db, environmentId);
  if (!owner) return [];
  const events: NewEventInput[] = [];
  for (const row of changed) {
    const previous = before.get(row.id);
    if (previous === row.status) continue;
    const wording = CONTAINER_KINDS[row.status];
    if (!wording) continue;
    const status = row.containerId ? statusText.get(row.containerId) : undefined;
    const exitCode = status ? /^Exited \((\d+)\)/.exec(status)?.[1] : undefined;
    const crashed = wording.kind === 'container.exited' && exitCode !== undefined && exitCode !== '0';
    events.push({
      organizationId: owner.organizationId,
      kind: wording.kind,
      severity: crashed ? 'error' : wording.kind === 'container.exited' && exitCode === '0' ? 'info' : wording.severity,
      message: `${row.containerName} (${owner.label}) ${wording.says}${exitCode !== undefined ? ` with code ${exitCode}${exitCode === '137' ? ' (killed: out of memory or stopped forcibly)' : ''}` : ''}`,
      serverId,
      environmentId,
      serviceId: row.serviceId,
      containerId: row.id,
      data: { from: previous ?? null, to: row.status, ...(status ? { status } : {}), ...(exitCode !== undefined ? { exitCode: Number(exitCode) } : {}) },
    });
  }
  return events;
}
