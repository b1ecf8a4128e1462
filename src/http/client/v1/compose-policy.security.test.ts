/**
 * The policy corpus (src/compose/policy/corpus) through the API: each document is saved with PUT
 * .../compose (refused with its path and nothing stored, or accepted; with the organization's
 * host access too unless the platform owns the setting), and, written straight into the
 * database as if saved before the opt-in was turned off, previewed with GET .../deploy-preview,
 * which compiles it under the policy again.
 */
import { describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { fromJson, parseComposeText } from '../../../compose/document.ts';
import { mergeCompose } from '../../../compose/merge.ts';
import { POLICY_CORPUS, type PolicyCase } from '../../../compose/policy/corpus/index.ts';
import { isMapping, type JsonObject } from '../../../compose/values.ts';
import { environment, organization, project, server } from '../../../db/schema/index.ts';
import { insertService } from '../../../domain/compose/queries.ts';
import { clientAs, rawRow } from '../../../../test/client.ts';
import { createTestApp } from '../../../../test/harness.ts';
import { createOwner } from '../../../../test/identity.ts';
import { seedTree } from '../../../../test/seed.ts';

/** An organization with a server and two fresh projects: one saved through the API, one written directly. */
async function setup() {
  const t = createTestApp();
  const owner = createOwner(t);
  const tree = seedTree(t, owner.organizationId);
  // Connected and labelled, so the planner can place the corpus's replicated services (deploy.replicas, deploy.placement).
  t.db.update(server).set({ status: 'connected', labels: { region: 'eu', zone: 'eu-1' } }).where(eq(server.id, tree.serverId)).run();
  const admin = clientAs(t, owner);
  const newProject = async (name: string) => {
    const projectId: string = (await admin('POST', '/projects', { workspaceId: tree.workspaceId, name })).json.id;
    return { projectId, environmentId: t.db.select().from(environment).where(eq(environment.projectId, projectId)).get()!.id };
  };
  const allowHostAccess = () => t.db.update(organization).set({ isHostAccessAllowed: true }).where(eq(organization.id, owner.organizationId)).run();
  return { t, admin, saved: await newProject('saved'), stored: await newProject('stored'), serverId: tree.serverId, allowHostAccess };
}

type Context = Awaited<ReturnType<typeof setup>>;

const body = (layer: string | JsonObject) => (typeof layer === 'string' ? { yaml: layer } : { data: layer });
const document = (layer: string | JsonObject) => (typeof layer === 'string' ? parseComposeText(layer) : fromJson(layer));
const refusalOf = (res: { status: number; json: any }) => (res.status === 422 ? res.json.error : { status: res.status, body: res.json });
/** Where the merged model is refused: the layer's path, or the merged one the case names. */
const mergedPath = (policyCase: PolicyCase) => (policyCase.daemon !== undefined && policyCase.daemon !== 'inert' ? policyCase.daemon : policyCase.refused);

/** Saves the base, then the overlay; the response of the save the case is about. */
async function save({ admin, saved }: Context, policyCase: PolicyCase) {
  const base = await admin('PUT', `/projects/${saved.projectId}/compose`, body(policyCase.base));
  if (policyCase.overlay === undefined) return base;
  expect(base.status, base.text).toBe(200);
  return admin('PUT', `/environments/${saved.environmentId}/compose`, { yaml: policyCase.overlay });
}

/** PUT .../compose refuses the document at its path and stores nothing (with host access too, if the platform owns it). */
async function checkSave(context: Context, policyCase: PolicyCase) {
  const { t, saved } = context;
  const rows = () => [rawRow(t, 'project', saved.projectId), rawRow(t, 'environment', saved.environmentId)];
  const before = rows();
  const res = await save(context, policyCase);
  if (policyCase.refused === undefined) {
    expect(res.status, res.text).toBe(200);
    return;
  }
  expect(refusalOf(res)).toMatchObject({ code: 'compose_invalid', path: policyCase.refused });
  if (policyCase.overlay === undefined) expect(rows()).toEqual(before);
  context.allowHostAccess();
  const withHostAccess = await save(context, policyCase);
  if (policyCase.always) expect(refusalOf(withHostAccess)).toMatchObject({ code: 'compose_invalid', path: policyCase.refused });
  else expect(withHostAccess.status, withHostAccess.text).toBe(200);
}

/** The document written straight into the database (saved before the opt-in was turned off): the preview compiles it under the policy. */
async function checkPreview({ t, admin, stored, serverId }: Context, policyCase: PolicyCase) {
  const base = document(policyCase.base);
  const overlay = policyCase.overlay === undefined ? null : document(policyCase.overlay);
  t.db.update(project).set({ options: { compose: base } }).where(eq(project.id, stored.projectId)).run();
  t.db.update(environment).set({ serverId, options: overlay === null ? {} : { compose: overlay } }).where(eq(environment.id, stored.environmentId)).run();
  const services = mergeCompose(base.data, overlay?.data).services;
  for (const key of Object.keys(isMapping(services) ? services : {})) insertService(t.db, { environmentId: stored.environmentId, composeServiceName: key, name: key });
  const res = await admin('GET', `/environments/${stored.environmentId}/deploy-preview`);
  if (policyCase.refused === undefined) expect(res.status, res.text).toBe(200);
  else expect(refusalOf(res)).toMatchObject({ code: 'compose_invalid', path: mergedPath(policyCase) });
}

for (const [family, cases] of Object.entries(POLICY_CORPUS)) {
  describe(`policy corpus through the API: ${family}`, () => {
    for (const policyCase of cases) {
      test(policyCase.name, async () => {
        const context = await setup();
        await checkPreview(context, policyCase);
        await checkSave(context, policyCase);
      });
    }
  });
}
