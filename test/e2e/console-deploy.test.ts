/**
 * The console's deploy path in headless Chromium against a real Panel from source: the install
 * wizard, a project whose Compose file keeps its comments across a reload, variables at two
 * scopes (the wider one shown as inherited on the environment), a generated secret shown once,
 * "Add server" with its join command, then that exact command run as a real daemon
 * (`panel daemon join` + `panel daemon run`) on a real Docker engine (real-docker.ts), and a
 * deploy watched on the environment page until its container runs, then stop and destroy.
 * The deploy part is skipped with a printed reason only when the engine cannot start.
 * Screenshots go to test-results/console/.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Subprocess } from 'bun';
import type { Browser, Page } from 'playwright-core';
import { apiFromPage, chromiumMissing, heading, launchChromium, pasteInto, type PanelFromSource, screenshot, startPanelFromSource, waitForConsole, watchPage } from './browser.ts';
import { e2eStateDir, type RealDockerStart, startRealDocker } from './real-docker.ts';

const missing = chromiumMissing();
if (missing) console.warn(`skipping the console deploy browser tests: ${missing}`);
const engine: RealDockerStart = missing ? { started: false, reason: missing } : await startRealDocker(e2eStateDir('panel-e2e-docker-console'));
if (!engine.started) console.warn(`console deploy: the deploy steps are skipped: ${engine.reason}`);
const dockerEnv = engine.started ? engine.docker.env : {};

const TIMEOUT = 120_000;
const MAIN = join(import.meta.dir, '../../src/main.ts');
const ADMIN = { email: 'admin@example.test', password: 'correct horse battery staple' };
const COMPOSE = `# The shop, as deployed by the console test.
services:
  web: # the only tier
    image: local/busybox:1
    network_mode: none # the single-engine test tool has no bridge networks
    command: ["sleep", "3600"] # stays up
    stop_grace_period: 1s
`;

let panel: PanelFromSource;
let browser: Browser;
let page: Page;
let watched: { problems: string[] };
let organizationId: string;
let projectId: string;
let environmentId: string;
let joinCommand: string;
const daemonState = mkdtempSync(join(tmpdir(), 'panel-console-daemon-'));
const children: Subprocess[] = [];

async function addVariable(key: string, value: string): Promise<void> {
  await page.getByRole('button', { name: 'Add variable', exact: true }).click();
  await page.getByLabel('Key', { exact: true }).fill(key);
  await page.getByLabel('Value', { exact: true }).fill(value);
  await page.getByRole('form', { name: 'New variable' }).getByRole('button', { name: 'Add variable' }).click();
  await page.getByRole('row').filter({ hasText: key }).first().waitFor();
}

async function run(cmd: string[]) {
  const child = Bun.spawn(cmd, { env: { ...process.env, ...dockerEnv }, stdin: 'ignore', stdout: 'pipe', stderr: 'pipe' });
  const [stdout, stderr, exitCode] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  return { stdout: stdout.trim(), stderr, exitCode };
}

describe.skipIf(missing !== null)('console: variables, servers and a live deploy in Chromium', () => {
  beforeAll(async () => {
    [panel, browser] = await Promise.all([startPanelFromSource(), launchChromium()]);
    page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
    watched = watchPage(page, panel.url);
  }, TIMEOUT);

  afterAll(async () => {
    for (const child of children) {
      child.kill('SIGTERM');
      await child.exited;
    }
    if (engine.started) {
      const leftovers = (await run(['docker', 'ps', '-aq', '--filter', 'label=dev.panel.environment-id'])).stdout.split('\n').filter(Boolean);
      if (leftovers.length > 0) await run(['docker', 'rm', '-f', ...leftovers]);
      await engine.docker.stop();
    }
    await browser?.close();
    await panel?.stop();
    rmSync(daemonState, { recursive: true, force: true });
  }, TIMEOUT);

  test('install, a project whose Compose comments survive a reload, variables at two scopes', async () => {
    await page.goto(panel.url);
    await waitForConsole(page);
    await page.getByLabel('Install token').fill(readFileSync(join(panel.dataDir, 'install-token'), 'utf8').trim());
    await page.getByLabel('Organization name').fill('Acme');
    await page.getByLabel('E-mail').fill(ADMIN.email);
    await page.getByLabel('Password', { exact: true }).fill(ADMIN.password);
    await page.getByRole('button', { name: 'Install and sign in' }).click();
    await heading(page, 'Acme').waitFor();
    organizationId = new URL(page.url()).pathname.split('/').at(-1)!;

    await addVariable('ORG_GREETING', 'hello-from-acme');
    await screenshot(page, 'organization-variables');

    const workspaces = await apiFromPage<{ data: { id: string; kind: string }[] }>(page, 'GET', `/api/client/v1/workspaces?organizationId=${organizationId}`);
    const workspaceId = workspaces.data.find((workspace) => workspace.kind === 'user')!.id;
    projectId = (await apiFromPage<{ id: string }>(page, 'POST', '/api/client/v1/projects', { workspaceId, name: 'shop' })).id;
    await page.goto(`${panel.url}/projects/${projectId}`);
    await heading(page, 'shop').waitFor();
    await pasteInto(page.getByRole('textbox', { name: 'Project base Compose file' }), COMPOSE);
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    await page.reload();
    await waitForConsole(page);
    const editor = page.getByRole('textbox', { name: 'Project base Compose file' });
    await editor.filter({ hasText: '# the only tier' }).waitFor();
    expect(await editor.textContent()).toContain('# The shop, as deployed by the console test.');

    await addVariable('SHOP_MODE', 'demo');
    await page.getByRole('button', { name: 'Add variable', exact: true }).click();
    await page.getByLabel('Key', { exact: true }).fill('SESSION_KEY');
    await page.getByLabel('Secret (write-only, delivered as a file)').check();
    await page.getByLabel('Generate a random value (shown once)').check();
    await page.getByRole('form', { name: 'New variable' }).getByRole('button', { name: 'Add variable' }).click();
    const generated = page.getByLabel('Generated value of SESSION_KEY');
    await generated.waitFor();
    expect((await generated.textContent())!.length).toBeGreaterThan(16);
    await screenshot(page, 'project-generated-secret');
    await page.getByRole('button', { name: 'Dismiss' }).click();
    await generated.waitFor({ state: 'detached' });
    await expect(page.getByRole('row').filter({ hasText: 'SESSION_KEY' }).textContent()).resolves.toContain('Secret (write-only)');
    const inherited = page.getByRole('table', { name: 'Variables inherited by project shop' });
    await inherited.getByRole('row').filter({ hasText: 'ORG_GREETING' }).filter({ hasText: 'From the organization' }).waitFor();
    await screenshot(page, 'project-variables');

    await page.getByRole('region', { name: 'Environments' }).getByRole('link').first().click();
    await page.getByLabel('Server pin').waitFor();
    environmentId = new URL(page.url()).pathname.split('/').at(-1)!;
    const environmentInherited = page.locator('table[aria-label^="Variables inherited by environment"]');
    await environmentInherited.getByRole('row').filter({ hasText: 'SHOP_MODE' }).filter({ hasText: 'From project shop' }).waitFor();
    await environmentInherited.getByRole('row').filter({ hasText: 'ORG_GREETING' }).waitFor();
    await page.getByText('No server to deploy to.').first().waitFor();
    await screenshot(page, 'environment-unplaced');
  }, TIMEOUT);

  test('Add server shows the join command once; servers list it', async () => {
    await page.getByRole('navigation', { name: 'Workspaces' }).getByRole('link', { name: 'Servers' }).click();
    await heading(page, 'Servers').waitFor();
    await page.getByLabel('Server name (optional)').fill('vm');
    await page.getByRole('button', { name: 'Create join command' }).click();
    const command = page.getByLabel('Join command', { exact: true });
    await command.waitFor();
    const url = panel.url.replaceAll('.', '\\.');
    expect((await command.textContent())!.trim()).toMatch(new RegExp(`^curl -fsSL ${url}/api/daemon/v1/install\\.sh -o panel-install\\.sh && .* && sudo bash panel-install\\.sh --daemon ${url} --token \\S+ --name vm$`));
    // 127.0.0.1 is not reachable from another machine: the page says so and names the setting.
    await page.getByRole('alert').filter({ hasText: 'a loopback address: other machines cannot reach it' }).filter({ hasText: 'PANEL_PUBLIC_URL' }).waitFor();
    await page.getByText('The server already has the panel executable').click();
    joinCommand = (await page.getByLabel('panel daemon join command', { exact: true }).textContent())!.trim();
    expect(joinCommand).toMatch(new RegExp(`^panel daemon join ${url} --token \\S+ --name vm$`));
    await screenshot(page, 'servers-add');
    await page.getByRole('button', { name: 'Done' }).click();
    await command.waitFor({ state: 'detached' });
  }, TIMEOUT);

  test.skipIf(!engine.started)('deploys to a real daemon and shows the container turn running live, then stop and destroy', async () => {
    const [, , , url, , token] = joinCommand.split(' ');
    const joined = await run([process.execPath, MAIN, 'daemon', 'join', url!, '--token', token!, '--state-dir', daemonState]);
    expect(joined.exitCode, joined.stderr).toBe(0);
    children.push(Bun.spawn([process.execPath, MAIN, 'daemon', 'run', '--state-dir', daemonState], { env: { ...process.env, ...dockerEnv }, stdin: 'ignore', stdout: 'ignore', stderr: 'ignore' }));

    await page.reload();
    await waitForConsole(page);
    const serverRow = page.getByRole('table', { name: 'Servers' }).getByRole('row').nth(1);
    await serverRow.waitFor();
    const servers = await apiFromPage<{ data: { id: string; name: string }[] }>(page, 'GET', `/api/client/v1/servers?organizationId=${organizationId}`);
    const server = servers.data[0]!;

    await page.goto(`${panel.url}/environments/${environmentId}`);
    await page.getByLabel('Server pin').selectOption(server.id);
    await page.getByRole('button', { name: 'Set server pin' }).click();
    await page.getByRole('region', { name: 'Placement' }).getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    await page.locator('pre.compiled', { hasText: 'local/busybox:1' }).waitFor();
    await page.getByText('Live: changes appear as they happen.').waitFor();

    await page.getByRole('button', { name: 'Deploy', exact: true }).click();
    await page.locator('[data-deployment-status="succeeded"]').waitFor({ timeout: 90_000 });
    const running = page.locator('tr[data-container-status="running"]');
    await running.waitFor({ timeout: 90_000 });
    const shortId = (await running.locator('td').nth(3).textContent())!.trim();
    expect(shortId).toMatch(/^[0-9a-f]{12}$/);
    expect((await run(['docker', 'inspect', '-f', '{{.State.Running}}', shortId])).stdout).toBe('true');
    await screenshot(page, 'environment-deployed');

    await page.getByRole('button', { name: 'Stop', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Stop this environment?' });
    await screenshot(page, 'environment-stop-dialog');
    await dialog.getByRole('button', { name: 'Stop', exact: true }).click();
    // compose stop keeps the container: exited, with the same Docker id.
    await page.locator('[data-deployment-kind="stop"] [data-deployment-status="succeeded"]').waitFor({ timeout: 90_000 });
    const stopped = page.locator('tr[data-container-status="exited"]');
    await stopped.waitFor();
    expect((await stopped.locator('td').nth(3).textContent())!.trim()).toBe(shortId);
    expect((await run(['docker', 'inspect', '-f', '{{.State.Status}}', shortId])).stdout).toBe('exited');
    await screenshot(page, 'environment-stopped');

    await page.getByRole('button', { name: 'Destroy', exact: true }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Destroy', exact: true }).click();
    await page.locator('[data-deployment-kind="destroy"] [data-deployment-status="succeeded"]').waitFor({ timeout: 90_000 });
    await page.locator('[data-removed-containers="1"]').waitFor();
    expect(await page.getByRole('table', { name: 'Containers' }).count()).toBe(0);
    expect((await run(['docker', 'ps', '-aq', '--filter', `label=dev.panel.environment-id=${environmentId}`])).stdout).toBe('');
    await screenshot(page, 'environment-destroyed');

    await page.getByRole('navigation', { name: 'Workspaces' }).getByRole('link', { name: 'Servers' }).click();
    await page.getByRole('table', { name: 'Servers' }).locator('.status-connected').first().waitFor();
    await screenshot(page, 'servers');
  }, TIMEOUT);

  test('the environment page fits a 390-px-wide phone', async () => {
    const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, storageState: await page.context().storageState() });
    const small = await phone.newPage();
    await small.goto(`${panel.url}/environments/${environmentId}`);
    await waitForConsole(small);
    await small.getByLabel('Server pin').waitFor();
    await small.getByRole('table', { name: /^Variables inherited by environment/ }).waitFor();
    expect(await small.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await screenshot(small, 'environment-phone');
    await phone.close();
  }, TIMEOUT);

  test('stays offline and inside its Content-Security-Policy throughout', () => {
    expect(watched.problems).toEqual([]);
  });
});
