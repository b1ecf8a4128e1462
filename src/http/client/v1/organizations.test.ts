import { describe, expect, test } from 'bun:test';
import { membership } from '../../../db/schema/index.ts';
import { backdate, clientAs, collectPages, rawRow, repeat } from '../../../../test/client.ts';
import { createTestApp } from '../../../../test/harness.ts';
import { addMember, createOwner } from '../../../../test/identity.ts';

function setup() {
  const t = createTestApp();
  const owner = createOwner(t, { organizationName: 'Acme' });
  const stranger = createOwner(t, { organizationName: 'Other' });
  const admin = addMember(t, owner.organizationId, 'admin');
  const member = addMember(t, owner.organizationId, 'member');
  return { t, owner, stranger, organizationId: owner.organizationId, admin: clientAs(t, admin), member: clientAs(t, member), asOwner: clientAs(t, owner) };
}

describe('organizations', () => {
  test("lists the caller's organizations, paged, and reads one", async () => {
    const { t, owner, stranger, asOwner, organizationId } = setup();
    const third = createOwner(t).organizationId;
    t.db.insert(membership).values([{ organizationId: stranger.organizationId, userId: owner.userId, role: 'member' }, { organizationId: third, userId: owner.userId, role: 'member' }]).run();
    expect(await collectPages(asOwner, '/organizations', 2)).toEqual([organizationId, stranger.organizationId, third]);
    const read = await asOwner('GET', `/organizations/${organizationId}`);
    expect(read.json).toMatchObject({ id: organizationId, name: 'Acme', defaultEnvironmentName: 'production', isRandomizeUsernames: false, isDeployHooksEnabled: false });
  });

  test('admins rename and set the defaults; members read only', async () => {
    const { t, admin, member, organizationId } = setup();
    backdate(t, 'organization', organizationId);
    const changed = await admin('PATCH', `/organizations/${organizationId}`, { name: 'Acme Corp', defaultEnvironmentName: 'live/eu', isRandomizeUsernames: true });
    expect(changed.status).toBe(200);
    expect(changed.json).toMatchObject({ name: 'Acme Corp', defaultEnvironmentName: 'live/eu', isRandomizeUsernames: true });
    expect(Date.parse(changed.json.updatedAt)).toBeGreaterThan(0);
    expect((await member('PATCH', `/organizations/${organizationId}`, { name: 'Mine' })).status).toBe(403);
    expect((await member('GET', `/organizations/${organizationId}`)).json.name).toBe('Acme Corp');
  });

  test('only owners turn on host access and deploy hooks', async () => {
    const { admin, asOwner, organizationId } = setup();
    for (const body of [{ isHostAccessAllowed: true }, { isDeployHooksEnabled: true }]) {
      const refused = await admin('PATCH', `/organizations/${organizationId}`, body);
      expect(refused.status).toBe(403);
    }
    expect((await admin('GET', `/organizations/${organizationId}`)).json).toMatchObject({ isHostAccessAllowed: false, isDeployHooksEnabled: false });
    const changed = await asOwner('PATCH', `/organizations/${organizationId}`, { isHostAccessAllowed: true, isDeployHooksEnabled: true });
    expect(changed.status).toBe(200);
    expect(changed.json).toMatchObject({ isHostAccessAllowed: true, isDeployHooksEnabled: true });
  });

  test('names are 1 to 255 characters; the default environment name follows the environment pattern', async () => {
    const { admin, organizationId } = setup();
    const patch = (body: unknown) => admin('PATCH', `/organizations/${organizationId}`, body);
    for (const name of ['x', repeat(255)]) expect((await patch({ name })).json.name).toBe(name);
    for (const defaultEnvironmentName of ['p', repeat(255), 'eu/prod 1_a.b-c']) {
      expect((await patch({ defaultEnvironmentName })).json.defaultEnvironmentName).toBe(defaultEnvironmentName);
    }
    const refused: [unknown, string][] = [
      [{ name: '' }, 'name'],
      [{ name: repeat(256) }, 'name'],
      [{ defaultEnvironmentName: '' }, 'defaultEnvironmentName'],
      [{ defaultEnvironmentName: repeat(256) }, 'defaultEnvironmentName'],
      [{ defaultEnvironmentName: 'prod:eu' }, 'defaultEnvironmentName'],
      [{ isRandomizeUsernames: 'yes' }, 'isRandomizeUsernames'],
      [{ isDeployHooksEnabled: 'yes' }, 'isDeployHooksEnabled'],
      [{ isHostAccessAllowed: 1 }, 'isHostAccessAllowed'],
    ];
    for (const [body, path] of refused) {
      const res = await patch(body);
      expect(res.status).toBe(422);
      expect(res.json.error).toMatchObject({ code: 'validation_failed', path });
    }
  });

  test("another organization answers 404 and stays unchanged; no credentials is 401", async () => {
    const { t, asOwner, stranger, organizationId } = setup();
    const before = rawRow(t, 'organization', stranger.organizationId);
    expect((await asOwner('GET', `/organizations/${stranger.organizationId}`)).status).toBe(404);
    expect((await asOwner('PATCH', `/organizations/${stranger.organizationId}`, { name: 'Mine' })).status).toBe(404);
    expect(rawRow(t, 'organization', stranger.organizationId)).toEqual(before);
    const anonymous = clientAs(t);
    expect((await anonymous('GET', `/organizations/${organizationId}`)).status).toBe(401);
    expect((await anonymous('PATCH', `/organizations/${organizationId}`, { name: 'x' })).status).toBe(401);
  });
});
