import { describe, expect, test } from 'bun:test';
import { observedContainers } from './observe.ts';

const ORG = '0190a000-0000-7000-8000-0000000000a1';
const SHOP = '0190a000-0000-7000-8000-000000000001';
const OTHER = '0190a000-0000-7000-8000-000000000002';

const labels = (serviceId: string, extra: Record<string, string> = {}) => ({
  'dev.panel.organization-id': ORG,
  'dev.panel.service-id': serviceId,
  'dev.panel.role': 'service',
  ...extra,
});

const inspected = (overrides: Record<string, unknown>) => ({
  Name: '/shop-1',
  State: { Status: 'running' },
  Config: { Labels: labels(SHOP), ExposedPorts: { '8080/tcp': {}, '53/udp': {} } },
  HostConfig: { NetworkMode: 'pn-x_default' },
  NetworkSettings: { Networks: { 'pn-x_default': { IPAddress: '172.20.0.5', GlobalIPv6Address: '' } } },
  ...overrides,
});

describe('observed containers', () => {
  test('the bridge address, exposed tcp ports and readiness from the health check', () => {
    const found = observedContainers(
      [
        inspected({}),
        inspected({ Name: '/shop-2', State: { Status: 'running', Health: { Status: 'starting' } } }),
        inspected({ Name: '/shop-3', State: { Status: 'running', Health: { Status: 'healthy' } }, HostConfig: { NetworkMode: 'host' }, NetworkSettings: { Networks: { host: {} } } }),
        inspected({ Name: '/shop-4', HostConfig: { NetworkMode: 'none' }, NetworkSettings: { Networks: { none: {} } } }),
        inspected({ Name: '/shop-5', NetworkSettings: { Networks: { b: { IPAddress: '' , GlobalIPv6Address: 'fd00::9' }, a: { IPAddress: '' } } } }),
      ],
      ORG,
      new Set([SHOP]),
    );
    expect(found).toEqual([
      { serviceId: SHOP, name: 'shop-1', address: '172.20.0.5', exposedPorts: [8080], ready: true, condition: 'running' },
      { serviceId: SHOP, name: 'shop-2', address: '172.20.0.5', exposedPorts: [8080], ready: false, condition: 'starting' },
      { serviceId: SHOP, name: 'shop-3', address: '127.0.0.1', exposedPorts: [8080], ready: true, condition: 'healthy' },
      { serviceId: SHOP, name: 'shop-4', address: null, exposedPorts: [8080], ready: true, condition: 'running' },
      { serviceId: SHOP, name: 'shop-5', address: 'fd00::9', exposedPorts: [8080], ready: true, condition: 'running' },
    ]);
  });

  test("only the organization's routed services count; the ingress itself never does", () => {
    const found = observedContainers(
      [
        inspected({ Config: { Labels: labels(OTHER) } }),
        inspected({ Config: { Labels: { ...labels(SHOP), 'dev.panel.organization-id': '0190a000-0000-7000-8000-0000000000b2' } } }),
        inspected({ Config: { Labels: labels(SHOP, { 'dev.panel.role': 'ingress' }) } }),
        inspected({ Config: { Labels: null } }),
      ],
      ORG,
      new Set([SHOP]),
    );
    expect(found).toEqual([]);
  });
});
