import { describe, expect, test } from 'bun:test';
import { apiToken } from '../../../db/schema/index.ts';
import { RECENT_SIGN_IN_MS } from '../../../contract/identity.ts';
import { type TestApp, createTestApp } from '../../../../test/harness.ts';
import { createPasswordUser, signIn, tokenFor } from '../../../../test/identity.ts';

const BASE = '/api/client/v1/api-tokens';

/** A token outlives the session that made it: a stolen session cookie must not mint one. */
describe('recent sign-in for new API tokens', () => {
  async function signedInOwner(t: TestApp) {
    const person = await createPasswordUser(t);
    const { headers } = await signIn(t, person.email, person.password);
    return { ...person, organizationId: person.organizationId!, headers: headers! };
  }

  const create = (t: TestApp, organizationId: string, headers: Record<string, string>, name = 'ci') =>
    t.request('POST', BASE, { organizationId, name, role: 'admin' }, headers);

  test('a session older than 15 minutes gets 403 reauthentication_required and no token; signing in again works', async () => {
    const t = createTestApp();
    const owner = await signedInOwner(t);
    expect((await create(t, owner.organizationId, owner.headers, 'fresh')).status).toBe(201);

    t.clock.advance(RECENT_SIGN_IN_MS - 1);
    expect((await create(t, owner.organizationId, owner.headers, 'just in time')).status).toBe(201);
    t.clock.advance(1);
    const before = JSON.stringify(t.db.select().from(apiToken).all());
    const stale = await create(t, owner.organizationId, owner.headers, 'backdoor');
    expect({ status: stale.status, code: stale.json.error.code }).toEqual({ status: 403, code: 'reauthentication_required' });
    expect(stale.json.error.message).toContain('sign in again');
    expect(stale.json.token).toBeUndefined();
    // Checked before the organization: another organization's id answers the same, not 404.
    const stranger = await createPasswordUser(t);
    expect((await create(t, stranger.organizationId!, owner.headers)).json.error.code).toBe('reauthentication_required');
    expect(JSON.stringify(t.db.select().from(apiToken).all())).toBe(before);

    // Listing and revoking (which only take access away) still work on the old session.
    const list = await t.request('GET', `${BASE}?organizationId=${owner.organizationId}`, undefined, owner.headers);
    expect(list.json.data.map((row: { name: string }) => row.name)).toEqual(['fresh', 'just in time']);
    expect((await t.request('DELETE', `${BASE}/${list.json.data[0].id}`, undefined, owner.headers)).status).toBe(204);

    const again = (await signIn(t, owner.email, owner.password)).headers!;
    const made = await create(t, owner.organizationId, again, 'after signing in again');
    expect(made.status).toBe(201);
    expect((await t.request('GET', '/api/client/v1/organizations', undefined, { authorization: `Bearer ${made.json.token}` })).status).toBe(200);
    expect(t.db.select().from(apiToken).all().map((row) => row.name)).toEqual(['just in time', 'after signing in again']);
  });

  test('an API token still gets 403 session_required: tokens do not mint tokens', async () => {
    const t = createTestApp();
    const owner = await signedInOwner(t);
    const bearer = tokenFor(t, owner, 'owner');
    const res = await create(t, owner.organizationId, bearer);
    expect({ status: res.status, code: res.json.error.code }).toEqual({ status: 403, code: 'session_required' });
    expect(t.db.select().from(apiToken).all()).toHaveLength(1);
  });
});
