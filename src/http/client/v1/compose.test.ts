import { describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { environment, organization, project, service } from '../../../db/schema/index.ts';
import { backdate, clientAs, rawRow } from '../../../../test/client.ts';
import { createTestApp, type TestApp } from '../../../../test/harness.ts';
import { seedTenants } from '../../../../test/seed.ts';

const BASE = `# The shop
name: shop

x-panel:
  principals:
    app: {uid: 1001, gid: 1001}   # host account

services:
  web:
    image: nginx:1.27  # pinned
    x-panel:
      principal: app

  # background jobs
  worker:
    image: busybox
    command: ["sleep", "infinity"]
`;

async function setup() {
  const t = createTestApp();
  const tenants = seedTenants(t);
  const owner = clientAs(t, tenants.owner);
  const created = await owner('POST', '/projects', { workspaceId: tenants.tree.workspaceId, name: 'shop' });
  const projectId: string = created.json.id;
  const environmentId = t.db.select().from(environment).where(eq(environment.projectId, projectId)).get()!.id;
  return {
    t,
    ...tenants,
    projectId,
    environmentId,
    owner,
    admin: clientAs(t, tenants.admin),
    member: clientAs(t, tenants.member),
    anonymous: clientAs(t),
  };
}

const serviceKeys = (t: TestApp, environmentId: string) =>
  t.db.select().from(service).where(eq(service.environmentId, environmentId)).all().map((row) => row.composeServiceName).sort();

describe('compose documents', () => {
  test('YAML is saved and read back byte for byte, comments included; members read', async () => {
    const { t, admin, member, projectId, environmentId } = await setup();
    backdate(t, 'project', projectId);
    const saved = await admin('PUT', `/projects/${projectId}/compose`, { yaml: BASE, editorView: 'yaml' });
    expect(saved.status).toBe(200);
    expect(saved.json).toMatchObject({ version: 1, yaml: BASE, editorView: 'yaml' });
    expect(Date.parse(saved.json.updatedAt)).toBeGreaterThan(0);
    const read = await member('GET', `/projects/${projectId}/compose`);
    expect(read.json.yaml).toBe(BASE);
    expect(read.json.data.services.worker).toEqual({ image: 'busybox', command: ['sleep', 'infinity'] });
    expect(read.json.editorView).toBe('yaml');
    const stored = JSON.parse(rawRow(t, 'project', projectId)!.options as string).compose;
    expect(stored).toEqual({ version: 1, data: read.json.data, presentation: { yaml: BASE, editorView: 'yaml' } });
    expect(serviceKeys(t, environmentId)).toEqual(['web', 'worker']);
  });

  test('a project or environment without a document reads as empty', async () => {
    const { member, projectId, environmentId } = await setup();
    for (const path of [`/projects/${projectId}/compose`, `/environments/${environmentId}/compose`]) {
      expect((await member('GET', path)).json).toMatchObject({ version: 1, yaml: '', data: {}, editorView: null });
    }
  });

  test('JSON keeps the comments of untouched nodes and the editor view', async () => {
    const { admin, projectId } = await setup();
    await admin('PUT', `/projects/${projectId}/compose`, { yaml: BASE, editorView: 'form' });
    const data = (await admin('GET', `/projects/${projectId}/compose`)).json.data;
    data.services.web.image = 'nginx:1.28';
    const saved = await admin('PUT', `/projects/${projectId}/compose`, { data });
    expect(saved.status).toBe(200);
    expect(saved.json.editorView).toBe('form');
    for (const comment of ['# The shop', '# host account', '# pinned', '# background jobs']) expect(saved.json.yaml).toContain(comment);
    expect(saved.json.yaml).toContain('image: nginx:1.28');
    expect(saved.json.yaml).toContain('command: ["sleep", "infinity"]'); // untouched nodes keep their layout
    expect(saved.json.data).toEqual(data);
    expect((await admin('GET', `/projects/${projectId}/compose`)).json.yaml).toBe(saved.json.yaml);
  });

  test("an overlay may name the base's principals and is stored byte for byte", async () => {
    const { t, admin, projectId, environmentId } = await setup();
    await admin('PUT', `/projects/${projectId}/compose`, { yaml: BASE });
    const overlay = '# production\nservices:\n  worker:\n    x-panel: {principal: app}\n  cron:\n    image: busybox\n';
    const saved = await admin('PUT', `/environments/${environmentId}/compose`, { yaml: overlay });
    expect(saved.status).toBe(200);
    expect((await admin('GET', `/environments/${environmentId}/compose`)).json.yaml).toBe(overlay);
    expect(serviceKeys(t, environmentId)).toEqual(['cron', 'web', 'worker']);
    const unknown = await admin('PUT', `/environments/${environmentId}/compose`, { yaml: 'services:\n  web:\n    x-panel: {principal: root}\n' });
    expect(unknown.status).toBe(422);
    expect(unknown.json.error).toMatchObject({ code: 'compose_invalid', path: 'services.web.x-panel.principal' });
  });

  test('x-panel.placement is refused with its path, in the base and in an overlay; nothing changes', async () => {
    const { t, admin, projectId, environmentId } = await setup();
    const before = [rawRow(t, 'project', projectId), rawRow(t, 'environment', environmentId)];
    for (const path of [`/projects/${projectId}/compose`, `/environments/${environmentId}/compose`]) {
      for (const body of [{ yaml: 'x-panel:\n  placement: {server_id: x}\nservices: {}\n' }, { data: { 'x-panel': { placement: {} } } }]) {
        const res = await admin('PUT', path, body);
        expect(res.status).toBe(422);
        expect(res.json.error).toMatchObject({ code: 'compose_invalid', path: 'x-panel.placement' });
      }
    }
    expect([rawRow(t, 'project', projectId), rawRow(t, 'environment', environmentId)]).toEqual(before);
  });

  test('host access is refused unless the organization opts in', async () => {
    const { t, admin, projectId, tree } = await setup();
    const yaml = 'services:\n  agent:\n    image: busybox\n    privileged: true\n    volumes: ["/var/run/docker.sock:/var/run/docker.sock"]\n';
    const refused = await admin('PUT', `/projects/${projectId}/compose`, { yaml });
    expect(refused.status).toBe(422);
    expect(refused.json.error).toMatchObject({ code: 'compose_invalid', path: 'services.agent.privileged' });
    t.db.update(organization).set({ isHostAccessAllowed: true }).where(eq(organization.id, tree.organizationId)).run();
    expect((await admin('PUT', `/projects/${projectId}/compose`, { yaml })).status).toBe(200);
  });

  test('YAML errors carry line and column; bad bodies are refused with a path', async () => {
    const { admin, projectId } = await setup();
    const syntax = await admin('PUT', `/projects/${projectId}/compose`, { yaml: 'services:\n  web:\n    image: [unclosed\n' });
    expect(syntax.status).toBe(422);
    expect(syntax.json.error.code).toBe('compose_invalid');
    expect(syntax.json.error.message).toMatch(/at line \d+, column \d+/);
    const cases: [unknown, string][] = [
      [{}, 'yaml'],
      [{ yaml: 'services: {}', data: {} }, 'data'],
      [{ yaml: 42 }, 'yaml'],
      [{ data: [] }, 'data'],
      [{ yaml: '', extra: true }, 'extra'],
      [{ yaml: '', editorView: 'x'.repeat(65) }, 'editorView'],
    ];
    for (const [body, path] of cases) {
      const res = await admin('PUT', `/projects/${projectId}/compose`, body);
      expect(res.status).toBe(422);
      expect(res.json.error.path).toBe(path);
    }
    const services = await admin('PUT', `/projects/${projectId}/compose`, { data: { services: ['web'] } });
    expect(services.json.error).toMatchObject({ code: 'compose_invalid', path: 'services' });
    expect((await admin('GET', '/projects/not-a-uuid/compose')).json.error.path).toBe('id');
  });

  test("401 without credentials, 404 for another organization's ids, 403 for member and platform writes", async () => {
    const { t, anonymous, member, owner, projectId, environmentId, foreign } = await setup();
    for (const path of [`/projects/${projectId}/compose`, `/environments/${environmentId}/compose`]) {
      expect((await anonymous('GET', path)).status).toBe(401);
      expect((await anonymous('PUT', path, { yaml: '' })).status).toBe(401);
      expect((await member('PUT', path, { yaml: '' })).status).toBe(403);
    }
    const before = [rawRow(t, 'project', foreign.projectId), rawRow(t, 'environment', foreign.environmentId)];
    for (const path of [`/projects/${foreign.projectId}/compose`, `/environments/${foreign.environmentId}/compose`]) {
      expect((await owner('GET', path)).status).toBe(404);
      expect((await owner('PUT', path, { yaml: 'services: {}\n' })).status).toBe(404);
    }
    expect([rawRow(t, 'project', foreign.projectId), rawRow(t, 'environment', foreign.environmentId)]).toEqual(before);
    t.db.update(project).set({ component: 'panel' }).where(eq(project.id, projectId)).run();
    expect((await owner('GET', `/projects/${projectId}/compose`)).status).toBe(200);
    expect((await owner('PUT', `/projects/${projectId}/compose`, { yaml: '' })).status).toBe(403);
    expect((await owner('PUT', `/environments/${environmentId}/compose`, { yaml: '' })).status).toBe(403);
  });
});

describe('options.compose of project and environment writes', () => {
  test('is parsed, validated and reconciled like the compose endpoint', async () => {
    const { t, admin, tree, projectId, environmentId } = await setup();
    const created = await admin('POST', '/projects', {
      workspaceId: tree.workspaceId,
      name: 'from-options',
      options: { compose: { version: 1, presentation: { yaml: BASE, editorView: 'yaml' } } },
    });
    expect(created.status).toBe(201);
    expect(created.json.options.compose.presentation).toEqual({ yaml: BASE, editorView: 'yaml' });
    const first = t.db.select().from(environment).where(eq(environment.projectId, created.json.id)).get()!;
    expect(serviceKeys(t, first.id)).toEqual(['web', 'worker']);

    const data = { services: { api: { image: 'nginx' } } };
    const patched = await admin('PATCH', `/projects/${projectId}`, { options: { compose: { version: 1, data } } });
    expect(patched.json.options.compose).toEqual({ version: 1, data, presentation: { yaml: 'services:\n  api:\n    image: nginx\n' } });
    expect(serviceKeys(t, environmentId)).toEqual(['api']);

    const overlay = await admin('PATCH', `/environments/${environmentId}`, { options: { compose: { version: 1, data: { services: { db: { image: 'postgres' } } } } } });
    expect(overlay.status).toBe(200);
    expect(serviceKeys(t, environmentId)).toEqual(['api', 'db']);
    const staging = await admin('POST', '/environments', { projectId, name: 'staging' });
    expect(serviceKeys(t, staging.json.id)).toEqual(['api']);
  });

  test('options written without compose keep the stored document', async () => {
    const { t, admin, projectId, environmentId } = await setup();
    await admin('PUT', `/projects/${projectId}/compose`, { yaml: BASE });
    await admin('PUT', `/environments/${environmentId}/compose`, { yaml: 'services: {}\n' });
    const patched = await admin('PATCH', `/projects/${projectId}`, { options: { containerNaming: 'custom' } });
    expect(patched.json.options).toMatchObject({ containerNaming: 'custom', compose: { presentation: { yaml: BASE } } });
    expect((await admin('PATCH', `/environments/${environmentId}`, { options: null })).json.options.compose.presentation.yaml).toBe('services: {}\n');
    expect(serviceKeys(t, environmentId)).toEqual(['web', 'worker']);
  });

  test('refusals: placement with its path, data that is not what the text says, nothing but the version', async () => {
    const { t, admin, projectId, environmentId } = await setup();
    const before = rawRow(t, 'project', projectId);
    const cases: [string, unknown, string, string][] = [
      [`/projects/${projectId}`, { version: 1, data: { 'x-panel': { placement: {} } } }, 'compose_invalid', 'x-panel.placement'],
      [`/environments/${environmentId}`, { version: 1, presentation: { yaml: 'x-panel: {placement: {}}' } }, 'compose_invalid', 'x-panel.placement'],
      [`/projects/${projectId}`, { version: 1, data: { services: {} }, presentation: { yaml: 'services: {web: {image: x}}' } }, 'compose_invalid', ''],
      [`/projects/${projectId}`, { version: 1 }, 'validation_failed', 'options.compose.data'],
      [`/projects/${projectId}`, { version: 1, presentation: { yaml: 7 } }, 'validation_failed', 'options.compose.presentation.yaml'],
    ];
    for (const [path, compose, code, errorPath] of cases) {
      const res = await admin('PATCH', path, { options: { compose } });
      expect(res.status).toBe(422);
      expect(res.json.error.code).toBe(code);
      if (errorPath !== '') expect(res.json.error.path).toBe(errorPath);
    }
    expect(rawRow(t, 'project', projectId)).toEqual(before);
  });
});
