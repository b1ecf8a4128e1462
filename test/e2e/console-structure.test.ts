/**
 * Shaping the resource tree in headless Chromium against a real Panel from source: a workspace
 * created on the organization page (it shows in the sidebar at once), a project in it, a second
 * environment; each renamed and the workspace and environment tagged; a duplicate project name
 * and a refused workspace name shown next to the name field; then the environment, the project
 * and the workspace deleted after a confirmation, each landing on its parent. The pages fit a
 * 390-px-wide phone. Screenshots go to test-results/console/. The tests run in order and share
 * the installed server.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { Browser, Page } from 'playwright-core';
import { apiFromPage, chromiumMissing, heading, installThroughApi, launchChromium, type PanelFromSource, screenshot, startPanelFromSource, watchPage } from './browser.ts';

const missing = chromiumMissing();
if (missing) console.warn(`skipping the console structure browser tests: ${missing}`);

const TIMEOUT = 60_000;
const ADMIN = { email: 'owner@example.test', password: 'correct horse battery staple' };

let panel: PanelFromSource;
let browser: Browser;
let page: Page;
let watched: { problems: string[] };
let organizationId: string;
let platformWorkspaceId: string;
let blog: { workspaceId: string; projectId: string; environmentId: string };

const sidebarLink = (name: string) => page.getByRole('navigation', { name: 'Workspaces' }).getByRole('link', { name, exact: true });
const settings = () => page.getByRole('region', { name: 'Settings' });

async function rename(what: string, to: string): Promise<void> {
  await settings().getByLabel('Name', { exact: true }).fill(to);
  await settings().getByRole('button', { name: `Update ${what}` }).click();
  await heading(page, to).waitFor();
  await settings().getByRole('status').getByText('Updated.').waitFor();
  // The new title does not pull keyboard focus away from the form to the heading.
  expect(await page.evaluate(() => document.activeElement?.tagName)).not.toBe('H1');
}

async function tagWith(tag: string): Promise<void> {
  await page.getByRole('button', { name: 'Edit tags' }).click();
  await page.getByRole('checkbox', { name: tag }).check();
  await page.getByRole('button', { name: 'Save tags' }).click();
  await page.getByRole('list', { name: 'Tags' }).first().getByText(tag).waitFor();
}

/** Opens the delete confirmation of the page's entity and confirms it. */
async function deleteWithConfirmation(what: string, name: string): Promise<void> {
  await settings().getByRole('button', { name: `Delete ${what}` }).click();
  const dialog = page.getByRole('dialog', { name: `Delete ${what} ${name}?` });
  await dialog.getByRole('button', { name: `Delete ${what}` }).click();
  await dialog.waitFor({ state: 'detached' });
}

describe.skipIf(missing !== null)('console workspaces, projects and environments in Chromium', () => {
  beforeAll(async () => {
    [panel, browser] = await Promise.all([startPanelFromSource(), launchChromium()]);
    page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
    watched = watchPage(page, panel.url);
    const installed = await installThroughApi(page, panel, ADMIN, 'Acme');
    ({ organizationId, platformWorkspaceId } = installed);
    const workspaceId = installed.defaultWorkspaceId;
    const project = await apiFromPage<{ id: string }>(page, 'POST', '/api/client/v1/projects', { workspaceId, name: 'blog' });
    const environments = await apiFromPage<{ data: { id: string }[] }>(page, 'GET', `/api/client/v1/environments?projectId=${project.id}`);
    blog = { workspaceId, projectId: project.id, environmentId: environments.data[0]!.id };
    await apiFromPage(page, 'POST', '/api/client/v1/tags', { organizationId, name: 'critical', color: '#d1242f' });
  }, TIMEOUT);

  afterAll(async () => {
    await browser?.close();
    await panel?.stop();
  }, TIMEOUT);

  test('creates a workspace on the organization page; a refused name shows next to the field', async () => {
    await page.goto(`${panel.url}/organizations/${organizationId}`);
    await heading(page, 'Acme').waitFor();
    const form = page.getByRole('form', { name: 'New workspace' });
    const name = form.getByLabel('Name', { exact: true });
    await name.fill('TurboPanel');
    await form.getByRole('button', { name: 'Create workspace' }).click();
    await form.locator('.field-error').getByText("the workspace name 'TurboPanel' is reserved for the platform").waitFor();
    expect(await name.getAttribute('aria-invalid')).toBe('true');
    await name.fill('Shop & Co');
    await form.getByRole('button', { name: 'Create workspace' }).click();
    await form.locator('.field-error').getByText('may contain only letters, digits, spaces and . _ -').waitFor();
    await screenshot(page, 'organization-new-workspace-refused');

    await name.fill('Storefront Team');
    await form.getByLabel('Description (optional)').fill('Customer-facing apps');
    await form.getByRole('button', { name: 'Create workspace' }).click();
    await heading(page, 'Storefront Team').waitFor();
    await page.getByText('Customer-facing apps').first().waitFor();
    await sidebarLink('Storefront Team').waitFor();
    await screenshot(page, 'workspace-new');
  }, TIMEOUT);

  test('renames and tags the workspace; the sidebar follows without a reload', async () => {
    await rename('workspace', 'Storefront');
    await sidebarLink('Storefront').waitFor();
    await sidebarLink('Storefront Team').waitFor({ state: 'detached' });
    await tagWith('critical');
    await screenshot(page, 'workspace-settings');
  }, TIMEOUT);

  test('the platform workspace can be described but neither renamed, deleted nor given projects', async () => {
    await sidebarLink('TurboPanel').click();
    await heading(page, 'TurboPanel').waitFor();
    await settings().getByText('The platform workspace cannot be deleted.').waitFor();
    expect(await settings().getByLabel('Name', { exact: true }).count()).toBe(0);
    expect(await settings().getByRole('button', { name: 'Delete workspace' }).count()).toBe(0);
    expect(await page.getByRole('form', { name: 'New project' }).count()).toBe(0);
    await settings().getByLabel('Description (optional)').fill('Platform stack of Acme');
    await settings().getByRole('button', { name: 'Update workspace' }).click();
    await page.locator('p.lead').getByText('Platform stack of Acme').waitFor();
    await screenshot(page, 'workspace-platform');
    await sidebarLink('Storefront').click();
    await heading(page, 'Storefront').waitFor();
  }, TIMEOUT);

  test('creates a project, shows a duplicate name next to the field, and renames the project', async () => {
    const form = page.getByRole('form', { name: 'New project' });
    await form.getByLabel('Name', { exact: true }).fill('shop');
    await form.getByLabel('Type (optional)').selectOption({ label: 'Compose stack' });
    await form.getByRole('button', { name: 'Create project' }).click();
    await heading(page, 'shop').waitFor();
    await page.getByRole('link', { name: 'production', exact: true }).waitFor();

    await page.getByRole('navigation', { name: 'Breadcrumb' }).getByRole('link', { name: 'Workspace' }).click();
    await heading(page, 'Storefront').waitFor();
    await page.getByRole('list', { name: 'Projects' }).getByRole('link', { name: 'shop' }).waitFor();
    const name = form.getByLabel('Name', { exact: true });
    await name.fill('SHOP');
    await form.getByRole('button', { name: 'Create project' }).click();
    const error = form.locator('.field-error');
    await error.getByText("a project named 'SHOP' already exists in this organization").waitFor();
    expect(await name.getAttribute('aria-describedby')).toContain((await error.getAttribute('id'))!);
    await screenshot(page, 'workspace-duplicate-project');

    await page.getByRole('list', { name: 'Projects' }).getByRole('link', { name: 'shop' }).click();
    await heading(page, 'shop').waitFor();
    await settings().getByLabel('Name', { exact: true }).fill('blog');
    await settings().getByRole('button', { name: 'Update project' }).click();
    await settings().locator('.field-error').getByText("a project named 'blog' already exists in this organization").waitFor();
    await rename('project', 'web shop');
    await screenshot(page, 'project-settings');
  }, TIMEOUT);

  test('creates a second environment, renames it and tags it', async () => {
    const form = page.getByRole('form', { name: 'New environment' });
    await form.getByLabel('Name', { exact: true }).fill('staging');
    await form.getByLabel('Description (optional)').fill('Before production');
    await form.getByRole('button', { name: 'Create environment' }).click();
    await heading(page, 'staging').waitFor();
    await rename('environment', 'staging-eu');
    await tagWith('critical');
    await screenshot(page, 'environment-settings');
  }, TIMEOUT);

  test('deletes the environment, the project and the workspace, each landing on its parent', async () => {
    await deleteWithConfirmation('environment', 'staging-eu');
    await heading(page, 'web shop').waitFor();
    await page.getByRole('link', { name: 'production', exact: true }).waitFor();
    expect(await page.getByRole('link', { name: 'staging-eu' }).count()).toBe(0);

    await settings().getByRole('button', { name: 'Delete project' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete project web shop?' });
    await dialog.getByRole('button', { name: 'Delete project' }).click();
    await dialog.getByRole('alert').getByText('This project still has environments. Delete each of its environments first').waitFor();
    await screenshot(page, 'project-delete-refused');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });

    await page.getByRole('link', { name: 'production', exact: true }).click();
    await heading(page, 'production').waitFor();
    await deleteWithConfirmation('environment', 'production');
    await heading(page, 'web shop').waitFor();
    await page.getByText('This project has no environments yet.').waitFor();
    await deleteWithConfirmation('project', 'web shop');
    await heading(page, 'Storefront').waitFor();
    await page.getByText('This workspace has no projects yet.').waitFor();
    await deleteWithConfirmation('workspace', 'Storefront');
    await heading(page, 'Acme').waitFor();
    expect(new URL(page.url()).pathname).toBe(`/organizations/${organizationId}`);
    await sidebarLink('Storefront').waitFor({ state: 'detached' });
    await screenshot(page, 'organization-after-deletes');
  }, TIMEOUT);

  test('the pages fit a 390-px-wide phone and every control has a label', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    for (const [path, title, name, section] of [
      [`/organizations/${organizationId}`, 'Acme', 'organization-phone', 'New workspace'],
      [`/workspaces/${blog.workspaceId}`, 'Default', 'workspace-phone', 'Settings'],
      [`/workspaces/${platformWorkspaceId}`, 'TurboPanel', 'workspace-platform-phone', 'Settings'],
      [`/projects/${blog.projectId}`, 'blog', 'project-phone', 'Settings'],
      [`/environments/${blog.environmentId}`, 'production', 'environment-phone', 'Settings'],
    ] as const) {
      await page.goto(`${panel.url}${path}`);
      await heading(page, title).waitFor();
      await page.getByRole(section === 'Settings' ? 'region' : 'form', { name: section }).waitFor();
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
      const unlabelled = await page.evaluate(() =>
        [...document.querySelectorAll<HTMLInputElement>('main input, main select')].filter((input) => !input.labels?.length && !input.getAttribute('aria-label')).map((input) => input.outerHTML),
      );
      expect(unlabelled).toEqual([]);
      await screenshot(page, name);
    }
    expect(watched.problems).toEqual([]);
  }, TIMEOUT);
});
