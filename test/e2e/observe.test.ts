/**
 * Issue 19 end to end on a real engine (../shared/tools/real-docker.sh): `panel serve`, the local
 * daemon over the unix socket, and a service that prints a line a second. Its lines arrive live on
 * /ws/client/v1 and in GET /logs; after a redeploy (the container recreated) the earlier lines are
 * still in its history; a deploy of an image that does not exist fails and its deploy log says
 * why; metric series appear for the container and the server; the events feed has the outcomes.
 * Then the console in Chromium (when it is installed): the service page's live logs and charts,
 * scaled to two replicas while the page is open (offered without a reload), its log view narrowed
 * to one of them (live and a time range), the environment's deploy log and the events page, with
 * screenshots in test-results/console/. Last, the local daemon, following a running container,
 * exits promptly on SIGTERM.
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Subprocess } from 'bun';
import type { Browser, Page } from 'playwright-core';
import { SocketProbe } from '../daemon.ts';
import { TEST_KEY_RING } from '../harness.ts';
import { chromiumMissing, heading, launchChromium, screenshot, waitForConsole, watchPage } from './browser.ts';
import { clientApi, completeInstall, freePort, type Session } from './panel-api.ts';
import { exitsOn, spawnLogged, type StartedPanel, startPanel, stopProcess } from './process.ts';
import { e2eStateDir, startRealDocker } from './real-docker.ts';

const STEP_TIMEOUT_MS = 120_000;
const WAIT_MS = 90_000;
const MAIN = join(import.meta.dir, '../../src/main.ts');
const ticker = (label: string, replicas = 1) => `services:
  clock:
    image: local/busybox:1
    deploy: {replicas: ${replicas}}
    network_mode: none # the single-engine test tool has no bridge networks
    environment:
      LABEL: ${label}
    command: ["sh", "-c", "i=0; while true; do echo \\"$$LABEL tick $$i\\"; i=$$((i+1)); sleep 1; done"]
    stop_grace_period: 1s
`;
const BROKEN = `services:
  clock:
    image: local/no-such-image:1
    network_mode: none # the single-engine test tool has no bridge networks
`;

const engine = await startRealDocker(e2eStateDir('panel-e2e-docker-observe'));
if (!engine.started) {
  console.warn(`observability e2e skipped: ${engine.reason}`);
  test.skip(`observability on a real engine (the engine could not start: ${engine.reason})`, () => {});
}
const browserMissing = chromiumMissing();
if (engine.started && browserMissing) console.warn(`observability e2e: the console steps are skipped: ${browserMissing}`);

const dataDir = mkdtempSync(join(tmpdir(), 'panel-observe-e2e-'));
const port = freePort();
const url = `http://127.0.0.1:${port}`;
const dockerEnv = engine.started ? engine.docker.env : {};
const children: Subprocess[] = [];
let panel: StartedPanel | undefined;
let browser: Browser | undefined;
let feed: SocketProbe | undefined;
let daemon: Subprocess | undefined;

afterAll(async () => {
  feed?.socket.close();
  await browser?.close();
  for (const child of children.reverse()) await stopProcess(child);
  if (panel) await stopProcess(panel.process);
  if (engine.started) {
    await engine.docker.removePanelContainers();
    await engine.docker.stop();
  }
  rmSync(dataDir, { recursive: true, force: true });
}, 60_000);

const docker = (...args: string[]) => (engine.started ? engine.docker.docker(...args) : Promise.reject(new Error('no engine')));

function spawnLocalDaemon(): () => string {
  const socket = join(dataDir, 'daemon.sock');
  const credential = join(dataDir, 'local-daemon.credential');
  const { child, logs } = spawnLogged([process.execPath, MAIN, 'daemon', 'run', '--local', '--socket', socket, '--credential-file', credential, '--state-dir', join(dataDir, 'local-daemon')], {
    ...dockerEnv,
    PANEL_LOG_LEVEL: 'debug',
  });
  children.push(child);
  daemon = child;
  return logs;
}

const api = clientApi;

/** Polls `check` every 250 ms until it answers, or fails with the processes' logs after WAIT_MS. */
async function eventually<T>(what: string, check: () => Promise<T | undefined>, logs: () => string): Promise<T> {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const answer = await check();
    if (answer !== undefined) return answer;
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${WAIT_MS} ms\n${logs().slice(-6000)}`);
    await Bun.sleep(250);
  }
}

describe.skipIf(!engine.started)('logs, deploy logs, metrics and events on a real engine', () => {
  let session: Session;
  let logs: () => string = () => '';
  let environmentId: string;
  let serviceId: string;
  let serverId: string;

  const deploy = async (yaml: string) => {
    const projectId = (await api(session, 'GET', `/environments/${environmentId}`)).json.projectId;
    expect((await api(session, 'PUT', `/projects/${projectId}/compose`, { yaml })).status).toBe(200);
    const started = await api(session, 'POST', `/environments/${environmentId}/deploy`, {});
    expect(started.status, started.text).toBe(202);
    return eventually(
      'the deploy finishing',
      async () => {
        const row = (await api(session, 'GET', `/deployments/${started.json.id}`)).json;
        return row.status === 'succeeded' || row.status === 'failed' ? row : undefined;
      },
      logs,
    );
  };

  test('serve, install, the local daemon, and a service printing a line a second', async () => {
    panel = await startPanel([process.execPath, MAIN, 'serve'], {
      PANEL_DATA_DIR: dataDir,
      PANEL_PORT: String(port),
      PANEL_PUBLIC_URL: url,
      PANEL_SECRETS: TEST_KEY_RING,
      PANEL_DAEMON_SOCKET: join(dataDir, 'daemon.sock'),
      // This test starts the local daemon itself, with the engine's environment.
      PANEL_LOCAL_DAEMON: 'off',
    });
    session = await completeInstall(url, dataDir);
    const daemonLogs = spawnLocalDaemon();
    logs = () => `--- panel\n${panel!.logs()}\n--- local daemon\n${daemonLogs()}`;
    const server = await eventually(
      'the local daemon connecting',
      async () => (await api(session, 'GET', `/servers?organizationId=${session.organizationId}`)).json.data.find((row: { status: string }) => row.status === 'connected'),
      logs,
    );
    serverId = server.id;
    const workspaces = (await api(session, 'GET', `/workspaces?organizationId=${session.organizationId}`)).json.data as { id: string; kind: string }[];
    const project = await api(session, 'POST', '/projects', { workspaceId: workspaces.find((w) => w.kind === 'user')!.id, name: 'clock', options: { defaultServerId: serverId } });
    expect(project.status, project.text).toBe(201);
    environmentId = (await api(session, 'GET', `/environments?projectId=${project.json.id}`)).json.data[0].id;
    const deployed = await deploy(ticker('first'));
    expect(deployed.status, `${deployed.error}\n${logs().slice(-4000)}`).toBe('succeeded');
    serviceId = (await api(session, 'GET', `/services?environmentId=${environmentId}`)).json.data[0].id;
  }, STEP_TIMEOUT_MS);

  test('its lines arrive live on /ws/client/v1 and are in GET /logs', async () => {
    const probe = await SocketProbe.open(`${url.replace('http', 'ws')}/ws/client/v1`, { cookie: session.cookie, origin: url });
    feed = probe;
    probe.send({ type: 'subscribe', topic: 'logs', serviceId, tail: 5 });
    await probe.next((frame) => frame.type === 'subscribed' && frame.topic === 'logs');
    const live = await Promise.race([
      probe.until((frames) => {
        const texts = frames.filter((frame) => frame.type === 'logs').flatMap((frame) => frame.lines.map((line: { text: string }) => line.text));
        return texts.length >= 3 ? texts : undefined;
      }),
      Bun.sleep(WAIT_MS).then(() => {
        throw new Error(`no live lines\n${logs().slice(-4000)}`);
      }),
    ]);
    expect(live.every((text) => /^first tick \d+$/.test(text))).toBe(true);
    const ticks = live.map((text) => Number(text.split(' ').at(-1)));
    expect(ticks).toEqual([...ticks].sort((a, b) => a - b));
    const history = await api(session, 'GET', `/logs?serviceId=${serviceId}`);
    expect(history.status).toBe(200);
    expect(history.json.data.map((line: { text: string }) => line.text)).toEqual(expect.arrayContaining(live));
    expect(history.json.data[0]).toMatchObject({ stream: 'stdout', ordinal: 1, serviceId });
  }, STEP_TIMEOUT_MS);

  test('after a redeploy that recreates the container, the earlier lines are still in its history', async () => {
    const before = (await docker('ps', '-q', '--filter', `label=com.docker.compose.project=pn-${environmentId}`)).stdout;
    const redeployed = await deploy(ticker('second'));
    expect(redeployed.status).toBe('succeeded');
    const after = (await docker('ps', '-q', '--filter', `label=com.docker.compose.project=pn-${environmentId}`)).stdout;
    expect(after).not.toBe(before);
    const texts = await eventually(
      'lines of the new container',
      async () => {
        const lines = (await api(session, 'GET', `/logs?serviceId=${serviceId}&limit=5000`)).json.data.map((line: { text: string }) => line.text) as string[];
        return lines.some((text) => text.startsWith('second tick')) ? lines : undefined;
      },
      logs,
    );
    expect(texts.some((text) => text.startsWith('first tick'))).toBe(true);
    expect(texts.findLastIndex((text) => text.startsWith('first tick'))).toBeLessThan(texts.findIndex((text) => text.startsWith('second tick')));
    const download = await fetch(`${url}/api/client/v1/logs/download?serviceId=${serviceId}&q=tick`, { headers: { cookie: session.cookie } });
    expect(await download.text()).toMatch(/^\S+Z \S+ stdout first tick 0\n/);
  }, STEP_TIMEOUT_MS);

  test('metric series appear for the container and the server (watching asks for 10 s samples)', async () => {
    feed!.send({ type: 'subscribe', topic: 'metrics', serverId });
    await feed!.next((frame) => frame.type === 'subscribed' && frame.topic === 'metrics');
    const server = await eventually(
      'a server sample',
      async () => {
        const series = (await api(session, 'GET', `/metrics?serverId=${serverId}`)).json.series;
        return series[0]?.points.length > 0 ? series[0] : undefined;
      },
      logs,
    );
    expect(server.points[0]).toMatchObject({ cpuCount: expect.any(Number), memory: expect.any(Number), memoryLimit: expect.any(Number), diskTotal: expect.any(Number), load1: expect.any(Number) });
    const containers = await eventually(
      'container samples with CPU',
      async () => {
        const series = (await api(session, 'GET', `/metrics?serviceId=${serviceId}`)).json.series;
        return series[0]?.points.some((point: { cpu: number | null }) => point.cpu !== null) ? series : undefined;
      },
      logs,
    );
    expect(containers[0].points.at(-1)).toMatchObject({ memory: expect.any(Number) });
    // Without a network of its own (network_mode: none) a container has no traffic: none is made up.
    expect(containers[0].points.at(-1).netRx).toBeNull();
  }, STEP_TIMEOUT_MS);

  test('a deploy of an image that does not exist fails, and its deploy log says why', async () => {
    const failed = await deploy(BROKEN);
    expect(failed.status).toBe('failed');
    const log = await api(session, 'GET', `/deployments/${failed.id}/logs`);
    const text = log.json.data.map((line: { text: string }) => line.text).join('\n');
    expect(text).toContain('▸ Pulling missing images, creating and starting containers');
    // Compose's own words: the pull it tried and why it failed (offline here; a registry elsewhere).
    expect(text).toContain('clock Pulling');
    expect(text).toMatch(/pull access denied|not found|repository does not exist|no such host|network is unreachable/i);
    expect(text).toContain('▸ Failed: compose_up_failed');
    const events = (await api(session, 'GET', `/events?organizationId=${session.organizationId}`)).json.data.map((row: { kind: string }) => row.kind);
    expect(events).toEqual(expect.arrayContaining(['deployment.failed', 'deployment.succeeded', 'server.connected']));
  }, STEP_TIMEOUT_MS);

  describe.skipIf(browserMissing !== null)('the console', () => {
    let page: Page;

    test('the service page shows its lines live, with filters, and its charts', async () => {
      await deploy(ticker('third'));
      browser = await launchChromium();
      page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
      const watched = watchPage(page, url);
      await page.context().addCookies([{ name: 'panel_session', value: session.cookie.split('=')[1]!, url }]);
      await page.goto(`${url}/services/${serviceId}`);
      await waitForConsole(page);
      await heading(page, 'clock').waitFor();
      const logView = page.getByRole('region', { name: 'Logs' });
      await logView.getByText(/third tick \d+/).first().waitFor({ timeout: WAIT_MS });
      await page.getByRole('img', { name: /CPU/ }).first().waitFor({ timeout: WAIT_MS });
      await screenshot(page, 'observe-service-logs');
      await logView.getByLabel('Filter').fill('tick 2');
      expect(await logView.locator('[data-log-line]').allTextContents()).toEqual(expect.arrayContaining([expect.stringMatching(/tick 2\d*$/)]));
      await logView.getByRole('button', { name: 'Pause' }).click();
      await logView.getByRole('button', { name: 'Resume' }).waitFor();
      await screenshot(page, 'observe-service-logs-filtered');
      expect(watched.problems).toEqual([]);
    }, STEP_TIMEOUT_MS);

    test('scaled to two replicas while the page is open, the service page offers both and narrows its logs to one, live and in a time range', async () => {
      const logView = page.getByRole('region', { name: 'Logs' });
      await logView.getByRole('button', { name: 'Resume' }).click();
      await logView.getByLabel('Filter').fill('');
      await deploy(ticker('third', 2));
      // No reload: the deploy's event makes the page read the service's replicas again.
      const replica = logView.getByLabel('Replica');
      await eventually('the second replica offered', async () => ((await replica.count()) > 0 && (await replica.locator('option').allTextContents()).includes('#2') ? true : undefined), logs);
      const sources = () => logView.locator('[data-log-line] .log-source').allTextContents();
      await eventually('lines of both replicas', async () => ((await sources()).includes('#1') && (await sources()).includes('#2') ? true : undefined), logs);
      expect(await replica.locator('option').allTextContents()).toEqual(['Every replica', '#1', '#2']);
      await replica.selectOption({ label: '#2' });
      expect(await replica.locator('option:checked').textContent()).toBe('#2');
      // Live: the last lines of #2 only, then its new lines as they come.
      const texts = () => logView.locator('[data-log-line] .log-text').allTextContents();
      const first = await eventually('only the second replica', async () => {
        const shown = await sources();
        return shown.length > 0 && shown.every((text) => text === '#2') ? (await texts()).at(-1) : undefined;
      }, logs);
      await eventually('a new line of the second replica', async () => {
        const shown = await sources();
        return shown.every((text) => text === '#2') && (await texts()).at(-1) !== first ? true : undefined;
      }, logs);
      expect(await logView.getByRole('link', { name: 'Download' }).getAttribute('href')).toContain('containerId=');
      await screenshot(page, 'observe-service-logs-replica');
      // History: a time range reads the retained lines of that replica only.
      await logView.getByLabel('Show').selectOption({ label: 'Last 15 minutes' });
      await logView.getByText(/[1-9]\d* lines? in this range/).waitFor({ timeout: WAIT_MS });
      expect(new Set(await sources())).toEqual(new Set(['#2']));
      expect(await replica.locator('option:checked').textContent()).toBe('#2');
      await screenshot(page, 'observe-service-logs-replica-history');
    }, STEP_TIMEOUT_MS);

    test('the environment page shows the failed deploy and its log; the events page lists what happened', async () => {
      await deploy(BROKEN);
      await page.goto(`${url}/environments/${environmentId}`);
      await heading(page, 'production').waitFor();
      const deployLog = page.getByRole('region', { name: 'Deploy log' });
      await deployLog.getByText('compose_up_failed').first().waitFor({ timeout: WAIT_MS });
      await screenshot(page, 'observe-deploy-log-failed');
      await page.goto(`${url}/organizations/${session.organizationId}/events`);
      await heading(page, 'Events').waitFor();
      await page.getByText(/Deploy of clock \/ production failed/).first().waitFor();
      await screenshot(page, 'observe-events');
      await page.goto(`${url}/servers/${serverId}`);
      await page.getByRole('img', { name: /CPU/ }).first().waitFor({ timeout: WAIT_MS });
      await screenshot(page, 'observe-server-metrics');
    }, STEP_TIMEOUT_MS);
  });

  test('the local daemon, following a running container, exits promptly on SIGTERM', async () => {
    expect((await deploy(ticker('last'))).status).toBe('succeeded');
    const running = (await docker('ps', '-q', '--filter', `label=com.docker.compose.project=pn-${environmentId}`)).stdout;
    expect(running).not.toBe('');
    expect(await exitsOn(daemon!, 'SIGTERM', 10_000), logs().slice(-4000)).toBe(true);
  }, STEP_TIMEOUT_MS);
});
