/**
 * Validation of a Compose model at save: the caps of limits.ts, the shape Panel relies on (root
 * mapping, services as a mapping of mappings), the x-panel extension (x-panel.ts), the Compose
 * policy (policy/), which classifies every key of the specification, and what the placement
 * planner reads (planner/model.ts: deploy.replicas, deploy.mode, deploy.placement.*, published
 * ports). Works on base and overlay documents alike: merge tags are unwrapped and `!reset`
 * entries skipped. Throws DomainError('compose_invalid', ...).
 */
import { entriesOf, expectMapping, isReset, plain } from './checks.ts';
import { assertDepth, assertServiceCount, type ComposeLimits, composeInvalid, resolveLimits } from './limits.ts';
import { readServicePlacement } from './planner/model.ts';
import { checkComposePolicy, type PolicyOptions } from './policy/index.ts';
import { withoutMergeTags } from './tags.ts';
import { isMapping, type JsonObject, joinPath } from './values.ts';
import { validateRootXPanel, validateServiceXPanel } from './x-panel.ts';

/** The policy a stored document is held to (the form is always `stored`). */
export type StoredPolicy = Pick<PolicyOptions, 'hostAccess' | 'platform' | 'hostAccessHint'>;

export interface ComposeValidationOptions {
  /** Without one, the tenant policy without host access. */
  policy?: StoredPolicy;
  /** Principal aliases declared elsewhere: the project base, when validating an environment overlay. */
  knownPrincipals?: Iterable<string>;
  limits?: Partial<ComposeLimits>;
}

export interface ComposeValidationResult {
  /** Principal aliases usable by services: the document's own plus options.knownPrincipals. */
  principals: Set<string>;
}

export function validateCompose(data: unknown, options: ComposeValidationOptions = {}): ComposeValidationResult {
  const limits = resolveLimits(options.limits);
  assertDepth(data, limits);
  if (!isMapping(data)) throw composeInvalid('the document root must be a mapping');
  const policy = options.policy ?? { hostAccess: false };

  const principals = new Set(options.knownPrincipals ?? []);
  if (data['x-panel'] !== undefined && !isReset(data['x-panel'])) {
    for (const alias of validateRootXPanel(plain(data['x-panel']), policy.hostAccess)) principals.add(alias);
  }

  const services = data.services === undefined || isReset(data.services) ? null : plain(data.services);
  const serviceMap = services === null ? {} : expectMapping(services, 'services');
  assertServiceCount(serviceMap, limits);
  for (const [name, service] of entriesOf(serviceMap)) {
    const path = joinPath('services', name);
    const xPanel = expectMapping(service, path)['x-panel'];
    if (xPanel !== undefined && !isReset(xPanel)) validateServiceXPanel(plain(xPanel), joinPath(path, 'x-panel'), principals);
    // What the planner reads (deploy.replicas, mode, placement.*, published ports) must be something it can honour.
    readServicePlacement(name, withoutMergeTags(service) as JsonObject);
  }
  checkComposePolicy(data, { ...policy, form: 'stored' });
  return { principals };
}
