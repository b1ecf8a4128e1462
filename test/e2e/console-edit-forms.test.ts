/**
 * Every edit form of the console in headless Chromium against a real Panel from source, on
 * resources whose every field is set (through the API, including fields the forms do not show):
 * each form opens with the stored values (read as soon as it is on screen, without waiting for
 * them), one field is changed, and the request carries only that field, after which the API
 * answers every other field as it was. Secret values and passwords, which the API never answers,
 * are read from the database: the sealed value still opens to what was stored. Screenshots of
 * the forms go to test-results/console/. One Panel and one browser for the file.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { Database } from 'bun:sqlite';
import { join } from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { openSecret, parseKeyRing } from '../../src/crypto/index.ts';
import { TEST_KEY_RING } from '../harness.ts';
import { apiFromPage, chromiumMissing, heading, installThroughApi, launchChromium, type PanelFromSource, screenshot, startPanelFromSource, watchPage } from './browser.ts';

const missing = chromiumMissing();
if (missing) console.warn(`skipping the console edit-form browser tests: ${missing}`);

const TIMEOUT = 60_000;
const OWNER = { email: 'owner@example.test', password: 'correct horse battery staple' };
const SECRET_VALUE = 's3cret-value-never-shown';
const HOST_PASSWORD = 'host-account-Pa55word';
const DATABASE_PASSWORD = 'database-user-Pa55word';

type Resource = Record<string, unknown> & { id: string; updatedAt: string };

let panel: PanelFromSource;
let browser: Browser;
let page: Page;
let watched: { problems: string[] };
const ids: Record<string, string> = {};

const get = (path: string) => apiFromPage<Resource>(page, 'GET', `/api/client/v1/${path}`);
const post = (path: string, body: unknown) => apiFromPage<Resource>(page, 'POST', `/api/client/v1/${path}`, body);
const patch = (path: string, body: unknown) => apiFromPage<Resource>(page, 'PATCH', `/api/client/v1/${path}`, body);

/** Runs `save` and answers the body of the PATCH it sent to `/api/client/v1/<path>`, once answered. */
async function patchSentBy(path: string, save: () => Promise<void>): Promise<unknown> {
  const pathname = `/api/client/v1/${path}`;
  const answered = page.waitForResponse((response) => response.request().method() === 'PATCH' && new URL(response.url()).pathname === pathname);
  await save();
  const response = await answered;
  expect(response.status()).toBe(200);
  return response.request().postDataJSON();
}

/** The resource as the API answers it now equals `before` with exactly `changes` applied. */
async function expectOnlyChanged(path: string, before: Resource, changes: Record<string, unknown>): Promise<void> {
  const after = await get(path);
  expect(after).toEqual({ ...before, ...changes, updatedAt: expect.any(String) });
  expect(after.updatedAt >= before.updatedAt).toBe(true);
}

/** Each input of `form`, found by its exact label, shows the value given for it. */
async function expectShown(form: Locator, shown: Record<string, string>): Promise<void> {
  for (const [label, value] of Object.entries(shown)) expect(await form.getByLabel(label, { exact: true }).inputValue(), label).toBe(value);
}

/** The plaintext of a sealed column, read from the database the way Panel opens it. */
function openedSecret(table: 'variable' | 'principal', column: 'value' | 'password', id: string): string {
  const db = new Database(join(panel.dataDir, 'panel.db'), { readonly: true });
  try {
    const row = db.query<Record<string, string>, [string]>(`select ${column} from ${table} where id = ?`).get(id);
    return openSecret(parseKeyRing(TEST_KEY_RING), row![column]!, { table, column, id });
  } finally {
    db.close();
  }
}

/** Everything the forms edit, with every field set, some of them to values no form shows. */
async function seed(): Promise<void> {
  const installed = await installThroughApi(page, panel, OWNER, 'Acme');
  ids.organization = installed.organizationId;
  await patch(`organizations/${ids.organization}`, { defaultEnvironmentName: 'live', isRandomizeUsernames: true, isHostAccessAllowed: true });
  ids.workspace = (await post('workspaces', { organizationId: ids.organization, name: 'Team', description: 'Where the shop lives' })).id;
  ids.project = (await post('projects', { workspaceId: ids.workspace, name: 'shop', description: 'The web shop', metadata: { type: 'docker-compose', owner: 'web-team' }, options: { containerNaming: 'custom' } })).id;
  await apiFromPage(page, 'PUT', `/api/client/v1/projects/${ids.project}/compose`, { yaml: '# the shop\nservices:\n  web:\n    image: nginx:1.27\n' });
  const environments = await apiFromPage<{ data: Resource[] }>(page, 'GET', `/api/client/v1/environments?projectId=${ids.project}`);
  ids.environment = environments.data[0]!.id;
  await patch(`environments/${ids.environment}`, { description: 'The live site', metadata: { audience: 'customers' } });
  const services = await apiFromPage<{ data: Resource[] }>(page, 'GET', `/api/client/v1/services?environmentId=${ids.environment}`);
  ids.service = services.data[0]!.id;
  const plain = { key: 'GREETING', value: 'hello $WORLD', isLiteral: true, forBuild: true, forRuntime: false, description: 'How the shop greets' };
  ids.variable = (await post('variables', { environmentId: ids.environment, ...plain })).id;
  ids.secret = (await post('variables', { environmentId: ids.environment, key: 'API_KEY', value: SECRET_VALUE, isSecret: true, description: 'Payment API key' })).id;
  ids.hosting = (
    await post('hostings', {
      serviceId: ids.service,
      name: 'public',
      description: 'The front door',
      metadata: { team: 'web' },
      options: { hostnames: ['shop.example.test', 'www.shop.example.test'], pathPrefix: '/', targetPort: 8080, protocol: 'http', bind: 'local', proxy: { gzip: true } },
    })
  ).id;
  ids.tag = (await post('tags', { organizationId: ids.organization, name: 'edge', color: '#0a7', description: 'Servers at the edge' })).id;
  ids.principal = (await post('principals', { kind: 'system', organizationId: ids.organization, username: 'www-shop', options: { shell: '/bin/bash', uid: 1500, gid: 1600 }, password: HOST_PASSWORD })).id;
  ids.cluster = (await post('managed', { organizationId: ids.organization, name: 'main-db', engine: 'postgres', version: '17', host: 'db.internal', port: 5432, options: { databases: ['shop', 'analytics'] } })).id;
  ids.databaseUser = (await post('principals', { kind: 'database', provider: 'postgres', organizationId: ids.organization, managedId: ids.cluster, username: 'shop_app', metadata: { databases: ['shop'] }, password: DATABASE_PASSWORD })).id;
  ids.binding = (await post('bindings', { principalId: ids.databaseUser, serviceId: ids.service, databaseName: 'analytics', keyPrefix: 'SHOP', emitEngineDefaults: false })).id;
}

async function open(path: string, title: string): Promise<void> {
  await page.goto(`${panel.url}${path}`);
  await heading(page, title).waitFor();
}

describe.skipIf(missing !== null)('console edit forms keep what is stored', () => {
  beforeAll(async () => {
    [panel, browser] = await Promise.all([startPanelFromSource(), launchChromium()]);
    page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
    watched = watchPage(page, panel.url);
    await seed();
  }, TIMEOUT);

  afterAll(async () => {
    await browser?.close();
    await panel?.stop();
  }, TIMEOUT);

  test('organization settings: a new default environment name, then deploy hooks, change nothing else', async () => {
    const before = await get(`organizations/${ids.organization}`);
    await open(`/organizations/${ids.organization}/settings`, 'Organization settings');
    const general = page.getByRole('form', { name: 'General settings' });
    await expectShown(general, { 'Organization name': 'Acme', 'Default environment name': 'live' });
    expect(await general.getByLabel('Randomize principal usernames').isChecked()).toBe(true);
    await general.getByLabel('Default environment name').fill('production');
    const sent = await patchSentBy(`organizations/${ids.organization}`, () => general.getByRole('button', { name: 'Save settings' }).click());
    expect(sent).toEqual({ defaultEnvironmentName: 'production' });
    await expectOnlyChanged(`organizations/${ids.organization}`, before, { defaultEnvironmentName: 'production' });

    const access = page.getByRole('form', { name: 'Server access settings' });
    expect(await access.getByLabel('Allow host access in Compose files').isChecked()).toBe(true);
    await access.getByLabel('Enable deploy hooks').check();
    const sentAccess = await patchSentBy(`organizations/${ids.organization}`, () => access.getByRole('button', { name: 'Save server access' }).click());
    expect(sentAccess).toEqual({ isDeployHooksEnabled: true });
    const after = await get(`organizations/${ids.organization}`);
    expect(after).toMatchObject({ name: 'Acme', defaultEnvironmentName: 'production', isRandomizeUsernames: true, isHostAccessAllowed: true, isDeployHooksEnabled: true });
    await screenshot(page, 'edit-organization-settings');
  }, TIMEOUT);

  test('workspace, project and environment settings: one field changed, the rest (metadata and options too) kept', async () => {
    for (const [kind, title, name, description, change] of [
      ['workspaces', 'Team', 'Team', 'Where the shop lives', { description: 'The team’s projects' }],
      ['projects', 'shop', 'shop', 'The web shop', { name: 'web shop' }],
      ['environments', 'live', 'live', 'The live site', { description: 'Customers see this one' }],
    ] as const) {
      const id = ids[kind.slice(0, -1)]!;
      const before = await get(`${kind}/${id}`);
      await open(`/${kind}/${id}`, title);
      const form = page.getByRole('form', { name: `Rename or describe the ${kind.slice(0, -1)}` });
      await expectShown(form, { Name: name, 'Description (optional)': description });
      const [field, value] = Object.entries(change)[0]!;
      await form.getByLabel(field === 'name' ? 'Name' : 'Description (optional)').fill(value);
      const sent = await patchSentBy(`${kind}/${id}`, () => form.getByRole('button', { name: /^Update / }).click());
      expect(sent).toEqual(change);
      await expectOnlyChanged(`${kind}/${id}`, before, change);
      await form.getByRole('status').filter({ hasText: 'Updated.' }).waitFor();
    }
    await screenshot(page, 'edit-environment-settings');
  }, TIMEOUT);

  test('a variable opens with its value, flags and description; a new description keeps the value', async () => {
    const before = await get(`variables/${ids.variable}`);
    await open(`/environments/${ids.environment}`, 'live');
    await page.getByRole('button', { name: 'Edit GREETING' }).click();
    const form = page.getByRole('form', { name: 'Edit GREETING' });
    await expectShown(form, { Value: 'hello $WORLD', Description: 'How the shop greets' });
    expect(await form.getByLabel('Secret (write-only, delivered as a file)').isChecked()).toBe(false);
    expect(await form.getByLabel('At runtime').isChecked()).toBe(false);
    expect(await form.getByLabel('At build').isChecked()).toBe(true);
    expect(await form.getByLabel('Literal (no $ interpolation)').isChecked()).toBe(true);
    await screenshot(page, 'edit-variable');

    // Saved unchanged, nothing is sent.
    const patches: string[] = [];
    const countPatches = (request: { method: () => string; url: () => string }) => void (request.method() === 'PATCH' && patches.push(request.url()));
    page.on('request', countPatches);
    await form.getByRole('button', { name: 'Save variable' }).click();
    await form.waitFor({ state: 'detached' });
    page.off('request', countPatches);
    expect(patches).toEqual([]);

    await page.getByRole('button', { name: 'Edit GREETING' }).click();
    await form.getByLabel('Description').fill('Says hello');
    const sent = await patchSentBy(`variables/${ids.variable}`, () => form.getByRole('button', { name: 'Save variable' }).click());
    expect(sent).toEqual({ description: 'Says hello' });
    await expectOnlyChanged(`variables/${ids.variable}`, before, { description: 'Says hello' });
    const row = page.getByRole('table', { name: 'Variables of environment live' }).getByRole('row').filter({ hasText: 'GREETING' });
    await row.filter({ hasText: 'Says hello' }).filter({ hasText: 'hello $WORLD' }).waitFor();
  }, TIMEOUT);

  test('a secret variable opens with an empty value; a new description keeps the sealed value', async () => {
    const before = await get(`variables/${ids.secret}`);
    await page.getByRole('button', { name: 'Edit API_KEY' }).click();
    const form = page.getByRole('form', { name: 'Edit API_KEY' });
    await expectShown(form, { Value: '', Description: 'Payment API key' });
    expect(await form.getByLabel('Value', { exact: true }).getAttribute('type')).toBe('password');
    await form.getByLabel('Description').fill('Payment provider key');
    const sent = await patchSentBy(`variables/${ids.secret}`, () => form.getByRole('button', { name: 'Save variable' }).click());
    expect(sent).toEqual({ description: 'Payment provider key' });
    await expectOnlyChanged(`variables/${ids.secret}`, before, { description: 'Payment provider key' });
    expect(openedSecret('variable', 'value', ids.secret!)).toBe(SECRET_VALUE);
    await page.getByRole('row').filter({ hasText: 'API_KEY' }).filter({ hasText: 'Payment provider key' }).waitFor();
    await screenshot(page, 'edit-variables-saved');
    expect(await page.content()).not.toContain(SECRET_VALUE);
  }, TIMEOUT);

  test('a hosting opens with its routing; a new path prefix keeps the options the form does not show', async () => {
    const before = await get(`hostings/${ids.hosting}`);
    await open(`/services/${ids.service}`, 'web');
    const form = page.getByRole('form', { name: 'Hosting public' });
    await expectShown(form, {
      'Name of public': 'public',
      'Description of public': 'The front door',
      'Hostnames of public': 'shop.example.test www.shop.example.test',
      'Path prefix of public': '/',
      'Target port of public': '8080',
      'Protocol of public': 'http',
    });
    await form.getByLabel('Path prefix of public').fill('/shop');
    const options = { ...(before.options as object), pathPrefix: '/shop' };
    const sent = await patchSentBy(`hostings/${ids.hosting}`, () => form.getByRole('button', { name: 'Save public' }).click());
    expect(sent).toEqual({ options });
    // Its URLs follow the path prefix.
    const live = { ...(before.live as object), urls: ['https://shop.example.test/shop', 'https://www.shop.example.test/shop'] };
    await expectOnlyChanged(`hostings/${ids.hosting}`, before, { options, live });
    await screenshot(page, 'edit-hosting');
  }, TIMEOUT);

  test('a database binding opens with its settings; a new key prefix keeps the database and engine keys', async () => {
    const before = await get(`bindings/${ids.binding}`);
    const bindings = page.getByRole('region', { name: 'Database bindings' });
    await bindings.getByRole('button', { name: 'Edit binding shop_app on analytics' }).click();
    const form = bindings.getByRole('form', { name: 'Edit the SHOP binding' });
    await expectShown(form, { Database: 'analytics', 'Key prefix': 'SHOP' });
    expect(await form.getByRole('checkbox', { name: /Also write the engine’s own keys/ }).isChecked()).toBe(false);
    await form.getByLabel('Key prefix').fill('MAIN');
    const sent = await patchSentBy(`bindings/${ids.binding}`, () => form.getByRole('button', { name: 'Save binding' }).click());
    expect(sent).toEqual({ keyPrefix: 'MAIN' });
    await expectOnlyChanged(`bindings/${ids.binding}`, before, { keyPrefix: 'MAIN' });
  }, TIMEOUT);

  test('a host account opens with its shell and ids; a new group id keeps the shell, user id and password', async () => {
    const before = await get(`principals/${ids.principal}`);
    await open(`/organizations/${ids.organization}/principals`, 'Principals');
    await page.getByRole('button', { name: 'Edit www-shop' }).click();
    const form = page.getByRole('form', { name: 'Edit www-shop' });
    await expectShown(form, { 'Login shell': '/bin/bash', 'User id (optional)': '1500', 'Group id (optional)': '1600', 'Set new password': '' });
    await screenshot(page, 'edit-principal');
    await form.getByLabel('Group id (optional)').fill('1700');
    const sent = await patchSentBy(`principals/${ids.principal}`, () => form.getByRole('button', { name: 'Save www-shop' }).click());
    expect(sent).toEqual({ options: { shell: '/bin/bash', uid: 1500, gid: 1700 } });
    const metadata = { ...(before.metadata as object), gid: 1700 };
    await expectOnlyChanged(`principals/${ids.principal}`, before, { options: { shell: '/bin/bash', uid: 1500, gid: 1700 }, metadata });
    expect(openedSecret('principal', 'password', ids.principal!)).toBe(HOST_PASSWORD);
  }, TIMEOUT);

  test('a database user opens with the databases it is meant for; one more keeps its password', async () => {
    const before = await get(`principals/${ids.databaseUser}`);
    await page.getByRole('button', { name: 'Edit shop_app' }).click();
    const form = page.getByRole('form', { name: 'Edit shop_app' });
    const databases = form.getByRole('group', { name: 'Databases it is meant for (optional)' });
    await databases.waitFor();
    expect(await databases.getByRole('checkbox', { name: 'shop' }).isChecked()).toBe(true);
    expect(await databases.getByRole('checkbox', { name: 'analytics' }).isChecked()).toBe(false);
    await databases.getByRole('checkbox', { name: 'analytics' }).check();
    const metadata = { ...(before.metadata as object), databases: ['shop', 'analytics'] };
    const sent = await patchSentBy(`principals/${ids.databaseUser}`, () => form.getByRole('button', { name: 'Save shop_app' }).click());
    expect(sent).toEqual({ metadata: { databases: ['shop', 'analytics'] } });
    await expectOnlyChanged(`principals/${ids.databaseUser}`, before, { metadata });
    expect(openedSecret('principal', 'password', ids.databaseUser!)).toBe(DATABASE_PASSWORD);
  }, TIMEOUT);

  test('a managed database opens with its address and databases; a new version keeps the rest', async () => {
    const before = await get(`managed/${ids.cluster}`);
    await open(`/organizations/${ids.organization}/managed`, 'Managed databases');
    await page.getByRole('button', { name: 'Edit main-db' }).click();
    const form = page.getByRole('form', { name: 'Edit main-db' });
    await expectShown(form, {
      'Name of main-db': 'main-db',
      'Version of main-db': '17',
      'Host of main-db': 'db.internal',
      'Port of main-db': '5432',
      'Databases of main-db': 'shop analytics',
    });
    await screenshot(page, 'edit-managed-database');
    await form.getByLabel('Version of main-db').fill('17.2');
    const sent = await patchSentBy(`managed/${ids.cluster}`, () => form.getByRole('button', { name: 'Save main-db' }).click());
    expect(sent).toEqual({ version: '17.2' });
    await expectOnlyChanged(`managed/${ids.cluster}`, before, { version: '17.2' });
  }, TIMEOUT);

  test('a tag opens with its name, color and description; a new color keeps the rest', async () => {
    const before = await get(`tags/${ids.tag}`);
    await open(`/organizations/${ids.organization}/tags`, 'Tags');
    await page.getByRole('button', { name: 'Edit tag edge' }).click();
    const form = page.getByRole('form', { name: 'Edit tag edge' });
    await expectShown(form, { 'Name of tag edge': 'edge', 'Color of tag edge (optional)': '#0a7', 'Description of tag edge (optional)': 'Servers at the edge' });
    await screenshot(page, 'edit-tag');
    await form.getByLabel('Color of tag edge (optional)').fill('#c30');
    const sent = await patchSentBy(`tags/${ids.tag}`, () => form.getByRole('button', { name: 'Save tag' }).click());
    expect(sent).toEqual({ color: '#c30' });
    await expectOnlyChanged(`tags/${ids.tag}`, before, { color: '#c30' });
    await form.waitFor({ state: 'detached' });
    expect(watched.problems).toEqual([]);
  }, TIMEOUT);
});
