import { describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { sealSecret } from '../../../crypto/index.ts';
import { environment, project, service, variable } from '../../../db/schema/index.ts';
import { assertComposeAccepts, type CompiledDocument, composeLookup } from '../../../../test/compose-checks.ts';
import { variableValueOwner } from '../../../domain/variables/secrets.ts';
import { newId } from '../../../lib/ids.ts';
import { clientAs } from '../../../../test/client.ts';
import { createTestApp, type TestApp } from '../../../../test/harness.ts';
import { seedTenants } from '../../../../test/seed.ts';

const SENTINELS = ['sentinel-api-key-91c2', 'sentinel-token-b7e0'];

const recorded: CompiledDocument[] = [];

async function setup() {
  const t = createTestApp();
  const tenants = seedTenants(t);
  const admin = clientAs(t, tenants.admin);
  const projectId: string = (await admin('POST', '/projects', { workspaceId: tenants.tree.workspaceId, name: 'shop' })).json.id;
  const yaml = 'services:\n  web:\n    image: nginx:1.27\n    build: ./app\n  worker:\n    image: busybox\n    command: ["sleep", "infinity"]\n';
  expect((await admin('PUT', `/projects/${projectId}/compose`, { yaml })).status).toBe(200);
  const environmentId = t.db.select().from(environment).where(eq(environment.projectId, projectId)).get()!.id;
  const web = t.db.select().from(service).where(eq(service.environmentId, environmentId)).all().find((row) => row.composeServiceName === 'web')!;
  return { t, ...tenants, projectId, environmentId, web, member: clientAs(t, tenants.member), owner: clientAs(t, tenants.owner), anonymous: clientAs(t) };
}

const everyTable = (t: TestApp) =>
  t.sqlite
    .query<{ name: string }, []>("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
    .all()
    .map(({ name }) => [name, t.sqlite.query(`SELECT * FROM "${name}"`).all()]);

describe('GET /environments/{id}/deploy-preview', () => {
  test('shows the compiled document, the containers, the secret files and where variables come from; secrets never', async () => {
    const { t, member, environmentId, projectId, tree, web } = await setup();
    t.db.update(project).set({ options: { ...t.db.select().from(project).where(eq(project.id, projectId)).get()!.options, defaultServerId: tree.serverId } }).where(eq(project.id, projectId)).run();
    const [apiKey, token] = [newId(), newId()];
    t.db
      .insert(variable)
      .values([
        { environmentId, key: 'LOG_LEVEL', value: 'debug' },
        { serviceId: web.id, key: 'LOG_LEVEL', value: 'warn' },
        { id: apiKey, projectId, key: 'API_KEY', value: sealSecret(t.deps.keyring, SENTINELS[0]!, variableValueOwner(apiKey)), isSecret: true },
        { id: token, serviceId: web.id, key: 'NPM_TOKEN', value: sealSecret(t.deps.keyring, SENTINELS[1]!, variableValueOwner(token)), isSecret: true, isForBuild: true, isForRuntime: false },
      ])
      .run();
    const before = everyTable(t);

    const res = await member('GET', `/environments/${environmentId}/deploy-preview`);
    expect(res.status).toBe(200);
    for (const sentinel of SENTINELS) expect(res.text).not.toContain(sentinel);
    expect(everyTable(t)).toEqual(before);

    const { server, placementServerId, blocks, variables, warnings } = res.json;
    expect(server).toEqual({ id: tree.serverId, name: expect.any(String) });
    expect(placementServerId).toBe(tree.serverId);
    expect(blocks).toHaveLength(1);
    expect(blocks[0].serverId).toBe(tree.serverId);
    expect(blocks[0].yaml).toContain(`x-panel:\n  placement:\n    server_id: ${tree.serverId}\n`);
    expect(blocks[0].containers.map((row: { containerName: string }) => row.containerName)).toContain(`${web.id}-1`);
    expect(blocks[0].secrets).toEqual([
      { name: 'web__api_key', serviceId: web.id, key: 'API_KEY' },
      { name: 'web__npm_token', serviceId: web.id, key: 'NPM_TOKEN' },
      { name: 'worker__api_key', serviceId: expect.any(String), key: 'API_KEY' },
    ]);
    const webVariables = variables.find((entry: { serviceId: string }) => entry.serviceId === web.id);
    expect(webVariables.composeServiceName).toBe('web');
    expect(webVariables.entries.map((entry: { key: string }) => entry.key)).toEqual(['API_KEY', 'LOG_LEVEL', 'NPM_TOKEN']);
    expect(webVariables.entries[0]).toMatchObject({ value: null, isSecret: true, scope: 'project', scopeId: projectId, variableId: apiKey });
    expect(webVariables.entries[1]).toMatchObject({
      value: 'warn',
      isSecret: false,
      scope: 'service',
      scopeId: web.id,
      shadowed: [{ scope: 'environment', scopeId: environmentId }],
    });
    expect(Array.isArray(warnings)).toBe(true);
    recorded.push({ name: 'preview', project: `pn-${environmentId}`, yaml: blocks[0].yaml, secretNames: blocks[0].secrets.map((secret: { name: string }) => secret.name) });
  });

  test('409 server_placement_required without a pin or project default; nothing is written', async () => {
    const { t, member, environmentId } = await setup();
    const before = everyTable(t);
    const res = await member('GET', `/environments/${environmentId}/deploy-preview`);
    expect(res.status).toBe(409);
    expect(res.json.error.code).toBe('server_placement_required');
    expect(everyTable(t)).toEqual(before);
  });

  test("401 without credentials, 404 for another organization's environment, 422 for a bad id", async () => {
    const { owner, anonymous, environmentId, foreign } = await setup();
    expect((await anonymous('GET', `/environments/${environmentId}/deploy-preview`)).status).toBe(401);
    expect((await owner('GET', `/environments/${foreign.environmentId}/deploy-preview`)).status).toBe(404);
    const bad = await owner('GET', '/environments/nope/deploy-preview');
    expect(bad.status).toBe(422);
    expect(bad.json.error.path).toBe('id');
  });
});

// Declared last: Bun runs a file's tests in order, so every preview above has been recorded.
test.skipIf(!composeLookup.found)('every previewed document passes `docker compose config` (Compose v2)', async () => {
  expect(recorded.length).toBeGreaterThanOrEqual(1);
  await assertComposeAccepts(recorded);
}, 60_000); // a generous bound for a loaded machine; nothing here is timed
