/**
 * L6 of the security review: a password change signed out every other session but left API
 * tokens working, with no way to end them in the same step. The change now takes
 * `revokeApiTokens`, which deletes every token the user created, in every organization.
 */
import { describe, expect, test } from 'bun:test';
import { apiToken, membership } from '../../../db/schema/index.ts';
import { createTestApp, type TestApp } from '../../../../test/harness.ts';
import { addMember, createPasswordUser, signIn, tokenFor } from '../../../../test/identity.ts';

const AUTH = '/api/client/v1/auth';
const NEW_PASSWORD = 'an even better passphrase';

async function personWithTokens(t: TestApp) {
  const person = await createPasswordUser(t);
  const caller = { userId: person.userId, organizationId: person.organizationId!, headers: {} };
  const colleague = addMember(t, person.organizationId!, 'admin');
  const second = await createPasswordUser(t);
  t.db.insert(membership).values({ organizationId: second.organizationId!, userId: person.userId, role: 'member' }).run();
  const tokens = [tokenFor(t, caller, 'owner'), tokenFor(t, { ...caller, organizationId: second.organizationId! }, 'member')];
  return { person, tokens, colleagueToken: tokenFor(t, colleague, 'admin') };
}

const works = async (t: TestApp, bearer: Record<string, string>) => (await t.request('GET', `${AUTH}/session`, undefined, bearer)).status === 200;

describe('changing the password and API tokens', () => {
  test('by default API tokens keep working (they are not sessions)', async () => {
    const t = createTestApp();
    const { person, tokens } = await personWithTokens(t);
    const { headers } = await signIn(t, person.email, person.password);
    expect((await t.request('POST', `${AUTH}/password`, { currentPassword: person.password, newPassword: NEW_PASSWORD }, headers!)).status).toBe(204);
    for (const token of tokens) expect(await works(t, token)).toBe(true);
  });

  test('revokeApiTokens ends every token the user created, in every organization, in the same step', async () => {
    const t = createTestApp();
    const { person, tokens, colleagueToken } = await personWithTokens(t);
    const { headers } = await signIn(t, person.email, person.password);
    const res = await t.request('POST', `${AUTH}/password`, { currentPassword: person.password, newPassword: NEW_PASSWORD, revokeApiTokens: true }, headers!);
    expect(res.status).toBe(204);
    for (const token of tokens) expect(await works(t, token)).toBe(false);
    // Someone else's token in the same organization is theirs to keep.
    expect(await works(t, colleagueToken)).toBe(true);
    expect(t.db.select().from(apiToken).all()).toHaveLength(1);
  });

  test('a refused change revokes nothing; the flag must be a boolean', async () => {
    const t = createTestApp();
    const { person, tokens } = await personWithTokens(t);
    const { headers } = await signIn(t, person.email, person.password);
    const wrong = await t.request('POST', `${AUTH}/password`, { currentPassword: 'not my password', newPassword: NEW_PASSWORD, revokeApiTokens: true }, headers!);
    expect(wrong.json.error.code).toBe('wrong_password');
    const notBoolean = await t.request('POST', `${AUTH}/password`, { currentPassword: person.password, newPassword: NEW_PASSWORD, revokeApiTokens: 'yes' }, headers!);
    expect(notBoolean.json.error).toMatchObject({ code: 'validation_failed', path: 'revokeApiTokens' });
    for (const token of tokens) expect(await works(t, token)).toBe(true);
  });
});
