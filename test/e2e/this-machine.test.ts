/**
 * "This machine", connected with no other command (issue 14 §1), on a real Docker engine
 * (real-docker.ts): `panel serve` from source with DOCKER_HOST naming the engine starts the
 * local daemon itself; after the install the local server connects, a deploy to it runs, stop
 * keeps the container (exited) and destroy removes it. Before that, a Panel whose DOCKER_HOST
 * answers nothing says so on the Servers page, with the command that fixes it (screenshots in
 * test-results/console/ when Chromium is installed). Skipped with a printed reason only when the
 * engine cannot start.
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { chromiumMissing, launchChromium, screenshot, waitForConsole } from './browser.ts';
import { clientApi, completeInstall, eventually, freePort, type Session } from './panel-api.ts';
import { type StartedPanel, startPanel } from './process.ts';
import { e2eStateDir, startRealDocker } from './real-docker.ts';
import { TEST_KEY_RING } from '../harness.ts';

const STEP_TIMEOUT_MS = 120_000;
const MAIN = join(import.meta.dir, '../../src/main.ts');
const COMPOSE = `services:
  web:
    image: local/busybox:1
    network_mode: none # the single-engine test tool has no bridge networks
    command: ["sleep", "3600"]
    stop_grace_period: 1s
`;

const engine = await startRealDocker(e2eStateDir('panel-e2e-docker-this-machine'));
if (!engine.started) console.warn(`this-machine e2e skipped: ${engine.reason}`);
const missingBrowser = chromiumMissing();
const panels: StartedPanel[] = [];
const dataDirs: string[] = [];
let browser: Browser | undefined;

afterAll(async () => {
  await browser?.close();
  for (const panel of panels) {
    panel.process.kill('SIGTERM');
    await panel.process.exited;
  }
  if (engine.started) {
    const leftovers = (await docker('ps', '-aq', '--filter', 'label=dev.panel.environment-id')).stdout.split('\n').filter(Boolean);
    if (leftovers.length > 0) await docker('rm', '-f', ...leftovers);
    await engine.docker.stop();
  }
  for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
}, 60_000);

async function docker(...args: string[]) {
  const child = Bun.spawn(['docker', ...args], { env: { ...process.env, ...(engine.started ? engine.docker.env : {}) }, stdout: 'pipe', stderr: 'pipe' });
  const [stdout, stderr] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  return { stdout: stdout.trim(), stderr };
}

/** `panel serve` from source on a fresh data dir, with this environment on top of the test's. */
async function startServe(env: Record<string, string>) {
  const dataDir = mkdtempSync(join(tmpdir(), 'panel-this-machine-'));
  dataDirs.push(dataDir);
  const port = freePort();
  const url = `http://127.0.0.1:${port}`;
  const panel = await startPanel([process.execPath, MAIN, 'serve'], {
    PANEL_DATA_DIR: dataDir,
    PANEL_PORT: String(port),
    PANEL_PUBLIC_URL: url,
    PANEL_SECRETS: TEST_KEY_RING,
    ...env,
  });
  panels.push(panel);
  return { panel, url, session: await completeInstall(url, dataDir) };
}



async function serversPageScreenshot(session: Session, name: string) {
  if (missingBrowser) return;
  browser ??= await launchChromium();
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const [name_, value] = session.cookie.split('=') as [string, string];
  await context.addCookies([{ name: name_, value, url: session.url }]);
  const page = await context.newPage();
  await page.goto(`${session.url}/organizations/${session.organizationId}/servers`);
  await waitForConsole(page);
  await page.locator('[data-this-machine]').waitFor();
  await screenshot(page, name);
  await context.close();
}

describe.skipIf(!engine.started)('this machine, connected by panel serve itself', () => {
  test('no engine answers: the Servers page says so, with the command that fixes it', async () => {
    const { panel, session } = await startServe({ DOCKER_HOST: 'unix:///nonexistent/docker.sock' });
    const machine = await eventually(
      () => clientApi(session, 'GET', `/servers/this-machine?organizationId=${session.organizationId}`),
      (res) => res.json?.state === 'no_engine',
      'the no-engine state',
      panel.logs,
    );
    expect(machine.json).toMatchObject({ applies: true, serverId: null, fix: 'unset DOCKER_HOST' });
    expect(machine.json.problem).toContain('DOCKER_HOST=unix:///nonexistent/docker.sock does not answer');
    await serversPageScreenshot(session, 'servers-this-machine-no-engine');
  }, STEP_TIMEOUT_MS);

  test('with an engine: the local server connects without another command, and a deploy, stop and destroy run on it', async () => {
    const { panel, session } = await startServe({ ...(engine.started ? engine.docker.env : {}) });
    const machine = await eventually(
      () => clientApi(session, 'GET', `/servers/this-machine?organizationId=${session.organizationId}`),
      (res) => res.json?.state === 'connected',
      'this machine connecting',
      panel.logs,
    );
    const serverId = machine.json.serverId as string;
    await serversPageScreenshot(session, 'servers-this-machine-connected');

    const workspaces = (await clientApi(session, 'GET', `/workspaces?organizationId=${session.organizationId}`)).json.data as { id: string; kind: string }[];
    const project = await clientApi(session, 'POST', '/projects', { workspaceId: workspaces.find((item) => item.kind === 'user')!.id, name: 'here', options: { defaultServerId: serverId } });
    expect(project.status, project.text).toBe(201);
    expect((await clientApi(session, 'PUT', `/projects/${project.json.id}/compose`, { yaml: COMPOSE })).status).toBe(200);
    const environmentId = (await clientApi(session, 'GET', `/environments?projectId=${project.json.id}`)).json.data[0].id as string;
    const containers = async () => {
      const res = await clientApi(session, 'GET', `/containers?serverId=${serverId}`);
      expect(res.status, res.text).toBe(200);
      return res.json.data as { containerId: string | null; status: string; isRemoved: boolean }[];
    };
    const finished = async (action: string) => {
      const started = await clientApi(session, 'POST', `/environments/${environmentId}/${action}`, action === 'deploy' ? {} : undefined);
      expect(started.status, started.text).toBe(202);
      await eventually(() => clientApi(session, 'GET', `/deployments/${started.json.id}`), (res) => ['succeeded', 'failed'].includes(res.json.status), `${action} finishing`, panel.logs);
      expect((await clientApi(session, 'GET', `/deployments/${started.json.id}`)).json).toMatchObject({ status: 'succeeded', error: null });
    };

    await finished('deploy');
    const [running] = await containers();
    expect(running).toMatchObject({ status: 'running', isRemoved: false });
    expect((await docker('inspect', '-f', '{{.State.Status}}', running!.containerId!)).stdout).toBe('running');
    await finished('stop');
    expect(await containers()).toMatchObject([{ status: 'exited', containerId: running!.containerId, isRemoved: false }]);
    expect((await docker('inspect', '-f', '{{.State.Status}}', running!.containerId!)).stdout).toBe('exited');
    await finished('destroy');
    expect(await containers()).toMatchObject([{ containerId: null, isRemoved: true }]);
    expect((await docker('ps', '-aq', '--filter', `label=dev.panel.environment-id=${environmentId}`)).stdout).toBe('');
  }, STEP_TIMEOUT_MS);
});
