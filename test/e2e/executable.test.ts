import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TEST_KEY_RING } from '../harness.ts';
import { type StartedPanel, startPanel } from './process.ts';

/** Builds dist/panel into a temporary folder and runs it on a temporary data dir and a free port. */
const work = mkdtempSync(join(tmpdir(), 'panel-exe-'));
const executable = join(work, 'panel');
const dataDir = join(work, 'data');
let panel: StartedPanel;

beforeAll(async () => {
  const build = Bun.spawnSync([process.execPath, 'scripts/build.ts', executable], { cwd: join(import.meta.dir, '..', '..'), stdout: 'pipe', stderr: 'pipe' });
  if (build.exitCode !== 0) throw new Error(`build failed: ${build.stderr.toString()}`);
  panel = await startPanel([executable, 'serve'], { PANEL_DATA_DIR: dataDir, PANEL_PORT: '0', PANEL_SECRETS: TEST_KEY_RING, PANEL_LOG_LEVEL: 'info' });
});

afterAll(async () => {
  panel?.process.kill('SIGTERM');
  await panel?.process.exited;
  rmSync(work, { recursive: true, force: true });
});

const overSocket = (path: string) => fetch(`http://localhost${path}`, { unix: panel.socketPath } as RequestInit);

describe('the executable', () => {
  test('answers health, the API description and the reference over TCP', async () => {
    const health = await fetch(`${panel.url}/api/health`);
    expect(health.status).toBe(200);
    expect((await health.json()).status).toBe('ok');
    const openapi = await (await fetch(`${panel.url}/api/openapi.json`)).json();
    expect(openapi.openapi).toMatch(/^3\.1\./);
    const reference = await fetch(`${panel.url}/api/reference`);
    expect(reference.status).toBe(200);
    expect(await reference.text()).toContain('/api/reference/scalar.js');
    expect((await fetch(`${panel.url}/api/reference/scalar.js`)).status).toBe(200);
  });

  test('serves the embedded console at / with its scripts, and not on the daemon socket', async () => {
    const page = await fetch(`${panel.url}/`);
    expect(page.status).toBe(200);
    const html = await page.text();
    const script = html.match(/<script[^>]+src="([^"]+)"/);
    expect(script).not.toBeNull();
    expect((await fetch(new URL(script![1]!, panel.url))).status).toBe(200);
    expect((await overSocket('/')).status).toBe(404);
  });

  test('with PANEL_PORT=0 the derived public URL names the port it got', () => {
    expect(panel.logs()).toContain(`"publicUrl":"${panel.url}"`);
  });

  test('answers the same over the daemon unix socket, which only its owner may open', async () => {
    expect((await overSocket('/api/health')).status).toBe(200);
    expect((await (await overSocket('/api/openapi.json')).json()).openapi).toMatch(/^3\.1\./);
    expect((await overSocket('/api/reference')).status).toBe(200);
    expect(statSync(panel.socketPath).mode & 0o777).toBe(0o600);
  });

  test('keeps its database private to its user', () => {
    expect(statSync(join(dataDir, 'panel.db')).mode & 0o077).toBe(0);
  });

  test('refuses a WebSocket upgrade without credentials', async () => {
    const res = await fetch(`${panel.url}/ws/daemon/v1`, {
      headers: { upgrade: 'websocket', connection: 'Upgrade', 'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==', 'sec-websocket-version': '13' },
    });
    expect(res.status).toBe(401);
  });

  test('a second start on the same port fails with a clear message', async () => {
    const port = new URL(panel.url).port;
    const second = Bun.spawn([executable, 'serve'], {
      env: { ...process.env, PANEL_DATA_DIR: join(work, 'second'), PANEL_PORT: port, PANEL_SECRETS: TEST_KEY_RING },
      stdout: 'pipe',
      stderr: 'pipe',
    });
    expect(await second.exited).toBe(1);
    expect(await new Response(second.stderr).text()).toContain(`port ${port} on 127.0.0.1 is already in use`);
  });

  test('refuses to start on bad configuration, naming the variable', async () => {
    const bad = Bun.spawn([executable, 'serve'], {
      env: { ...process.env, PANEL_DATA_DIR: join(work, 'bad'), PANEL_PORT: '70000', PANEL_SECRETS: TEST_KEY_RING },
      stdout: 'pipe',
      stderr: 'pipe',
    });
    expect(await bad.exited).toBe(2);
    expect(await new Response(bad.stderr).text()).toContain('PANEL_PORT must be an integer');
  });

  test('drains and exits cleanly on SIGTERM, and a restart migrates nothing', async () => {
    panel.process.kill('SIGTERM');
    expect(await panel.process.exited).toBe(0);
    expect(panel.logs()).toContain('"msg":"stopped"');
    panel = await startPanel([executable, 'serve'], { PANEL_DATA_DIR: dataDir, PANEL_PORT: '0', PANEL_SECRETS: TEST_KEY_RING });
    expect(panel.logs()).not.toContain('database migrated');
    expect((await fetch(`${panel.url}/api/health`)).status).toBe(200);
  });
});
