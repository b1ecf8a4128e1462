/**
 * The console in headless Chromium against a real Panel started from source: the install
 * wizard, sign-in (with a recovery code as second factor), navigation, the Compose editor with
 * its merged preview (and the question before leaving it unsaved), at 1280×800 and on a
 * 390-px-wide phone. Screenshots of each page go to
 * test-results/console/. The tests run in order and share the installed server.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { totpCode } from '../../src/auth/totp.ts';
import {
  apiFromPage,
  chromiumMissing,
  heading,
  launchChromium,
  pasteInto,
  type PanelFromSource,
  SCREENSHOT_DIR,
  screenshot,
  startPanelFromSource,
  unlabelledControls,
  waitForConsole,
  watchPage,
} from './browser.ts';

const missing = chromiumMissing();
if (missing) console.warn(`skipping the console browser tests: ${missing}`);

/** Per test: each drives a real browser against a real server (bun's default is 5 s). */
const TIMEOUT = 60_000;
const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };
const ADMIN = { email: 'admin@example.test', password: 'correct horse battery staple' };
const BASE_COMPOSE = 'services:\n  web:\n    image: nginx:1.27\n    ports:\n      - "8080:80"\n';
const OVERLAY_COMPOSE = 'services:\n  web:\n    environment:\n      MODE: staging\n';

let panel: PanelFromSource;
let browser: Browser;
let desktop: BrowserContext;
let page: Page;
let watched: { problems: string[] };
let projectId: string;
let recoveryCodes: string[];

describe.skipIf(missing !== null)('console in Chromium', () => {
  beforeAll(async () => {
    [panel, browser] = await Promise.all([startPanelFromSource(), launchChromium()]);
    desktop = await browser.newContext({ viewport: DESKTOP });
    page = await desktop.newPage();
    watched = watchPage(page, panel.url);
  }, TIMEOUT);

  afterAll(async () => {
    await browser?.close();
    await panel?.stop();
    console.log(`console screenshots: ${SCREENSHOT_DIR}`);
  }, TIMEOUT);

  test('the install wizard shows a wrong token next to its field, then installs and signs in', async () => {
    await page.goto(panel.url);
    await waitForConsole(page);
    await expect(heading(page, 'Install Panel').isVisible()).resolves.toBe(true);
    expect(await unlabelledControls(page, { editors: true })).toEqual([]);
    await screenshot(page, 'install');

    await page.getByLabel('Install token').fill('pni_not-the-token');
    await page.getByLabel('Organization name').fill('Acme');
    await page.getByLabel('E-mail').fill(ADMIN.email);
    await page.getByLabel('Password', { exact: true }).fill(ADMIN.password);
    await page.getByRole('button', { name: 'Install and sign in' }).click();
    const tokenError = page.locator('.field-error', { hasText: 'the install token is wrong' });
    await tokenError.waitFor();
    const tokenInput = page.getByLabel('Install token');
    expect(await tokenInput.getAttribute('aria-invalid')).toBe('true');
    expect(await tokenInput.getAttribute('aria-describedby')).toContain(await tokenError.getAttribute('id'));
    await screenshot(page, 'install-error');

    const token = readFileSync(join(panel.dataDir, 'install-token'), 'utf8').trim();
    await tokenInput.fill(token);
    await page.getByRole('button', { name: 'Install and sign in' }).click();
    await heading(page, 'Acme').waitFor();
    expect(new URL(page.url()).pathname).toMatch(/^\/organizations\/[0-9a-f-]{36}$/);
    await page.getByRole('link', { name: 'Default' }).first().waitFor();
    await screenshot(page, 'organization');
  }, TIMEOUT);

  test('keyboard users can skip to the content; every control has a label', async () => {
    await page.reload();
    await waitForConsole(page);
    await heading(page, 'Acme').waitFor();
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Skip to content');
    await page.keyboard.press('Enter');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('main');
    expect(await unlabelledControls(page, { editors: true })).toEqual([]);
  }, TIMEOUT);

  test('navigates to a project, edits its Compose file with errors at their line, and previews the merge read-only', async () => {
    const workspaces = await apiFromPage<{ data: { id: string; name: string }[] }>(page, 'GET', `/api/client/v1/workspaces?organizationId=${new URL(page.url()).pathname.split('/').at(-1)}`);
    const workspace = workspaces.data.find((candidate) => candidate.name === 'Default')!;
    projectId = (await apiFromPage<{ id: string }>(page, 'POST', '/api/client/v1/projects', { workspaceId: workspace.id, name: 'shop' })).id;

    await page.getByRole('navigation', { name: 'Workspaces' }).getByRole('link', { name: 'Default' }).click();
    await heading(page, 'Default').waitFor();
    await page.getByRole('link', { name: 'shop' }).click();
    await heading(page, 'shop').waitFor();
    expect(await page.evaluate(() => document.activeElement?.tagName)).toBe('H1');

    const editor = page.getByRole('textbox', { name: 'Project base Compose file' });
    // Typed key by key (Enter included): keystrokes must never be lost to re-renders.
    await editor.click();
    await page.keyboard.type('name: shop\nx-note: [unclosed\n');
    await page.locator('#compose-problem', { hasText: /^Line 3, column \d+: YAML syntax error/ }).waitFor();
    expect(await editor.textContent()).toStartWith('name: shopx-note: [unclosed');
    await page.locator('.cm-lint-marker-error').first().waitFor();

    await pasteInto(editor, BASE_COMPOSE);
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();

    await page.getByLabel('Environment overlay').check();
    await pasteInto(page.getByRole('textbox', { name: /^Overlay for environment/ }), OVERLAY_COMPOSE);
    const preview = page.getByRole('textbox', { name: 'Merged preview (read-only)' });
    await preview.filter({ hasText: 'MODE: staging' }).waitFor();
    expect(await preview.textContent()).toContain('image: nginx:1.27');
    expect(await preview.getAttribute('aria-readonly')).toBe('true');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    expect(await unlabelledControls(page, { editors: true })).toEqual([]);
    await screenshot(page, 'project');

    await page.reload();
    await waitForConsole(page);
    await page.getByRole('textbox', { name: 'Project base Compose file' }).filter({ hasText: 'image: nginx:1.27' }).waitFor();
  }, TIMEOUT);

  test('a server validation error with a path is shown at its line', async () => {
    // The real server refuses a stored x-panel.placement: 422 compose_invalid, path x-panel.placement.
    const refused = page.waitForResponse((response) => response.url().endsWith(`/api/client/v1/projects/${projectId}/compose`) && response.status() === 422);
    await pasteInto(page.getByRole('textbox', { name: 'Project base Compose file' }), `${BASE_COMPOSE}x-panel:\n  placement:\n    server_id: x\n`);
    await page.getByRole('button', { name: 'Save' }).click();
    const answer = await (await refused).json();
    expect(answer.error).toMatchObject({ code: 'compose_invalid', path: 'x-panel.placement' });
    await page.locator('#compose-problem', { hasText: 'Line 7, column 3: x-panel.placement is not accepted' }).waitFor();
    await screenshot(page, 'project-server-error');
  }, TIMEOUT);

  test('leaving the Compose editor with unsaved changes asks first: inside the console, Back, and a reload', async () => {
    // The document the server refused above is still unsaved.
    const projectPath = `/projects/${projectId}`;
    const dialog = page.getByRole('dialog', { name: 'Leave without saving?' });
    await page.getByRole('navigation', { name: 'Workspaces' }).getByRole('link', { name: 'Default' }).click();
    await dialog.getByText('The Compose file of shop has changes that are not saved: the project base.').waitFor();
    await screenshot(page, 'compose-leave-dialog');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached' });
    expect(new URL(page.url()).pathname).toBe(projectPath);

    await page.evaluate(() => history.back());
    await dialog.waitFor();
    await page.waitForURL((url) => url.pathname === projectPath);
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    expect(new URL(page.url()).pathname).toBe(projectPath);

    const asked = page.waitForEvent('dialog');
    await page.evaluate(() => setTimeout(() => location.reload()));
    const question = await asked;
    expect(question.type()).toBe('beforeunload');
    await question.dismiss();
    await page.locator('#compose-problem', { hasText: 'x-panel.placement is not accepted' }).waitFor();

    await page.getByRole('navigation', { name: 'Workspaces' }).getByRole('link', { name: 'Default' }).click();
    await dialog.getByRole('button', { name: 'Leave without saving' }).click();
    await heading(page, 'Default').waitFor();
  }, TIMEOUT);

  test('sign-out, a wrong password next to the form, and a recovery code as second factor', async () => {
    const { secret } = await apiFromPage<{ secret: string }>(page, 'POST', '/api/client/v1/auth/totp/enrol');
    ({ recoveryCodes } = await apiFromPage<{ recoveryCodes: string[] }>(page, 'POST', '/api/client/v1/auth/totp/confirm', { code: totpCode(secret, new Date()) }));

    await page.getByRole('button', { name: 'Sign out' }).click();
    await heading(page, 'Sign in to Panel').waitFor();
    expect(new URL(page.url()).pathname).toBe('/sign-in');

    await page.getByLabel('E-mail').fill(ADMIN.email);
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('alert').filter({ hasText: 'e-mail or password is wrong' }).waitFor();
    await screenshot(page, 'sign-in-error');

    await page.getByLabel('Password').fill(ADMIN.password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await heading(page, 'Two-factor sign-in').waitFor();
    await screenshot(page, 'two-factor');
    await page.getByRole('button', { name: 'Use a recovery code instead' }).click();
    await page.getByLabel('Recovery code').fill(recoveryCodes[0]!);
    await page.getByRole('button', { name: 'Verify and sign in' }).click();
    await heading(page, 'Acme').waitFor();
  }, TIMEOUT);

  test('works on a 390-px-wide phone without sideways scrolling', async () => {
    const phone = await browser.newContext({ viewport: PHONE, isMobile: true, hasTouch: true });
    const small = await phone.newPage();
    const phoneProblems = watchPage(small, panel.url);
    const noSidewaysScroll = async () => expect(await small.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);

    await small.goto(`${panel.url}/projects/${projectId}`);
    await waitForConsole(small);
    await heading(small, 'Sign in to Panel').waitFor();
    await noSidewaysScroll();
    await screenshot(small, 'sign-in-phone');

    await small.getByLabel('E-mail').fill(ADMIN.email);
    await small.getByLabel('Password').fill(ADMIN.password);
    await small.getByRole('button', { name: 'Sign in', exact: true }).click();
    await small.getByRole('button', { name: 'Use a recovery code instead' }).click();
    await small.getByLabel('Recovery code').fill(recoveryCodes[1]!);
    await small.getByRole('button', { name: 'Verify and sign in' }).click();
    await heading(small, 'shop').waitFor();
    await small.getByRole('textbox', { name: 'Merged preview (read-only)' }).filter({ hasText: 'MODE: staging' }).waitFor();
    await noSidewaysScroll();
    await screenshot(small, 'project-phone');

    await small.getByRole('link', { name: 'Workspace', exact: true }).click();
    await heading(small, 'Default').waitFor();
    await noSidewaysScroll();
    await screenshot(small, 'workspace-phone');
    expect(phoneProblems.problems).toEqual([]);
    await phone.close();
  }, TIMEOUT);

  test('stays offline and inside its Content-Security-Policy throughout', () => {
    expect(watched.problems).toEqual([]);
  }, TIMEOUT);
});
