/**
 * Join tokens and daemon enrollment: created by admins (shown once, with the join command),
 * expiring, revocable, single-use; enrollment stores the credential hashed, the key and key id;
 * the same machine enrolling again (with a token made to replace its server) keeps its record
 * and gets a new credential; failures are rate-limited per address.
 */
import { describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { hashToken } from '../../../auth/token.ts';
import { generateDaemonKeyPair } from '../../../crypto/index.ts';
import { joinToken, server } from '../../../db/schema/index.ts';
import { ENROLL_ADDRESS_POLICY } from '../../../domain/servers/enroll.ts';
import { INSTALL_SCRIPT_SHA256 } from '../../../ops/install-script.ts';
import { clientAs } from '../../../../test/client.ts';
import { BEHIND_LOCAL_PROXY, createTestApp, type TestApp } from '../../../../test/harness.ts';
import { addMember, createOwner, tokenFor } from '../../../../test/identity.ts';

const ENROLL = '/api/daemon/v1/enroll';

function setup() {
  // Enrollments name their client address in X-Forwarded-For (see enroll below).
  const t = createTestApp(BEHIND_LOCAL_PROXY);
  const owner = createOwner(t);
  const as = clientAs(t, owner);
  const create = async (body: object = {}) => {
    const res = await as('POST', '/join-tokens', { organizationId: owner.organizationId, ...body });
    expect(res.status).toBe(201);
    return res.json as { id: string; token: string; command: string; joinCommand: string; warnings: string[]; expiresAt: string; state: string };
  };
  return { t, owner, as, create };
}

let machines = 0;
function enrollBody(token: string, fields: Record<string, string> = {}) {
  const keys = generateDaemonKeyPair();
  return { token, hostname: 'node-a', machineId: `machine-${++machines}`, publicKey: keys.publicKey, keyId: `dk_${machines}`, ...fields };
}
const enroll = (t: TestApp, body: object, address = '198.51.100.7') => t.request('POST', ENROLL, body, { 'x-forwarded-for': address });

describe('join tokens', () => {
  test('an admin creates one: shown once with the exact join command, stored hashed, expiring in an hour', async () => {
    const { t, owner, as, create } = setup();
    const created = await create();
    expect(created.token).toMatch(/^pnj_[A-Za-z0-9_-]{43}$/);
    const url = t.config.publicUrl.replace(/\/$/, '');
    expect(created.command).toBe(
      `curl -fsSL ${url}/api/daemon/v1/install.sh -o panel-install.sh && echo '${INSTALL_SCRIPT_SHA256}  panel-install.sh' | sha256sum -c` +
        ` && sudo bash panel-install.sh --daemon ${url} --token ${created.token}`,
    );
    expect(created.joinCommand).toBe(`panel daemon join ${url} --token ${created.token}`);
    expect(created.state).toBe('active');
    expect(new Date(created.expiresAt).getTime() - t.clock.now().getTime()).toBe(3_600_000);
    const row = t.db.select().from(joinToken).where(eq(joinToken.id, created.id)).get()!;
    expect(row.tokenHash).toBe(hashToken(created.token));
    expect(JSON.stringify(row)).not.toContain(created.token);

    const list = await as('GET', `/join-tokens?organizationId=${owner.organizationId}`);
    expect(list.status).toBe(200);
    expect(list.json.data).toHaveLength(1);
    expect(list.json.data[0].token).toBeUndefined();
    expect(list.text).not.toContain(created.token);
  });

  test('the commands keep the name chosen, quoted for the shell; a loopback public URL is warned about', async () => {
    const { create } = setup();
    const named = await create({ name: "  O'Brien's box  " });
    expect(named.command).toEndWith(` --token ${named.token} --name 'O'\\''Brien'\\''s box'`);
    expect(named.joinCommand).toEndWith(` --name 'O'\\''Brien'\\''s box'`);
    expect((await create({ name: 'edge-1' })).command).toEndWith(' --name edge-1');
    // The test config's public URL is http://127.0.0.1:3000.
    expect(named.warnings).toEqual([expect.stringContaining('a loopback address: other machines cannot reach it')]);
    expect(named.warnings[0]).toContain('PANEL_PUBLIC_URL');
    const reachable = createTestApp({ publicUrl: 'https://panel.example.com' });
    const owner = createOwner(reachable);
    const res = await clientAs(reachable, owner)('POST', '/join-tokens', { organizationId: owner.organizationId });
    expect(res.json.warnings).toEqual([]);
  });

  test('lifetimes: 60 s to 7 days, else 422', async () => {
    const { t, owner, as, create } = setup();
    const week = await create({ expiresInSeconds: 7 * 86_400 });
    expect(new Date(week.expiresAt).getTime() - t.clock.now().getTime()).toBe(7 * 86_400_000);
    for (const expiresInSeconds of [59, 7 * 86_400 + 1, 1.5, '3600']) {
      const res = await as('POST', '/join-tokens', { organizationId: owner.organizationId, expiresInSeconds });
      expect(res.status).toBe(422);
      expect(res.json.error.path).toBe('expiresInSeconds');
    }
    expect((await as('POST', '/join-tokens', { organizationId: owner.organizationId, serverId: week.id })).status).toBe(422);
  });

  test("another organization answers 404; an admin's API token may create them", async () => {
    const { t, owner, create } = setup();
    const token = await create();
    const stranger = clientAs(t, createOwner(t));
    expect((await stranger('POST', '/join-tokens', { organizationId: owner.organizationId })).status).toBe(404);
    expect((await stranger('DELETE', `/join-tokens/${token.id}`)).status).toBe(404);
    // An admin's API token may create them (provisioning scripts).
    const admin = addMember(t, owner.organizationId, 'admin');
    const res = await t.request('POST', '/api/client/v1/join-tokens', { organizationId: owner.organizationId }, tokenFor(t, admin, 'admin'));
    expect(res.status).toBe(201);
  });
});

describe('enrollment', () => {
  test('a token enrolls one server: credential hashed, key and key id stored; the token is spent', async () => {
    const { t, owner, as, create } = setup();
    const { token, id } = await create();
    const body = enrollBody(token, { hostname: 'db-1' });
    const res = await enroll(t, body);
    expect(res.status).toBe(201);
    const { serverId, credential } = res.json;
    expect(credential).toMatch(/^pnd_/);
    const row = t.db.select().from(server).where(eq(server.id, serverId)).get()!;
    expect(row).toMatchObject({
      organizationId: owner.organizationId,
      name: 'db-1',
      hostname: 'db-1',
      machineId: body.machineId,
      publicKey: body.publicKey,
      daemonKeyId: body.keyId,
      credentialHash: hashToken(credential),
      isLocal: false,
      status: 'pending',
    });
    expect(t.hub.authenticate(credential)).toBe(serverId);
    const listed = (await as('GET', `/join-tokens?organizationId=${owner.organizationId}`)).json.data[0];
    expect(listed).toMatchObject({ id, state: 'used', serverId });
    // Single-use: the same token enrolls nothing more.
    const again = await enroll(t, enrollBody(token));
    expect(again.status).toBe(401);
    expect(again.json.error.code).toBe('invalid_join_token');
    expect(t.db.select().from(server).all()).toHaveLength(1);
  });

  test('two machines with one hostname are told apart by a short machine-id suffix; a name chosen in the command wins', async () => {
    const { t, create } = setup();
    const nameOf = async (fields: Record<string, string>) => {
      const res = await enroll(t, enrollBody((await create()).token, fields));
      expect(res.status, res.text).toBe(201);
      return t.db.select().from(server).where(eq(server.id, res.json.serverId)).get()!.name;
    };
    expect(await nameOf({ hostname: 'ubuntu', machineId: 'a1b2c3d4e5f60718293a4b5c6d7e8f90' })).toBe('ubuntu');
    expect(await nameOf({ hostname: 'ubuntu', machineId: '3f9a1c7700000000000000000000000a' })).toBe('ubuntu-3f9a1c');
    expect(await nameOf({ hostname: 'ubuntu', machineId: '3f9a1c7711111111111111111111111b' })).toBe('ubuntu-3f9a1c77');
    expect(await nameOf({ hostname: 'ubuntu', name: 'edge one' })).toBe('edge one');
    const blank = await enroll(t, enrollBody((await create()).token, { name: '  ' }));
    expect(blank.status).toBe(422);
    expect(blank.json.error.path).toBe('name');
  });

  test('expired and revoked tokens enroll nothing, with the same answer as an unknown one', async () => {
    const { t, as, create } = setup();
    const expiring = await create({ expiresInSeconds: 60 });
    t.clock.advance(60_000);
    const revoked = await create();
    expect((await as('DELETE', `/join-tokens/${revoked.id}`)).status).toBe(204);
    const answers = [];
    for (const token of [expiring.token, revoked.token, 'pnj_unknown']) {
      const res = await enroll(t, enrollBody(token));
      expect(res.status).toBe(401);
      answers.push(res.json.error.message);
    }
    expect(new Set(answers).size).toBe(1);
    expect(t.db.select().from(server).all()).toEqual([]);
  });

  test('the same machine enrolling again, with a token made to replace its server, keeps its record and rotates the credential', async () => {
    const { t, owner, create } = setup();
    const first = enrollBody((await create()).token, { machineId: 'same-machine' });
    const enrolled = (await enroll(t, first)).json;
    const replacing = await create({ replacesServerId: enrolled.serverId });
    expect(replacing).toMatchObject({ replacesServerId: enrolled.serverId });
    const second = enrollBody(replacing.token, { machineId: 'same-machine', hostname: 'renamed' });
    const res = await enroll(t, second);
    expect(res.status).toBe(200);
    expect(res.json.serverId).toBe(enrolled.serverId);
    expect(res.json.credential).not.toBe(enrolled.credential);
    expect(t.hub.authenticate(enrolled.credential)).toBeUndefined();
    expect(t.hub.authenticate(res.json.credential)).toBe(enrolled.serverId);
    const row = t.db.select().from(server).where(eq(server.organizationId, owner.organizationId)).all();
    expect(row).toHaveLength(1);
    expect(row[0]).toMatchObject({ publicKey: second.publicKey, daemonKeyId: second.keyId, hostname: 'renamed' });
    // Another organization's token makes a separate record for the same machine.
    const other = createOwner(t);
    const otherToken = (await clientAs(t, other)('POST', '/join-tokens', { organizationId: other.organizationId })).json.token;
    const elsewhere = await enroll(t, enrollBody(otherToken, { machineId: 'same-machine' }));
    expect(elsewhere.status).toBe(201);
    expect(elsewhere.json.serverId).not.toBe(enrolled.serverId);
  });

  test("the local server's machine does not enroll: 409 machine_is_local, the token stays unspent", async () => {
    const { t, owner, create } = setup();
    t.db.insert(server).values({ organizationId: owner.organizationId, name: 'local', machineId: 'panel-host', isLocal: true }).run();
    const { token } = await create();
    const res = await enroll(t, enrollBody(token, { machineId: 'panel-host' }));
    expect(res.status).toBe(409);
    expect(res.json.error.code).toBe('machine_is_local');
    expect((await enroll(t, enrollBody(token))).status).toBe(201);
  });

  test('bad input is 422 with the field path; nothing is spent', async () => {
    const { t, create } = setup();
    const { token } = await create();
    for (const [field, value] of [['publicKey', 'short'], ['keyId', 'has space'], ['machineId', ''], ['hostname', 'x'.repeat(256)]] as const) {
      const res = await enroll(t, enrollBody(token, { [field]: value }));
      expect(res.status).toBe(422);
      expect(res.json.error.path).toBe(field);
    }
    expect((await enroll(t, enrollBody(token))).status).toBe(201);
  });

  test('failed enrollments are rate-limited per address (429 with Retry-After)', async () => {
    const { t, create } = setup();
    for (let i = 0; i < ENROLL_ADDRESS_POLICY.limit; i++) expect((await enroll(t, enrollBody('pnj_wrong'), '203.0.113.9')).status).toBe(401);
    const { token } = await create();
    const limited = await enroll(t, enrollBody(token), '203.0.113.9');
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    // Another address is not affected, and the token was not spent by the refused attempt.
    expect((await enroll(t, enrollBody(token), '203.0.113.10')).status).toBe(201);
  });
});
