/**
 * The overlay fabric in the multi-host lab (../shared/tools/fleet-lab.sh): three hosts with their
 * own Docker engines and `panel daemon`s (wireguard-go here: the lab has no WireGuard module),
 * a `panel serve` on the lab's root address. In order:
 * - with the fabric off, a compose whose overlay network spans hosts answers 422
 *   turbofabric_required and enqueues nothing, while another project's overlay network whose
 *   services share one host deploys as a plain bridge there;
 * - the owner turns the fabric on: every daemon reports its key, gets its peers and converges;
 * - the deploy puts the api on h2 (server label) and a client on h1 and h3: each client reaches
 *   the api by service name across hosts, seen with its own address (no masquerade), and the
 *   control plane outside the mesh (masqueraded); a container on another network cannot reach
 *   the api over the mesh; the handshakes show in the fabric view, and in the console (when
 *   Chromium is here), where an admin sets h2's endpoint and datacenter and rotates h3's key;
 * - the other project's own overlay network, spanning h1 and h2: its containers reach each other,
 *   and neither the first project's api nor a server's mesh address;
 * - h2's daemon and engine stop and its interface is deleted (as a reboot would), then both
 *   start again: the mesh reconverges and the clients reach the api again;
 * - h2's key is rotated (its daemon restarts without its key file): h1 and h3 get the new key in
 *   place of the old, and the clients reach the api again;
 * - h3 leaves the plan and is deleted: its peer disappears from h1 and h2;
 * - the fabric is turned off: every host removes its interface and rules.
 * Skipped with a printed reason when the lab cannot start (it needs root).
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Subprocess } from 'bun';
import { TEST_KEY_RING } from '../harness.ts';
import { chromiumMissing, launchChromium, screenshot, unlabelledControls, watchPage } from './browser.ts';
import { type FleetLab, type LabHost, startFleetLab } from './fleet-lab.ts';
import { clientApi, completeInstall, freePort, type Session } from './panel-api.ts';
import { type StartedPanel, startPanel, stopProcess } from './process.ts';

const STEP_TIMEOUT_MS = 240_000;
const WAIT_MS = 150_000;
const MAIN = join(import.meta.dir, '../../src/main.ts');

// The api answers with its own hostname and the address it sees the request from (busybox CGI).
const API_COMMAND = [
  'mkdir -p /www/cgi-bin',
  // $$: Compose would interpolate a single $.
  'printf \'#!/bin/sh\\necho Content-Type: text/plain\\necho\\necho "api $$REMOTE_ADDR"\\n\' >/www/cgi-bin/who',
  'chmod +x /www/cgi-bin/who',
  'exec httpd -f -p 8080 -h /www',
].join(' && ');

const COMPOSE = `services:
  api:
    image: local/busybox:1
    command: ["sh", "-c", ${JSON.stringify(API_COMMAND)}]
    restart: always
    stop_grace_period: 1s
    networks: [mesh]
    deploy:
      placement:
        constraints: [node.labels.role == server]
  client:
    image: local/busybox:1
    command: ["sleep", "3600"]
    restart: always
    stop_grace_period: 1s
    networks: [mesh]
    deploy:
      mode: global
      placement:
        constraints: [node.labels.role == client]
networks:
  mesh:
    driver: overlay
`;

// Another project of the organization: first one service on h1 on an overlay network (one host:
// a plain bridge, no fabric), then also a probe on h1 and h2 on an overlay network of its own.
const PROBE_COMMAND = 'mkdir -p /www && echo probe >/www/index.html && exec httpd -f -p 8080 -h /www';
const OTHER_SOLO = `services:
  solo:
    image: local/busybox:1
    command: ["sleep", "3600"]
    restart: always
    stop_grace_period: 1s
    networks: [local]
    deploy:
      placement:
        constraints: [node.hostname == h1]
networks:
  local:
    driver: overlay
`;
const OTHER_WITH_PROBE = `${OTHER_SOLO.replace('networks:\n  local:', `  probe:
    image: local/busybox:1
    command: ["sh", "-c", ${JSON.stringify(PROBE_COMMAND)}]
    restart: always
    stop_grace_period: 1s
    networks: [side]
    deploy:
      mode: global
      placement:
        constraints: [node.hostname != h3]
networks:
  local:`)}  side:
    driver: overlay
`;

const start = await startFleetLab('fabric', 3);
if (!start.started) {
  console.warn(`fleet fabric e2e skipped: ${start.reason}`);
  test.skip(`the overlay fabric in the multi-host lab (${start.reason})`, () => {});
}
const lab: FleetLab | undefined = start.started ? start.lab : undefined;
const dataDir = mkdtempSync(join(tmpdir(), 'panel-fleet-fabric-'));
const daemons = new Map<string, Subprocess>();
const outputs = new Map<string, string[]>();
let panel: StartedPanel | undefined;

afterAll(async () => {
  for (const daemon of daemons.values()) await stopProcess(daemon);
  if (panel) await stopProcess(panel.process);
  await lab?.down();
  rmSync(dataDir, { recursive: true, force: true });
}, 120_000);

interface FabricServer {
  serverId: string;
  name: string;
  state: string;
  reason: string | null;
  meshAddress: string | null;
  publicKey: string | null;
  peers: { name: string; lastHandshakeAt: string | null }[];
}

describe.skipIf(!lab)('the overlay fabric over three real servers', () => {
  let session: Session;
  let url = '';
  const serverOf = new Map<string, string>(); // host name -> server id
  let environmentId = '';
  let otherProjectId = '';
  let otherEnvironmentId = '';

  const api = (method: string, path: string, body?: unknown) => clientApi(session, method, path, body);
  const logs = () => [`--- panel\n${(panel?.logs() ?? '').slice(-4000)}`, ...[...outputs].map(([host, output]) => `--- daemon ${host}\n${output.join('').slice(-3000)}`)].join('\n');

  /** Polls every 250 ms until `check` answers a value, for at most WAIT_MS; the error carries the logs. */
  async function until<T>(what: string, check: () => Promise<T | undefined>): Promise<T> {
    const deadline = Date.now() + WAIT_MS;
    for (;;) {
      const value = await check();
      if (value !== undefined) return value;
      if (Date.now() > deadline) throw new Error(`${what} did not happen within ${WAIT_MS} ms\n${logs()}`);
      await Bun.sleep(250);
    }
  }

  function startDaemon(host: LabHost): void {
    const daemon = host.spawn([process.execPath, MAIN, 'daemon', 'run'], { PANEL_LOG_LEVEL: 'debug', PANEL_DAEMON_FABRIC_STATUS_SECONDS: '2' });
    daemons.set(host.name, daemon);
    const output: string[] = outputs.get(host.name) ?? [];
    outputs.set(host.name, output);
    for (const stream of [daemon.stdout, daemon.stderr]) {
      void (async () => {
        for await (const chunk of stream) output.push(new TextDecoder().decode(chunk));
      })();
    }
  }

  async function stopDaemon(host: LabHost): Promise<void> {
    const daemon = daemons.get(host.name)!;
    daemon.kill('SIGTERM');
    await daemon.exited;
    daemons.delete(host.name);
  }

  const fabric = async () => (await api('GET', `/organizations/${session.organizationId}/fabric`)).json as { enabled: boolean; servers: FabricServer[] };
  const converged = (names: string[]) =>
    until(`${names.join(', ')} converged`, async () => {
      const view = await fabric();
      const states = names.map((name) => view.servers.find((server) => server.name === name)?.state);
      return states.every((state) => state === 'converged') ? view : undefined;
    });
  const deploy = async (environment = environmentId) => {
    const res = await api('POST', `/environments/${environment}/deploy`, {});
    expect(res.status, res.text).toBe(202);
    await until(`deployment ${res.json.id}`, async () => {
      const current = (await api('GET', `/deployments/${res.json.id}`)).json;
      if (current.status === 'failed') throw new Error(`deploy failed: ${current.error}\n${logs()}`);
      return current.status === 'succeeded' ? current : undefined;
    });
  };
  /** The container of a Compose service of the environment on a host. */
  const containerOn = async (host: LabHost, service: string, environment = environmentId) =>
    (await host.docker('ps', '--filter', `label=com.docker.compose.project=pn-${environment}`, '--filter', `label=dev.panel.compose-service=${service}`, '--format', '{{.Names}}')).stdout.trim();
  /** What a client container on `host` gets from `target` (wget in the container; empty when it fails). */
  const fetchFrom = async (host: LabHost, target: string, container?: string) => {
    const name = container ?? (await containerOn(host, 'client'));
    if (!name) return '';
    const result = await host.docker('exec', name, 'sh', '-c', `timeout 3 wget -qO- ${target}; exit $?`);
    // busybox httpd shows an IPv4 peer as [::ffff:a.b.c.d]
    return result.exitCode === 0 ? result.stdout.trim().replace(/\[::ffff:([0-9.]+)\]/, '$1') : '';
  };
  const onHost = async (host: LabHost, ...cmd: string[]) => (await host.exec(cmd)).stdout;
  /** A container's address on its (one) network. */
  const addressOf = async (host: LabHost, container: string) => (await host.docker('inspect', '-f', '{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}', container)).stdout.trim();
  /** Whether a container on `host` gets an answer to one ping of `address` (busybox ping, 2 s). */
  const pings = async (host: LabHost, container: string, address: string) => (await host.docker('exec', container, 'sh', '-c', `ping -c 1 -W 2 ${address} >/dev/null; exit $?`)).exitCode === 0;

  test('serve on the lab address, install, three daemons join; roles by label', async () => {
    const port = freePort();
    url = `http://${lab!.rootIp}:${port}`;
    panel = await startPanel([process.execPath, MAIN, 'serve'], {
      PANEL_DATA_DIR: dataDir,
      PANEL_HOST: lab!.rootIp,
      PANEL_PORT: String(port),
      PANEL_PUBLIC_URL: url,
      PANEL_SECRETS: TEST_KEY_RING,
      PANEL_DAEMON_SOCKET: join(dataDir, 'daemon.sock'),
    });
    session = await completeInstall(url, dataDir);
    for (const host of lab!.hosts) {
      const token = await api('POST', '/join-tokens', { organizationId: session.organizationId });
      const joined = await host.exec([process.execPath, MAIN, 'daemon', 'join', url, '--token', token.json.token]);
      expect(joined.exitCode, joined.stderr).toBe(0);
      startDaemon(host);
    }
    const servers = await until('three connected servers with WireGuard keys', async () => {
      const listed = (await api('GET', `/servers?organizationId=${session.organizationId}`)).json.data as { id: string; hostname: string; status: string; wireguardPublicKey: string | null }[];
      return listed.length === 3 && listed.every((server) => server.status === 'connected' && server.wireguardPublicKey) ? listed : undefined;
    });
    for (const server of servers) serverOf.set(server.hostname, server.id);
    for (const [host, role] of [
      ['h1', 'client'],
      ['h2', 'server'],
      ['h3', 'client'],
    ] as const) {
      expect((await api('PATCH', `/servers/${serverOf.get(host)}`, { labels: { role } })).status).toBe(200);
    }
    const workspaces = (await api('GET', `/workspaces?organizationId=${session.organizationId}`)).json.data as { id: string; kind: string }[];
    const projectId = (await api('POST', '/projects', { workspaceId: workspaces.find((workspace) => workspace.kind === 'user')!.id, name: 'meshed' })).json.id;
    const saved = await api('PUT', `/projects/${projectId}/compose`, { yaml: COMPOSE });
    expect(saved.status, saved.text).toBe(200);
    environmentId = (await api('GET', `/environments?projectId=${projectId}`)).json.data[0].id;
    expect((await api('PATCH', `/environments/${environmentId}`, { serverId: serverOf.get('h1') })).status).toBe(200);
    otherProjectId = (await api('POST', '/projects', { workspaceId: workspaces.find((workspace) => workspace.kind === 'user')!.id, name: 'other' })).json.id;
    expect((await api('PUT', `/projects/${otherProjectId}/compose`, { yaml: OTHER_SOLO })).status).toBe(200);
    otherEnvironmentId = (await api('GET', `/environments?projectId=${otherProjectId}`)).json.data[0].id;
    expect((await api('PATCH', `/environments/${otherEnvironmentId}`, { serverId: serverOf.get('h1') })).status).toBe(200);
  }, STEP_TIMEOUT_MS);

  test('fabric off: the deploy answers 422 turbofabric_required naming the network and the servers, and enqueues nothing', async () => {
    const refused = await api('POST', `/environments/${environmentId}/deploy`, {});
    expect(refused.status).toBe(422);
    expect(refused.json.error).toMatchObject({ code: 'turbofabric_required', path: 'networks.mesh.driver' });
    expect(refused.json.error.message).toContain('network mesh, whose driver is overlay, has services on 3 servers (h1, h2, h3)');
    expect((await api('GET', `/deployments?environmentId=${environmentId}`)).json.data).toEqual([]);
    for (const host of lab!.hosts) expect((await host.exec(['ip', 'link', 'show', 'dev', 'panelwg'])).exitCode).not.toBe(0);
  }, STEP_TIMEOUT_MS);

  test('fabric off: an overlay network whose services share one host needs no fabric; it runs there as a plain bridge', async () => {
    await deploy(otherEnvironmentId);
    const h1 = lab!.host('h1');
    const solo = await containerOn(h1, 'solo', otherEnvironmentId);
    expect(solo).not.toBe('');
    const network = (await h1.docker('network', 'inspect', '-f', '{{.Driver}} {{index .Options "com.docker.network.bridge.name"}}', `pn-${otherEnvironmentId}_local`)).stdout.trim();
    expect(network).toBe('bridge');
    expect(await addressOf(h1, solo)).not.toMatch(/^10\.210\./);
  }, STEP_TIMEOUT_MS);

  test('the owner turns the fabric on: every server gets its peers, its interface, and converges', async () => {
    expect((await api('PATCH', `/organizations/${session.organizationId}/fabric`, { enabled: true })).status).toBe(200);
    const view = await converged(['h1', 'h2', 'h3']);
    for (const server of view.servers) expect(server.peers.map((peer) => peer.name).sort()).toEqual(['h1', 'h2', 'h3'].filter((name) => name !== server.name));
    for (const host of lab!.hosts) {
      const peers = (await onHost(host, 'wg', 'show', 'panelwg', 'peers')).trim().split('\n').sort();
      expect(peers).toEqual(view.servers.filter((server) => server.name !== host.name).map((server) => server.publicKey!).sort());
      expect(await onHost(host, 'iptables', '-w', '-S', 'DOCKER-USER')).toContain('-A DOCKER-USER -j PANEL-FABRIC');
    }
  }, STEP_TIMEOUT_MS);

  test('the deploy: clients on h1 and h3 reach the api on h2 by service name, with their own addresses; the outside through NAT', async () => {
    await deploy();
    for (const name of ['h1', 'h3']) {
      const host = lab!.host(name);
      const answer = await until(`the client on ${name} reaching the api`, async () => (await fetchFrom(host, 'http://api:8080/cgi-bin/who')) || undefined);
      const client = await containerOn(host, 'client');
      const own = (await host.docker('inspect', '-f', '{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}', client)).stdout.trim();
      expect(own).toMatch(/^10\.210\.\d+\.\d+$/);
      expect(answer).toBe(`api ${own}`);
      // Outside the mesh (the control plane on the lab's root address): masqueraded, so it answers.
      expect(await fetchFrom(host, `${url}/api/health`)).toContain('"status"');
    }
    // A container on another network of h1 (Docker's default bridge) cannot use the mesh.
    const apiAddress = (await lab!.host('h2').docker('inspect', '-f', '{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}', await containerOn(lab!.host('h2'), 'api'))).stdout.trim();
    const outsider = await lab!.host('h1').docker('run', '--rm', 'local/busybox:1', 'sh', '-c', `timeout 3 wget -qO- http://${apiAddress}:8080/cgi-bin/who; exit $?`);
    expect(outsider.exitCode).not.toBe(0);
    const view = await until('handshakes with h2 in the fabric view', async () => {
      const current = await fabric();
      const h1 = current.servers.find((server) => server.name === 'h1')!;
      return h1.peers.find((peer) => peer.name === 'h2')?.lastHandshakeAt ? current : undefined;
    });
    expect(view.servers.find((server) => server.name === 'h1')!.state).toBe('converged');
  }, STEP_TIMEOUT_MS);

  test("another project's network spanning h1 and h2 carries its own traffic and nothing else: not the first project's api, not a server's mesh address", async () => {
    expect((await api('PUT', `/projects/${otherProjectId}/compose`, { yaml: OTHER_WITH_PROBE })).status).toBe(200);
    await deploy(otherEnvironmentId);
    const [h1, h2] = [lab!.host('h1'), lab!.host('h2')];
    const probe = await containerOn(h1, 'probe', otherEnvironmentId);
    const probeOnH2 = await addressOf(h2, await containerOn(h2, 'probe', otherEnvironmentId));
    const apiAddress = await addressOf(h2, await containerOn(h2, 'api'));
    expect(probeOnH2).toMatch(/^10\.210\./);
    // Its own network works across hosts (the controls: the same tools, the same path over the mesh).
    expect(await until('the probe on h1 reaching the probe on h2', async () => (await fetchFrom(h1, `http://${probeOnH2}:8080/`, probe)) || undefined)).toBe('probe');
    expect(await pings(h1, probe, probeOnH2)).toBe(true);
    // The first project's api on h2, and h2's own address on the mesh: out of its reach.
    expect(await fetchFrom(h1, `http://${apiAddress}:8080/cgi-bin/who`, probe)).toBe('');
    expect(await pings(h1, probe, apiAddress)).toBe(false);
    const h2Mesh = (await fabric()).servers.find((server) => server.name === 'h2')!.meshAddress!;
    expect(await pings(h1, probe, h2Mesh)).toBe(false);
    // While h1 itself reaches h2 over the mesh: the servers are the organization's.
    expect((await h1.exec(['busybox', 'ping', '-c', '1', '-W', '2', h2Mesh])).exitCode).toBe(0);
  }, STEP_TIMEOUT_MS);

  test.skipIf(chromiumMissing() !== null)('the console shows the fabric: each server converged with its peers and handshakes; an admin sets where h2 is reached and rotates h3’s key', async () => {
    const browser = await launchChromium();
    try {
      const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
      const split = session.cookie.indexOf('=');
      await context.addCookies([{ name: session.cookie.slice(0, split), value: session.cookie.slice(split + 1), url }]);
      const page = await context.newPage();
      const watched = watchPage(page, url);
      await page.goto(`${url}/organizations/${session.organizationId}/fabric`);
      await page.locator('tr[data-fabric-state="converged"]').nth(2).waitFor();
      await page.getByText('On: 3 of 3 members converged.').waitFor();
      const h1 = page.getByRole('row', { name: /^h1/ });
      await h1.getByText(/h2: \d+ s ago/).waitFor();
      const lanAddress = lab!.host('h2').ip;
      await page.getByRole('button', { name: 'Edit where h2 is reached' }).click();
      await page.getByLabel('Endpoint').fill(lanAddress);
      await page.getByLabel('Datacenter').fill('lab');
      await page.getByRole('button', { name: 'Save endpoint' }).click();
      await page.getByRole('row', { name: /^h2/ }).getByText('(set by an admin)').waitFor();
      await page.getByRole('button', { name: 'Edit where h2 is reached' }).click();
      expect(await page.getByLabel('Endpoint').inputValue()).toBe(lanAddress);
      expect(await page.getByLabel('Datacenter').inputValue()).toBe('lab');
      expect(await unlabelledControls(page)).toEqual([]);
      await screenshot(page, 'fabric-three-servers');
      await page.getByRole('button', { name: 'Cancel' }).click();
      // An admin rotates h3's key: a confirmation saying what happens, then the row follows.
      const h3Key = (await fabric()).servers.find((server) => server.name === 'h3')!.publicKey!;
      await page.getByRole('button', { name: 'Rotate the key of h3' }).click();
      const dialog = page.getByRole('dialog', { name: 'Rotate the WireGuard key of h3?' });
      await dialog.getByText('traffic over the fabric to and from h3 pauses').waitFor();
      await screenshot(page, 'fabric-rotate-key');
      await dialog.getByRole('button', { name: 'Rotate key' }).click();
      const shownKey = page.getByRole('row', { name: /^h3/ }).locator('code[title]');
      await until('a new key for h3 on the page', async () => ((await shownKey.getAttribute('title')) !== h3Key ? true : undefined));
      await page.getByRole('row', { name: /^h3/ }).getByRole('button', { name: 'Rotate the key of h3' }).waitFor();
      // Chromium ignores the Cross-Origin-Opener-Policy header over plain http to a lab address, and says so.
      expect(watched.problems.filter((problem) => !problem.includes('Cross-Origin-Opener-Policy header has been ignored'))).toEqual([]);
    } finally {
      await browser.close();
    }
    // The endpoint is the address h2 was reached at already: every configuration stays as it was.
    const view = await converged(['h1', 'h2', 'h3']);
    expect(view.servers.find((server) => server.name === 'h2')).toMatchObject({ endpoint: lab!.host('h2').ip, datacenter: 'lab' });
    // h3's new key is on its interface and in h1's and h2's peers; the client on h3 still reaches the api.
    const h3Key = view.servers.find((server) => server.name === 'h3')!.publicKey!;
    expect((await onHost(lab!.host('h3'), 'wg', 'show', 'panelwg', 'public-key')).trim()).toBe(h3Key);
    for (const name of ['h1', 'h2']) expect(await onHost(lab!.host(name), 'wg', 'show', 'panelwg', 'peers')).toContain(h3Key);
    expect(await until('the client on h3 reaching the api with its new key', async () => (await fetchFrom(lab!.host('h3'), 'http://api:8080/cgi-bin/who')) || undefined)).toStartWith('api 10.210.');
  }, STEP_TIMEOUT_MS);

  test("h2's daemon and engine stop and its interface goes, as a reboot would; started again, the mesh reconverges and traffic resumes", async () => {
    const h2 = lab!.host('h2');
    await stopDaemon(h2);
    await h2.stopEngine();
    expect((await h2.exec(['ip', 'link', 'delete', 'dev', 'panelwg'])).exitCode).toBe(0);
    await until('h2 disconnected', async () => {
      const servers = (await api('GET', `/servers?organizationId=${session.organizationId}`)).json.data as { hostname: string; status: string }[];
      return servers.find((server) => server.hostname === 'h2')?.status === 'disconnected' ? true : undefined;
    });
    expect(await fetchFrom(lab!.host('h1'), 'http://api:8080/cgi-bin/who')).toBe('');

    await lab!.startEngines();
    startDaemon(h2);
    await until('h2 connected again', async () => {
      const servers = (await api('GET', `/servers?organizationId=${session.organizationId}`)).json.data as { hostname: string; status: string }[];
      return servers.find((server) => server.hostname === 'h2')?.status === 'connected' ? true : undefined;
    });
    await converged(['h1', 'h2', 'h3']);
    expect((await h2.exec(['ip', 'link', 'show', 'dev', 'panelwg'])).exitCode).toBe(0);
    for (const name of ['h1', 'h3']) {
      const answer = await until(`the client on ${name} reaching the api again`, async () => (await fetchFrom(lab!.host(name), 'http://api:8080/cgi-bin/who')) || undefined);
      expect(answer).toStartWith('api 10.210.');
    }
  }, STEP_TIMEOUT_MS);

  test("h2's key is rotated (its daemon restarts without its key file): h1 and h3 get the new key in place of the old; traffic resumes", async () => {
    const h2 = lab!.host('h2');
    const oldKey = (await fabric()).servers.find((server) => server.name === 'h2')!.publicKey!;
    await stopDaemon(h2);
    expect((await h2.exec(['rm', '/var/lib/panel-daemon/fabric/private.key'])).exitCode).toBe(0);
    startDaemon(h2);
    const view = await until('a new key for h2, converged everywhere', async () => {
      const current = await fabric();
      const rotated = current.servers.find((server) => server.name === 'h2')!.publicKey !== oldKey;
      return rotated && current.servers.every((server) => server.state === 'converged') ? current : undefined;
    });
    const newKey = view.servers.find((server) => server.name === 'h2')!.publicKey!;
    expect((await onHost(h2, 'wg', 'show', 'panelwg', 'public-key')).trim()).toBe(newKey);
    for (const name of ['h1', 'h3']) {
      const peers = await onHost(lab!.host(name), 'wg', 'show', 'panelwg', 'peers');
      expect(peers).toContain(newKey);
      expect(peers).not.toContain(oldKey);
      expect(await until(`the client on ${name} reaching the api with h2's new key`, async () => (await fetchFrom(lab!.host(name), 'http://api:8080/cgi-bin/who')) || undefined)).toStartWith('api 10.210.');
    }
  }, STEP_TIMEOUT_MS);

  test('h3 leaves the plan and is deleted: its peer disappears from h1 and h2', async () => {
    const h3Key = (await fabric()).servers.find((server) => server.name === 'h3')!.publicKey!;
    expect((await api('PATCH', `/servers/${serverOf.get('h3')}`, { labels: {} })).status).toBe(200);
    await deploy();
    // The stop left its container rows (exited, no container); they go before the server can.
    const services = (await api('GET', `/services?environmentId=${environmentId}`)).json.data as { id: string }[];
    for (const service of services) {
      const rows = (await api('GET', `/containers?serviceId=${service.id}&limit=200`)).json.data as { id: string; serverId: string }[];
      for (const row of rows.filter((candidate) => candidate.serverId === serverOf.get('h3'))) expect((await api('DELETE', `/containers/${row.id}`)).status).toBe(204);
    }
    const deleted = await api('DELETE', `/servers/${serverOf.get('h3')}`);
    expect(deleted.status, deleted.text).toBe(204);
    await stopDaemon(lab!.host('h3'));
    for (const name of ['h1', 'h2']) {
      await until(`h3 gone from ${name}'s WireGuard peers`, async () => (!(await onHost(lab!.host(name), 'wg', 'show', 'panelwg', 'peers')).includes(h3Key) ? true : undefined));
    }
    const view = await converged(['h1', 'h2']);
    expect(view.servers.map((server) => server.name).sort()).toEqual(['h1', 'h2']);
    for (const server of view.servers) expect(server.peers.map((peer) => peer.name)).toEqual(server.name === 'h1' ? ['h2'] : ['h1']);
    expect(await until('the client on h1 reaching the api', async () => (await fetchFrom(lab!.host('h1'), 'http://api:8080/cgi-bin/who')) || undefined)).toStartWith('api 10.210.');
  }, STEP_TIMEOUT_MS);

  test('the fabric off: every host removes its interface, its chains and the jumps to them', async () => {
    expect((await api('PATCH', `/organizations/${session.organizationId}/fabric`, { enabled: false })).status).toBe(200);
    for (const name of ['h1', 'h2']) {
      const host = lab!.host(name);
      await until(`${name} without panelwg`, async () => ((await host.exec(['ip', 'link', 'show', 'dev', 'panelwg'])).exitCode !== 0 ? true : undefined));
      const rules = await onHost(host, 'iptables', '-w', '-S', 'DOCKER-USER');
      if (rules.includes('PANEL-FABRIC')) throw new Error(`${name} still jumps to PANEL-FABRIC:\n${rules}\n${logs()}`);
      expect((await host.exec(['iptables', '-w', '-S', 'PANEL-FABRIC'])).exitCode).not.toBe(0);
    }
  }, STEP_TIMEOUT_MS);
});
