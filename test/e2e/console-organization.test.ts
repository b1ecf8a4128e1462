/**
 * The organization settings page and invitations in headless Chromium against a real Panel
 * from source: the owner renames the organization (an empty name is refused next to its field)
 * and turns on an owner-only opt-in, invites an e-mail and sees the acceptance link once; the
 * invitee opens it in a fresh browser on a phone, chooses a password and lands in the
 * organization, where the page is read-only for a member; the owner makes them admin (the last
 * owner cannot step down), removes them, and revokes a pending invitation; invited again, they
 * are told their account exists, sign in from the link and accept. Screenshots go to
 * test-results/console/. The tests run in order and share the installed server.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { Browser, Page } from 'playwright-core';
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
if (missing) console.warn(`skipping the console organization browser tests: ${missing}`);

const TIMEOUT = 60_000;
const OWNER = { email: 'owner@example.test', password: 'correct horse battery staple' };
const INVITEE = { email: 'nina@example.test', name: 'Nina New', password: 'a long and fresh passphrase' };
const LATER = 'later@example.test';

let panel: PanelFromSource;
let browser: Browser;
let page: Page;
let invitee: Page;
const problems: string[][] = [];
let organizationId: string;
let invitationLink: string;

/** Waits until the control labelled `label` holds `value` (the settings forms fill theirs once loaded). */
const controlHolds = (target: Page, label: string, value: string) =>
  target.waitForFunction(
    ([label, value]) =>
      [...document.querySelectorAll('label')].some((element) => element.textContent?.trim() === label && (element.control as HTMLInputElement | null)?.value === value),
    [label, value] as const,
  );

const pageWidth = (target: Page) => target.evaluate(() => document.documentElement.scrollWidth);

describe.skipIf(missing !== null)('console organization settings, members and invitations in Chromium', () => {
  beforeAll(async () => {
    [panel, browser] = await Promise.all([startPanelFromSource(), launchChromium()]);
    page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
    problems.push(watchPage(page, panel.url).problems);
    ({ organizationId } = await installThroughApi(page, panel, OWNER, 'Acme'));
  }, TIMEOUT);

  afterAll(async () => {
    await browser?.close();
    await panel?.stop();
  }, TIMEOUT);

  test('the owner renames the organization (an empty name is refused next to its field) and turns on host access', async () => {
    await page.goto(`${panel.url}/organizations/${organizationId}`);
    await heading(page, 'Acme').waitFor();
    await page.getByRole('navigation', { name: 'Workspaces' }).getByRole('link', { name: 'Settings' }).click();
    await heading(page, 'Organization settings').waitFor();
    expect(await unlabelledControls(page)).toEqual([]);

    const name = page.getByLabel('Organization name', { exact: true });
    await controlHolds(page, 'Organization name', 'Acme');
    await name.fill('');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await fieldErrorOf(name).waitFor();
    expect(await fieldErrorOf(name).textContent()).toContain('must not be empty');
    expect(await name.getAttribute('aria-invalid')).toBe('true');
    await screenshot(page, 'organization-settings-field-error');

    await name.fill('Acme Corp');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByText('Settings saved.').waitFor();
    expect(await fieldErrorOf(name).count()).toBe(0);
    // The switcher in the top bar follows the new name.
    await page.getByLabel('Organization', { exact: true }).getByRole('option', { name: 'Acme Corp' }).waitFor({ state: 'attached' });

    await page.getByLabel('Allow host access in Compose files').check();
    await page.getByRole('button', { name: 'Save server access' }).click();
    await page.getByText('Server access saved.').waitFor();
    const saved = await apiFromPage<{ name: string; isHostAccessAllowed: boolean }>(page, 'GET', `/api/client/v1/organizations/${organizationId}`);
    expect(saved).toMatchObject({ name: 'Acme Corp', isHostAccessAllowed: true });
    await screenshot(page, 'organization-settings');
  }, TIMEOUT);

  test('the owner invites two e-mails; each acceptance link is shown once', async () => {
    const invite = page.getByRole('form', { name: 'Invite someone' });
    await invite.getByLabel('E-mail to invite').fill('not an address');
    await invite.getByRole('button', { name: 'Invite' }).click();
    await fieldErrorOf(invite.getByLabel('E-mail to invite')).waitFor();

    await invite.getByLabel('E-mail to invite').fill(INVITEE.email);
    await invite.getByLabel('Role of the new member').selectOption('member');
    await invite.getByRole('button', { name: 'Invite' }).click();
    const shown = page.getByRole('region', { name: `Invitation link for ${INVITEE.email}` });
    await shown.waitFor();
    invitationLink = (await shown.getByLabel('Invitation link', { exact: true }).textContent())!.trim();
    expect(invitationLink).toMatch(new RegExp(`^${panel.url}/invitations/accept#token=pninv`));
    await shown.getByRole('button', { name: 'Copy invitation link' }).waitFor();
    await screenshot(page, 'organization-invitation-link');
    await shown.getByRole('button', { name: 'Done' }).click();
    await shown.waitFor({ state: 'detached' });
    expect(await page.getByText(invitationLink).count()).toBe(0);

    await invite.getByLabel('E-mail to invite').fill(LATER);
    await invite.getByRole('button', { name: 'Invite' }).click();
    await page.getByRole('region', { name: `Invitation link for ${LATER}` }).waitFor();
    const pending = page.getByRole('list', { name: 'Pending invitations' });
    await pending.getByText(INVITEE.email).waitFor();
    await pending.getByText(LATER).waitFor();
  }, TIMEOUT);

  test('the invitee opens the link in a fresh browser on a phone, chooses a password and lands in the organization', async () => {
    invitee = await (await browser.newContext({ viewport: { width: 390, height: 844 } })).newPage();
    problems.push(watchPage(invitee, panel.url).problems);
    await invitee.goto(invitationLink);
    await heading(invitee, 'Accept the invitation').waitFor();
    expect(await pageWidth(invitee)).toBeLessThanOrEqual(390);
    await screenshot(invitee, 'accept-invitation-phone');

    const password = invitee.getByLabel('New password');
    await password.fill('short');
    await invitee.getByRole('button', { name: 'Create account and join' }).click();
    await fieldErrorOf(password).waitFor();

    await invitee.getByLabel('Your name (optional)').fill(INVITEE.name);
    await password.fill(INVITEE.password);
    await invitee.getByRole('button', { name: 'Create account and join' }).click();
    await heading(invitee, 'Acme Corp').waitFor();
    expect(new URL(invitee.url()).pathname).toBe(`/organizations/${organizationId}`);
    expect(invitee.url()).not.toContain('token');
    await invitee.getByRole('link', { name: INVITEE.name }).waitFor();
    await screenshot(invitee, 'accept-invitation-joined-phone');

    // A member sees the settings read-only, and who may change them.
    await invitee.getByRole('link', { name: 'Organization settings, members and invitations' }).click();
    await heading(invitee, 'Organization settings').waitFor();
    expect(await invitee.getByLabel('Organization name', { exact: true }).isDisabled()).toBe(true);
    expect(await invitee.getByRole('button', { name: 'Save settings' }).count()).toBe(0);
    await invitee.getByText('Only admins and owners change these.').waitFor();
    await invitee.getByText('Only owners see and manage the members of this organization.').waitFor();
    expect(await pageWidth(invitee)).toBeLessThanOrEqual(390);
    await screenshot(invitee, 'organization-settings-member-phone');
  }, TIMEOUT);

  test('the owner makes the new member admin, cannot step down as last owner, then removes the member', async () => {
    await page.reload();
    await heading(page, 'Organization settings').waitFor();
    const members = page.getByRole('list', { name: 'Members' });
    await members.getByText(INVITEE.name).waitFor();
    expect(await page.getByRole('list', { name: 'Pending invitations' }).getByText(INVITEE.email).count()).toBe(0);

    const change = page.getByRole('form', { name: `Change the role of ${INVITEE.email}` });
    await change.getByLabel(`Role of ${INVITEE.email}`).selectOption('admin');
    const changed = page.waitForResponse((response) => response.url().includes('/api/client/v1/memberships/') && response.request().method() === 'PATCH');
    await change.getByRole('button', { name: 'Save role' }).click();
    expect((await changed).status()).toBe(200);
    const listed = await apiFromPage<{ data: { email: string; role: string }[] }>(page, 'GET', `/api/client/v1/memberships?organizationId=${organizationId}`);
    expect(listed.data).toContainEqual(expect.objectContaining({ email: INVITEE.email, role: 'admin' }));
    await controlHolds(page, `Role of ${INVITEE.email}`, 'admin');

    const ownRole = page.getByLabel(`Role of ${OWNER.email}`, { exact: true });
    await ownRole.selectOption('member');
    await page.getByRole('form', { name: `Change the role of ${OWNER.email}` }).getByRole('button', { name: 'Save role' }).click();
    await fieldErrorOf(ownRole).waitFor();
    expect(await fieldErrorOf(ownRole).textContent()).toContain('at least one owner');
    await screenshot(page, 'organization-members');

    await page.getByRole('button', { name: `Remove ${INVITEE.email}` }).click();
    const dialog = page.getByRole('dialog', { name: `Remove ${INVITEE.name}?` });
    await dialog.waitFor();
    await screenshot(page, 'organization-remove-member');
    await dialog.getByRole('button', { name: 'Remove member' }).click();
    await dialog.waitFor({ state: 'detached' });
    await members.getByText(INVITEE.name).waitFor({ state: 'detached' });
  }, TIMEOUT);

  test('the owner revokes a pending invitation after confirming', async () => {
    await page.getByRole('button', { name: `Revoke the invitation for ${LATER}` }).click();
    const dialog = page.getByRole('dialog', { name: `Revoke the invitation for ${LATER}?` });
    await dialog.getByRole('button', { name: 'Revoke invitation' }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.getByText('No pending invitations.').waitFor();
  }, TIMEOUT);

  test('an invitee who has an account signs in from the link and accepts', async () => {
    const invite = page.getByRole('form', { name: 'Invite someone' });
    await invite.getByLabel('E-mail to invite').fill(INVITEE.email);
    await invite.getByRole('button', { name: 'Invite' }).click();
    const link = (await page.getByRole('region', { name: `Invitation link for ${INVITEE.email}` }).getByLabel('Invitation link', { exact: true }).textContent())!.trim();

    await invitee.getByRole('button', { name: 'Sign out', exact: true }).click();
    await heading(invitee, 'Sign in to Panel').waitFor();
    await invitee.goto(link);
    await heading(invitee, 'Accept the invitation').waitFor();
    await invitee.getByLabel('New password').fill('yet another long passphrase');
    await invitee.getByRole('button', { name: 'Create account and join' }).click();
    await invitee.getByRole('alert').getByText('An account with the invited e-mail already exists').waitFor();
    await screenshot(invitee, 'accept-invitation-account-exists-phone');

    await invitee.getByRole('button', { name: 'Sign in to accept' }).click();
    await heading(invitee, 'Sign in to Panel').waitFor();
    await invitee.getByLabel('E-mail').fill(INVITEE.email);
    await invitee.getByLabel('Password').fill(INVITEE.password);
    await invitee.getByRole('button', { name: 'Sign in', exact: true }).click();
    await invitee.getByText(`You are signed in as ${INVITEE.email}.`).waitFor();
    await screenshot(invitee, 'accept-invitation-signed-in-phone');
    await invitee.getByRole('button', { name: 'Accept invitation' }).click();
    await heading(invitee, 'Acme Corp').waitFor();
    expect(new URL(invitee.url()).pathname).toBe(`/organizations/${organizationId}`);
  }, TIMEOUT);

  test("an invitee who signs in through an identity provider comes back to the invitation (the token survives the round trip)", async () => {
    const membership = (await apiFromPage<{ data: { id: string; email: string }[] }>(page, 'GET', `/api/client/v1/memberships?organizationId=${organizationId}`)).data.find(
      (candidate) => candidate.email === INVITEE.email,
    )!;
    await apiFromPage(page, 'DELETE', `/api/client/v1/memberships/${membership.id}`);
    const { token } = await apiFromPage<{ token: string }>(page, 'POST', '/api/client/v1/invitations', { organizationId, email: INVITEE.email, role: 'member' });

    await apiFromPage(invitee, 'POST', '/api/client/v1/auth/sign-out');
    await invitee.goto(`${panel.url}/invitations/accept#token=${token}`);
    await heading(invitee, 'Accept the invitation').waitFor();
    await invitee.getByLabel('New password').fill('yet another long passphrase');
    await invitee.getByRole('button', { name: 'Create account and join' }).click();
    await invitee.getByRole('button', { name: 'Sign in to accept' }).click();
    await heading(invitee, 'Sign in to Panel').waitFor();
    // What a provider's callback does: the browser is signed in elsewhere, then sent back to the
    // returnTo path, /invitations/accept, without the fragment.
    await apiFromPage(invitee, 'POST', '/api/client/v1/auth/sign-in', { email: INVITEE.email, password: INVITEE.password });
    await invitee.goto(`${panel.url}/invitations/accept`);
    await invitee.getByText(`You are signed in as ${INVITEE.email}.`).waitFor();
    await invitee.getByRole('button', { name: 'Accept invitation' }).click();
    await heading(invitee, 'Acme Corp').waitFor();
    expect(await invitee.evaluate(() => sessionStorage.length)).toBe(0);
  }, TIMEOUT);

  test('the settings page fits a 390-px-wide phone', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${panel.url}/organizations/${organizationId}/settings`);
    await heading(page, 'Organization settings').waitFor();
    await page.getByRole('list', { name: 'Members' }).getByText(INVITEE.name).waitFor();
    expect(await pageWidth(page)).toBeLessThanOrEqual(390);
    await screenshot(page, 'organization-settings-phone');
    expect(problems.flat()).toEqual([]);
  }, TIMEOUT);
});
