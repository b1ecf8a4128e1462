import { describe, expect, test } from 'bun:test';
import { candidateKind, chooseEndpoint, type FabricMember, fabricConfigHash, fabricConfigs } from './config.ts';

const KEY = (n: number) => `${String.fromCharCode(65 + n).repeat(42)}A=`;
const member = (n: number, overrides: Partial<FabricMember> = {}): FabricMember => ({
  serverId: `0194000${n}-0000-7000-8000-000000000000`,
  publicKey: KEY(n),
  meshAddress: `10.209.0.${n}`,
  listenPort: 51819 + n,
  candidates: [`198.18.0.1${n}`],
  endpoint: null,
  datacenter: null,
  ...overrides,
});
const SETTINGS = { meshRange: '10.209.0.0/16', containerRange: '10.210.0.0/16' };

describe('peer sets', () => {
  test('every member peers with every other, never itself, in server id order', () => {
    const configs = fabricConfigs(SETTINGS, [member(3), member(1), member(2)]);
    expect([...configs.keys()]).toEqual([member(1).serverId, member(2).serverId, member(3).serverId]);
    const second = configs.get(member(2).serverId)!;
    expect(second).toEqual({
      address: '10.209.0.2/16',
      listenPort: 51821,
      mtu: 1420,
      containerRange: '10.210.0.0/16',
      peers: [
        { serverId: member(1).serverId, publicKey: KEY(1), meshAddress: '10.209.0.1', endpoint: '198.18.0.11:51820' },
        { serverId: member(3).serverId, publicKey: KEY(3), meshAddress: '10.209.0.3', endpoint: '198.18.0.13:51822' },
      ],
    });
  });

  test('a removed member vanishes from every peer list', () => {
    const configs = fabricConfigs(SETTINGS, [member(1), member(2)]);
    for (const config of configs.values()) expect(config.peers.map((peer) => peer.serverId)).not.toContain(member(3).serverId);
    expect(configs.get(member(1).serverId)!.peers).toHaveLength(1);
  });

  test('a lone member has no peers', () => {
    expect(fabricConfigs(SETTINGS, [member(1)]).get(member(1).serverId)!.peers).toEqual([]);
  });
});

describe('endpoints', () => {
  const publicAndPrivate = ['10.0.0.5', '2001:db8::5', '203.0.113.5'];

  test('an admin-set endpoint wins; without a port it takes the listen port', () => {
    expect(chooseEndpoint(member(1), member(2, { endpoint: 'node2.example.net' }))).toBe('node2.example.net:51821');
    expect(chooseEndpoint(member(1), member(2, { endpoint: 'node2.example.net:4000' }))).toBe('node2.example.net:4000');
    expect(chooseEndpoint(member(1), member(2, { endpoint: '[2001:db8::2]' }))).toBe('[2001:db8::2]:51821');
    expect(chooseEndpoint(member(1), member(2, { endpoint: '[2001:db8::2]:7' }))).toBe('[2001:db8::2]:7');
  });

  test('same datacenter: the private address; otherwise public IPv4, then IPv6', () => {
    const to = member(2, { candidates: publicAndPrivate, datacenter: 'fra1' });
    expect(chooseEndpoint(member(1, { datacenter: 'fra1' }), to)).toBe('10.0.0.5:51821');
    expect(chooseEndpoint(member(1, { datacenter: 'ams1' }), to)).toBe('203.0.113.5:51821');
    expect(chooseEndpoint(member(1), to)).toBe('203.0.113.5:51821');
    expect(chooseEndpoint(member(1), member(2, { candidates: ['10.0.0.5', '2001:db8::5'] }))).toBe('[2001:db8::5]:51821');
    expect(chooseEndpoint(member(1), member(2, { candidates: ['10.0.0.5'] }))).toBe('10.0.0.5:51821');
    expect(chooseEndpoint(member(1), member(2, { candidates: [] }))).toBeNull();
  });

  test('candidate kinds', () => {
    expect(['10.1.2.3', '172.20.0.1', '192.168.1.1', '100.100.0.1', 'fd00::1', '8.8.8.8', '2001:db8::1'].map(candidateKind)).toEqual([
      'private',
      'private',
      'private',
      'private',
      'private',
      'public-ipv4',
      'public-ipv6',
    ]);
  });

  test('an endpoint change changes only the configurations that list that peer', () => {
    const before = fabricConfigs(SETTINGS, [member(1), member(2), member(3)]);
    const after = fabricConfigs(SETTINGS, [member(1), member(2, { endpoint: '192.0.2.2' }), member(3)]);
    const changed = [...before.keys()].filter((id) => fabricConfigHash(before.get(id)!) !== fabricConfigHash(after.get(id)!));
    expect(changed).toEqual([member(1).serverId, member(3).serverId]);
  });
});

describe('hash', () => {
  test('stable across runs and key order, sha256 of the JSON in one field order', () => {
    const config = fabricConfigs(SETTINGS, [member(1), member(2)]).get(member(1).serverId)!;
    const reordered = JSON.parse(JSON.stringify({ peers: config.peers, mtu: config.mtu, containerRange: config.containerRange, listenPort: config.listenPort, address: config.address }));
    expect(fabricConfigHash(reordered)).toBe(fabricConfigHash(config));
    expect(fabricConfigHash(config)).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(fabricConfigHash({ ...config, listenPort: 1 })).not.toBe(fabricConfigHash(config));
  });
});
