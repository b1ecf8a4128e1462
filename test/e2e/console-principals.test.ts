/**
 * Principals, managed databases, tenancies and bindings in headless Chromium against a real
 * Panel from source: a host account is created (a bad username is refused next to its field)
 * and edited, a managed database with two databases gets a database user, and a service is made
 * to run as the host account and bound to the user, whose credentials then show among the
 * service's variables, read-only. The binding and the tenancy are removed, the pages fit a
 * 390-px phone, and the principal and the cluster are deleted. No typed password is ever
 * rendered back. Screenshots go to test-results/console/. The tests run in order and share the
 * installed server.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { Browser, Locator, Page } from 'playwright-core';
import {
  apiFromPage,
  chromiumMissing,
  fieldErrorOf,
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
if (missing) console.warn(`skipping the console principals browser tests: ${missing}`);

const TIMEOUT = 60_000;
const ADMIN = { email: 'owner@example.test', password: 'correct horse battery staple' };
const HOST_PASSWORD = 'host-account-Pa55word';
const NEW_HOST_PASSWORD = 'replaced-host-Pa55word';
const DATABASE_PASSWORD = 'database-user-S3cret';
const PASSWORDS = [HOST_PASSWORD, NEW_HOST_PASSWORD, DATABASE_PASSWORD];

let panel: PanelFromSource;
let browser: Browser;
let page: Page;
let watched: { problems: string[] };
let organizationId: string;
let serviceId: string;

const rowOf = (table: Locator, text: string) => table.locator('tr').filter({ hasText: text });

/** No typed password is in the page: not in its markup and not in any input's value. */
async function expectNoPasswordShown(): Promise<void> {
  const html = await page.content();
  const values = await page.evaluate(() => [...document.querySelectorAll('input')].map((input) => input.value));
  for (const password of PASSWORDS) {
    expect(html).not.toContain(password);
    expect(values).not.toContain(password);
  }
}

describe.skipIf(missing !== null)('console principals, managed databases and bindings in Chromium', () => {
  beforeAll(async () => {
    [panel, browser] = await Promise.all([startPanelFromSource(), launchChromium()]);
    page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
    watched = watchPage(page, panel.url);
    const installed = await installThroughApi(page, panel, ADMIN, 'Acme');
    organizationId = installed.organizationId;
    const workspaceId = installed.defaultWorkspaceId;
    const project = await apiFromPage<{ id: string }>(page, 'POST', '/api/client/v1/projects', { workspaceId, name: 'shop' });
    await apiFromPage(page, 'PUT', `/api/client/v1/projects/${project.id}/compose`, { yaml: 'services:\n  web:\n    image: nginx:1.27\n' });
    const environment = await apiFromPage<{ id: string }>(page, 'POST', '/api/client/v1/environments', { projectId: project.id, name: 'production' });
    const services = await apiFromPage<{ data: { id: string }[] }>(page, 'GET', `/api/client/v1/services?environmentId=${environment.id}`);
    serviceId = services.data[0]!.id;
    await page.goto(`${panel.url}/organizations/${organizationId}`);
  }, TIMEOUT);

  afterAll(async () => {
    await browser?.close();
    await panel?.stop();
  }, TIMEOUT);

  test('creates a host account (a bad username is refused at its field) and sets a new password', async () => {
    await page.getByRole('navigation', { name: 'Workspaces' }).getByRole('link', { name: 'Principals' }).click();
    await heading(page, 'Principals').waitFor();
    await page.getByText('This organization has no principals yet.').waitFor();
    const create = page.getByRole('form', { name: 'Create a host account' });
    const username = create.getByLabel('Username');
    await username.fill('9 lives');
    await create.getByRole('button', { name: 'Create host account' }).click();
    await expect(fieldErrorOf(username).textContent()).resolves.toContain('must start with a letter or _');
    expect(await username.getAttribute('aria-invalid')).toBe('true');
    await username.fill('u'.repeat(33));
    await create.getByRole('button', { name: 'Create host account' }).click();
    await fieldErrorOf(username).filter({ hasText: 'at most 32 characters' }).waitFor();

    await username.fill('www-shop');
    await create.getByLabel('Login shell').selectOption('/bin/bash');
    await create.getByLabel('User id (optional)').fill('1500');
    await create.getByLabel('Password (optional)').fill(HOST_PASSWORD);
    await create.getByRole('button', { name: 'Create host account' }).click();
    const principals = page.getByRole('table', { name: 'Principals' });
    const row = rowOf(principals, 'www-shop');
    await row.getByText('Host account').waitFor();
    await row.getByRole('cell', { name: 'Set', exact: true }).waitFor();
    expect(await create.getByLabel('Password (optional)').inputValue()).toBe('');
    await expectNoPasswordShown();

    await page.getByRole('button', { name: 'Edit www-shop' }).click();
    const edit = page.getByRole('form', { name: 'Edit www-shop' });
    expect(await edit.getByLabel('Set new password').inputValue()).toBe('');
    expect(await edit.getByLabel('Login shell').inputValue()).toBe('/bin/bash');
    expect(await edit.getByLabel('User id (optional)').inputValue()).toBe('1500');
    await edit.getByLabel('Login shell').selectOption('/bin/sh');
    await edit.getByLabel('Set new password').fill(NEW_HOST_PASSWORD);
    await edit.getByRole('button', { name: 'Save www-shop' }).click();
    await edit.waitFor({ state: 'detached' });
    const stored = await apiFromPage<{ data: { username: string; options: { shell: string; uid: number }; password: null; hasPassword: boolean }[] }>(
      page,
      'GET',
      `/api/client/v1/principals?organizationId=${organizationId}`,
    );
    expect(stored.data[0]).toMatchObject({ username: 'www-shop', options: { shell: '/bin/sh', uid: 1500 }, password: null, hasPassword: true });
    await expectNoPasswordShown();
    await screenshot(page, 'principals');
  }, TIMEOUT);

  test('adds a managed database with two databases and a database user', async () => {
    await page.getByRole('navigation', { name: 'Workspaces' }).getByRole('link', { name: 'Managed databases' }).click();
    await heading(page, 'Managed databases').waitFor();
    const add = page.getByRole('form', { name: 'Add a managed database' });
    await add.getByLabel('Name').fill('main-db');
    await add.getByLabel('Engine').selectOption({ label: 'PostgreSQL' });
    await add.getByLabel('Version (optional)').fill('17');
    await add.getByLabel('Host').fill('db.internal');
    await add.getByLabel('Port').fill('5432');
    const databases = add.getByLabel('Databases');
    await databases.fill('shop 1st');
    await add.getByRole('button', { name: 'Add managed database' }).click();
    await fieldErrorOf(databases).filter({ hasText: '1st:' }).waitFor();
    await databases.fill('shop, analytics');
    await add.getByRole('button', { name: 'Add managed database' }).click();

    const cluster = page.getByRole('region', { name: 'main-db', exact: true });
    await cluster.getByText('db.internal:5432').waitFor();
    await cluster.locator('dd code', { hasText: 'analytics' }).waitFor();
    expect(await add.getByLabel('Name').inputValue()).toBe('');

    await cluster.getByText('Add a database user to main-db').click();
    const addUser = cluster.getByRole('form', { name: 'Add a database user to main-db' });
    await addUser.getByLabel('Username').fill('shop_app');
    await addUser.getByRole('checkbox', { name: 'shop', exact: true }).check();
    await addUser.getByLabel('Password (optional)').fill(DATABASE_PASSWORD);
    await addUser.getByRole('button', { name: 'Add database user' }).click();
    const users = cluster.getByRole('table', { name: 'Database users of main-db' });
    await rowOf(users, 'shop_app').getByRole('cell', { name: 'shop', exact: true }).waitFor();
    expect(await addUser.getByLabel('Password (optional)').inputValue()).toBe('');
    await expectNoPasswordShown();
    await screenshot(page, 'managed-databases');
  }, TIMEOUT);

  test('the service runs as the host account and is bound to the database user; its binding variables are read-only', async () => {
    await page.goto(`${panel.url}/services/${serviceId}`);
    await heading(page, 'web').waitFor();
    const runsAs = page.getByRole('region', { name: 'Runs as' });
    await runsAs.getByLabel('Host account', { exact: true }).selectOption({ label: 'www-shop' });
    await runsAs.getByRole('button', { name: 'Run as this account' }).click();
    await runsAs.getByRole('button', { name: 'Stop running as www-shop' }).waitFor();

    const bindings = page.getByRole('region', { name: 'Database bindings' });
    await bindings.getByText('Bind a database user').click();
    const bind = bindings.getByRole('form', { name: 'Bind a database user' });
    await bind.getByLabel('Database user').selectOption({ label: 'shop_app (main-db)' });
    await bind.getByLabel('Database', { exact: true }).selectOption('analytics');
    expect(await bind.getByLabel('Key prefix').inputValue()).toBe('DATABASE');
    await bind.getByLabel('Key prefix').fill('SHOP');
    expect(await bind.getByRole('checkbox', { name: /Also write the engine’s own keys/ }).isChecked()).toBe(true);
    await bind.getByRole('button', { name: 'Bind database user' }).click();
    const table = bindings.getByRole('table', { name: 'Database bindings' });
    await rowOf(table, 'shop_app').getByText('analytics').waitFor();

    const variables = page.getByRole('table', { name: 'Variables of service web' });
    for (const key of ['SHOP_HOST', 'SHOP_PASSWORD', 'SHOP_URL', 'PGHOST']) await rowOf(variables, key).getByText('Binding (read-only)').waitFor();
    await rowOf(variables, 'SHOP_NAME').getByText('analytics').waitFor();
    await rowOf(variables, 'SHOP_PASSWORD').getByText('Secret (write-only)').waitFor();
    for (const action of ['Edit', 'Delete']) expect(await variables.getByRole('button', { name: `${action} SHOP_HOST` }).count()).toBe(0);
    await expectNoPasswordShown();

    await table.getByRole('button', { name: 'Edit binding shop_app on analytics' }).click();
    const edit = bindings.getByRole('form', { name: 'Edit the SHOP binding' });
    expect(await edit.getByLabel('Database', { exact: true }).inputValue()).toBe('analytics');
    await edit.getByLabel('Database', { exact: true }).selectOption('shop');
    await edit.getByRole('button', { name: 'Save binding' }).click();
    await rowOf(variables, 'SHOP_NAME').getByText('shop', { exact: true }).waitFor();
    await screenshot(page, 'service-runs-as-and-bindings');
  }, TIMEOUT);

  test('a database still bound cannot be dropped from its cluster: the refusal shows at the field', async () => {
    await page.getByRole('navigation', { name: 'Workspaces' }).getByRole('link', { name: 'Managed databases' }).click();
    await heading(page, 'Managed databases').waitFor();
    await page.getByRole('button', { name: 'Edit main-db' }).click();
    const edit = page.getByRole('form', { name: 'Edit main-db' });
    const databases = edit.getByLabel('Databases of main-db');
    expect(await databases.inputValue()).toBe('shop analytics');
    await databases.fill('analytics');
    await edit.getByRole('button', { name: 'Save main-db' }).click();
    await fieldErrorOf(databases).filter({ hasText: 'database shop is still bound to a service' }).waitFor();
    expect(await databases.getAttribute('aria-invalid')).toBe('true');
    await screenshot(page, 'managed-database-in-use');
    await edit.getByRole('button', { name: 'Cancel' }).click();
    await page.getByRole('region', { name: 'main-db', exact: true }).locator('dd code', { hasText: 'shop' }).first().waitFor();
  }, TIMEOUT);

  test('removes the binding (its variables go) and the tenancy', async () => {
    await page.goto(`${panel.url}/services/${serviceId}`);
    await heading(page, 'web').waitFor();
    const runsAs = page.getByRole('region', { name: 'Runs as' });
    const bindings = page.getByRole('region', { name: 'Database bindings' });
    const table = bindings.getByRole('table', { name: 'Database bindings' });
    const variables = page.getByRole('table', { name: 'Variables of service web' });
    await rowOf(variables, 'SHOP_HOST').waitFor();
    await table.getByRole('button', { name: 'Remove binding shop_app on shop' }).click();
    const dialog = page.getByRole('dialog', { name: 'Remove the SHOP binding?' });
    await dialog.getByRole('button', { name: 'Remove binding' }).click();
    await bindings.getByText('No database is bound to this service.').waitFor();
    await rowOf(variables, 'SHOP_HOST').waitFor({ state: 'detached' });
    await page.getByText('No variables are set on this service.').waitFor();

    await runsAs.getByRole('button', { name: 'Stop running as www-shop' }).click();
    await runsAs.getByText('This service does not run as a host account of the organization.').waitFor();
    await runsAs.getByLabel('Host account', { exact: true }).waitFor();
  }, TIMEOUT);

  test('the pages fit a 390-px-wide phone', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    for (const [path, title, name] of [
      [`/organizations/${organizationId}/principals`, 'Principals', 'principals-phone'],
      [`/organizations/${organizationId}/managed`, 'Managed databases', 'managed-databases-phone'],
      [`/services/${serviceId}`, 'web', 'service-bindings-phone'],
    ] as const) {
      await page.goto(`${panel.url}${path}`);
      await heading(page, title).waitFor();
      await page.getByRole('status').filter({ hasText: 'Loading' }).first().waitFor({ state: 'detached' });
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
      expect(await unlabelledControls(page)).toEqual([]);
      await screenshot(page, name);
    }
    await page.setViewportSize({ width: 1280, height: 800 });
  }, TIMEOUT);

  test('deletes the host account and the managed database with its user', async () => {
    await page.goto(`${panel.url}/organizations/${organizationId}/principals`);
    await heading(page, 'Principals').waitFor();
    await page.getByRole('button', { name: 'Delete www-shop' }).click();
    await page.getByRole('dialog', { name: 'Delete www-shop?' }).getByRole('button', { name: 'Delete principal' }).click();
    await rowOf(page.getByRole('table', { name: 'Principals' }), 'www-shop').waitFor({ state: 'detached' });
    await rowOf(page.getByRole('table', { name: 'Principals' }), 'shop_app').waitFor();

    await page.getByRole('navigation', { name: 'Workspaces' }).getByRole('link', { name: 'Managed databases' }).click();
    await heading(page, 'Managed databases').waitFor();
    await page.getByRole('button', { name: 'Delete main-db' }).click();
    await page.getByRole('dialog', { name: 'Delete main-db?' }).getByRole('button', { name: 'Delete managed database' }).click();
    await page.getByText('No managed databases yet. Add one below.').waitFor();
    const left = await apiFromPage<{ data: unknown[] }>(page, 'GET', `/api/client/v1/principals?organizationId=${organizationId}`);
    expect(left.data).toEqual([]);
    expect(watched.problems).toEqual([]);
  }, TIMEOUT);
});
