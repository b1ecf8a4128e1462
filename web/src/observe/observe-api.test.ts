import { describe, expect, test } from 'bun:test';
import type { Container } from '../deploy-api.ts';
import { narrowedTarget, replicaChoices } from './observe-api.ts';

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
});
