/**
 * Host access on Panel's own server: a superadmin's grant per organization (PATCH
 * /api/admin/v1/organizations/{id}), needed besides the owner's opt-in, and enforced at save,
 * deploy preview and deploy for environments and plans on the local server.
 */
import { describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { daemonCommand, environment, organization, server } from '../../../db/schema/index.ts';
import { clientAs, rawRow } from '../../../../test/client.ts';
import { enrolledServer } from '../../../../test/daemon.ts';
import { createTestApp, type TestApp } from '../../../../test/harness.ts';
import { addMember, createOwner, tokenFor } from '../../../../test/identity.ts';

const ADMIN = '/api/admin/v1/organizations';
const PRIVILEGED = 'services:\n  agent:\n    image: busybox\n    privileged: true\n';

function setup() {
  const t = createTestApp();
  const superadmin = createOwner(t, { isSuperadmin: true });
  const owner = createOwner(t);
  return { t, superadmin, owner, grant: (id: string, body: unknown, headers = superadmin.headers) => t.request('PATCH', `${ADMIN}/${id}`, body, headers) };
}

const flagsOf = (t: TestApp, id: string) => {
  const row = t.db.select().from(organization).where(eq(organization.id, id)).get()!;
  return { owner: row.isHostAccessAllowed, superadmin: row.isLocalHostAccessAllowed };
};

describe('the superadmin grant', () => {
  test('a superadmin lists every organization and grants one host access on the local server; its members see it', async () => {
    const { t, superadmin, owner, grant } = setup();
    const list = await t.request('GET', ADMIN, undefined, superadmin.headers);
    expect(list.status).toBe(200);
    expect(list.json.data.map((row: { id: string }) => row.id)).toEqual(expect.arrayContaining([superadmin.organizationId, owner.organizationId]));
    expect(list.json.data[0]).toMatchObject({ isHostAccessAllowed: false, isLocalHostAccessAllowed: false });

    const granted = await grant(owner.organizationId, { isLocalHostAccessAllowed: true });
    expect(granted.status).toBe(200);
    expect(granted.json).toMatchObject({ id: owner.organizationId, isLocalHostAccessAllowed: true, isHostAccessAllowed: false });
    expect(flagsOf(t, owner.organizationId)).toEqual({ owner: false, superadmin: true });
    expect((await clientAs(t, owner)('GET', `/organizations/${owner.organizationId}`)).json.isLocalHostAccessAllowed).toBe(true);
    expect((await grant(owner.organizationId, { isLocalHostAccessAllowed: false })).json.isLocalHostAccessAllowed).toBe(false);
  });

  test('anyone but a superadmin is refused and nothing changes: owners, admins, API tokens, other origins', async () => {
    const { t, superadmin, owner, grant } = setup();
    const before = rawRow(t, 'organization', owner.organizationId);
    const admin = addMember(t, owner.organizationId, 'admin');
    expect((await grant(owner.organizationId, { isLocalHostAccessAllowed: true }, {})).status).toBe(401);
    for (const headers of [owner.headers, admin.headers, tokenFor(t, superadmin, 'owner'), { ...superadmin.headers, origin: 'https://evil.example' }]) {
      expect((await grant(owner.organizationId, { isLocalHostAccessAllowed: true }, headers)).status).toBe(403);
    }
    expect((await t.request('GET', ADMIN, undefined, owner.headers)).status).toBe(403);
    // The client surface does not take the grant, from its owner either.
    const patched = await clientAs(t, owner)('PATCH', `/organizations/${owner.organizationId}`, { isLocalHostAccessAllowed: true });
    expect(patched.status).toBe(422);
    expect(patched.json.error.path).toBe('isLocalHostAccessAllowed');
    expect(rawRow(t, 'organization', owner.organizationId)).toEqual(before);
  });

  test('bad input: 404 for no such organization, 422 for a missing, mistyped or extra field', async () => {
    const { grant, owner } = setup();
    expect((await grant('0196a4f2-8e1c-7b3d-9f00-1234567890ab', { isLocalHostAccessAllowed: true })).status).toBe(404);
    for (const body of [{}, { isLocalHostAccessAllowed: 'yes' }, { isLocalHostAccessAllowed: true, isHostAccessAllowed: true }]) {
      expect((await grant(owner.organizationId, body)).status).toBe(422);
    }
  });
});

describe("host access on Panel's own server", () => {
  async function project() {
    const { t, superadmin, owner, grant } = setup();
    const admin = clientAs(t, owner);
    const local = t.db.insert(server).values({ organizationId: owner.organizationId, name: 'this machine', isLocal: true, status: 'connected' }).returning().get();
    const remote = enrolledServer(t, owner.organizationId, { name: 'remote' });
    t.db.update(server).set({ status: 'connected' }).where(eq(server.id, remote.id)).run();
    const workspaceId = (await admin('GET', `/workspaces?organizationId=${owner.organizationId}`)).json.data.find((row: { kind: string }) => row.kind === 'user').id;
    const projectId: string = (await admin('POST', '/projects', { workspaceId, name: 'agent' })).json.id;
    const environmentId = t.db.select().from(environment).where(eq(environment.projectId, projectId)).get()!.id;
    const optIn = () => t.db.update(organization).set({ isHostAccessAllowed: true }).where(eq(organization.id, owner.organizationId)).run();
    const pin = async (serverId: string) => expect((await admin('PATCH', `/environments/${environmentId}`, { serverId })).status).toBe(200);
    return { t, superadmin, owner, admin, grant, local, remote, projectId, environmentId, optIn, pin };
  }

  test("save: the owner's opt-in reaches the organization's servers, not the local one without the superadmin's grant", async () => {
    const { admin, grant, owner, local, remote, projectId, optIn, pin } = await project();
    optIn();
    await pin(local.id);
    const refused = await admin('PUT', `/projects/${projectId}/compose`, { yaml: PRIVILEGED });
    expect(refused.status).toBe(422);
    expect(refused.json.error).toMatchObject({ code: 'compose_invalid', path: 'services.agent.privileged' });
    expect(refused.json.error.message).toContain("Panel's own server");
    await pin(remote.id);
    expect((await admin('PUT', `/projects/${projectId}/compose`, { yaml: PRIVILEGED })).status).toBe(200);
    // Back on the local server, the grant lets the same document through.
    expect((await grant(owner.organizationId, { isLocalHostAccessAllowed: true })).status).toBe(200);
    await pin(local.id);
    expect((await admin('PUT', `/projects/${projectId}/compose`, { yaml: `${PRIVILEGED}    user: root\n` })).status).toBe(200);
  });

  test("the superadmin's grant alone is not host access: the owner's opt-in is needed too", async () => {
    const { admin, grant, owner, local, projectId, pin } = await project();
    expect((await grant(owner.organizationId, { isLocalHostAccessAllowed: true })).status).toBe(200);
    await pin(local.id);
    const refused = await admin('PUT', `/projects/${projectId}/compose`, { yaml: PRIVILEGED });
    expect(refused.json.error).toMatchObject({ code: 'compose_invalid', path: 'services.agent.privileged' });
    expect(refused.json.error.message).toContain('an owner of the organization can allow host access');
  });

  test('preview and deploy on the local server: refused until the grant; then the command carries host access', async () => {
    const { t, admin, grant, owner, local, remote, projectId, environmentId, optIn, pin } = await project();
    optIn();
    await pin(remote.id);
    expect((await admin('PUT', `/projects/${projectId}/compose`, { yaml: PRIVILEGED })).status).toBe(200);
    // Moved to the local server after the save: the deploy checks the servers of its plan.
    t.db.update(environment).set({ serverId: local.id }).where(eq(environment.id, environmentId)).run();
    for (const [method, path] of [['GET', 'deploy-preview'], ['POST', 'deploy']] as const) {
      const res = await admin(method, `/environments/${environmentId}/${path}`);
      expect(res.status).toBe(422);
      expect(res.json.error).toMatchObject({ code: 'compose_invalid', path: 'services.agent.privileged' });
    }
    expect(t.db.select().from(daemonCommand).all()).toEqual([]);
    expect((await grant(owner.organizationId, { isLocalHostAccessAllowed: true })).status).toBe(200);
    expect((await admin('GET', `/environments/${environmentId}/deploy-preview`)).status).toBe(200);
    const deployed = await admin('POST', `/environments/${environmentId}/deploy`);
    expect(deployed.status).toBe(202);
    const [command] = t.db.select().from(daemonCommand).all();
    expect(command).toMatchObject({ serverId: local.id, payload: { policy: { hostAccess: true, platform: false } } });
  });
});
