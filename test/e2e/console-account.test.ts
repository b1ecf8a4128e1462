/**
 * The account, tags and hostings pages in headless Chromium against a real Panel from source:
 * TOTP enrolled on the account page (codes computed here from the secret it shows) and used to
 * sign in again, an API token shown once, a tag created, applied to a project and filtered by,
 * and a hosting added, changed and deleted on its service page. Screenshots go to
 * test-results/console/. The tests run in order and share the installed server.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import * as OTPAuth from 'otpauth';
import type { Browser, Page } from 'playwright-core';
import { apiFromPage, chromiumMissing, heading, installThroughApi, launchChromium, type PanelFromSource, screenshot, startPanelFromSource, watchPage } from './browser.ts';

const missing = chromiumMissing();
if (missing) console.warn(`skipping the console account browser tests: ${missing}`);

const TIMEOUT = 60_000;
const ADMIN = { email: 'owner@example.test', password: 'correct horse battery staple' };

let panel: PanelFromSource;
let browser: Browser;
let page: Page;
let watched: { problems: string[] };
let organizationId: string;
let totpSecret: string;
let projects: { shop: string; blog: string };
let serviceId: string;

const totpAt = (offsetSeconds: number) =>
  new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(totpSecret), digits: 6, period: 30, algorithm: 'SHA1' }).generate({
    timestamp: Date.now() + offsetSeconds * 1000,
  });

describe.skipIf(missing !== null)('console account, tags and hostings in Chromium', () => {
  beforeAll(async () => {
    [panel, browser] = await Promise.all([startPanelFromSource(), launchChromium()]);
    page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
    watched = watchPage(page, panel.url);
    const installed = await installThroughApi(page, panel, ADMIN, 'Acme');
    organizationId = installed.organizationId;
    const workspaceId = installed.defaultWorkspaceId;
    const create = (name: string) => apiFromPage<{ id: string }>(page, 'POST', '/api/client/v1/projects', { workspaceId, name });
    const [shop, blog] = await Promise.all([create('shop'), create('blog')]);
    projects = { shop: shop.id, blog: blog.id };
    await apiFromPage(page, 'PUT', `/api/client/v1/projects/${shop.id}/compose`, { yaml: 'services:\n  web:\n    image: nginx:1.27\n' });
    const environment = await apiFromPage<{ id: string }>(page, 'POST', '/api/client/v1/environments', { projectId: shop.id, name: 'production' });
    const services = await apiFromPage<{ data: { id: string }[] }>(page, 'GET', `/api/client/v1/services?environmentId=${environment.id}`);
    serviceId = services.data[0]!.id;
  }, TIMEOUT);

  afterAll(async () => {
    await browser?.close();
    await panel?.stop();
  }, TIMEOUT);

  test('enrols TOTP on the account page, signs out, and signs in again with a code', async () => {
    await page.goto(`${panel.url}/account`);
    await heading(page, 'Your account').waitFor();
    await page.getByRole('button', { name: 'Set up an authenticator app' }).click();
    const secret = page.getByTestId('totp-secret');
    await secret.waitFor();
    totpSecret = (await secret.textContent())!.trim();
    await page.getByRole('img', { name: 'QR code of the authenticator secret' }).waitFor();
    await screenshot(page, 'account-totp-enrol');

    await page.getByLabel('Code from the app').fill('000000');
    await page.getByRole('button', { name: 'Turn on two-factor sign-in' }).click();
    await page.locator('.field-error, .alert').first().waitFor();
    await page.getByLabel('Code from the app').fill(totpAt(0));
    await page.getByRole('button', { name: 'Turn on two-factor sign-in' }).click();
    const codes = page.getByRole('region', { name: 'Your recovery codes' });
    await codes.waitFor();
    expect(await codes.locator('code').count()).toBe(10);
    await screenshot(page, 'account-recovery-codes');
    await codes.getByRole('button', { name: 'I have saved them' }).click();
    await page.getByRole('button', { name: 'Turn off two-factor sign-in' }).waitFor();

    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await heading(page, 'Sign in to Panel').waitFor();
    await page.getByLabel('E-mail').fill(ADMIN.email);
    await page.getByLabel('Password').fill(ADMIN.password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByLabel('Authenticator code').fill(totpAt(30));
    await page.getByRole('button', { name: 'Verify and sign in' }).click();
    await page.getByRole('link', { name: 'Tags' }).waitFor();
  }, TIMEOUT);

  test('creates an API token, shows it once, and revokes it', async () => {
    await page.goto(`${panel.url}/account`);
    await heading(page, 'Your account').waitFor();
    await page.getByLabel('Token name').fill('ci deploys');
    await page.getByRole('button', { name: 'Create API token' }).click();
    const shown = page.getByRole('region', { name: 'New API token ci deploys' });
    await shown.waitFor();
    const token = (await shown.locator('code').textContent())!;
    expect(token.length).toBeGreaterThan(20);
    await screenshot(page, 'account-api-token');
    await shown.getByRole('button', { name: 'I have saved them' }).click();
    await shown.waitFor({ state: 'detached' });
    expect(await page.getByText(token).count()).toBe(0);
    await page.getByRole('button', { name: 'Revoke API token ci deploys' }).click();
    await page.getByText('No API tokens yet.').waitFor();
    await page.getByRole('heading', { name: 'Active sessions' }).waitFor();
    await screenshot(page, 'account');
  }, TIMEOUT);

  test('changing the password offers to revoke the API tokens in the same step, and says which happened', async () => {
    await page.getByLabel('Token name').fill('nightly backup');
    await page.getByRole('button', { name: 'Create API token' }).click();
    const shown = page.getByRole('region', { name: 'New API token nightly backup' });
    await shown.getByRole('button', { name: 'I have saved them' }).click();
    await page.getByRole('button', { name: 'Revoke API token nightly backup' }).waitFor();

    const password = page.getByRole('region', { name: 'Password' });
    const revoke = password.getByRole('checkbox', { name: 'Also revoke every API token I created' });
    expect(await revoke.isChecked()).toBe(false);
    await password.getByText('A password change does not end API tokens').waitFor();
    await password.getByLabel('Current password').fill(ADMIN.password);
    await password.getByLabel('New password').fill('an even better passphrase');
    await revoke.check();
    await screenshot(page, 'account-password-with-tokens');
    await password.getByRole('button', { name: 'Change password' }).click();
    await password.getByText('Password changed. Your other sessions are signed out and your API tokens revoked.').waitFor();
    await page.getByText('No API tokens yet.').waitFor();
    expect(await revoke.isChecked()).toBe(false);
    ADMIN.password = 'an even better passphrase';
    await screenshot(page, 'account-password-changed');
  }, TIMEOUT);

  test('creates a tag, applies it to a project, and filters the workspace by it', async () => {
    await page.getByRole('link', { name: 'Tags' }).click();
    await heading(page, 'Tags').waitFor();
    await page.getByLabel('Tag name').fill('customer-facing');
    await page.getByLabel('Color (optional)').fill('#12ab34');
    await page.getByRole('button', { name: 'Create tag' }).click();
    await page.getByRole('button', { name: 'Delete tag customer-facing' }).waitFor();
    await page.getByLabel('Tag name').fill('Customer-Facing');
    await page.getByRole('button', { name: 'Create tag' }).click();
    await page.locator('.field-error').first().waitFor();
    await screenshot(page, 'tags');

    await page.goto(`${panel.url}/projects/${projects.shop}`);
    await heading(page, 'shop').waitFor();
    await page.getByRole('button', { name: 'Edit tags' }).click();
    await page.getByRole('checkbox', { name: 'customer-facing' }).check();
    await page.getByRole('button', { name: 'Save tags' }).click();
    await page.getByRole('list', { name: 'Tags' }).getByText('customer-facing').waitFor();

    await page.getByRole('navigation', { name: 'Workspaces' }).getByRole('link', { name: 'Default' }).click();
    await heading(page, 'Default').waitFor();
    const cards = page.getByRole('list', { name: 'Projects' });
    await cards.getByRole('link', { name: 'blog' }).waitFor();
    await page.getByLabel('Filter by tag').selectOption({ label: 'customer-facing' });
    await cards.getByRole('link', { name: 'blog' }).waitFor({ state: 'detached' });
    await cards.getByRole('link', { name: 'shop' }).waitFor();
    await screenshot(page, 'workspace-filtered-by-tag');
  }, TIMEOUT);

  test('adds, changes and deletes a hosting on the service page', async () => {
    await page.goto(`${panel.url}/services/${serviceId}`);
    await heading(page, 'web').waitFor();
    const add = page.getByRole('form', { name: 'Add a hosting' });
    await add.getByLabel('Hostnames of new hosting').fill('not a hostname!');
    await add.getByRole('button', { name: 'Add hosting' }).click();
    await add.locator('.field-error, .alert').first().waitFor();
    await add.getByLabel('Hostnames of new hosting').fill('shop.example.test');
    await add.getByLabel('Name of new hosting').fill('storefront');
    await add.getByLabel('Target port of new hosting').fill('80');
    await add.getByRole('button', { name: 'Add hosting' }).click();
    const hosting = page.getByRole('form', { name: 'Hosting storefront' });
    await hosting.waitFor();
    expect(await hosting.getByLabel('Hostnames of storefront').inputValue()).toBe('shop.example.test');
    await hosting.getByLabel('Path prefix of storefront').fill('/api');
    const saved = page.waitForResponse((response) => response.url().includes('/api/client/v1/hostings?') && response.ok());
    await hosting.getByRole('button', { name: 'Save storefront' }).click();
    await saved;
    await screenshot(page, 'service-hostings');
    // The saved protocol is what the form shows after a reload (a select has no defaultValue).
    await hosting.getByLabel('Protocol of storefront').selectOption('tcp');
    const savedProtocol = page.waitForResponse((response) => response.url().includes('/api/client/v1/hostings?') && response.ok());
    await hosting.getByRole('button', { name: 'Save storefront' }).click();
    await savedProtocol;
    await page.reload();
    expect(await page.getByRole('form', { name: 'Hosting storefront' }).getByLabel('Protocol of storefront').inputValue()).toBe('tcp');
    await page.getByRole('button', { name: 'Delete hosting storefront' }).click();
    await hosting.waitFor({ state: 'detached' });
  }, TIMEOUT);

  test('works at 390 px wide without sideways scrolling', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    for (const [path, title, name] of [
      ['/account', 'Your account', 'account-phone'],
      [`/organizations/${organizationId}/tags`, 'Tags', 'tags-phone'],
      [`/services/${serviceId}`, 'web', 'service-phone'],
    ] as const) {
      await page.goto(`${panel.url}${path}`);
      await heading(page, title).waitFor();
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
      await screenshot(page, name);
    }
    expect(watched.problems).toEqual([]);
  }, TIMEOUT);
});
