import { describe, expect, test } from 'bun:test';
import { and, eq } from 'drizzle-orm';
import { invitation, membership, user } from '../../../db/schema/index.ts';
import { INVITATION_LIFETIME_MS } from '../../../domain/invitations/service.ts';
import { createTestApp, type TestApp } from '../../../../test/harness.ts';
import { addMember, cookieFrom, createOwner, createPasswordUser, originOf, signIn, type TestCaller, tokenFor } from '../../../../test/identity.ts';

const BASE = '/api/client/v1/invitations';

const invite = (t: TestApp, caller: TestCaller | Record<string, string>, body: Record<string, unknown>) =>
  t.request('POST', BASE, body, 'headers' in caller ? (caller.headers as Record<string, string>) : caller);

const roleOf = (t: TestApp, organizationId: string, userId: string) =>
  t.db.select().from(membership).where(and(eq(membership.organizationId, organizationId), eq(membership.userId, userId))).get()?.role;

describe('creating invitations', () => {
  test('admins and owners invite; the token is shown once and stored hashed', async () => {
    const t = createTestApp();
    const owner = createOwner(t);
    const res = await invite(t, owner, { organizationId: owner.organizationId, email: 'New.Person@Example.test', role: 'admin' });
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({ organizationId: owner.organizationId, email: 'new.person@example.test', role: 'admin', invitedByUserId: owner.userId });
    expect(res.json.token).toMatch(/^pninv_[A-Za-z0-9_-]{43}$/);
    expect(new Date(res.json.expiresAt).getTime()).toBe(t.clock.now().getTime() + INVITATION_LIFETIME_MS);
    expect(JSON.stringify(t.db.select().from(invitation).all())).not.toContain(res.json.token);
    const list = await t.request('GET', `${BASE}?organizationId=${owner.organizationId}`, undefined, owner.headers);
    expect(list.json.data).toHaveLength(1);
    expect(list.json.data[0].token).toBeUndefined();
    // Inviting the same address again replaces the pending invitation.
    await invite(t, owner, { organizationId: owner.organizationId, email: 'new.person@example.test', role: 'member' });
    expect(t.db.select().from(invitation).all().map((row) => row.role)).toEqual(['member']);
  });

  test('never above the inviter: a member cannot invite at all, an admin not as owner', async () => {
    const t = createTestApp();
    const owner = createOwner(t);
    const admin = addMember(t, owner.organizationId, 'admin');
    const member = addMember(t, owner.organizationId, 'member');
    const asOwner = await invite(t, member, { organizationId: owner.organizationId, email: 'x@example.test', role: 'owner' });
    expect(asOwner.status).toBe(403);
    expect((await invite(t, member, { organizationId: owner.organizationId, email: 'x@example.test', role: 'member' })).status).toBe(403);
    expect((await invite(t, admin, { organizationId: owner.organizationId, email: 'x@example.test', role: 'owner' })).status).toBe(403);
    // An owner's token capped to admin is an admin.
    expect((await invite(t, tokenFor(t, owner, 'admin'), { organizationId: owner.organizationId, email: 'x@example.test', role: 'owner' })).status).toBe(403);
    expect(t.db.select().from(invitation).all()).toHaveLength(0);
    expect((await invite(t, admin, { organizationId: owner.organizationId, email: 'x@example.test', role: 'admin' })).status).toBe(201);
  });

  test('an admin cannot replace a pending owner invitation by inviting the address again (issue 13 L2)', async () => {
    const t = createTestApp();
    const owner = createOwner(t);
    const admin = addMember(t, owner.organizationId, 'admin');
    const forOwner = await invite(t, owner, { organizationId: owner.organizationId, email: 'heir@example.test', role: 'owner' });
    expect(forOwner.status).toBe(201);
    for (const role of ['member', 'admin']) {
      const replaced = await invite(t, admin, { organizationId: owner.organizationId, email: 'Heir@Example.test', role });
      expect(replaced.status).toBe(403);
      expect(replaced.json.error.code).toBe('forbidden');
    }
    expect(t.db.select().from(invitation).all().map((row) => [row.id, row.role])).toEqual([[forOwner.json.id, 'owner']]);
    // The owner may replace it; an expired owner invitation grants nothing and anyone may replace it.
    expect((await invite(t, owner, { organizationId: owner.organizationId, email: 'heir@example.test', role: 'owner' })).status).toBe(201);
    t.db.update(invitation).set({ expiresAt: t.clock.now() }).run();
    expect((await invite(t, admin, { organizationId: owner.organizationId, email: 'heir@example.test', role: 'member' })).status).toBe(201);
    expect(t.db.select().from(invitation).all().map((row) => row.role)).toEqual(['member']);
  });

  test('existing members, bad input, anonymous callers and other organizations are refused', async () => {
    const t = createTestApp();
    const owner = createOwner(t);
    const stranger = createOwner(t);
    const email = t.db.select().from(user).where(eq(user.id, owner.userId)).get()!.email;
    const member = await invite(t, owner, { organizationId: owner.organizationId, email, role: 'member' });
    expect(member.status).toBe(409);
    expect(member.json.error.code).toBe('already_member');
    expect((await invite(t, owner, { organizationId: owner.organizationId, email: 'nope', role: 'member' })).json.error.path).toBe('email');
    expect((await invite(t, owner, { organizationId: owner.organizationId, email: 'a@example.test', role: 'god' })).json.error.path).toBe('role');
    expect((await invite(t, stranger, { organizationId: owner.organizationId, email: 'a@example.test', role: 'member' })).status).toBe(404);
    expect((await t.request('POST', BASE, { organizationId: owner.organizationId, email: 'a@example.test', role: 'member' })).status).toBe(401);
    expect(t.db.select().from(invitation).all()).toHaveLength(0);
  });

  test('revoking: admins and owners of that organization only', async () => {
    const t = createTestApp();
    const owner = createOwner(t);
    const admin = addMember(t, owner.organizationId, 'admin');
    const stranger = createOwner(t);
    const ownerInvite = (await invite(t, owner, { organizationId: owner.organizationId, email: 'o@example.test', role: 'owner' })).json;
    const memberInvite = (await invite(t, owner, { organizationId: owner.organizationId, email: 'm@example.test', role: 'member' })).json;
    expect((await t.request('DELETE', `${BASE}/${memberInvite.id}`, undefined, stranger.headers)).status).toBe(404);
    expect((await t.request('DELETE', `${BASE}/${ownerInvite.id}`, undefined, admin.headers)).status).toBe(403);
    expect((await t.request('DELETE', `${BASE}/${memberInvite.id}`, undefined, admin.headers)).status).toBe(204);
    expect((await t.request('POST', `${BASE}/accept`, { token: memberInvite.token, password: 'a fine long password' }, originOf(t))).status).toBe(404);
  });
});

describe('accepting invitations', () => {
  test('signed in with the invited e-mail: joins with the role; the token is single use', async () => {
    const t = createTestApp();
    const owner = createOwner(t);
    const invitee = await createPasswordUser(t, { email: 'invitee@example.test' });
    const { token } = (await invite(t, owner, { organizationId: owner.organizationId, email: 'Invitee@example.test', role: 'admin' })).json;
    const { headers } = await signIn(t, invitee.email, invitee.password);
    const res = await t.request('POST', `${BASE}/accept`, { token }, headers!);
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ organizationId: owner.organizationId, user: null });
    expect(roleOf(t, owner.organizationId, invitee.userId)).toBe('admin');
    const again = await t.request('POST', `${BASE}/accept`, { token }, headers!);
    expect(again.status).toBe(404);
  });

  test('signed in as someone else: refused, and the invitation stays usable', async () => {
    const t = createTestApp();
    const owner = createOwner(t);
    const other = await createPasswordUser(t, { email: 'other@example.test' });
    const { token } = (await invite(t, owner, { organizationId: owner.organizationId, email: 'invitee@example.test', role: 'member' })).json;
    const { headers } = await signIn(t, other.email, other.password);
    const res = await t.request('POST', `${BASE}/accept`, { token }, headers!);
    expect(res.status).toBe(403);
    expect(res.json.error.code).toBe('invitation_email_mismatch');
    expect(roleOf(t, owner.organizationId, other.userId)).toBeUndefined();
    expect(t.db.select().from(invitation).get()!.acceptedAt).toBeNull();
  });

  test('not signed in: creates the invited account with a password and signs it in', async () => {
    const t = createTestApp();
    const owner = createOwner(t);
    const { token } = (await invite(t, owner, { organizationId: owner.organizationId, email: 'fresh@example.test', role: 'member' })).json;
    expect((await t.request('POST', `${BASE}/accept`, { token }, originOf(t))).status).toBe(401);
    expect((await t.request('POST', `${BASE}/accept`, { token, password: 'short' }, originOf(t))).json.error.path).toBe('password');
    expect((await t.request('POST', `${BASE}/accept`, { token, password: 'a fine long password' }, { origin: 'https://evil.example' })).status).toBe(403);
    const res = await t.request('POST', `${BASE}/accept`, { token, password: 'a fine long password', displayName: 'Fresh' }, originOf(t));
    expect(res.status).toBe(200);
    expect(res.json.user).toMatchObject({ email: 'fresh@example.test', displayName: 'Fresh', isSuperadmin: false });
    const cookie = cookieFrom(t, res.headers)!;
    const me = await t.request('GET', '/api/client/v1/auth/session', undefined, { cookie });
    expect(me.json.memberships).toEqual([{ organizationId: owner.organizationId, organizationName: expect.any(String), role: 'member' }]);
    expect((await t.request('POST', `${BASE}/accept`, { token, password: 'a fine long password' }, originOf(t))).status).toBe(404);
  });

  test('an existing account must sign in instead of being overwritten', async () => {
    const t = createTestApp();
    const owner = createOwner(t);
    const existing = await createPasswordUser(t, { email: 'exists@example.test', withOrganization: false });
    const { token } = (await invite(t, owner, { organizationId: owner.organizationId, email: existing.email, role: 'member' })).json;
    const res = await t.request('POST', `${BASE}/accept`, { token, password: 'attacker chosen password' }, originOf(t));
    expect(res.status).toBe(409);
    expect(res.json.error.code).toBe('account_exists');
    expect((await signIn(t, existing.email, existing.password)).res.status).toBe(200);
  });

  test('expired tokens, and inviters who lost their role, grant nothing more than they hold', async () => {
    const t = createTestApp();
    const owner = createOwner(t);
    const admin = addMember(t, owner.organizationId, 'admin');
    const expiring = (await invite(t, owner, { organizationId: owner.organizationId, email: 'late@example.test', role: 'member' })).json;
    const adminInvite = (await invite(t, admin, { organizationId: owner.organizationId, email: 'capped@example.test', role: 'admin' })).json;
    // The admin is demoted to member before the invitation is accepted: it grants member.
    t.db.update(membership).set({ role: 'member' }).where(eq(membership.userId, admin.userId)).run();
    const capped = await t.request('POST', `${BASE}/accept`, { token: adminInvite.token, password: 'a fine long password' }, originOf(t));
    expect(capped.status).toBe(200);
    expect(roleOf(t, owner.organizationId, capped.json.user.id)).toBe('member');
    t.clock.advance(INVITATION_LIFETIME_MS);
    expect((await t.request('POST', `${BASE}/accept`, { token: expiring.token, password: 'a fine long password' }, originOf(t))).status).toBe(404);
  });
});
