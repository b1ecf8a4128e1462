/**
 * Validation of a Compose model at save: the shape Panel relies on (root mapping, services as a
 * mapping of mappings, top-level resource sections as mappings), the caps of limits.ts, the
 * x-panel extension (x-panel.ts), the host-access guard (host-access.ts) and what the placement
 * planner reads (planner/model.ts: deploy.replicas, deploy.mode, deploy.placement.*, published
 * ports). Everything else is
 * left to Compose itself at deploy. Works on base and overlay documents alike: merge tags are
 * unwrapped and `!reset` entries skipped. Throws DomainError('compose_invalid', ...).
 */
import { entriesOf, expectMapping, isReset, plain } from './checks.ts';
import { checkResourceHostAccess, checkServiceHostAccess } from './host-access.ts';
import { assertDepth, assertServiceCount, type ComposeLimits, composeInvalid, resolveLimits } from './limits.ts';
import { readServicePlacement } from './planner/model.ts';
import { withoutMergeTags } from './tags.ts';
import { isMapping, type JsonObject, type JsonValue, joinPath } from './values.ts';
import { validateRootXPanel, validateServiceXPanel } from './x-panel.ts';

export interface ComposeValidationOptions {
  /** Lets platform-owned projects use the settings host-access.ts refuses. */
  allowHostAccess?: boolean;
  /** Principal aliases declared elsewhere: the project base, when validating an environment overlay. */
  knownPrincipals?: Iterable<string>;
  limits?: Partial<ComposeLimits>;
}

const RESOURCE_SECTIONS = ['networks', 'volumes', 'secrets', 'configs'] as const;

export interface ComposeValidationResult {
  /** Principal aliases usable by services: the document's own plus options.knownPrincipals. */
  principals: Set<string>;
}

export function validateCompose(data: unknown, options: ComposeValidationOptions = {}): ComposeValidationResult {
  const limits = resolveLimits(options.limits);
  assertDepth(data, limits);
  if (!isMapping(data)) throw composeInvalid('the document root must be a mapping');

  const principals = new Set(options.knownPrincipals ?? []);
  if (data['x-panel'] !== undefined && !isReset(data['x-panel'])) {
    for (const alias of validateRootXPanel(plain(data['x-panel']), options.allowHostAccess === true)) {
      principals.add(alias);
    }
  }

  for (const section of RESOURCE_SECTIONS) {
    const value = sectionOf(data, section);
    if (value !== null) expectMapping(value, section);
  }

  const services = sectionOf(data, 'services');
  const serviceMap = services === null ? {} : expectMapping(services, 'services');
  assertServiceCount(serviceMap, limits);
  for (const [name, service] of entriesOf(serviceMap)) {
    const path = joinPath('services', name);
    validateService(expectMapping(service, path), path, principals, options);
    // What the planner reads (deploy.replicas, mode, placement.*, published ports) must be something it can honour.
    readServicePlacement(name, withoutMergeTags(service) as JsonObject);
  }
  if (options.allowHostAccess !== true) checkResourceHostAccess(data);
  return { principals };
}

function validateService(
  service: JsonObject,
  path: string,
  principals: ReadonlySet<string>,
  options: ComposeValidationOptions,
): void {
  const xPanel = service['x-panel'];
  if (xPanel !== undefined && !isReset(xPanel)) {
    validateServiceXPanel(plain(xPanel), joinPath(path, 'x-panel'), principals);
  }
  if (options.allowHostAccess !== true) checkServiceHostAccess(service, path);
}

/** A top-level section's value with tags unwrapped; null when absent, empty or reset. */
function sectionOf(data: JsonObject, key: string): JsonValue {
  const value = data[key];
  return value === undefined || isReset(value) ? null : plain(value);
}
