/**
 * Compose documents of projects (the base, project.options.compose) and environments (the
 * overlay, environment.options.compose): read and saved through the compose endpoints, and
 * through options.compose of a project or environment create/PATCH, the same way. A save
 * validates the layer (host access only where the organization opts in; an overlay may name the
 * base's principals), stores it, reconciles the derived rows (reconcile.ts), checks its host
 * ports against the hostings and ingresses of its servers (ingress/compose-ports.ts) and adopts
 * the project's repository, all in one transaction. Members read, admins write; platform projects
 * are read-only to clients.
 */
import { entriesOf, plain } from '../../compose/checks.ts';
import type { ComposeDocument } from '../../compose/document.ts';
import { composeInvalid } from '../../compose/limits.ts';
import { mergeCompose } from '../../compose/merge.ts';
import { isMapping, type JsonObject } from '../../compose/values.ts';
import type { Environment, Project } from '../../db/schema/index.ts';
import { forbidden, notFound } from '../../lib/errors.ts';
import { type Access, type Actor, authorize, loadFor } from '../actor.ts';
import { findEnvironment, updateEnvironmentRow } from '../environments/queries.ts';
import { findProject, updateProjectRow } from '../projects/queries.ts';
import type { Queryable } from '../shared/database.ts';
import {
  type ComposeInput,
  type ComposeView,
  dataOf,
  documentFromInput,
  documentFromOptions,
  type GivenComposeDocument,
  storedDocument,
  validateLayer,
  viewOf,
} from './documents.ts';
import { environmentsOfProject, findRepositoryOrganization } from './queries.ts';
import { findServer } from '../servers/queries.ts';
import { composePolicyOf } from './policy.ts';
import { checkComposePorts } from '../ingress/compose-ports.ts';
import { reconcileEnvironment } from './reconcile.ts';

export type SavedCompose = ComposeView & { updatedAt: Date };

type Options = Record<string, unknown>;

function loadProjectFor(db: Queryable, actor: Actor, id: string, access: Access): Project {
  const row = loadFor(actor, access, 'project', findProject(db, id));
  if (access !== 'read' && row.component !== null) throw forbidden('platform projects are managed by the platform');
  return row;
}

function loadEnvironmentFor(db: Queryable, actor: Actor, id: string, access: Access): { environment: Environment; project: Project } {
  const environment = findEnvironment(db, id);
  if (!environment) throw notFound('environment');
  authorize(actor, environment.organizationId, access, 'environment');
  const project = findProject(db, environment.projectId)!;
  if (access !== 'read' && project.component !== null) throw forbidden('platform projects are managed by the platform');
  return { environment, project };
}

export function readProjectCompose(db: Queryable, actor: Actor, id: string): SavedCompose {
  const project = loadProjectFor(db, actor, id, 'read');
  return { ...viewOf(storedDocument(project.options)), updatedAt: project.updatedAt };
}

export function readEnvironmentCompose(db: Queryable, actor: Actor, id: string): SavedCompose {
  const { environment } = loadEnvironmentFor(db, actor, id, 'read');
  return { ...viewOf(storedDocument(environment.options)), updatedAt: environment.updatedAt };
}

export function writeProjectCompose(db: Queryable, actor: Actor, id: string, input: ComposeInput): SavedCompose {
  return db.transaction((tx) => {
    const project = loadProjectFor(tx, actor, id, 'write');
    const previous = storedDocument(project.options);
    const document = documentFromInput(input, previous);
    validateLayer(document.data, composePolicyOf(tx, project));
    const saved = reconcileProject(tx, updateProjectRow(tx, id, { options: { ...project.options, compose: document } }), previous);
    return { ...viewOf(document), updatedAt: saved.updatedAt };
  });
}

export function writeEnvironmentCompose(db: Queryable, actor: Actor, id: string, input: ComposeInput): SavedCompose {
  return db.transaction((tx) => {
    const { environment, project } = loadEnvironmentFor(tx, actor, id, 'write');
    const previous = storedDocument(environment.options);
    const document = documentFromInput(input, previous);
    validateLayer(document.data, composePolicyOf(tx, project), dataOf(storedDocument(project.options)));
    const saved = updateEnvironmentRow(tx, id, { options: { ...environment.options, compose: document } });
    reconcileEnvironmentOf(tx, project, saved, previous);
    return { ...viewOf(document), updatedAt: saved.updatedAt };
  });
}

/** Options of a create/PATCH as they will be stored, and whether the document changes. */
export interface ComposeOptionsWrite<T extends Options> {
  options: T | null | undefined;
  composeChanged: boolean;
  previous: ComposeDocument | null;
}

/**
 * options.compose of a client create/PATCH, parsed and validated like a PUT of the compose
 * endpoint. Options given without `compose` keep the stored document: only giving a document
 * replaces it (so changing another option can never drop the services it declares).
 */
function optionsForWrite<T extends Options>(given: T | null | undefined, stored: Options | null, check: (data: JsonObject) => void): ComposeOptionsWrite<T> {
  const previous = storedDocument(stored);
  if (given === undefined) return { options: undefined, composeChanged: false, previous };
  if (given?.compose === undefined) {
    return { options: previous === null ? given : ({ ...given, compose: previous } as unknown as T), composeChanged: false, previous };
  }
  const document = documentFromOptions(given.compose as GivenComposeDocument, previous);
  check(document.data);
  return { options: { ...given, compose: document }, composeChanged: true, previous };
}

export function baseOptionsForWrite<T extends Options>(
  db: Queryable,
  project: Pick<Project, 'organizationId' | 'component'>,
  given: T | null | undefined,
  stored: Options | null,
) {
  return optionsForWrite(given, stored, (data) => validateLayer(data, composePolicyOf(db, project)));
}

export function overlayOptionsForWrite<T extends Options>(db: Queryable, project: Project, given: T | null | undefined, stored: Options | null) {
  const base = dataOf(storedDocument(project.options));
  return optionsForWrite(given, stored, (data) => validateLayer(data, composePolicyOf(db, project), base));
}

/**
 * The policy an environment's merged document is held to at save: its anchor server (the pin, else
 * the project's default) decides whether host access is on Panel's own host. Deploys check again
 * on every server their plan uses.
 */
function environmentPolicy(tx: Queryable, project: Project, environment: Environment) {
  const defaultServerId = typeof project.options?.defaultServerId === 'string' ? project.options.defaultServerId : null;
  const anchor = findServer(tx, environment.serverId ?? defaultServerId ?? '');
  return composePolicyOf(tx, project, anchor === undefined ? [] : [anchor]);
}

/** After the project row holds its new base (caller's transaction): every environment follows. */
export function reconcileProject(tx: Queryable, project: Project, previous: ComposeDocument | null): Project {
  const base = dataOf(storedDocument(project.options));
  for (const environment of environmentsOfProject(tx, project.id)) {
    const overlay = dataOf(storedDocument(environment.options));
    reconcileEnvironment(tx, {
      environment,
      organizationId: project.organizationId,
      policy: environmentPolicy(tx, project, environment),
      base,
      overlay,
      previousBase: dataOf(previous),
      previousOverlay: overlay,
    });
    checkComposePorts(tx, project, environment, mergeCompose(base, overlay));
  }
  return adoptRepository(tx, project, base);
}

/** After an environment moves to another server: its published ports there (ingress/compose-ports.ts). */
export function checkMovedEnvironment(tx: Queryable, project: Project, environment: Environment): void {
  checkComposePorts(tx, project, environment, mergeCompose(dataOf(storedDocument(project.options)), dataOf(storedDocument(environment.options))));
}

/** After an environment row holds its new overlay (or was created): it follows base + overlay. */
export function reconcileEnvironmentOf(tx: Queryable, project: Project, environment: Environment, previous: ComposeDocument | null): Project {
  const base = dataOf(storedDocument(project.options));
  const overlay = dataOf(storedDocument(environment.options));
  reconcileEnvironment(tx, {
    environment,
    organizationId: project.organizationId,
    policy: environmentPolicy(tx, project, environment),
    base,
    overlay,
    previousBase: base,
    previousOverlay: dataOf(previous),
  });
  checkComposePorts(tx, project, environment, mergeCompose(base, overlay));
  return adoptRepository(tx, project, overlay);
}

/**
 * Every `x-panel.source.sourceId` of the saved layer must name a repository of the project's
 * organization (422 compose_invalid at its path otherwise, missing and foreign alike); the first
 * becomes the project's repository when it has none.
 */
function adoptRepository(tx: Queryable, project: Project, data: JsonObject): Project {
  const sources: string[] = [];
  const services = plain(data.services ?? null);
  for (const [key, service] of isMapping(services) ? entriesOf(services) : []) {
    const xPanel = isMapping(service) ? plain(service['x-panel'] ?? null) : null;
    const source = isMapping(xPanel) ? plain(xPanel.source ?? null) : null;
    const sourceId = isMapping(source) ? plain(source.sourceId ?? null) : null;
    if (typeof sourceId !== 'string') continue;
    const path = `services.${key}.x-panel.source.sourceId`;
    const id = sourceId.toLowerCase();
    if (findRepositoryOrganization(tx, id) !== project.organizationId) throw composeInvalid(`${path} names no repository of this organization`, path);
    sources.push(id);
  }
  if (project.repositoryId !== null || sources.length === 0) return project;
  return updateProjectRow(tx, project.id, { repositoryId: sources[0] });
}
