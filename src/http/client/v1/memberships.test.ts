import { describe, expect, test } from 'bun:test';
import { and, eq } from 'drizzle-orm';
import { apiToken, membership } from '../../../db/schema/index.ts';
import { createTestApp, type TestApp } from '../../../../test/harness.ts';
import { addMember, createOwner, type TestCaller, tokenFor } from '../../../../test/identity.ts';

const BASE = '/api/client/v1/memberships';

const membershipOf = (t: TestApp, caller: TestCaller) =>
  t.db.select().from(membership).where(and(eq(membership.userId, caller.userId), eq(membership.organizationId, caller.organizationId))).get()!;

describe('memberships', () => {
  test('owners list members with e-mail and role; members and admins get 403; another organization 404', async () => {
    const t = createTestApp();
    const owner = createOwner(t);
    const admin = addMember(t, owner.organizationId, 'admin');
    const member = addMember(t, owner.organizationId, 'member');
    const stranger = createOwner(t);
    const list = await t.request('GET', `${BASE}?organizationId=${owner.organizationId}`, undefined, owner.headers);
    expect(list.status).toBe(200);
    expect(list.json.data.map((m: { userId: string; role: string }) => [m.userId, m.role])).toEqual([
      [owner.userId, 'owner'],
      [admin.userId, 'admin'],
      [member.userId, 'member'],
    ]);
    expect(list.json.data[0].email).toContain('@');
    const paged = await t.request('GET', `${BASE}?organizationId=${owner.organizationId}&limit=2`, undefined, owner.headers);
    expect(paged.json.data).toHaveLength(2);
    expect(paged.json.nextCursor).toBe(paged.json.data[1].id);
    for (const caller of [admin, member]) {
      expect((await t.request('GET', `${BASE}?organizationId=${owner.organizationId}`, undefined, caller.headers)).status).toBe(403);
    }
    expect((await t.request('GET', `${BASE}?organizationId=${owner.organizationId}`, undefined, stranger.headers)).status).toBe(404);
    expect((await t.request('GET', `${BASE}?organizationId=nope`, undefined, owner.headers)).json.error.path).toBe('organizationId');
    expect((await t.request('GET', `${BASE}?organizationId=${owner.organizationId}`)).status).toBe(401);
  });

  test('owners change roles; the last owner cannot be demoted', async () => {
    const t = createTestApp();
    const owner = createOwner(t);
    const member = addMember(t, owner.organizationId, 'member');
    const promoted = await t.request('PATCH', `${BASE}/${membershipOf(t, member).id}`, { role: 'owner' }, owner.headers);
    expect(promoted.status).toBe(200);
    expect(promoted.json).toMatchObject({ userId: member.userId, role: 'owner' });
    // Two owners now: demoting one is fine, the other then is the last.
    expect((await t.request('PATCH', `${BASE}/${membershipOf(t, owner).id}`, { role: 'admin' }, member.headers)).status).toBe(200);
    const last = await t.request('PATCH', `${BASE}/${membershipOf(t, member).id}`, { role: 'member' }, member.headers);
    expect(last.status).toBe(409);
    expect(last.json.error.code).toBe('last_owner');
    expect(membershipOf(t, member).role).toBe('owner');
    expect((await t.request('PATCH', `${BASE}/${membershipOf(t, member).id}`, { role: 'king' }, member.headers)).json.error.path).toBe('role');
  });

  test('a member or admin attempting owner actions is refused and nothing changes', async () => {
    const t = createTestApp();
    const owner = createOwner(t);
    const admin = addMember(t, owner.organizationId, 'admin');
    const member = addMember(t, owner.organizationId, 'member');
    for (const caller of [admin, member]) {
      expect((await t.request('PATCH', `${BASE}/${membershipOf(t, caller).id}`, { role: 'owner' }, caller.headers)).status).toBe(403);
      expect((await t.request('DELETE', `${BASE}/${membershipOf(t, owner).id}`, undefined, caller.headers)).status).toBe(403);
    }
    // An owner's token capped to member is a member.
    const capped = tokenFor(t, owner, 'member');
    expect((await t.request('PATCH', `${BASE}/${membershipOf(t, member).id}`, { role: 'admin' }, capped)).status).toBe(403);
    expect(membershipOf(t, admin).role).toBe('admin');
    expect(membershipOf(t, member).role).toBe('member');
  });

  test('owners remove members, whose API tokens go too; the last owner cannot be removed; foreign ids 404', async () => {
    const t = createTestApp();
    const owner = createOwner(t);
    const member = addMember(t, owner.organizationId, 'member');
    const stranger = createOwner(t);
    const bearer = tokenFor(t, member, 'member');
    const foreign = await t.request('DELETE', `${BASE}/${membershipOf(t, member).id}`, undefined, stranger.headers);
    expect(foreign.status).toBe(404);
    expect((await t.request('DELETE', `${BASE}/${membershipOf(t, member).id}`, undefined, owner.headers)).status).toBe(204);
    expect(t.db.select().from(apiToken).where(eq(apiToken.userId, member.userId)).all()).toHaveLength(0);
    expect((await t.request('GET', '/api/client/v1/organizations', undefined, bearer)).status).toBe(401);
    const last = await t.request('DELETE', `${BASE}/${membershipOf(t, owner).id}`, undefined, owner.headers);
    expect(last.status).toBe(409);
    expect(last.json.error.code).toBe('last_owner');
    expect((await t.request('DELETE', `${BASE}/${membershipOf(t, stranger).id}`, undefined, owner.headers)).status).toBe(404);
  });
});
