/**
 * The newcomer's first hour (issue 14's acceptance), in headless Chromium, on a real Docker
 * engine (real-docker.ts): `npm start` on a fresh data directory, the install wizard, "This
 * machine" connected with no other command, a project whose Compose file keeps its comments,
 * deploy until the container runs, a variable's description edited in the console (its value the
 * same in the API and in the container after a redeploy), stop (the container exited and still
 * listed) and destroy (gone from the engine and from the list). Each step leaves a screenshot,
 * test-results/console/newcomer-*.png. Skipped with a printed reason only when Chromium is
 * missing or the engine cannot start.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { apiFromPage, chromiumMissing, heading, launchChromium, pasteInto, screenshot, waitForConsole, watchPage } from './browser.ts';
import { eventually, freePort } from './panel-api.ts';
import { type StartedPanel, startPanel } from './process.ts';
import { e2eStateDir, type RealDockerStart, startRealDocker } from './real-docker.ts';

const missing = chromiumMissing();
const engine: RealDockerStart = missing ? { started: false, reason: missing } : await startRealDocker(e2eStateDir('panel-e2e-docker-newcomer'));
if (!engine.started) console.warn(`skipping the newcomer's journey: ${engine.reason}`);
const dockerEnv = engine.started ? engine.docker.env : {};

const STEP_TIMEOUT = 120_000;
/** A deploy, stop or destroy on the real engine: seconds here, more on a loaded CI machine. */
const ENGINE_WAIT = { timeout: 90_000 };
const START = join(import.meta.dir, '../../scripts/start.ts');
const OWNER = { email: 'newcomer@example.test', password: 'a first password, long enough' };
const GREETING = 'hello from Panel';
const COMPOSE = `# My first app on Panel: one small web server.
services:
  web: # serves /var/www on port 8080 of its own loopback
    image: local/busybox:1
    network_mode: none # the test engine has no bridge networks; the check runs inside
    command: ["httpd", "-f", "-p", "8080", "-h", "/var/www"]
    stop_grace_period: 1s
`;

let panel: StartedPanel;
let browser: Browser;
let page: Page;
let watched: { problems: string[] };
const dataDir = mkdtempSync(join(tmpdir(), 'panel-newcomer-'));
let projectId: string;
let environmentId: string;
let containerId: string;

async function docker(...args: string[]): Promise<string> {
  const child = Bun.spawn(['docker', ...args], { env: { ...process.env, ...dockerEnv }, stdin: 'ignore', stdout: 'pipe', stderr: 'pipe' });
  const [stdout, stderr, exitCode] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  if (exitCode !== 0) throw new Error(`docker ${args.join(' ')}: ${stderr}`);
  return stdout.trim();
}

/** The full id of the container a row of the Containers table shows (by its 12-character short id). */
async function containerIdOf(row: Locator): Promise<string> {
  const shortId = (await row.locator('td code').filter({ hasText: /^[0-9a-f]{12}$/ }).textContent())!;
  return docker('inspect', '-f', '{{.Id}}', shortId);
}

/** GREETING as the app's processes see it. */
const greetingIn = (container: string) => docker('exec', container, 'sh', '-c', 'echo "$GREETING"');

/**
 * Clicks the environment page's action button (stop and destroy are confirmed in their dialog)
 * and waits until the page shows it succeeded for `generation` (a deploy raises it; stop and
 * destroy keep it).
 */
async function runOnEnvironment(action: 'Deploy' | 'Stop' | 'Destroy', generation: number): Promise<void> {
  await page.getByRole('region', { name: 'Deployment' }).getByRole('button', { name: action, exact: true }).click();
  if (action !== 'Deploy') await page.getByRole('dialog').getByRole('button', { name: action, exact: true }).click();
  const latest = page.locator(`[data-deployment-kind="${action.toLowerCase()}"]`, { hasText: `generation ${generation};` });
  await latest.locator('[data-deployment-status="succeeded"]').waitFor(ENGINE_WAIT);
}

describe.skipIf(!engine.started)("the newcomer's first hour, in a browser, on a real engine", () => {
  beforeAll(async () => {
    // `npm start` is `bun scripts/start.ts`: a trial key ring in the data dir, the install wizard,
    // and the local daemon started by Panel itself because DOCKER_HOST answers.
    const port = freePort();
    [panel, browser] = await Promise.all([
      startPanel([process.execPath, START], { ...dockerEnv, PANEL_DATA_DIR: dataDir, PANEL_HOST: '127.0.0.1', PANEL_PORT: String(port), PANEL_LOG_LEVEL: 'info' }),
      launchChromium(),
    ]);
    page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
    watched = watchPage(page, panel.url);
  }, STEP_TIMEOUT);

  afterAll(async () => {
    await browser?.close();
    if (panel) {
      panel.process.kill('SIGTERM');
      await panel.process.exited;
    }
    if (engine.started) {
      const leftovers = (await docker('ps', '-aq', '--filter', 'label=dev.panel.environment-id')).split('\n').filter(Boolean);
      if (leftovers.length > 0) await docker('rm', '-f', ...leftovers);
      await engine.docker.stop();
    }
    rmSync(dataDir, { recursive: true, force: true });
  }, STEP_TIMEOUT);

  test('the install wizard, then "This machine" connected with no other command', async () => {
    await page.goto(panel.url);
    await waitForConsole(page);
    await heading(page, 'Install Panel').waitFor();
    await screenshot(page, 'newcomer-1-install');
    await page.getByLabel('Install token').fill(readFileSync(join(dataDir, 'install-token'), 'utf8').trim());
    await page.getByLabel('Organization name').fill('Acme');
    await page.getByLabel('E-mail').fill(OWNER.email);
    await page.getByLabel('Password', { exact: true }).fill(OWNER.password);
    await page.getByRole('button', { name: 'Install and sign in' }).click();
    await heading(page, 'Acme').waitFor();

    await page.getByRole('navigation', { name: 'Workspaces' }).getByRole('link', { name: 'Servers' }).click();
    await page.locator('[data-this-machine="connected"]').waitFor(ENGINE_WAIT);
    await page.getByRole('table', { name: 'Servers' }).locator('.status-connected').first().waitFor();
    await screenshot(page, 'newcomer-2-this-machine');
  }, STEP_TIMEOUT);

  test('a project with a commented Compose file and a variable, deployed to this machine until it runs', async () => {
    await page.getByRole('navigation', { name: 'Workspaces' }).getByRole('link', { name: 'Default' }).click();
    await heading(page, 'Default').waitFor();
    const create = page.getByRole('form', { name: 'New project' });
    await create.getByLabel('Name').fill('hello');
    await create.getByLabel('Type (optional)').selectOption({ label: 'Compose stack' });
    await create.getByRole('button', { name: 'Create project' }).click();
    await heading(page, 'hello').waitFor();
    projectId = new URL(page.url()).pathname.split('/').at(-1)!;

    const defaultServer = page.getByRole('region', { name: 'Default server' });
    await defaultServer.getByLabel('Default server').selectOption({ label: (await defaultServer.locator('option', { hasText: 'local' }).textContent())! });
    await defaultServer.getByRole('button', { name: 'Set default server' }).click();
    await defaultServer.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();

    const editor = page.getByRole('textbox', { name: 'Project base Compose file' });
    await pasteInto(editor, COMPOSE);
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    // The default server's own "Saved." stays on the page: wait for the Compose section's.
    await page.getByRole('region', { name: 'Compose', exact: true }).getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    await page.reload();
    await waitForConsole(page);
    await editor.filter({ hasText: '# serves /var/www on port 8080' }).waitFor();

    await page.getByRole('button', { name: 'Add variable', exact: true }).click();
    const add = page.getByRole('form', { name: 'New variable' });
    await add.getByLabel('Key', { exact: true }).fill('GREETING');
    await add.getByLabel('Value', { exact: true }).fill(GREETING);
    await add.getByLabel('Description').fill('What the app says');
    await add.getByRole('button', { name: 'Add variable' }).click();
    await page.getByRole('table', { name: 'Variables of project hello' }).getByRole('row').filter({ hasText: 'GREETING' }).waitFor();
    // Nothing set on wider scopes yet: said in words, not an empty table.
    await page.getByText('None: no variable is set on the organization or the workspace.').waitFor();
    expect(await page.getByRole('table', { name: 'Variables inherited by project hello' }).count()).toBe(0);
    await screenshot(page, 'newcomer-3-project');

    await page.getByRole('region', { name: 'Environments' }).getByRole('link').first().click();
    await page.getByRole('region', { name: 'Deployment' }).waitFor();
    environmentId = new URL(page.url()).pathname.split('/').at(-1)!;
    await runOnEnvironment('Deploy', 1);
    const running = page.locator('tr[data-container-status="running"]');
    await running.waitFor(ENGINE_WAIT);
    containerId = await containerIdOf(running);
    expect(await docker('inspect', '-f', '{{.State.Status}}', containerId)).toBe('running');
    expect(await greetingIn(containerId)).toBe(GREETING);
    // Running is not yet listening: ask until httpd answers.
    const answer = () => docker('exec', containerId, 'wget', '-qO-', 'http://127.0.0.1:8080/').catch((error: Error) => error.message);
    expect(await eventually(answer, (body) => body === 'ok', 'the app answering on port 8080', () => panel.logs(), ENGINE_WAIT.timeout)).toBe('ok');
    await screenshot(page, 'newcomer-4-running');
  }, STEP_TIMEOUT);

  test("editing the variable's description keeps its value, in the API and in the container after a redeploy", async () => {
    await page.goto(`${panel.url}/projects/${projectId}`);
    await heading(page, 'hello').waitFor();
    await page.getByRole('button', { name: 'Edit GREETING' }).click();
    const edit = page.getByRole('form', { name: 'Edit GREETING' });
    expect(await edit.getByLabel('Value', { exact: true }).inputValue()).toBe(GREETING);
    await edit.getByLabel('Description').fill('The greeting the app shows');
    await edit.getByRole('button', { name: 'Save variable' }).click();
    const row = page.getByRole('table', { name: 'Variables of project hello' }).getByRole('row').filter({ hasText: 'GREETING' });
    await row.filter({ hasText: 'The greeting the app shows' }).filter({ hasText: GREETING }).waitFor();
    await screenshot(page, 'newcomer-5-variable-edited');
    const variables = await apiFromPage<{ data: { id: string; key: string; value: string; description: string }[] }>(page, 'GET', `/api/client/v1/variables?projectId=${projectId}`);
    expect(variables.data).toEqual([expect.objectContaining({ key: 'GREETING', value: GREETING, description: 'The greeting the app shows' })]);
    const variableId = variables.data[0]!.id;

    await page.goto(`${panel.url}/environments/${environmentId}`);
    await page.getByRole('region', { name: 'Deployment' }).waitFor();
    await page.locator('[data-deployment-kind="deploy"] [data-deployment-status="succeeded"]').waitFor();
    await runOnEnvironment('Deploy', 2);
    const running = page.locator('tr[data-container-status="running"]');
    await running.waitFor(ENGINE_WAIT);
    const current = await containerIdOf(running);
    expect(await greetingIn(current)).toBe(GREETING);
    expect((await apiFromPage<{ value: string }>(page, 'GET', `/api/client/v1/variables/${variableId}`)).value).toBe(GREETING);
    containerId = current;
  }, STEP_TIMEOUT);

  test('stop keeps the container (exited, still listed); destroy removes it', async () => {
    await runOnEnvironment('Stop', 2);
    const stopped = page.locator('tr[data-container-status="exited"]');
    await stopped.waitFor(ENGINE_WAIT);
    expect(await containerIdOf(stopped)).toBe(containerId);
    expect(await docker('inspect', '-f', '{{.State.Status}}', containerId)).toBe('exited');
    await screenshot(page, 'newcomer-6-stopped');

    await runOnEnvironment('Destroy', 2);
    await page.locator('[data-removed-containers="1"]').waitFor(ENGINE_WAIT);
    expect(await page.locator('tr[data-container-status]').count()).toBe(0);
    expect(await docker('ps', '-aq', '--filter', `label=dev.panel.environment-id=${environmentId}`)).toBe('');
    await screenshot(page, 'newcomer-7-destroyed');
    expect(watched.problems).toEqual([]);
  }, STEP_TIMEOUT);
});
