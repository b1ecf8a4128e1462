import { Elysia } from 'elysia';
import type { AppDeps } from '../../../deps.ts';
import { readEnvironmentCompose, readProjectCompose, type SavedCompose } from '../../../domain/compose/service.ts';
import { saveEnvironmentCompose, saveProjectCompose } from '../../../domain/ingress/writes.ts';
import { clientGuard } from '../../plugins/guard.ts';
import { iso } from '../../present.ts';
import { IdParams } from '../../../contract/common.ts';
import { errorResponses } from '../../schemas.ts';
import { ComposeLayer, ComposeSave } from '../../../contract/compose.ts';

const present = (saved: SavedCompose) => ({ ...saved, updatedAt: iso(saved.updatedAt) });

const READ = { params: IdParams, response: { 200: ComposeLayer, ...errorResponses('unauthenticated', 'not_found', 'validation_failed') } };
const WRITE = { params: IdParams, body: ComposeSave, response: { 200: ComposeLayer, ...errorResponses('unauthenticated', 'forbidden', 'not_found', 'has_dependents', 'hostname_in_use', 'compose_invalid', 'host_port_conflict', 'validation_failed') } };

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
      role: 'member',
      detail: { summary: "Read a project's base Compose document as YAML and JSON" },
    })
    .put(
      '/projects/:id/compose',
      ({ actor, params, body }) =>
        present(saveProjectCompose({ ...deps, notify: deps.hub.notifier }, actor, params.id, body)),
      {
      ...WRITE,
        role: 'admin',
        detail: { summary: "Save a project's base Compose document (yaml or data) and reconcile every environment" },
      },
    )
    .get('/environments/:id/compose', ({ actor, params }) => present(readEnvironmentCompose(deps.db, actor, params.id)), {
      ...READ,
      role: 'member',
      detail: { summary: "Read an environment's overlay Compose document as YAML and JSON" },
    })
    .put(
      '/environments/:id/compose',
      ({ actor, params, body }) =>
        present(saveEnvironmentCompose({ ...deps, notify: deps.hub.notifier }, actor, params.id, body)),
      {
      ...WRITE,
        role: 'admin',
        detail: { summary: "Save an environment's overlay Compose document (yaml or data) and reconcile the environment" },
      },
    );
