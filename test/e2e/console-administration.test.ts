/**
 * Administration in headless Chromium against a real Panel from source: the superadmin (the
 * install's owner) grants the organization host access on this control plane's own server and
 * withdraws it again, and the organization's settings page says which is true. Screenshots go
 * to test-results/console/.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { Browser, Page } from 'playwright-core';
import {
  apiFromPage,
  chromiumMissing,
  heading,
  installThroughApi,
  launchChromium,
  type PanelFromSource,
  screenshot,
  startPanelFromSource,
  unlabelledControls,
  watchPage,
} from './browser.ts';

const missing = chromiumMissing();
if (missing) console.warn(`skipping the console administration browser tests: ${missing}`);

const TIMEOUT = 60_000;
const OWNER = { email: 'root@example.test', password: 'correct horse battery staple' };

let panel: PanelFromSource;
let browser: Browser;
let page: Page;
let problems: string[];
let organizationId: string;

const granted = async () =>
  (await apiFromPage<{ isLocalHostAccessAllowed: boolean }>(page, 'GET', `/api/client/v1/organizations/${organizationId}`)).isLocalHostAccessAllowed;

describe.skipIf(missing !== null)('console administration in Chromium', () => {
  beforeAll(async () => {
    [panel, browser] = await Promise.all([startPanelFromSource(), launchChromium()]);
    page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
    problems = watchPage(page, panel.url).problems;
    ({ organizationId } = await installThroughApi(page, panel, OWNER, 'Acme'));
  }, TIMEOUT);

  afterAll(async () => {
    await browser?.close();
    await panel?.stop();
  }, TIMEOUT);

  test("the superadmin grants and withdraws host access on Panel's own server; the settings page says which is true", async () => {
    await page.goto(`${panel.url}/organizations/${organizationId}/settings`);
    await heading(page, 'Organization settings').waitFor();
    await page.getByTestId('local-host-access').getByText('not granted').waitFor();

    await page.getByRole('link', { name: 'Administration', exact: true }).click();
    await heading(page, 'Administration').waitFor();
    expect(await unlabelledControls(page)).toEqual([]);
    const row = page.getByRole('form', { name: 'Host access on this server for Acme' });
    await row.getByRole('button', { name: 'Grant Acme host access on this server' }).click();
    await row.getByRole('button', { name: 'Withdraw the grant from Acme' }).waitFor();
    await page.getByText('Your grant: given; its owner does not allow host access.').waitFor();
    expect(await granted()).toBe(true);
    await screenshot(page, 'administration-local-host-access');

    await page.getByRole('link', { name: 'Acme', exact: true }).click();
    await heading(page, 'Organization settings').waitFor();
    await page.getByTestId('local-host-access').getByText('granted').waitFor();
    await screenshot(page, 'organization-settings-local-host-access');

    await page.getByRole('link', { name: 'Administration', exact: true }).click();
    await page.getByRole('button', { name: 'Withdraw the grant from Acme' }).click();
    await page.getByRole('button', { name: 'Grant Acme host access on this server' }).waitFor();
    expect(await granted()).toBe(false);
    expect(problems).toEqual([]);
  }, TIMEOUT);
});
