/**
 * The console and the caller's role, in headless Chromium against a real Panel from source: the
 * owner fills an organization through the API (a workspace's project with a Compose service, an
 * environment variable, a hosting, a tag, a host account, a managed database with a user, an
 * enrolled server) and invites a member, who accepts in a second browser. On every page of that
 * organization the member sees the data, none of the create/update/delete/deploy controls the
 * API would refuse them (it answers 403, checked too), and the sentence saying who may change
 * it; the owner sees those controls on the same pages. Made admin, the member gets them too.
 * Screenshots of the member's view go to test-results/console/. The tests run in order and
 * share the installed server.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { randomBytes, randomUUID } from 'node:crypto';
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
  waitForConsole,
  watchPage,
} from './browser.ts';

const missing = chromiumMissing();
if (missing) console.warn(`skipping the console roles browser tests: ${missing}`);

const TIMEOUT = 60_000;
const OWNER = { email: 'owner@example.test', password: 'correct horse battery staple' };
const MEMBER = { email: 'mia@example.test', displayName: 'Mia Member', password: 'a member with a long passphrase' };
const EDIT_NOTE = 'Only admins and owners of this organization can change this.';

let panel: PanelFromSource;
let browser: Browser;
let owner: Page;
let member: Page;
const problems: string[][] = [];
let ids: { organization: string; workspace: string; project: string; environment: string; service: string; membership: string };

/** Buttons and disclosures whose name starts with a verb that writes: none may show for a member. */
const WRITE_CONTROL = /^(Add|Bind|Create|Delete|Deploy|Destroy|Edit|Invite|Remove|Rename|Revoke|Run as|Save|Set|Stop|Update)\b/;

function writeControls(target: Page): Promise<string[]> {
  return target.evaluate(
    (pattern) =>
      [...document.querySelectorAll('button, summary')]
        .map((control) => (control.getAttribute('aria-label') ?? control.textContent ?? '').trim())
        .filter((name) => new RegExp(pattern).test(name)),
    WRITE_CONTROL.source,
  );
}

/**
 * Enabled inputs other than radio buttons (the Compose view choice) and the log viewer's filter and
 * follow box (they only read): every one of them would write.
 */
function enabledInputs(target: Page): Promise<string[]> {
  return target.evaluate(() =>
    [...document.querySelectorAll<HTMLInputElement | HTMLTextAreaElement>('input:not([type="radio"]), textarea')]
      .filter((input) => !input.disabled && !input.closest('section.logs'))
      .map((input) => input.outerHTML.slice(0, 80)),
  );
}

/** What the member's page may not offer, checked once the page has shown what it waits for. */
async function expectReadOnly(name: string): Promise<void> {
  expect(await writeControls(member)).toEqual([]);
  expect(await enabledInputs(member)).toEqual([]);
  expect(await unlabelledControls(member)).toEqual([]);
  await screenshot(member, `roles-member-${name}`);
}

/** The status a signed-in call answers, without throwing. */
function statusFromPage(target: Page, method: string, path: string, body: unknown): Promise<number> {
  return target.evaluate(
    async ([method, path, body]) => (await fetch(path, { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })).status,
    [method, path, body] as const,
  );
}

/** Enrolls a server with a fresh join token the way a daemon does (POST /api/daemon/v1/enroll). */
async function enrollServer(organizationId: string): Promise<void> {
  const { token } = await apiFromPage<{ token: string }>(owner, 'POST', '/api/client/v1/join-tokens', { organizationId });
  const response = await fetch(`${panel.url}/api/daemon/v1/enroll`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ token, hostname: 'edge-1', machineId: randomUUID(), publicKey: randomBytes(32).toString('base64url'), keyId: 'k1' }),
  });
  expect(response.status).toBe(201);
}

/** The owner's organization: everything the pages show, so each one has rows a member could otherwise change. */
async function fillOrganization(): Promise<typeof ids> {
  const { organizationId, defaultWorkspaceId } = await installThroughApi(owner, panel, OWNER, 'Acme');
  const post = <T>(path: string, body: unknown) => apiFromPage<T>(owner, 'POST', `/api/client/v1/${path}`, body);
  const project = await post<{ id: string }>('projects', { workspaceId: defaultWorkspaceId, name: 'shop' });
  await apiFromPage(owner, 'PUT', `/api/client/v1/projects/${project.id}/compose`, { yaml: 'services:\n  web:\n    image: nginx:1.27\n' });
  // A new project starts with one environment, named by the organization's default ("production").
  const environments = await apiFromPage<{ data: { id: string }[] }>(owner, 'GET', `/api/client/v1/environments?projectId=${project.id}`);
  const environment = environments.data[0]!;
  const services = await apiFromPage<{ data: { id: string }[] }>(owner, 'GET', `/api/client/v1/services?environmentId=${environment.id}`);
  const serviceId = services.data[0]!.id;
  await post('variables', { environmentId: environment.id, key: 'GREETING', value: 'hello' });
  await post('hostings', { serviceId, name: 'public', options: { hostnames: ['shop.example.test'], targetPort: 8080, protocol: 'http' } });
  const tag = await post<{ id: string }>('tags', { organizationId, name: 'edge', color: '#0a7' });
  await apiFromPage(owner, 'PUT', `/api/client/v1/projects/${project.id}/tags`, { tagIds: [tag.id] });
  await post('principals', { kind: 'system', organizationId, username: 'www-shop', options: { shell: '/usr/sbin/nologin' } });
  const cluster = await post<{ id: string }>('managed', { organizationId, name: 'main-db', engine: 'postgres', host: 'db.internal', port: 5432, options: { databases: ['shop'] } });
  await post('principals', { kind: 'database', provider: 'postgres', organizationId, managedId: cluster.id, username: 'shop_app', metadata: { databases: ['shop'] } });
  await enrollServer(organizationId);
  const invitation = await post<{ token: string }>('invitations', { organizationId, email: MEMBER.email, role: 'member' });
  await member.goto(panel.url);
  await waitForConsole(member);
  await apiFromPage(member, 'POST', '/api/client/v1/invitations/accept', { token: invitation.token, password: MEMBER.password, displayName: MEMBER.displayName });
  const memberships = await apiFromPage<{ data: { id: string; email: string }[] }>(owner, 'GET', `/api/client/v1/memberships?organizationId=${organizationId}`);
  const membership = memberships.data.find((candidate) => candidate.email === MEMBER.email)!.id;
  return { organization: organizationId, workspace: defaultWorkspaceId, project: project.id, environment: environment.id, service: serviceId, membership };
}

describe.skipIf(missing !== null)('console pages follow the caller role in Chromium', () => {
  beforeAll(async () => {
    [panel, browser] = await Promise.all([startPanelFromSource(), launchChromium()]);
    const newPage = async () => (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
    [owner, member] = await Promise.all([newPage(), newPage()]);
    problems.push(watchPage(owner, panel.url).problems, watchPage(member, panel.url).problems);
    ids = await fillOrganization();
  }, TIMEOUT);

  afterAll(async () => {
    await browser?.close();
    await panel?.stop();
  }, TIMEOUT);

  test('the API refuses a member’s writes, which is why the console does not offer them', async () => {
    expect(await statusFromPage(member, 'POST', '/api/client/v1/workspaces', { organizationId: ids.organization, name: 'Sneaky' })).toBe(403);
    expect(await statusFromPage(member, 'POST', `/api/client/v1/environments/${ids.environment}/deploy`, {})).toBe(403);
    expect(await statusFromPage(member, 'POST', '/api/client/v1/join-tokens', { organizationId: ids.organization })).toBe(403);
  }, TIMEOUT);

  test('a member sees the organization and workspace read-only', async () => {
    await member.goto(`${panel.url}/organizations/${ids.organization}`);
    await heading(member, 'Acme').waitFor();
    await member.getByRole('link', { name: 'Default' }).first().waitFor();
    await member.getByText('Only admins and owners of this organization can create workspaces.').waitFor();
    await member.getByText('Only admins and owners of this organization can change variables.').waitFor();
    await expectReadOnly('organization');

    await member.goto(`${panel.url}/workspaces/${ids.workspace}`);
    await heading(member, 'Default').waitFor();
    await member.getByRole('list', { name: 'Projects' }).getByText('edge').waitFor();
    await member.getByText('Only admins and owners of this organization can create projects.').waitFor();
    const settings = member.getByRole('region', { name: 'Settings', exact: true });
    await settings.getByText(EDIT_NOTE).waitFor();
    await settings.getByText('Default', { exact: true }).waitFor();
    await expectReadOnly('workspace');
  }, TIMEOUT);

  test('a member sees the project and environment read-only, with no deploy controls', async () => {
    await member.goto(`${panel.url}/projects/${ids.project}`);
    await heading(member, 'shop').waitFor();
    await member.getByRole('link', { name: 'production' }).waitFor();
    await member.getByText('Only admins and owners of this organization can create environments.').waitFor();
    expect(await member.getByRole('combobox', { name: 'Default server' }).isDisabled()).toBe(true);
    const editor = member.locator('[contenteditable][aria-label="Project base Compose file"]');
    await editor.waitFor();
    expect(await editor.getAttribute('aria-readonly')).toBe('true');
    await member.getByRole('region', { name: 'Settings', exact: true }).getByText(EDIT_NOTE).waitFor();
    await expectReadOnly('project');

    await member.goto(`${panel.url}/environments/${ids.environment}`);
    await heading(member, 'production').waitFor();
    await member.getByText('Only admins and owners of this organization can deploy, stop or destroy this environment.').waitFor();
    await member.getByRole('table', { name: 'Variables of environment production' }).getByText('GREETING').waitFor();
    await member.getByRole('link', { name: 'web' }).waitFor();
    expect(await member.getByRole('combobox', { name: 'Server pin' }).isDisabled()).toBe(true);
    await member.getByRole('region', { name: 'Settings', exact: true }).getByText(EDIT_NOTE).waitFor();
    await expectReadOnly('environment');
  }, TIMEOUT);

  test('a member sees the service, its hostings, host account and bindings read-only', async () => {
    await member.goto(`${panel.url}/services/${ids.service}`);
    await heading(member, 'web').waitFor();
    await member.getByText('shop.example.test', { exact: true }).waitFor();
    await member.getByText('Only admins and owners of this organization can add, change or delete hostings.').waitFor();
    await member.getByText('Only admins and owners of this organization can choose the host account.').waitFor();
    await member.getByText('Only admins and owners of this organization can bind databases to this service.').waitFor();
    await member.getByText('Only admins and owners of this organization can change variables.').waitFor();
    await expectReadOnly('service');
  }, TIMEOUT);

  test('a member sees the servers, tags, principals and managed databases read-only', async () => {
    await member.goto(`${panel.url}/organizations/${ids.organization}/servers`);
    await heading(member, 'Servers').waitFor();
    await member.getByRole('table', { name: 'Servers' }).getByText('edge-1').first().waitFor();
    await member.getByText('Only admins and owners of this organization can add, rename, label or delete servers.').waitFor();
    await expectReadOnly('servers');

    await member.goto(`${panel.url}/organizations/${ids.organization}/tags`);
    await heading(member, 'Tags').waitFor();
    await member.getByText('edge', { exact: true }).waitFor();
    await member.getByText('Only admins and owners of this organization can create, rename or delete tags.').waitFor();
    await expectReadOnly('tags');

    await member.goto(`${panel.url}/organizations/${ids.organization}/principals`);
    await heading(member, 'Principals').waitFor();
    await member.getByRole('table', { name: 'Principals' }).getByRole('rowheader', { name: 'www-shop' }).waitFor();
    await member.getByText('Only admins and owners of this organization can create, edit or delete principals.').waitFor();
    await expectReadOnly('principals');

    await member.goto(`${panel.url}/organizations/${ids.organization}/managed`);
    await heading(member, 'Managed databases').waitFor();
    await member.getByRole('table', { name: 'Database users of main-db' }).getByRole('rowheader', { name: 'shop_app' }).waitFor();
    await member.getByText('Only admins and owners of this organization can add, change or delete managed databases and their users.').waitFor();
    await expectReadOnly('managed');
  }, TIMEOUT);

  test('the environment page fits a 390-px-wide phone for a member', async () => {
    await member.setViewportSize({ width: 390, height: 844 });
    await member.goto(`${panel.url}/environments/${ids.environment}`);
    await heading(member, 'production').waitFor();
    await member.getByRole('region', { name: 'Settings', exact: true }).getByText(EDIT_NOTE).waitFor();
    expect(await member.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await screenshot(member, 'roles-member-environment-phone');
    await member.setViewportSize({ width: 1280, height: 800 });
  }, TIMEOUT);

  test('the owner sees the controls on the same pages', async () => {
    const button = (name: string) => owner.getByRole('button', { name, exact: true });
    await owner.goto(`${panel.url}/organizations/${ids.organization}`);
    await button('Create workspace').waitFor();
    await button('Add variable').waitFor();

    await owner.goto(`${panel.url}/workspaces/${ids.workspace}`);
    await Promise.all(['Edit tags', 'Create project', 'Update workspace', 'Delete workspace'].map((name) => button(name).waitFor()));

    await owner.goto(`${panel.url}/projects/${ids.project}`);
    await Promise.all(['Create environment', 'Set default server', 'Save', 'Update project'].map((name) => button(name).waitFor()));
    expect(await owner.getByRole('combobox', { name: 'Default server' }).isDisabled()).toBe(false);

    await owner.goto(`${panel.url}/environments/${ids.environment}`);
    await Promise.all(['Deploy', 'Stop', 'Destroy', 'Set server pin', 'Edit GREETING', 'Update environment'].map((name) => button(name).waitFor()));

    await owner.goto(`${panel.url}/services/${ids.service}`);
    await Promise.all(['Save public', 'Delete hosting public', 'Add hosting', 'Run as this account'].map((name) => button(name).waitFor()));
    await owner.getByText('Bind a database user').waitFor();

    await owner.goto(`${panel.url}/organizations/${ids.organization}/servers`);
    await Promise.all(['Rename edge-1', 'Delete edge-1', 'Create join command'].map((name) => button(name).waitFor()));

    await owner.goto(`${panel.url}/organizations/${ids.organization}/tags`);
    await Promise.all(['Create tag', 'Delete tag edge'].map((name) => button(name).waitFor()));

    await owner.goto(`${panel.url}/organizations/${ids.organization}/principals`);
    await Promise.all(['Edit www-shop', 'Create host account'].map((name) => button(name).waitFor()));

    await owner.goto(`${panel.url}/organizations/${ids.organization}/managed`);
    await Promise.all(['Edit main-db', 'Delete database user shop_app', 'Add managed database'].map((name) => button(name).waitFor()));
  }, TIMEOUT);

  test('made admin, the member gets the controls after a reload', async () => {
    await apiFromPage(owner, 'PATCH', `/api/client/v1/memberships/${ids.membership}`, { role: 'admin' });
    await member.goto(`${panel.url}/environments/${ids.environment}`);
    await member.getByRole('button', { name: 'Deploy', exact: true }).waitFor();
    await member.getByRole('button', { name: 'Update environment', exact: true }).waitFor();
    expect(await member.getByText(EDIT_NOTE).count()).toBe(0);
    expect(problems.flat()).toEqual([]);
  }, TIMEOUT);

  test('demoted while the page is open, the first refused change takes the controls away', async () => {
    await apiFromPage(owner, 'PATCH', `/api/client/v1/memberships/${ids.membership}`, { role: 'member' });
    const settings = member.getByRole('region', { name: 'Settings' });
    await settings.getByLabel('Description (optional)', { exact: true }).fill('changed after the demotion');
    await settings.getByRole('button', { name: 'Update environment', exact: true }).click();
    await member.getByText(EDIT_NOTE).first().waitFor();
    expect(await member.getByRole('button', { name: 'Deploy', exact: true }).count()).toBe(0);
  }, TIMEOUT);
});
