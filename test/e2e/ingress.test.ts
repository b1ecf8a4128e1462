/**
 * Hostings as live routes, end to end in the multi-host lab (../shared/tools/fleet-lab.sh): a
 * control plane on the lab LAN, daemons joined on h1 and h2 with their own Docker engines, and
 * on each the real Caddy (Debian's binary as a local image) that Panel deploys and configures.
 *
 *   - two hostnames and a path prefix answer through h1's address (`curl --resolve`), http
 *     redirects to https, and the certificate verifies against the organization CA downloaded
 *     from the API; h2's internal certificate chains to the same root;
 *   - an uploaded certificate is served for its hostname;
 *   - with ACME opted in, Pebble (the ACME test server, on h2) issues the certificate of a hostname
 *     h1 serves, after validating it over the lab LAN;
 *   - a tcp hosting with bind local answers on h1's loopback, not on its LAN address nor from h2;
 *   - a configuration Caddy refuses leaves the previous one serving, and the hosting says why;
 *   - a websocket upgrade passes through Caddy to a service (Bun's echo server, in an image made
 *     from the bun binary), both ways;
 *   - the console shows it: the service's hostings with their live state, the environment's
 *     URLs, the organization's CA, ACME settings and TLS library (screenshots in test-results/console/);
 *   - destroy removes the routes.
 * Skipped, with the reason, when the lab cannot start (it needs root) or Caddy is not installed.
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { Database } from 'bun:sqlite';
import { X509Certificate } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Subprocess } from 'bun';
import { serverCertificate, testCa } from '../certificates.ts';
import { TEST_KEY_RING } from '../harness.ts';
import { chromiumMissing, launchChromium, screenshot, waitForConsole, watchPage } from './browser.ts';
import { type FleetLab, startFleetLab } from './fleet-lab.ts';
import { completeInstall, freePort, type Session } from './panel-api.ts';
import { exitsOn, type StartedPanel, startPanel, stopProcess } from './process.ts';

const STEP_TIMEOUT_MS = 240_000;
const WAIT_MS = 120_000;
const MAIN = join(import.meta.dir, '../../src/main.ts');
const CADDY = Bun.which('caddy');
const PEBBLE = Bun.which('pebble');
const IMAGE = 'local/caddy:1';

const service = (greeting: string) => `    image: local/busybox:1
    command: ["sh", "-c", "mkdir -p /www/api && echo ${greeting} > /www/api/index.html && echo root-${greeting} > /www/index.html && exec httpd -f -p 8080 -h /www"]
    healthcheck:
      test: ["CMD", "wget", "-q", "-O", "/dev/null", "http://127.0.0.1:8080/api/"]
      interval: 1s
      retries: 30
    stop_grace_period: 1s`;
const COMPOSE = `services:\n  web:\n${service('hello-from-web')}\n`;

const lab = CADDY ? await startFleetLab('ingress', 2) : ({ started: false, reason: 'caddy is not installed' } as const);
if (!lab.started) {
  console.warn(`ingress e2e skipped: ${lab.reason}`);
  test.skip(`ingress in the multi-host lab (${lab.reason})`, () => {});
}

const dataDir = mkdtempSync(join(tmpdir(), 'panel-ingress-e2e-'));
const children: Subprocess[] = [];
let panel: StartedPanel | undefined;

afterAll(async () => {
  for (const child of children.reverse()) await stopProcess(child);
  if (panel) await stopProcess(panel.process);
  if (lab.started) await lab.lab.down();
  rmSync(dataDir, { recursive: true, force: true });
}, 120_000);

async function run(cmd: string[], env: Record<string, string> = {}) {
  const child = Bun.spawn(cmd, { env: { ...process.env, ...env }, stdin: 'ignore', stdout: 'pipe', stderr: 'pipe' });
  const [stdout, stderr, exitCode] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  return { stdout, stderr, exitCode };
}

/** Polls `probe` every 250 ms until it answers something, or fails after WAIT_MS with the logs. */
async function eventually<T>(what: string, probe: () => Promise<T | undefined>, logs: () => string): Promise<T> {
  const deadline = Date.now() + WAIT_MS;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const found = await probe();
      if (found !== undefined) return found;
    } catch (error) {
      last = error;
    }
    await Bun.sleep(250);
  }
  throw new Error(`${what} did not happen within ${WAIT_MS} ms (${String(last ?? '')})\n${logs().slice(-8000)}`);
}

describe.skipIf(!lab.started)('hostings as live routes in the multi-host lab', () => {
  const fleet = (lab as { lab: FleetLab }).lab;
  let url = '';
  let session: Session;
  let logs: () => string = () => '';
  const servers: Record<string, string> = {};
  const environments: Record<string, string> = {};
  let caFile = '';

  async function api(method: string, path: string, body?: unknown) {
    const res = await fetch(`${url}/api/client/v1${path}`, {
      method,
      headers: { cookie: session.cookie, origin: url, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, json: text ? JSON.parse(text) : undefined, text };
  }

  /** curl to `hostname` on port 443 (or 80) of a lab host, trusting `ca`; the body, or null when it fails (an HTTP error included). */
  async function curl(host: string, hostname: string, path: string, options: { ca?: string; http?: boolean; extra?: string[] } = {}) {
    const port = options.http ? 80 : 443;
    const scheme = options.http ? 'http' : 'https';
    const args = ['curl', '-fsS', '--max-time', '5', '--resolve', `${hostname}:${port}:${fleet.host(host).ip}`, ...(options.ca ? ['--cacert', options.ca] : []), ...(options.extra ?? [])];
    const result = await run([...args, `${scheme}://${hostname}${path}`]);
    return result.exitCode === 0 ? result.stdout : null;
  }

  /** The certificate a lab host serves for `hostname`. */
  async function servedCertificate(host: string, hostname: string): Promise<X509Certificate | null> {
    const result = await run(['sh', '-c', `openssl s_client -connect ${fleet.host(host).ip}:443 -servername ${hostname} </dev/null 2>/dev/null | openssl x509`]);
    return result.exitCode === 0 && result.stdout.includes('BEGIN CERTIFICATE') ? new X509Certificate(result.stdout) : null;
  }

  async function hosting(id: string) {
    return (await api('GET', `/hostings/${id}`)).json;
  }

  test('serve on the lab LAN; join h1 and h2; the local Caddy image is on both', async () => {
    await fleet.imageFromBinary(IMAGE, CADDY!);
    const port = freePort();
    url = `http://${fleet.rootIp}:${port}`;
    panel = await startPanel([process.execPath, MAIN, 'serve'], {
      PANEL_DATA_DIR: dataDir,
      PANEL_HOST: fleet.rootIp,
      PANEL_PORT: String(port),
      PANEL_PUBLIC_URL: url,
      PANEL_SECRETS: TEST_KEY_RING,
      PANEL_DAEMON_SOCKET: join(dataDir, 'daemon.sock'),
      PANEL_INGRESS_IMAGE: IMAGE,
    });
    session = await completeInstall(url, dataDir);
    const daemonLogs: Record<string, string[]> = {};
    for (const name of ['h1', 'h2']) {
      const token = (await api('POST', '/join-tokens', { organizationId: session.organizationId })).json.token;
      const joined = await fleet.host(name).exec([process.execPath, MAIN, 'daemon', 'join', url, '--token', token]);
      expect(joined.exitCode, joined.stderr).toBe(0);
      const child = fleet.host(name).spawn([process.execPath, MAIN, 'daemon', 'run'], { PANEL_LOG_LEVEL: 'debug' });
      children.push(child);
      daemonLogs[name] = [];
      for (const stream of [child.stdout, child.stderr]) {
        void (async () => {
          for await (const chunk of stream) daemonLogs[name]!.push(new TextDecoder().decode(chunk));
        })();
      }
    }
    logs = () => `--- panel\n${panel!.logs().slice(-6000)}\n${Object.entries(daemonLogs).map(([name, lines]) => `--- ${name}\n${lines.join('').slice(-6000)}`).join('\n')}`;
    const connected = await eventually(
      'both daemons connecting',
      async () => {
        const list = (await api('GET', `/servers?organizationId=${session.organizationId}`)).json.data as { id: string; hostname: string; status: string }[];
        return list.length === 2 && list.every((row) => row.status === 'connected') ? list : undefined;
      },
      logs,
    );
    for (const row of connected) servers[row.hostname] = row.id;
    expect(Object.keys(servers).sort()).toEqual(['h1', 'h2']);

    const ca = await fetch(`${url}/api/client/v1/organizations/${session.organizationId}/certificate-authority/certificate`, { headers: { cookie: session.cookie } });
    caFile = join(dataDir, 'organization-ca.pem');
    writeFileSync(caFile, await ca.text());
  }, STEP_TIMEOUT_MS);

  test('a web service with two hostnames and a path prefix answers for each through h1, over https with the organization CA', async () => {
    const workspaceId = ((await api('GET', `/workspaces?organizationId=${session.organizationId}`)).json.data as { id: string; kind: string }[]).find((row) => row.kind === 'user')!.id;
    const project = await api('POST', '/projects', { workspaceId, name: 'shop' });
    expect((await api('PUT', `/projects/${project.json.id}/compose`, { yaml: COMPOSE })).status).toBe(200);
    environments.h1 = (await api('GET', `/environments?projectId=${project.json.id}`)).json.data[0].id;
    environments.h2 = (await api('POST', '/environments', { projectId: project.json.id, name: 'second' })).json.id;
    for (const host of ['h1', 'h2']) {
      expect((await api('PATCH', `/environments/${environments[host]}`, { serverId: servers[host] })).status).toBe(200);
      const deployed = await api('POST', `/environments/${environments[host]}/deploy`, {});
      expect(deployed.status, deployed.text).toBe(202);
    }
    const serviceOf = async (environmentId: string) => (await api('GET', `/services?environmentId=${environmentId}`)).json.data[0].id as string;
    // tls internal: these stay on the organization CA when ACME is turned on below.
    const shop = await api('POST', '/hostings', { serviceId: await serviceOf(environments.h1!), options: { hostnames: ['shop.lab.test', 'www.shop.lab.test'], pathPrefix: '/api', targetPort: 8080, tls: 'internal' } });
    expect(shop.status, shop.text).toBe(201);
    environments.shopHosting = shop.json.id;
    const second = await api('POST', '/hostings', { serviceId: await serviceOf(environments.h2!), options: { hostnames: ['second.lab.test'], targetPort: 8080, tls: 'internal' } });
    expect(second.status, second.text).toBe(201);

    for (const hostname of ['shop.lab.test', 'www.shop.lab.test']) {
      const body = await eventually(`https://${hostname}/api/ through h1`, () => curl('h1', hostname, '/api/', { ca: caFile }).then((text) => text ?? undefined), logs);
      expect(body.trim()).toBe('hello-from-web');
    }
    // Outside the path prefix there is no route; http redirects to https.
    const outside = await run(['curl', '-sS', '-w', ' %{http_code}', '--cacert', caFile, '--resolve', `shop.lab.test:443:${fleet.host('h1').ip}`, 'https://shop.lab.test/']);
    expect(outside.stdout).toBe('no route for shop.lab.test/\n 404');
    const redirect = await run(['curl', '-sS', '-o', '/dev/null', '-w', '%{http_code} %{redirect_url}', '--resolve', `shop.lab.test:80:${fleet.host('h1').ip}`, 'http://shop.lab.test/api/']);
    expect(redirect.stdout).toBe('308 https://shop.lab.test/api/');

    const state = await eventually(
      'the hosting to show its route applied',
      async () => {
        const live = (await hosting(environments.shopHosting!)).live;
        // A certificate is reported pending until Caddy has issued it, then issued (checked again every 5 s).
        const issued = live.certificates.length === 2 && live.certificates.every((entry: { status: string }) => entry.status === 'issued');
        return live.servers[0]?.route === 'applied' && live.servers[0]?.upstreams === 1 && issued ? live : undefined;
      },
      logs,
    );
    expect(state.urls).toEqual(['https://shop.lab.test/api', 'https://www.shop.lab.test/api']);
    expect(state.servers[0]).toMatchObject({ serverId: servers.h1, route: 'applied', error: null, containers: 1 });
    expect(state.certificates.map((entry: { source: string; status: string }) => [entry.source, entry.status])).toEqual([
      ['internal', 'issued'],
      ['internal', 'issued'],
    ]);
  }, STEP_TIMEOUT_MS);

  test("h2's internal certificate chains to the same organization CA", async () => {
    const body = await eventually('https://second.lab.test/ through h2', () => curl('h2', 'second.lab.test', '/', { ca: caFile }).then((text) => text ?? undefined), logs);
    expect(body.trim()).toBe('root-hello-from-web');
    const [h1, h2] = [await servedCertificate('h1', 'shop.lab.test'), await servedCertificate('h2', 'second.lab.test')];
    const root = new X509Certificate(await Bun.file(caFile).text());
    // Each server signs with its own CA, which the organization root signed.
    expect(h1!.issuer).not.toBe(h2!.issuer);
    expect(h1!.issuer).toContain('h1');
    expect(h2!.issuer).toContain('h2');
    expect(root.subject).toContain('Root CA');
  }, STEP_TIMEOUT_MS);

  test('an uploaded certificate is served for its hostname', async () => {
    const ca = testCa('Uploaded test CA');
    const uploaded = serverCertificate({ names: ['upload.lab.test'], ca });
    const created = await api('POST', '/certificates', { organizationId: session.organizationId, name: 'upload', certificate: uploaded.chain, privateKey: uploaded.key });
    expect(created.status, created.text).toBe(201);
    environments.uploadCertificate = created.json.id;
    const serviceId = (await hosting(environments.shopHosting!)).serviceId;
    const upload = await api('POST', '/hostings', { serviceId, tlsId: created.json.id, options: { hostnames: ['upload.lab.test'], targetPort: 8080 } });
    expect(upload.status, upload.text).toBe(201);
    environments.uploadHosting = upload.json.id;
    const uploadCa = join(dataDir, 'upload-ca.pem');
    writeFileSync(uploadCa, ca.pem);
    const body = await eventually('https://upload.lab.test/ with the uploaded certificate', () => curl('h1', 'upload.lab.test', '/', { ca: uploadCa }).then((text) => text ?? undefined), logs);
    expect(body.trim()).toBe('root-hello-from-web');
    expect((await servedCertificate('h1', 'upload.lab.test'))!.fingerprint256).toBe(new X509Certificate(uploaded.leaf).fingerprint256);
  }, STEP_TIMEOUT_MS);

  test('a configuration Caddy refuses leaves the previous one serving, and the hosting says why', async () => {
    // Panel checks every certificate and key before storing them, so the only way a configuration
    // it generates gets refused is something it did not check: here the stored chain is swapped
    // behind its back for one its key does not match.
    const stranger = serverCertificate({ names: ['upload.lab.test'] });
    const database = new Database(join(dataDir, 'panel.db'));
    const original = database.query('SELECT certificate FROM tls WHERE id = ?').get(environments.uploadCertificate!) as { certificate: string };
    database.query('UPDATE tls SET certificate = ? WHERE id = ?').run(stranger.chain, environments.uploadCertificate!);
    const changed = await api('PATCH', `/hostings/${environments.uploadHosting}`, { options: { hostnames: ['upload.lab.test', 'refused.lab.test'], targetPort: 8080 } });
    expect(changed.status, changed.text).toBe(200);
    const failed = await eventually(
      'the refused apply to show on the hosting',
      async () => {
        const server = (await hosting(environments.uploadHosting!)).live.servers[0];
        return server?.route === 'failed' ? server : undefined;
      },
      logs,
    );
    expect(failed.error).toContain('Caddy refused the new configuration');
    // The previous configuration still serves: the old hostnames answer, the new one does not.
    expect((await curl('h1', 'shop.lab.test', '/api/', { ca: caFile }))?.trim()).toBe('hello-from-web');
    expect((await servedCertificate('h1', 'upload.lab.test'))!.fingerprint256).not.toBe(new X509Certificate(stranger.leaf).fingerprint256);
    expect(await curl('h1', 'refused.lab.test', '/', { extra: ['-k'] })).toBeNull();

    database.query('UPDATE tls SET certificate = ? WHERE id = ?').run(original.certificate, environments.uploadCertificate!);
    database.close();
    await api('PATCH', `/hostings/${environments.uploadHosting}`, { options: { hostnames: ['upload.lab.test', 'again.lab.test'], targetPort: 8080 } });
    await eventually('the next apply to succeed', async () => ((await hosting(environments.uploadHosting!)).live.servers[0]?.route === 'applied' ? true : undefined), logs);
  }, STEP_TIMEOUT_MS);

  test('a websocket upgrade passes through the ingress to the service, both ways', async () => {
    // A websocket echo service: Bun's own server, in an image made from the bun binary running this test.
    await fleet.imageFromBinary('local/bun:1', process.execPath);
    const echo = "Bun.serve({ port: 8080, fetch(request, server) { return server.upgrade(request) ? undefined : new Response('websockets only', { status: 426 }); }, websocket: { message(socket, text) { socket.send('echo ' + text); } } })";
    const overlay = `services:\n  echo:\n    image: local/bun:1\n    command: ${JSON.stringify(['-e', echo])}\n    stop_grace_period: 1s\n`;
    expect((await api('PUT', `/environments/${environments.h1}/compose`, { yaml: overlay })).status).toBe(200);
    const deployed = await api('POST', `/environments/${environments.h1}/deploy`, {});
    expect(deployed.status, deployed.text).toBe(202);
    const serviceId = ((await api('GET', `/services?environmentId=${environments.h1}`)).json.data as { id: string; composeServiceName: string }[]).find((row) => row.composeServiceName === 'echo')!.id;
    const created = await api('POST', '/hostings', { serviceId, options: { hostnames: ['ws.lab.test'], targetPort: 8080, tls: 'internal' } });
    expect(created.status, created.text).toBe(201);
    // The client runs on h1 (its /etc/hosts is its own copy), over wss with the organization CA.
    await fleet.host('h1').exec(['sh', '-c', `echo '${fleet.host('h1').ip} ws.lab.test' >> /etc/hosts`]);
    const client = `const ws = new WebSocket('wss://ws.lab.test/chat', { tls: { ca: await Bun.file(${JSON.stringify(caFile)}).text() } });
setTimeout(() => process.exit(2), 3000);
ws.onopen = () => ws.send('through caddy');
ws.onmessage = (event) => { console.log(event.data); process.exit(0); };
ws.onerror = () => process.exit(1);`;
    const answer = await eventually(
      'a websocket echo through h1',
      async () => {
        const result = await fleet.host('h1').exec([process.execPath, '-e', client]);
        return result.exitCode === 0 ? result.stdout.trim() : undefined;
      },
      logs,
    );
    expect(answer).toBe('echo through caddy');
  }, STEP_TIMEOUT_MS);

  test.skipIf(!PEBBLE)('with ACME opted in, Pebble on h2 issues the certificate of a hostname h1 serves', async () => {
    // Pebble's own https certificate, for the name h2 that h1's Caddy dials.
    const ca = testCa('Pebble directory CA');
    const directory = serverCertificate({ names: ['h2'], ca });
    const files = join(dataDir, 'pebble');
    mkdirSync(files);
    writeFileSync(join(files, 'cert.pem'), directory.chain);
    writeFileSync(join(files, 'key.pem'), directory.key);
    const config = { listenAddress: '0.0.0.0:14000', managementListenAddress: '0.0.0.0:15000', certificate: '/etc/pebble/cert.pem', privateKey: '/etc/pebble/key.pem', httpPort: 80, tlsPort: 443, ocspResponderURL: '', externalAccountBindingRequired: false };
    writeFileSync(join(files, 'config.json'), JSON.stringify({ pebble: config }));
    await fleet.imageFromBinary('local/pebble:1', PEBBLE!, ...['config.json', 'cert.pem', 'key.pem'].map((name) => `${join(files, name)}:/etc/pebble/${name}`));
    // Pebble validates acme.lab.test at h1's address (h2's /etc is its own copy).
    await fleet.host('h2').exec(['sh', '-c', `echo '${fleet.host('h1').ip} acme.lab.test' >> /etc/hosts`]);
    const pebble = await fleet.host('h2').docker('run', '-d', '--name', 'pebble', '--network', 'host', '-e', 'PEBBLE_VA_NOSLEEP=1', '-e', 'PEBBLE_WFE_NONCEREJECT=0', 'local/pebble:1', '-config', '/etc/pebble/config.json');
    expect(pebble.exitCode, pebble.stderr).toBe(0);

    const acme = await api('PATCH', `/organizations/${session.organizationId}`, { isAcmeEnabled: true, acmeEmail: 'ops@lab.test', acmeDirectoryUrl: 'https://h2:14000/dir', acmeDirectoryRoots: ca.pem });
    expect(acme.status, acme.text).toBe(200);
    const serviceId = (await hosting(environments.shopHosting!)).serviceId;
    const created = await api('POST', '/hostings', { serviceId, options: { hostnames: ['acme.lab.test'], targetPort: 8080 } });
    expect(created.status, created.text).toBe(201);
    const issued = await eventually(
      'Pebble to issue the certificate of acme.lab.test',
      async () => {
        const entry = (await hosting(created.json.id)).live.certificates[0];
        if (entry?.status === 'failed') throw new Error(`ACME failed: ${entry.error}`);
        return entry?.status === 'issued' ? entry : undefined;
      },
      logs,
    );
    expect(issued).toMatchObject({ serverId: servers.h1, hostname: 'acme.lab.test', source: 'acme', error: null });
    expect(issued.issuer).toContain('Pebble');
    expect(Date.parse(issued.notAfter)).toBeGreaterThan(Date.now());
    const served = await eventually('h1 to serve the ACME certificate', async () => {
      const certificate = await servedCertificate('h1', 'acme.lab.test');
      return certificate?.issuer.includes('Pebble') ? certificate : undefined;
    }, logs);
    expect(served.subjectAltName).toBe('DNS:acme.lab.test');
    // The hostings that asked for internal certificates kept them.
    expect((await curl('h1', 'shop.lab.test', '/api/', { ca: caFile }))?.trim()).toBe('hello-from-web');
  }, STEP_TIMEOUT_MS);

  test.skipIf(chromiumMissing() !== null)("the console shows the hostings' live state, the environment's URLs and the organization's TLS settings", async () => {
    const browser = await launchChromium();
    try {
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      const [name, value] = session.cookie.split(';')[0]!.split('=') as [string, string];
      await context.addCookies([{ name, value, url }]);
      const page = await context.newPage();
      const { problems } = watchPage(page, url);
      const shop = await hosting(environments.shopHosting!);
      await page.goto(`${url}/services/${shop.serviceId}`);
      await waitForConsole(page);
      const state = page.getByRole('region', { name: /^State of / }).first();
      await state.getByText('Applied', { exact: true }).waitFor();
      expect(await state.getByRole('link', { name: 'https://shop.lab.test/api' }).count()).toBe(1);
      expect(await state.textContent()).toContain('organization CA, issued');
      await screenshot(page, 'ingress-service-hostings');
      await page.goto(`${url}/environments/${environments.h1}`);
      await page.getByRole('link', { name: 'https://www.shop.lab.test/api' }).waitFor();
      await screenshot(page, 'ingress-environment-urls');
      await page.goto(`${url}/organizations/${session.organizationId}/settings`);
      await page.getByRole('link', { name: 'Download the root certificate (PEM)' }).waitFor();
      await page.getByRole('heading', { name: 'TLS library' }).waitFor();
      await page.getByText('upload.lab.test', { exact: true }).waitFor();
      await screenshot(page, 'ingress-organization-tls');
      // The lab's http origin is not a secure context, so Chromium ignores the COOP header and says so.
      expect(problems.filter((problem) => !problem.includes('Cross-Origin-Opener-Policy header has been ignored'))).toEqual([]);
    } finally {
      await browser.close();
    }
  }, STEP_TIMEOUT_MS);

  test('a tcp hosting with bind local answers on loopback of its server and not from another host', async () => {
    const serviceId = (await hosting(environments.shopHosting!)).serviceId;
    const created = await api('POST', '/hostings', { serviceId, name: 'raw', options: { protocol: 'tcp', bind: 'local', ports: [{ published: 9000, target: 8080 }] } });
    expect(created.status, created.text).toBe(201);
    const deployed = await api('POST', `/environments/${environments.h1}/deploy`, {});
    expect(deployed.status, deployed.text).toBe(202);
    const fetchOn = async (host: string, address: string) => {
      const result = await fleet.host(host).exec(['curl', '-fsS', '--max-time', '3', `http://${address}:9000/api/`]);
      return result.exitCode === 0 ? result.stdout.trim() : null;
    };
    expect(await eventually('127.0.0.1:9000 on h1', async () => (await fetchOn('h1', '127.0.0.1')) ?? undefined, logs)).toBe('hello-from-web');
    expect(await fetchOn('h1', fleet.host('h1').ip)).toBeNull();
    expect(await fetchOn('h2', fleet.host('h1').ip)).toBeNull();
  }, STEP_TIMEOUT_MS);

  test('destroy removes the routes', async () => {
    const destroyed = await api('POST', `/environments/${environments.h1}/destroy`);
    expect(destroyed.status, destroyed.text).toBe(202);
    await eventually('shop.lab.test to stop answering on h1', async () => ((await curl('h1', 'shop.lab.test', '/api/', { ca: caFile })) === null ? true : undefined), logs);
    expect((await hosting(environments.shopHosting!)).live.servers).toEqual([]);
    // h2 keeps serving its own hosting.
    expect((await curl('h2', 'second.lab.test', '/', { ca: caFile }))?.trim()).toBe('root-hello-from-web');
  }, STEP_TIMEOUT_MS);

  test('both daemons, after ingress deploys and with Caddy followed, exit promptly on SIGTERM', async () => {
    // An ingress deploy's output once re-armed a retry timer forever, so the daemon never exited.
    for (const child of children) expect(await exitsOn(child, 'SIGTERM', 10_000), logs()).toBe(true);
  }, STEP_TIMEOUT_MS);
});
