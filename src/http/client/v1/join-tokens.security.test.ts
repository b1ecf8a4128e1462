/**
 * L3 of the security review: a join token plus a server's machine id (shown to every member)
 * took over that server: its credential and key were replaced, so its next deploy's secrets
 * went to whoever enrolled. A machine already enrolled now enrolls again only with a token an
 * admin made to replace that server; anything else is 409 and changes nothing.
 */
import { describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { generateDaemonKeyPair } from '../../../crypto/index.ts';
import { joinToken, server } from '../../../db/schema/index.ts';
import { clientAs } from '../../../../test/client.ts';
import { createTestApp, type TestApp } from '../../../../test/harness.ts';
import { addMember, createOwner } from '../../../../test/identity.ts';

const ENROLL = '/api/daemon/v1/enroll';

function setup() {
  const t = createTestApp();
  const owner = createOwner(t);
  const admin = clientAs(t, owner);
  const token = async (body: object = {}) => {
    const res = await admin('POST', '/join-tokens', { organizationId: owner.organizationId, ...body });
    expect(res.status).toBe(201);
    return res.json as { id: string; token: string; replacesServerId: string | null };
  };
  return { t, owner, admin, token };
}

const enrollment = (token: string, machineId: string) => {
  const keys = generateDaemonKeyPair();
  return { token, hostname: 'node', machineId, publicKey: keys.publicKey, keyId: `dk_${crypto.randomUUID().slice(0, 8)}` };
};
const enroll = (t: TestApp, body: object) => t.request('POST', ENROLL, body);
const rowOf = (t: TestApp, id: string) => t.db.select().from(server).where(eq(server.id, id)).get()!;

describe('re-enrolling a machine', () => {
  test('an ordinary token and a known machine id take over nothing: 409, the token unspent, the server untouched', async () => {
    const { t, owner, token } = setup();
    const victim = (await enroll(t, enrollment((await token()).token, 'victim-machine'))).json;
    const before = rowOf(t, victim.serverId);
    // Every member sees the machine id.
    const member = clientAs(t, addMember(t, owner.organizationId, 'member'));
    const listed = (await member('GET', `/servers?organizationId=${owner.organizationId}`)).json.data;
    expect(listed[0].machineId).toBe('victim-machine');

    const attempt = await token();
    const res = await enroll(t, enrollment(attempt.token, 'victim-machine'));
    expect(res.status).toBe(409);
    expect(res.json.error.code).toBe('machine_already_enrolled');
    expect(res.json.error.message).toContain(victim.serverId);
    expect(rowOf(t, victim.serverId)).toEqual(before);
    expect(t.hub.authenticate(victim.credential)).toBe(victim.serverId);
    expect(t.db.select().from(joinToken).where(eq(joinToken.id, attempt.id)).get()!.usedAt).toBeNull();
  });

  test('a token made to replace server X gives X to the machine that enrolls with it, new hardware included', async () => {
    const { t, token } = setup();
    const old = (await enroll(t, enrollment((await token()).token, 'old-hardware'))).json;
    const replacing = await token({ replacesServerId: old.serverId });
    const res = await enroll(t, enrollment(replacing.token, 'new-hardware'));
    expect(res.status).toBe(200);
    expect(res.json.serverId).toBe(old.serverId);
    expect(rowOf(t, old.serverId).machineId).toBe('new-hardware');
    expect(t.hub.authenticate(old.credential)).toBeUndefined();
  });

  test('a replacing token cannot take over another server: a machine enrolled as Y stays Y', async () => {
    const { t, token } = setup();
    const x = (await enroll(t, enrollment((await token()).token, 'machine-x'))).json;
    const y = (await enroll(t, enrollment((await token()).token, 'machine-y'))).json;
    const replacingX = await token({ replacesServerId: x.serverId });
    const res = await enroll(t, enrollment(replacingX.token, 'machine-y'));
    expect(res.status).toBe(409);
    expect(res.json.error.code).toBe('machine_already_enrolled');
    expect(t.hub.authenticate(x.credential)).toBe(x.serverId);
    expect(t.hub.authenticate(y.credential)).toBe(y.serverId);
  });

  test('replacing tokens: admins only, servers of the organization only, never the local server; they die with their server', async () => {
    const { t, owner, admin, token } = setup();
    const x = (await enroll(t, enrollment((await token()).token, 'machine-x'))).json;
    const member = clientAs(t, addMember(t, owner.organizationId, 'member'));
    expect((await member('POST', '/join-tokens', { organizationId: owner.organizationId, replacesServerId: x.serverId })).status).toBe(403);
    const stranger = createOwner(t);
    const theirs = (await enroll(t, enrollment((await clientAs(t, stranger)('POST', '/join-tokens', { organizationId: stranger.organizationId })).json.token, 'theirs'))).json;
    expect((await admin('POST', '/join-tokens', { organizationId: owner.organizationId, replacesServerId: theirs.serverId })).status).toBe(404);
    const local = t.db.insert(server).values({ organizationId: owner.organizationId, name: 'local', isLocal: true }).returning().get();
    const refused = await admin('POST', '/join-tokens', { organizationId: owner.organizationId, replacesServerId: local.id });
    expect(refused.status).toBe(409);
    expect(refused.json.error).toMatchObject({ code: 'machine_is_local', path: 'replacesServerId' });

    const replacing = await token({ replacesServerId: x.serverId });
    expect((await admin('DELETE', `/servers/${x.serverId}`)).status).toBe(204);
    expect(t.db.select().from(joinToken).where(eq(joinToken.id, replacing.id)).get()).toBeUndefined();
    expect((await enroll(t, enrollment(replacing.token, 'machine-x'))).status).toBe(401);
  });
});
