import { describe, expect, test } from 'bun:test';
import type { Container } from '../deploy-api.ts';
import { changesReplicas, narrowedTarget, type PanelEvent, replicaChoices } from './observe-api.ts';

const row = (ordinal: number, fields: Partial<Container> = {}): Container => ({
  id: `row-${ordinal}`,
  serviceId: 'service-1',
  serverId: 'server-1',
  containerId: `docker-${ordinal}`,
  containerName: `web-${ordinal}`,
  status: 'running',
  isRemoved: false,
  role: 'service',
  composeServiceName: 'web',
  ordinal,
  metadata: null,
  options: null,
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
  ...fields,
});

describe("a service's replica choices", () => {
  test('the rows that still exist, by ordinal, named by replica and, when not running, their state', () => {
    const rows = [row(3, { status: 'exited' }), row(1), row(2, { isRemoved: true }), row(4, { role: 'ingress' })];
    expect(replicaChoices(rows)).toEqual([
      { value: 'row-1', label: '#1' },
      { value: 'row-3', label: '#3 (exited)' },
    ]);
  });

  test('the view reads the chosen replica while it is offered, else the whole service', () => {
    const choices = replicaChoices([row(1), row(2)]);
    expect(narrowedTarget({ serviceId: 'service-1' }, 'row-2', choices)).toEqual({ containerId: 'row-2' });
    expect(narrowedTarget({ serviceId: 'service-1' }, '', choices)).toEqual({ serviceId: 'service-1' });
    // The replica went away (scaled down, removed): back to every replica rather than an empty view.
    expect(narrowedTarget({ serviceId: 'service-1' }, 'row-9', choices)).toEqual({ serviceId: 'service-1' });
  });

  test('a container event of the service, or a finished deploy of its environment, rereads the replicas', () => {
    const event = (fields: Partial<PanelEvent>): PanelEvent => ({
      id: 'event-1',
      organizationId: 'organization-1',
      kind: 'container.started',
      severity: 'info',
      message: 'web-2 is running',
      serverId: 'server-1',
      environmentId: 'environment-1',
      serviceId: null,
      containerId: null,
      deploymentId: null,
      data: null,
      createdAt: '2026-01-01T00:00:00.000Z',
      ...fields,
    });
    expect(changesReplicas(event({ serviceId: 'service-1' }), 'service-1', 'environment-1')).toBe(true);
    expect(changesReplicas(event({ kind: 'deployment.succeeded' }), 'service-1', 'environment-1')).toBe(true);
    expect(changesReplicas(event({ kind: 'deployment.failed' }), 'service-1', 'environment-1')).toBe(true);
    // Another service's container, another environment's deploy, a server event: nothing to reread.
    expect(changesReplicas(event({ serviceId: 'service-2' }), 'service-1', 'environment-1')).toBe(false);
    expect(changesReplicas(event({ kind: 'deployment.succeeded', environmentId: 'environment-2' }), 'service-1', 'environment-1')).toBe(false);
    expect(changesReplicas(event({ kind: 'server.connected', environmentId: null }), 'service-1', 'environment-1')).toBe(false);
    // Before the service's environment is known, only the service's own container events count.
    expect(changesReplicas(event({ kind: 'deployment.succeeded' }), 'service-1', undefined)).toBe(false);
  });
});
