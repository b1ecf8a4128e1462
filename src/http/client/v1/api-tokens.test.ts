import { describe, expect, test } from 'bun:test';
import { apiToken } from '../../../db/schema/index.ts';
import { createTestApp } from '../../../../test/harness.ts';
import { addMember, createOwner, tokenFor } from '../../../../test/identity.ts';

const BASE = '/api/client/v1/api-tokens';

describe('API tokens', () => {
  test('created once-shown, stored hashed, used as Bearer, bound to one organization', async () => {
    const t = createTestApp();
    const owner = createOwner(t);
    const res = await t.request('POST', BASE, { organizationId: owner.organizationId, name: 'ci', role: 'admin' }, owner.headers);
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({ organizationId: owner.organizationId, userId: owner.userId, name: 'ci', role: 'admin', expiresAt: null });
    expect(res.json.token).toMatch(/^pat_[A-Za-z0-9_-]{43}$/);
    expect(JSON.stringify(t.db.select().from(apiToken).all())).not.toContain(res.json.token);
    const auth = { authorization: `Bearer ${res.json.token}` };
    const orgs = await t.request('GET', '/api/client/v1/organizations', undefined, auth);
    expect(orgs.status).toBe(200);
    const list = await t.request('GET', `${BASE}?organizationId=${owner.organizationId}`, undefined, owner.headers);
    expect(list.json.data).toHaveLength(1);
    expect(list.json.data[0].token).toBeUndefined();
  });

  test('never a role above the creator\'s; tokens cannot mint tokens; bad input 422; another organization 404', async () => {
    const t = createTestApp();
    const owner = createOwner(t);
    const member = addMember(t, owner.organizationId, 'member');
    const stranger = createOwner(t);
    const above = await t.request('POST', BASE, { organizationId: owner.organizationId, name: 'x', role: 'admin' }, member.headers);
    expect(above.status).toBe(403);
    expect((await t.request('POST', BASE, { organizationId: owner.organizationId, name: 'x', role: 'member' }, member.headers)).status).toBe(201);
    const minted = await t.request('POST', BASE, { organizationId: owner.organizationId, name: 'x', role: 'member' }, tokenFor(t, owner, 'owner'));
    expect(minted.status).toBe(403);
    expect(minted.json.error.code).toBe('session_required');
    expect((await t.request('POST', BASE, { organizationId: stranger.organizationId, name: 'x', role: 'member' }, owner.headers)).status).toBe(404);
    const bad = await t.request('POST', BASE, { organizationId: owner.organizationId, name: '', role: 'member' }, owner.headers);
    expect(bad.json.error.path).toBe('name');
    const past = await t.request('POST', BASE, { organizationId: owner.organizationId, name: 'x', role: 'member', expiresAt: '2020-01-01T00:00:00.000Z' }, owner.headers);
    expect(past.json.error.path).toBe('expiresAt');
  });

  test('an expiring token stops working at its expiry', async () => {
    const t = createTestApp();
    const owner = createOwner(t);
    const expiresAt = new Date(t.clock.now().getTime() + 60_000).toISOString();
    const { token } = (await t.request('POST', BASE, { organizationId: owner.organizationId, name: 'short', role: 'member', expiresAt }, owner.headers)).json;
    expect((await t.request('GET', '/api/client/v1/organizations', undefined, { authorization: `Bearer ${token}` })).status).toBe(200);
    t.clock.advance(60_000);
    expect((await t.request('GET', '/api/client/v1/organizations', undefined, { authorization: `Bearer ${token}` })).status).toBe(401);
  });

  test('members see and revoke their own; owners every token; others\' tokens are 404', async () => {
    const t = createTestApp();
    const owner = createOwner(t);
    const member = addMember(t, owner.organizationId, 'member');
    const stranger = createOwner(t);
    const mine = (await t.request('POST', BASE, { organizationId: owner.organizationId, name: 'm', role: 'member' }, member.headers)).json;
    const theirs = (await t.request('POST', BASE, { organizationId: owner.organizationId, name: 'o', role: 'owner' }, owner.headers)).json;
    const memberList = await t.request('GET', `${BASE}?organizationId=${owner.organizationId}`, undefined, member.headers);
    expect(memberList.json.data.map((row: { id: string }) => row.id)).toEqual([mine.id]);
    const ownerList = await t.request('GET', `${BASE}?organizationId=${owner.organizationId}`, undefined, owner.headers);
    expect(ownerList.json.data.map((row: { id: string }) => row.id)).toEqual([mine.id, theirs.id]);
    expect((await t.request('GET', `${BASE}?organizationId=${owner.organizationId}`, undefined, stranger.headers)).status).toBe(404);
    expect((await t.request('DELETE', `${BASE}/${theirs.id}`, undefined, member.headers)).status).toBe(404);
    expect((await t.request('DELETE', `${BASE}/${mine.id}`, undefined, stranger.headers)).status).toBe(404);
    expect((await t.request('DELETE', `${BASE}/${mine.id}`, undefined, owner.headers)).status).toBe(204);
    expect((await t.request('GET', '/api/client/v1/organizations', undefined, { authorization: `Bearer ${mine.token}` })).status).toBe(401);
    expect((await t.request('DELETE', `${BASE}/${theirs.id}`, undefined, owner.headers)).status).toBe(204);
    expect(t.db.select().from(apiToken).all()).toHaveLength(0);
  });
});
