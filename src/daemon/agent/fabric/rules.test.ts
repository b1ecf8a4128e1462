import { describe, expect, test } from 'bun:test';
import type { FabricConfig } from '../../../contract/fabric.ts';
import { iptablesRules, peerSubnets, type ProjectNetworks, wireguardConfig } from './rules.ts';

const A = '01940000-0000-7000-8000-0000000000a1';
const B = '01940000-0000-7000-8000-0000000000a2';
const KEY = (c: string) => `${c.repeat(43)}=`;

const CONFIG: FabricConfig = {
  address: '10.209.0.1/16',
  listenPort: 51820,
  mtu: 1420,
  containerRange: '10.210.0.0/16',
  peers: [
    { serverId: A, publicKey: KEY('a'), meshAddress: '10.209.0.2', endpoint: '198.18.0.12:51821' },
    { serverId: B, publicKey: KEY('b'), meshAddress: '10.209.0.3', endpoint: null },
  ],
};

const project = (name: string, writtenAt: number, networks: ProjectNetworks['networks']): ProjectNetworks => ({ project: name, writtenAt, networks });
const SHOP = project('pn-shop', 1, [
  { network: 'mesh', bridge: 'pnf1', subnet: '10.210.1.0/24', internal: false, peers: [{ serverId: A, subnet: '10.210.2.0/24' }, { serverId: B, subnet: '10.210.3.0/24' }] },
]);
const BLOG = project('pn-blog', 2, [{ network: 'back', bridge: 'pnf4', subnet: '10.210.4.0/24', internal: true, peers: [{ serverId: A, subnet: '10.210.5.0/24' }] }]);

describe('the WireGuard configuration', () => {
  test('every peer with its mesh address and the subnets of the networks shared with it; keepalive; no endpoint when unknown', () => {
    expect(wireguardConfig('PRIVATE', CONFIG, [SHOP, BLOG])).toBe(
      [
        '[Interface]',
        'PrivateKey = PRIVATE',
        'ListenPort = 51820',
        '',
        '[Peer]',
        `PublicKey = ${KEY('a')}`,
        'AllowedIPs = 10.209.0.2/32, 10.210.2.0/24, 10.210.5.0/24',
        'Endpoint = 198.18.0.12:51821',
        'PersistentKeepalive = 25',
        '',
        '[Peer]',
        `PublicKey = ${KEY('b')}`,
        'AllowedIPs = 10.209.0.3/32, 10.210.3.0/24',
        'PersistentKeepalive = 25',
        '',
      ].join('\n'),
    );
  });

  test('a subnet two projects claim for different peers goes to the newer claim', () => {
    const stale = project('pn-old', 1, [{ network: 'x', bridge: 'pnf9', subnet: '10.210.9.0/24', internal: false, peers: [{ serverId: A, subnet: '10.210.7.0/24' }] }]);
    const fresh = project('pn-new', 5, [{ network: 'y', bridge: 'pnf8', subnet: '10.210.8.0/24', internal: false, peers: [{ serverId: B, subnet: '10.210.7.0/24' }] }]);
    expect(Object.fromEntries(peerSubnets([stale, fresh]))).toEqual({ [B]: ['10.210.7.0/24'] });
  });
});

describe('the forward and NAT rules', () => {
  test('each bridge admits its own network from the mesh and nothing else; internal networks reach only the mesh; the rest is masqueraded', () => {
    expect(iptablesRules('10.210.0.0/16', [SHOP, BLOG]).split('\n')).toEqual([
      '*filter',
      ':PANEL-FABRIC - [0:0]',
      '-A PANEL-FABRIC -i panelwg -o pnf1 -s 10.210.2.0/24,10.210.3.0/24 -d 10.210.1.0/24 -j ACCEPT',
      '-A PANEL-FABRIC -i pnf1 -o panelwg -s 10.210.1.0/24 -d 10.210.2.0/24,10.210.3.0/24 -j ACCEPT',
      '-A PANEL-FABRIC -i panelwg -o pnf4 -s 10.210.5.0/24 -d 10.210.4.0/24 -j ACCEPT',
      '-A PANEL-FABRIC -i pnf4 -o panelwg -s 10.210.4.0/24 -d 10.210.5.0/24 -j ACCEPT',
      '-A PANEL-FABRIC -i pnf4 ! -o pnf4 -j DROP',
      '-A PANEL-FABRIC -i panelwg -j DROP',
      '-A PANEL-FABRIC -o panelwg -j DROP',
      'COMMIT',
      '*nat',
      ':PANEL-FABRIC-NAT - [0:0]',
      '-A PANEL-FABRIC-NAT -s 10.210.1.0/24 ! -o pnf1 ! -d 10.210.0.0/16 -j MASQUERADE',
      'COMMIT',
      '',
    ]);
  });

  test('with no project the mesh carries nothing forwarded', () => {
    expect(iptablesRules('10.210.0.0/16', [])).toBe('*filter\n:PANEL-FABRIC - [0:0]\n-A PANEL-FABRIC -i panelwg -j DROP\n-A PANEL-FABRIC -o panelwg -j DROP\nCOMMIT\n*nat\n:PANEL-FABRIC-NAT - [0:0]\nCOMMIT\n');
  });
});
