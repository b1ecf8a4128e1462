/**
 * `driver: overlay` networks in compiled documents: plain bridges on one server, fabric bridges
 * (own /24, masquerade off, MTU 1420, routed) with fixed container addresses and extra_hosts on
 * the servers a network spans; allocations kept across deploys. The last test runs every
 * document through Compose v2's `config` (skipped with the reason when no binary can be had).
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CompileInput, type CompileResult, compile, type FabricSubnet, type ServerDocument } from './compile.ts';
import { findComposeBinary, runComposeConfig } from './compose-binary.ts';
import { parseComposeText } from './document.ts';
import { IDS } from './fixtures/compile/index.ts';
import type { PlannerServer } from './planner/plan.ts';
import { checkComposePolicy } from './policy/index.ts';
import type { JsonObject } from './values.ts';

const H = { h1: '01940000-0000-7000-8000-0000000000a1', h2: '01940000-0000-7000-8000-0000000000a2', h3: '01940000-0000-7000-8000-0000000000a3' };
const SERVERS: PlannerServer[] = [
  { id: H.h1, name: 'h1', hostname: 'h1', labels: { role: 'client' }, connected: true },
  { id: H.h2, name: 'h2', hostname: 'h2', labels: { role: 'server' }, connected: true },
  { id: H.h3, name: 'h3', hostname: 'h3', labels: { role: 'client' }, connected: true },
];
const nameOf = (id: string) => SERVERS.find((server) => server.id === id)!.name;

const SPANNING = `services:
  api:
    image: local/busybox:1
    networks: [mesh]
    deploy: {placement: {constraints: [node.labels.role == server]}}
  client:
    image: local/busybox:1
    networks: [mesh]
    deploy: {mode: global, placement: {constraints: [node.labels.role == client]}}
networks:
  mesh:
    driver: overlay
    attachable: true
    labels: {team: a}
`;

const recorded: { name: string; project: string; document: ServerDocument }[] = [];

function compileText(name: string, yaml: string, fabric: Partial<NonNullable<CompileInput['fabric']>> | null = {}, enabled = true, hostAccess = false): CompileResult {
  const base = parseComposeText(yaml).data;
  const keys = Object.keys(base.services as JsonObject);
  const result = compile({
    base,
    organizationId: IDS.organization,
    projectId: IDS.project,
    environmentId: IDS.environment,
    placement: { anchorServerId: H.h1, servers: SERVERS, previous: [], fabric: { enabled } },
    services: keys.map((key, i) => ({ id: `01940000-0000-7000-8000-00000000e${String(i).padStart(3, '0')}`, composeServiceName: key })),
    variablesOn: () => new Map(),
    principals: {},
    policy: { hostAccess },
    fabric: fabric === null ? undefined : { containerRange: '10.210.0.0/16', subnets: [], taken: [], ...fabric },
  });
  for (const document of result.documents) recorded.push({ name: `${name} on ${nameOf(document.serverId)}`, project: result.project, document });
  return result;
}

const documentOn = (result: CompileResult, server: keyof typeof H) => result.documents.find((document) => document.serverId === H[server])!;
const servicesOf = (document: ServerDocument) => document.model.services as Record<string, JsonObject>;
const networksOf = (document: ServerDocument) => document.model.networks as Record<string, JsonObject>;
const subnetsOf = (result: CompileResult) => Object.fromEntries(result.subnets.map((entry) => [`${entry.network}@${nameOf(entry.serverId)}`, entry.subnet]));

describe('a network on one server becomes a plain bridge', () => {
  test('a one-server plan: driver bridge, swarm-only keys dropped, no fabric, no subnet', () => {
    const result = compileText(
      'one server',
      'services: {web: {image: a, networks: [mesh]}, db: {image: a, networks: [mesh]}}\nnetworks: {mesh: {driver: overlay, attachable: true, driver_opts: {encrypted: "", com.docker.network.driver.mtu: "1400"}}}',
      null,
      false,
    );
    expect(result.documents).toHaveLength(1);
    expect(networksOf(result.documents[0]!).mesh).toEqual({ driver: 'bridge', driver_opts: { 'com.docker.network.driver.mtu': '1400' } });
    expect(result.documents[0]!.fabric).toEqual([]);
    expect(result.subnets).toEqual([]);
    expect(servicesOf(result.documents[0]!).web!.networks).toEqual(['mesh']);
  });

  test('a plan spanning servers whose overlay network stays on one of them needs no subnet', () => {
    const result = compileText(
      'overlay on the anchor only',
      'services: {web: {image: a, networks: [mesh]}, db: {image: a, networks: [mesh]}, worker: {image: a, deploy: {replicas: 2}}}\nnetworks: {mesh: {driver: overlay}}',
      null,
      false,
    );
    expect(result.documents.map((document) => nameOf(document.serverId))).toEqual(['h1', 'h2']);
    expect(networksOf(documentOn(result, 'h1')).mesh).toEqual({ driver: 'bridge' });
    expect(result.subnets).toEqual([]);
  });
});

describe('a network spanning servers becomes a fabric bridge on each', () => {
  const result = compileText('spanning', SPANNING, { taken: ['10.210.0.0/24'] });

  test('one /24 per server, the lowest free ones, in plan order', () => {
    expect(subnetsOf(result)).toEqual({ 'mesh@h1': '10.210.1.0/24', 'mesh@h2': '10.210.2.0/24', 'mesh@h3': '10.210.3.0/24' });
  });

  test('the bridge: its subnet, pnf<index>, masquerade off, MTU 1420, routed; labels kept, attachable dropped', () => {
    expect(networksOf(documentOn(result, 'h2')).mesh).toEqual({
      labels: { team: 'a' },
      driver: 'bridge',
      driver_opts: {
        'com.docker.network.bridge.name': 'pnf2',
        'com.docker.network.bridge.enable_ip_masquerade': 'false',
        'com.docker.network.driver.mtu': '1420',
        'com.docker.network.bridge.gateway_mode_ipv4': 'routed',
      },
      ipam: { config: [{ subnet: '10.210.2.0/24' }] },
    });
  });

  test('each container a fixed address; each service the addresses of the services elsewhere', () => {
    const api = servicesOf(documentOn(result, 'h2')).api!;
    expect(api.networks).toEqual({ mesh: { ipv4_address: '10.210.2.2' } });
    expect(api.extra_hosts).toEqual(['client:10.210.1.2', 'client:10.210.3.2']);
    const client = servicesOf(documentOn(result, 'h3')).client!;
    expect(client.networks).toEqual({ mesh: { ipv4_address: '10.210.3.2' } });
    // the client spans servers itself: its own name lists every replica, this one included
    expect(client.extra_hosts).toEqual(['api:10.210.2.2', 'client:10.210.1.2', 'client:10.210.3.2']);
  });

  test("the deploy command's fabric: the server's network with the other servers' subnets", () => {
    expect(documentOn(result, 'h1').fabric).toEqual([
      {
        network: 'mesh',
        bridge: 'pnf1',
        subnet: '10.210.1.0/24',
        internal: false,
        peers: [
          { serverId: H.h2, subnet: '10.210.2.0/24' },
          { serverId: H.h3, subnet: '10.210.3.0/24' },
        ],
      },
    ]);
  });
});

describe('allocations across deploys', () => {
  const first = compileText('first deploy', SPANNING);

  test('a redeploy keeps every subnet and address', () => {
    const again = compileText('redeploy', SPANNING, { subnets: first.subnets });
    expect(again.subnets).toEqual(first.subnets);
    expect(again.documents.map((document) => document.yaml)).toEqual(first.documents.map((document) => document.yaml));
  });

  test('a service joining keeps the others where they are', () => {
    const grown = SPANNING.replace('networks:\n  mesh:', '  cache:\n    image: local/busybox:1\n    networks: [mesh]\n    deploy: {placement: {constraints: [node.labels.role == server]}}\nnetworks:\n  mesh:');
    const again = compileText('a service joins', grown, { subnets: first.subnets });
    const h2 = again.subnets.find((entry) => entry.serverId === H.h2)!;
    expect(h2.hosts).toEqual({ 'api#1': 2, 'cache#1': 3 });
    expect(servicesOf(documentOn(again, 'h1')).client!.extra_hosts).toEqual(['api:10.210.1.2', 'client:10.210.0.2', 'client:10.210.2.2', 'cache:10.210.1.3']);
  });

  test('a server the network no longer spans gives its subnet back; a new one takes the lowest free', () => {
    const shrunk = SPANNING.replace('deploy: {mode: global, placement: {constraints: [node.labels.role == client]}}', 'deploy: {placement: {constraints: [node.hostname == h3]}}');
    const again = compileText('the network leaves h1', shrunk, { subnets: first.subnets });
    expect(subnetsOf(again)).toEqual({ 'mesh@h2': '10.210.1.0/24', 'mesh@h3': '10.210.2.0/24' });
    const previous: FabricSubnet[] = [{ network: 'mesh', serverId: H.h3, subnet: '10.210.7.0/24', hosts: { 'client#1': 9 } }];
    const moved = compileText('kept on h3', shrunk, { subnets: previous });
    expect(subnetsOf(moved)).toEqual({ 'mesh@h2': '10.210.0.0/24', 'mesh@h3': '10.210.7.0/24' });
    expect(servicesOf(documentOn(moved, 'h3')).client!.networks).toEqual({ mesh: { ipv4_address: '10.210.7.9' } });
  });
});

describe('what the document says is kept or explained', () => {
  test('internal: the daemon keeps it (an internal Docker bridge could not span servers)', () => {
    const result = compileText('internal', SPANNING.replace('attachable: true', 'internal: true'));
    expect(networksOf(documentOn(result, 'h1')).mesh!.internal).toBeUndefined();
    expect(documentOn(result, 'h1').fabric[0]!.internal).toBe(true);
  });

  test('several replicas on one server: one address per clone, all of them in the others extra_hosts', () => {
    const result = compileText(
      'clones',
      'services:\n  web: {image: a, networks: {mesh: {aliases: [www]}}, deploy: {replicas: 3, placement: {constraints: [node.labels.role == client]}}}\n  db: {image: a, networks: [mesh], deploy: {placement: {constraints: [node.labels.role == server]}}}\nnetworks: {mesh: {driver: overlay}}',
    );
    const h1 = servicesOf(documentOn(result, 'h1'));
    expect(Object.keys(h1).sort()).toEqual(['web-1', 'web-3']);
    expect(h1['web-1']!.networks).toEqual({ mesh: { aliases: ['www', 'web'], ipv4_address: '10.210.0.2' } });
    expect(h1['web-3']!.networks).toEqual({ mesh: { aliases: ['www', 'web'], ipv4_address: '10.210.0.3' } });
    expect(servicesOf(documentOn(result, 'h2')).db!.extra_hosts).toEqual(['web:10.210.0.2', 'web:10.210.2.2', 'web:10.210.0.3']);
  });

  test('authored extra_hosts are kept; one naming a service elsewhere wins over the fabric, with a warning', () => {
    const result = compileText('authored hosts', SPANNING.replace('    networks: [mesh]\n    deploy: {placement', '    networks: [mesh]\n    extra_hosts: {client: 10.9.9.9, db: [10.1.1.1]}\n    deploy: {placement'));
    expect(servicesOf(documentOn(result, 'h2')).api!.extra_hosts).toEqual(['client:10.9.9.9', 'db:10.1.1.1']);
    expect(result.warnings).toContain('services.api.extra_hosts names client: its entry is kept, so client is not resolved to its replicas on other servers');
  });

  test('ipam, ipv4_address and enable_ipv6 of a spanning network are the fabric’s, with warnings', () => {
    const result = compileText(
      'authored ipam',
      SPANNING.replace('attachable: true', 'enable_ipv6: true\n    ipam: {config: [{subnet: 10.5.0.0/24}]}').replace('    networks: [mesh]\n    deploy: {placement', '    networks: {mesh: {ipv4_address: 10.5.0.9}}\n    deploy: {placement'),
      {},
      true,
      true, // a fixed subnet needs host access in a stored document
    );
    expect(networksOf(documentOn(result, 'h2')).mesh!.ipam).toEqual({ config: [{ subnet: '10.210.1.0/24' }] });
    expect(servicesOf(documentOn(result, 'h2')).api!.networks).toEqual({ mesh: { ipv4_address: '10.210.1.2' } });
    expect(result.warnings).toEqual(
      expect.arrayContaining([
        'networks.mesh.ipam is replaced: the fabric gives mesh a subnet on each server it spans',
        'networks.mesh.enable_ipv6 is dropped: the fabric carries IPv4 between servers',
        'services.api.networks.mesh.ipv4_address is replaced: the fabric numbers containers on mesh',
      ]),
    );
  });
});

const lookup = await findComposeBinary();
if (!lookup.found) console.warn(`overlay-networks.test.ts: the Compose v2 check is skipped: ${lookup.reason}`);
let workDir = '';
afterAll(() => {
  if (workDir !== '') rmSync(workDir, { recursive: true, force: true });
});

test("the daemon's policy accepts every compiled document with the fabric networks its command names", () => {
  expect(recorded.length).toBeGreaterThanOrEqual(10);
  for (const { document } of recorded) {
    const fabricNetworks = new Map(document.fabric.map((network) => [network.network, network]));
    expect(() => checkComposePolicy(document.model, { hostAccess: false, form: 'compiled', fabricNetworks })).not.toThrow();
  }
});

// Declared last: Bun runs a file's tests in order, so every document above has been recorded.
test.skipIf(!lookup.found)('every compiled document passes `docker compose config` (Compose v2)', async () => {
  if (!lookup.found) return;
  workDir = mkdtempSync(join(tmpdir(), 'panel-overlay-'));
  for (const [i, { name, project, document }] of recorded.entries()) {
    const dir = join(workDir, String(i));
    mkdirSync(dir);
    writeFileSync(join(dir, 'compose.yaml'), document.yaml);
    const output = await runComposeConfig(lookup.binary, ['compose.yaml'], { cwd: dir, projectName: project, format: 'json' });
    if (output.exitCode !== 0) throw new Error(`${name}: compose config failed: ${output.stderr}`);
    const model = JSON.parse(output.stdout) as { networks: Record<string, { driver?: string }> };
    for (const network of Object.values(model.networks)) expect(network.driver ?? 'bridge').toBe('bridge');
  }
}, 60_000);
