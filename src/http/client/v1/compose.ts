import { Elysia } from 'elysia';
import * as v from 'valibot';
import type { AppDeps } from '../../../app.ts';
import {
  readEnvironmentCompose,
  readProjectCompose,
  type SavedCompose,
  saveEnvironmentCompose,
  saveProjectCompose,
} from '../../../domain/compose/service.ts';
import { serversOfEnvironment, serversOfProject } from '../../../domain/ingress/queries.ts';
import { clientGuard } from '../../plugins/guard.ts';
import { writeWithIngress } from './ingress-refresh.ts';
import { iso } from '../../present.ts';
import { errorResponses, IdParams, JsonObject } from '../../schemas.ts';

/** Exactly one of `yaml` (text, kept byte for byte) and `data` (JSON, patched onto the stored text). */
const ComposeBody = v.strictObject(
  {
    yaml: v.optional(v.string()),
    data: v.optional(JsonObject),
    /** The console editor tab ('yaml' or 'form'); kept when not sent. */
    editorView: v.optional(v.pipe(v.string(), v.maxLength(64, 'must be at most 64 characters'))),
  },
  'unknown field',
);

const ComposeSchema = v.object({
  version: v.literal(1),
  /** The text as last saved (or regenerated from data, comments of untouched nodes kept). */
  yaml: v.string(),
  /** The model; merge tags as `{"$reset": ...}` and `{"$override": ...}`. */
  data: v.record(v.string(), v.unknown()),
  editorView: v.nullable(v.string()),
  updatedAt: v.string(),
});

const present = (saved: SavedCompose) => ({ ...saved, updatedAt: iso(saved.updatedAt) });

const READ = { params: IdParams, response: { 200: ComposeSchema, ...errorResponses('unauthenticated', 'not_found', 'validation_failed') } };
const WRITE = { params: IdParams, body: ComposeBody, response: { 200: ComposeSchema, ...errorResponses('unauthenticated', 'forbidden', 'not_found', 'has_dependents', 'hostname_in_use', 'compose_invalid', 'validation_failed') } };

/**
 * The Compose documents: a project's base and an environment's overlay. A save is validated
 * (422 compose_invalid with the line and column of a YAML error, or the path of the offending
 * key) and reconciles the environment's services and compose-owned hostings in one transaction,
 * with the ingress of the servers running them.
 */
export const composeRoutes = (deps: AppDeps) =>
  new Elysia({ detail: { tags: ['compose'] } })
    .use(clientGuard(deps))
    .get('/projects/:id/compose', ({ actor, params }) => present(readProjectCompose(deps.db, actor, params.id)), {
      ...READ,
      detail: { summary: "Read a project's base Compose document as YAML and JSON" },
    })
    .put(
      '/projects/:id/compose',
      ({ actor, params, body }) =>
        present(writeWithIngress(deps, (tx) => ({ result: saveProjectCompose(tx, actor, params.id, body), servers: serversOfProject(tx, params.id) }))),
      {
      ...WRITE,
        detail: { summary: "Save a project's base Compose document (yaml or data) and reconcile every environment" },
      },
    )
    .get('/environments/:id/compose', ({ actor, params }) => present(readEnvironmentCompose(deps.db, actor, params.id)), {
      ...READ,
      detail: { summary: "Read an environment's overlay Compose document as YAML and JSON" },
    })
    .put(
      '/environments/:id/compose',
      ({ actor, params, body }) =>
        present(writeWithIngress(deps, (tx) => ({ result: saveEnvironmentCompose(tx, actor, params.id, body), servers: serversOfEnvironment(tx, params.id) }))),
      {
      ...WRITE,
        detail: { summary: "Save an environment's overlay Compose document (yaml or data) and reconcile the environment" },
      },
    );
