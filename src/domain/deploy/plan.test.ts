/**
 * The deploy plan on a project saved through the compose endpoint: placement resolution,
 * variables of all seven scopes, principals through tenancies, secrets opened for delivery only.
 * Every compiled document is checked by `docker compose config` in the last test.
 */
import { describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { sealSecret } from '../../crypto/index.ts';
import { environment, hosting, principal, project, server, service, tenancy, variable } from '../../db/schema/index.ts';
import { DomainError } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import { clientAs } from '../../../test/client.ts';
import { createTestApp, type TestApp } from '../../../test/harness.ts';
import { seedTenants } from '../../../test/seed.ts';
import type { Actor } from '../actor.ts';
import { variableValueOwner } from '../variables/secrets.ts';
import { type DeployPlan, planDeploy } from './plan.ts';
import { assertComposeAccepts, type CompiledDocument, composeLookup } from '../../../test/compose-checks.ts';

const SENTINEL = 'sentinel-db-password-7f3a';

const BASE = `x-panel:
  principals:
    app: {uid: 1001}
services:
  web:
    image: nginx:1.27
    build: ./app
    environment:
      APP_ENV: development
    x-panel:
      principal: app
      hosting:
        - hostname: a.example.com
        - hostname: b.example.com
  worker:
    image: busybox
    command: ["sleep", "infinity"]
`;

const recorded: CompiledDocument[] = [];

function planned(deps: { db: TestApp['db']; keyring: TestApp['deps']['keyring'] }, actor: Actor, environmentId: string): DeployPlan {
  const plan = planDeploy(deps, actor, environmentId);
  for (const document of plan.compiled.documents) {
    recorded.push({ name: `plan ${recorded.length}`, project: plan.compiled.project, yaml: document.yaml, secretNames: document.secrets.map((s) => s.name) });
  }
  return plan;
}

/** The anchor's document (every plan here places everything on the anchor unless it says otherwise). */
const onAnchor = (plan: DeployPlan) => plan.compiled.documents.find((document) => document.serverId === plan.server.id)!;

const actorOf = (organizationId: string, role: 'member' | 'admin' = 'member'): Actor => ({
  kind: 'session',
  userId: newId(),
  isSuperadmin: false,
  credentialId: newId(),
  memberships: new Map([[organizationId, role]]),
});

async function setup() {
  const t = createTestApp();
  const tenants = seedTenants(t);
  const admin = clientAs(t, tenants.admin);
  const projectId: string = (await admin('POST', '/projects', { workspaceId: tenants.tree.workspaceId, name: 'shop' })).json.id;
  expect((await admin('PUT', `/projects/${projectId}/compose`, { yaml: BASE })).status).toBe(200);
  const environmentId = t.db.select().from(environment).where(eq(environment.projectId, projectId)).get()!.id;
  const services = t.db.select().from(service).where(eq(service.environmentId, environmentId)).all();
  const web = services.find((row) => row.composeServiceName === 'web')!;
  const worker = services.find((row) => row.composeServiceName === 'worker')!;
  const account = t.db
    .insert(principal)
    .values({ organizationId: tenants.tree.organizationId, projectId, kind: 'system', provider: 'server', username: 'shop', appliedUsername: 'shop_x', metadata: { composeAlias: 'app', gid: 1002 }, options: { uid: 1001 } })
    .returning()
    .get();
  const runAs = t.db.insert(tenancy).values({ principalId: account.id, serviceId: web.id }).returning().get();
  const deps = { db: t.db, keyring: t.deps.keyring };
  return { runAs, t, ...tenants, deps, actor: actorOf(tenants.tree.organizationId), projectId, environmentId, web, worker };
}

const refusal = (work: () => unknown): DomainError => {
  try {
    work();
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  throw new Error('not refused');
};

describe('planDeploy: placement', () => {
  test('the pin, else the project default, else 409 server_placement_required', async () => {
    const { t, deps, actor, projectId, environmentId, tree } = await setup();
    expect(refusal(() => planned(deps, actor, environmentId))).toMatchObject({ code: 'server_placement_required', status: 409 });
    t.db.update(project).set({ options: { ...t.db.select().from(project).where(eq(project.id, projectId)).get()!.options, defaultServerId: tree.serverId } }).where(eq(project.id, projectId)).run();
    const byDefault = planned(deps, actor, environmentId);
    expect(byDefault.server).toEqual({ id: tree.serverId, organizationId: tree.organizationId, isLocal: false, name: expect.any(String) });
    expect(onAnchor(byDefault).model['x-panel']).toEqual({ placement: { server_id: tree.serverId } });

    const pinned = t.db.insert(server).values({ organizationId: tree.organizationId, name: 'pinned' }).returning().get();
    t.db.update(environment).set({ serverId: pinned.id }).where(eq(environment.id, environmentId)).run();
    expect(planned(deps, actor, environmentId).server.id).toBe(pinned.id);
  });

  test("another organization's server never anchors a deploy", async () => {
    const { t, deps, actor, projectId, environmentId, foreign } = await setup();
    t.db.update(project).set({ options: { defaultServerId: foreign.serverId } }).where(eq(project.id, projectId)).run();
    expect(refusal(() => planned(deps, actor, environmentId))).toMatchObject({ code: 'server_placement_required' });
    t.sqlite.prepare('UPDATE environment SET server_id = ? WHERE id = ?').run(foreign.serverId, environmentId);
    expect(refusal(() => planned(deps, actor, environmentId))).toMatchObject({ code: 'server_placement_required' });
  });

  test('a principal the document names must be provisioned: a tenancy of a system principal with that alias', async () => {
    const { t, deps, actor, environmentId, tree, runAs } = await setup();
    t.db.update(environment).set({ serverId: tree.serverId }).where(eq(environment.id, environmentId)).run();
    t.db.delete(tenancy).where(eq(tenancy.id, runAs.id)).run();
    expect(refusal(() => planned(deps, actor, environmentId))).toMatchObject({ code: 'compose_invalid', path: 'services.web.x-panel.principal' });
  });

  test("another organization's environment is 404; the caller's access level is checked", async () => {
    const { deps, actor, environmentId, foreign, tree } = await setup();
    expect(refusal(() => planDeploy(deps, actor, foreign.environmentId))).toMatchObject({ code: 'not_found', status: 404 });
    expect(refusal(() => planDeploy(deps, actor, environmentId, 'write'))).toMatchObject({ code: 'forbidden', status: 403 });
    expect(refusal(() => planDeploy(deps, actorOf(tree.organizationId, 'admin'), environmentId, 'write'))).toMatchObject({ code: 'server_placement_required' });
  });
});

describe('planDeploy: what is compiled', () => {
  test('variables of all seven scopes, principals by alias, secrets opened for delivery only', async () => {
    const { t, deps, actor, environmentId, web, worker, tree, projectId } = await setup();
    t.db.update(environment).set({ serverId: tree.serverId }).where(eq(environment.id, environmentId)).run();
    const otherServer = t.db.insert(server).values({ organizationId: tree.organizationId, name: 'other' }).returning().get();
    const [first, second] = t.db.select().from(hosting).where(eq(hosting.serviceId, web.id)).orderBy(hosting.id).all();
    const secretId = newId();
    t.db
      .insert(variable)
      .values([
        { organizationId: tree.organizationId, key: 'TZ', value: 'UTC' },
        { workspaceId: tree.workspaceId, key: 'TZ', value: 'Europe/Berlin' },
        { projectId, key: 'LOG_LEVEL', value: 'info' },
        { environmentId, key: 'APP_ENV', value: 'production' },
        { serviceId: web.id, key: 'NODE_VERSION', value: '24', isForBuild: true, isForRuntime: false },
        { hostingId: first!.id, key: 'PUBLIC_URL', value: 'https://a.example.com' },
        { hostingId: second!.id, key: 'PUBLIC_URL', value: 'https://b.example.com' },
        { serverId: tree.serverId, key: 'REGION', value: 'eu-central' },
        { serverId: otherServer.id, key: 'REGION', value: 'us-east' },
        { serviceId: tree.serviceId, key: 'ELSEWHERE', value: 'not this environment' },
        { id: secretId, environmentId, key: 'DB_PASSWORD', value: sealSecret(t.deps.keyring, SENTINEL, variableValueOwner(secretId)), isSecret: true },
      ])
      .run();
    const generation = t.db.select().from(environment).where(eq(environment.id, environmentId)).get()!.generation;

    const plan = planned(deps, actor, environmentId);
    const services = onAnchor(plan).model.services as Record<string, Record<string, unknown>>;
    expect(services.web!.environment).toEqual({
      APP_ENV: 'production',
      LOG_LEVEL: 'info',
      PUBLIC_URL: 'https://b.example.com',
      REGION: 'eu-central',
      TZ: 'Europe/Berlin',
    });
    expect(services.web!.build).toMatchObject({ args: { NODE_VERSION: '24' } });
    expect(services.web!.user).toBe('1001:1002');
    expect(services.worker!.environment).toEqual({ APP_ENV: 'production', LOG_LEVEL: 'info', REGION: 'eu-central', TZ: 'Europe/Berlin' });
    expect(plan.secrets).toEqual(
      new Map([
        [
          tree.serverId,
          [
            { name: 'web__db_password', plaintext: SENTINEL },
            { name: 'worker__db_password', plaintext: SENTINEL },
          ],
        ],
      ]),
    );
    const webVariables = plan.provenance[web.id]!;
    expect(webVariables.find((entry) => entry.key === 'DB_PASSWORD')).toMatchObject({ value: null, isSecret: true, scope: 'environment', variableId: secretId });
    expect(webVariables.find((entry) => entry.key === 'PUBLIC_URL')).toMatchObject({ scope: 'hosting', scopeId: second!.id, shadowed: [{ scope: 'hosting', scopeId: first!.id }] });
    expect(Object.keys(plan.provenance).sort()).toEqual([web.id, worker.id].sort());
    const { secrets: _secrets, ...rest } = plan;
    expect(JSON.stringify(rest, (_key, value) => (value instanceof Map ? [...value] : value))).not.toContain(SENTINEL);
    expect(plan.environment).toEqual({ id: environmentId, projectId, organizationId: tree.organizationId, generation });
    expect(t.db.select().from(environment).where(eq(environment.id, environmentId)).get()!.generation).toBe(generation);
  });

  test("the project's containerNaming is used", async () => {
    const { t, deps, actor, environmentId, projectId, tree, web } = await setup();
    const options = t.db.select().from(project).where(eq(project.id, projectId)).get()!.options;
    t.db.update(project).set({ options: { ...options, defaultServerId: tree.serverId, containerNaming: 'custom' } }).where(eq(project.id, projectId)).run();
    const custom = onAnchor(planned(deps, actor, environmentId)).containers;
    expect(custom.find((row) => row.serviceId === web.id)!.containerName).toBe(`pn-${environmentId}-web-1`);
    t.db.update(project).set({ options: { ...options, defaultServerId: tree.serverId } }).where(eq(project.id, projectId)).run();
    expect(onAnchor(planned(deps, actor, environmentId)).containers.find((row) => row.serviceId === web.id)!.containerName).toBe(`${web.id}-1`);
  });
});

// Declared last: Bun runs a file's tests in order, so every plan above has been recorded.
test.skipIf(!composeLookup.found)('every compiled plan passes `docker compose config` (Compose v2)', async () => {
  expect(recorded.length).toBeGreaterThanOrEqual(5);
  await assertComposeAccepts(recorded);
}, 60_000); // a generous bound for a loaded machine; nothing here is timed
