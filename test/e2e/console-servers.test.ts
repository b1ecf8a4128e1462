/**
 * The servers page in headless Chromium against a real Panel from source, kept open while a real
 * daemon process joins with the exact command the page shows (`panel daemon join`; joining
 * again needs the command made to replace its server), connects
 * (`panel daemon run`) and is stopped: the row appears, turns connected and then disconnected
 * without a reload (pushed over /ws/client/v1). Then a tag is applied and filtered by, labels are
 * edited (the form opens with the stored ones), the page
 * is checked on a 390-px-wide phone, and the server is renamed and deleted (after confirming).
 * Screenshots go to test-results/console/. The tests run in order and share the installed server.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Subprocess } from 'bun';
import type { Browser, Page } from 'playwright-core';
import { apiFromPage, chromiumMissing, installThroughApi, launchChromium, type PanelFromSource, screenshot, startPanelFromSource, waitForConsole, watchPage } from './browser.ts';

const missing = chromiumMissing();
if (missing) console.warn(`skipping the console servers browser tests: ${missing}`);

const TIMEOUT = 60_000;
const MAIN = join(import.meta.dir, '../../src/main.ts');
const ADMIN = { email: 'owner@example.test', password: 'correct horse battery staple' };

let panel: PanelFromSource;
let browser: Browser;
let page: Page;
let watched: { problems: string[] };
let organizationId: string;
let daemon: Subprocess | undefined;
const daemonState = mkdtempSync(join(tmpdir(), 'panel-console-servers-daemon-'));

const serversTable = () => page.getByRole('table', { name: 'Servers' });
/** The one server row (the table's first row is its header). */
const serverRow = () => serversTable().getByRole('row').nth(1);
const liveStatus = () => page.getByRole('status').filter({ hasText: 'Live: connections and disconnections appear as they happen.' });

async function stopDaemon(): Promise<void> {
  if (!daemon) return;
  daemon.kill('SIGTERM');
  await daemon.exited;
  daemon = undefined;
}

describe.skipIf(missing !== null)('console servers page in Chromium, live', () => {
  beforeAll(async () => {
    [panel, browser] = await Promise.all([startPanelFromSource(), launchChromium()]);
    page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
    watched = watchPage(page, panel.url);
    ({ organizationId } = await installThroughApi(page, panel, ADMIN, 'Acme'));
    await apiFromPage(page, 'POST', '/api/client/v1/tags', { organizationId, name: 'edge', color: '#0a7' });
    await apiFromPage(page, 'POST', '/api/client/v1/tags', { organizationId, name: 'core' });
  }, TIMEOUT);

  afterAll(async () => {
    await stopDaemon();
    await browser?.close();
    await panel?.stop();
    rmSync(daemonState, { recursive: true, force: true });
  }, TIMEOUT);

  test('a daemon joining with the shown command appears, then turns connected, without a reload', async () => {
    await page.goto(`${panel.url}/organizations/${organizationId}/servers`);
    await page.getByRole('heading', { level: 1, name: 'Servers', exact: true }).waitFor();
    await liveStatus().waitFor();
    await page.getByText('No servers yet.', { exact: true }).waitFor();
    await page.getByRole('button', { name: 'Create join command' }).click();
    await page.getByText('The server already has the panel executable').click();
    const joinCommand = (await page.getByLabel('panel daemon join command', { exact: true }).textContent())!.trim();
    const [panelWord, daemonWord, joinWord, url, tokenFlag, token] = joinCommand.split(' ');
    expect([panelWord, daemonWord, joinWord, url, tokenFlag]).toEqual(['panel', 'daemon', 'join', panel.url, '--token']);

    const joined = Bun.spawnSync([process.execPath, MAIN, 'daemon', 'join', url!, '--token', token!, '--state-dir', daemonState], { stdin: 'ignore' });
    expect(joined.exitCode, joined.stderr.toString()).toBe(0);
    await serversTable().locator('tr[data-server-status="pending"]').waitFor();
    expect(await serverRow().locator('td').nth(1).textContent()).toBe('never');

    daemon = Bun.spawn([process.execPath, MAIN, 'daemon', 'run', '--state-dir', daemonState], { stdin: 'ignore', stdout: 'ignore', stderr: 'ignore' });
    await serversTable().locator('tr[data-server-status="connected"]').waitFor();
    const lastSeen = serverRow().locator('time');
    expect(await lastSeen.textContent()).toBe('now');
    expect(await lastSeen.getAttribute('title')).toMatch(/^Connected; last recorded /);
    await page.getByRole('button', { name: 'Done' }).click();
    // The join command can be created again (the form is not left busy).
    await page.getByRole('button', { name: 'Create join command' }).waitFor();
    await screenshot(page, 'servers-live-connected');
  }, TIMEOUT);

  test('stopping the daemon process turns the row disconnected, with a relative last seen and the exact time as its title', async () => {
    await stopDaemon();
    await serversTable().locator('tr[data-server-status="disconnected"]').waitFor();
    const lastSeen = serverRow().locator('time');
    expect(await lastSeen.textContent()).toBe('just now');
    const exact = new Date((await lastSeen.getAttribute('datetime'))!).getTime();
    expect(Math.abs(Date.now() - exact)).toBeLessThan(TIMEOUT);
    // The browser's own locale and time zone format the title.
    expect(await lastSeen.getAttribute('title')).toBe(await page.evaluate((at) => new Date(at).toLocaleString(), exact));
    await screenshot(page, 'servers-live-disconnected');
  }, TIMEOUT);

  test('the same machine joins again only with a command that replaces its server', async () => {
    const joinAgain = async () => {
      await page.getByText('The server already has the panel executable').click();
      const command = (await page.getByLabel('panel daemon join command', { exact: true }).textContent())!.trim().split(' ');
      const joined = Bun.spawnSync([process.execPath, MAIN, 'daemon', 'join', command[3]!, '--token', command[5]!, '--state-dir', daemonState, '--force'], { stdin: 'ignore' });
      await page.getByRole('button', { name: 'Done' }).click();
      return joined;
    };
    const [stored] = (await apiFromPage<{ data: { id: string; name: string }[] }>(page, 'GET', `/api/client/v1/servers?organizationId=${organizationId}`)).data;
    const form = page.getByRole('form', { name: 'Create a join command' });
    expect(await form.getByLabel('The command enrolls').inputValue()).toBe('');
    await form.getByRole('button', { name: 'Create join command' }).click();
    const refused = await joinAgain();
    expect(refused.exitCode).toBe(1);
    expect(refused.stderr.toString()).toContain('machine_already_enrolled');

    await form.getByLabel('The command enrolls').selectOption({ label: `Replace ${stored!.name}` });
    await screenshot(page, 'servers-join-replacing');
    await form.getByRole('button', { name: 'Create join command' }).click();
    await page.getByText(`Run this on the machine that takes over ${stored!.name}`).waitFor();
    const replaced = await joinAgain();
    expect(replaced.exitCode, replaced.stderr.toString()).toBe(0);
    const after = (await apiFromPage<{ data: { id: string }[] }>(page, 'GET', `/api/client/v1/servers?organizationId=${organizationId}`)).data;
    expect(after.map((server) => server.id)).toEqual([stored!.id]);
  }, TIMEOUT);

  test('a tag applied to the server is shown and filters the list', async () => {
    await serverRow().getByRole('button', { name: 'Edit tags' }).click();
    await serverRow().getByLabel('edge').check();
    await serverRow().getByRole('button', { name: 'Save tags' }).click();
    await serverRow().getByRole('list', { name: 'Tags' }).getByText('edge').waitFor();
    await page.getByLabel('Filter by tag').selectOption({ label: 'core' });
    await page.getByText('No server carries that tag.').waitFor();
    await page.getByLabel('Filter by tag').selectOption({ label: 'edge' });
    await serverRow().getByRole('list', { name: 'Tags' }).getByText('edge').waitFor();
    await screenshot(page, 'servers-tagged');
    await page.getByLabel('Filter by tag').selectOption({ label: 'All' });
    await serverRow().waitFor();
  }, TIMEOUT);

  test('labels: the form opens with the stored ones; a bad key is explained; saved labels show as chips and reach the API', async () => {
    const [stored] = (await apiFromPage<{ data: { id: string; name: string }[] }>(page, 'GET', `/api/client/v1/servers?organizationId=${organizationId}`)).data;
    await apiFromPage(page, 'PATCH', `/api/client/v1/servers/${stored!.id}`, { labels: { zone: 'eu-1' } });
    await serverRow().getByRole('list', { name: 'Labels' }).getByText('zone=eu-1').waitFor();
    await serverRow().getByRole('button', { name: `Edit labels of ${stored!.name}` }).click();
    const form = page.getByRole('form', { name: `Labels of ${stored!.name}` });
    expect(await form.getByLabel('Key 1', { exact: true }).inputValue()).toBe('zone');
    expect(await form.getByLabel('Value 1', { exact: true }).inputValue()).toBe('eu-1');
    await form.getByRole('button', { name: 'Add label' }).click();
    await form.getByLabel('Key 2', { exact: true }).fill('-disk');
    await form.getByLabel('Value 2', { exact: true }).fill('ssd');
    await form.getByRole('button', { name: 'Save labels' }).click();
    await form.getByRole('alert').getByText('"-disk" is not a label key', { exact: false }).waitFor();
    await form.getByLabel('Key 2', { exact: true }).fill('disk');
    await screenshot(page, 'servers-labels-form');
    await form.getByRole('button', { name: 'Save labels' }).click();
    await form.waitFor({ state: 'detached' });
    await serverRow().getByRole('list', { name: 'Labels' }).getByText('disk=ssd').waitFor();
    const read = await apiFromPage<{ labels: Record<string, string> }>(page, 'GET', `/api/client/v1/servers/${stored!.id}`);
    expect(read.labels).toEqual({ disk: 'ssd', zone: 'eu-1' });
    await screenshot(page, 'servers-labelled');
  }, TIMEOUT);

  test('private address: the form opens with the stored one; a bad one is explained; the saved one shows on the server page', async () => {
    const [stored] = (await apiFromPage<{ data: { id: string; name: string }[] }>(page, 'GET', `/api/client/v1/servers?organizationId=${organizationId}`)).data;
    await apiFromPage(page, 'PATCH', `/api/client/v1/servers/${stored!.id}`, { privateAddress: '10.0.0.5' });
    await serverRow().getByRole('button', { name: `Edit the private address of ${stored!.name}` }).click();
    const form = page.getByRole('form', { name: `Private address of ${stored!.name}` });
    const field = form.getByLabel(`Private address of ${stored!.name}`, { exact: true });
    expect(await field.inputValue()).toBe('10.0.0.5');
    await field.fill('not an address');
    await form.getByRole('button', { name: 'Save address' }).click();
    await form.getByText('must be an IPv4 or IPv6 address', { exact: false }).waitFor();
    await screenshot(page, 'servers-private-address-form');
    await field.fill('10.0.0.6');
    await form.getByRole('button', { name: 'Save address' }).click();
    await form.waitFor({ state: 'detached' });
    expect((await apiFromPage<{ privateAddress: string | null }>(page, 'GET', `/api/client/v1/servers/${stored!.id}`)).privateAddress).toBe('10.0.0.6');
    const detail = await page.context().newPage();
    await detail.goto(`${panel.url}/servers/${stored!.id}`);
    await waitForConsole(detail);
    await detail.getByText('10.0.0.6', { exact: true }).waitFor();
    await screenshot(detail, 'server-private-address');
    await detail.close();
  }, TIMEOUT);

  test('the servers page fits a 390-px-wide phone', async () => {
    const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, storageState: await page.context().storageState() });
    const small = await phone.newPage();
    const smallWatched = watchPage(small, panel.url);
    await small.goto(`${panel.url}/organizations/${organizationId}/servers`);
    await waitForConsole(small);
    await small.getByRole('table', { name: 'Servers' }).locator('tr[data-server-status="disconnected"]').waitFor();
    await small.getByRole('status').filter({ hasText: 'Live:' }).waitFor();
    expect(await small.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await screenshot(small, 'servers-phone');
    await phone.close();
    expect(smallWatched.problems).toEqual([]);
  }, TIMEOUT);

  test('rename shows the new name; delete asks first, then the row goes', async () => {
    const name = (await serverRow().getByRole('rowheader').textContent())!.trim();
    await page.getByRole('button', { name: `Rename ${name}` }).click();
    await page.getByLabel(`Name of ${name}`).fill('edge-1');
    await page.getByRole('form', { name: `Rename ${name}` }).getByRole('button', { name: 'Rename' }).click();
    await serversTable().getByRole('rowheader', { name: 'edge-1' }).waitFor();

    await page.getByRole('button', { name: 'Delete edge-1' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete server edge-1?' });
    await dialog.waitFor();
    await screenshot(page, 'servers-delete-dialog');
    await dialog.getByRole('button', { name: 'Delete server' }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.getByText('No servers yet.', { exact: true }).waitFor();
    const left = await apiFromPage<{ data: unknown[] }>(page, 'GET', `/api/client/v1/servers?organizationId=${organizationId}`);
    expect(left.data).toEqual([]);
  }, TIMEOUT);

  test('stays offline and inside its Content-Security-Policy throughout', () => {
    expect(watched.problems).toEqual([]);
  });
});
