/**
 * Names and labels the compiler gives out: the Compose project, containers, secret files and
 * the platform labels.
 *
 * Containers (spec, container.container_name):
 * - `uuid` naming: the service id plus `-<ordinal>` per instance, `-in` for the service's
 *   ingress and `-ha` for a high-availability controller. Names are unique per server without
 *   coordination and tell nothing about the tenant.
 * - `custom` naming: the authored `container_name` is kept (with `-<ordinal>` when the service
 *   runs several instances, as Compose forbids one name on several containers). A service that
 *   authors none gets Compose's own default, `<project>-<service>-<ordinal>`, written out so the
 *   pre-allocated container row and the running container agree.
 */
import { createHash } from 'node:crypto';
import { composeInvalid } from './limits.ts';
import { keyValueMapping } from './merge.ts';
import type { JsonObject } from './values.ts';

export type ContainerNaming = 'uuid' | 'custom';

/** An instance ordinal (1-based), the service's ingress, or its high-availability controller. */
export type ContainerSlot = number | 'ingress' | 'controller';

/** What Compose accepts as a project name (and the daemon as a folder name). */
const PROJECT_NAME = /^[a-z0-9][a-z0-9_-]{0,62}$/;
/** Secret names: one safe file name, so the daemon can write `<project>.panel/secrets/<name>`. */
export const SECRET_NAME = /^[a-z0-9][a-z0-9_.-]*$/;
const SECRET_NAME_READABLE_MAX = 100;

/**
 * The daemon keeps a project's own files (the compiled compose.yaml, the secret files it is sent)
 * in `<project>.panel`, beside the Compose project folder `<project>` where the project's own
 * relative paths resolve. No path of the project can name that folder (the policy keeps them
 * inside their own), and the compiled document names each secret file relative to the project
 * folder, a reference the daemon's check accepts for the files it wrote and nothing else.
 */
export const panelFolderOf = (project: string) => `${project}.panel`;
export const secretFileReference = (project: string, name: string) => `../${panelFolderOf(project)}/secrets/${name}`;

/** `pn-<environmentId>`: one Compose project per environment. */
export function composeProjectName(environmentId: string): string {
  const name = `pn-${environmentId.toLowerCase()}`;
  if (!PROJECT_NAME.test(name)) throw composeInvalid(`environment id "${environmentId}" gives no valid Compose project name`);
  return name;
}

export function uuidContainerName(serviceId: string, slot: ContainerSlot): string {
  const suffix = slot === 'ingress' ? 'in' : slot === 'controller' ? 'ha' : String(slot);
  return `${serviceId.toLowerCase()}-${suffix}`;
}

export interface CustomNameRequest {
  project: string;
  /** The service's key in the authored document (before any instance cloning). */
  composeServiceName: string;
  authored: string | undefined;
  ordinal: number;
  instances: number;
}

export function customContainerName({ project, composeServiceName, authored, ordinal, instances }: CustomNameRequest): string {
  if (authored === undefined) return `${project}-${composeServiceName}-${ordinal}`;
  return instances > 1 ? `${authored}-${ordinal}` : authored;
}

export interface SecretNameRequest {
  composeServiceName: string;
  key: string;
}

/**
 * One file name per (service, key): `<compose service>__<key>` lowercased, e.g. `web__db_password`.
 * When that readable form is ambiguous (two keys differing only in case, separators that line up,
 * a name the document's own `secrets:` already uses, or one cut to length) each request sharing
 * it gets `-<8 hex digits of SHA-256 of service and key>` appended instead. Deterministic for a
 * given set of requests; the names carry no values.
 */
export function allocateSecretNames(requests: readonly SecretNameRequest[], taken: ReadonlySet<string>): string[] {
  const readable = requests.map(({ composeServiceName, key }) => readableSecretName(composeServiceName, key));
  const uses = new Map<string, number>();
  for (const name of readable) if (name !== undefined) uses.set(name, (uses.get(name) ?? 0) + 1);
  const names = requests.map((request, i) => {
    const name = readable[i];
    if (name !== undefined && uses.get(name) === 1 && !taken.has(name)) return name;
    const hash = createHash('sha256').update(`${request.composeServiceName}\u0000${request.key}`).digest('hex').slice(0, 8);
    return `${(name ?? fallbackSecretName(request)).slice(0, SECRET_NAME_READABLE_MAX)}-${hash}`;
  });
  const unique = new Set(names);
  if (unique.size !== names.length || names.some((name) => taken.has(name))) {
    throw composeInvalid('secret file names collide; rename a service or a secret variable');
  }
  return names;
}

/** The readable form, or undefined when it had to be altered (cut, or no valid first character). */
function readableSecretName(composeServiceName: string, key: string): string | undefined {
  const name = `${composeServiceName}__${key}`.toLowerCase();
  if (name.length > SECRET_NAME_READABLE_MAX || !SECRET_NAME.test(name)) return undefined;
  return name;
}

function fallbackSecretName({ composeServiceName, key }: SecretNameRequest): string {
  const name = `${composeServiceName}__${key}`.toLowerCase().replace(/[^a-z0-9_.-]/g, '-').replace(/^[^a-z0-9]+/, '');
  return name === '' ? 'secret' : name;
}

/*
 * Platform labels on every compiled service. The daemon's report lists the project's containers
 * with their labels; these tie each container back to its service row (service id, role and
 * ordinal are the container row's unique key) without trusting the Compose service name.
 *
 * The `dev.panel.` prefix belongs to the platform: labels an author wrote under it are dropped,
 * so a document cannot make its containers pass for another service's. Every label is always
 * set, so none can leak from a service this one `extends`.
 */
export const PANEL_LABEL_PREFIX = 'dev.panel.';

export const PANEL_LABELS = {
  organizationId: 'dev.panel.organization-id',
  projectId: 'dev.panel.project-id',
  environmentId: 'dev.panel.environment-id',
  serviceId: 'dev.panel.service-id',
  /** The service's key in the authored document; a clone's Compose service is `<key>-<ordinal>`. */
  composeServiceName: 'dev.panel.compose-service',
  role: 'dev.panel.role',
  ordinal: 'dev.panel.ordinal',
} as const;

export type PlatformLabelValues = { [name in keyof typeof PANEL_LABELS]: string };

/**
 * The service's `labels` as a mapping with the platform labels set. Returns the authored labels
 * that were dropped for using the reserved prefix.
 */
export function applyPlatformLabels(service: JsonObject, values: PlatformLabelValues): string[] {
  const labels = keyValueMapping(service.labels ?? null);
  const dropped = Object.keys(labels).filter((name) => name.startsWith(PANEL_LABEL_PREFIX));
  for (const name of dropped) delete labels[name];
  for (const [field, label] of Object.entries(PANEL_LABELS)) labels[label] = values[field as keyof typeof PANEL_LABELS];
  service.labels = labels;
  return dropped;
}
