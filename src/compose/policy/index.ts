/**
 * The Compose policy: one allow-list, applied by the control plane at save, deploy preview and
 * deploy, and again by the daemon before `up` (docs/SECURITY.md has the table and the threat
 * model). Pure: no I/O.
 *
 *   checkComposePolicy(model, { hostAccess, platform?, form?, ... })
 *
 * throws DomainError('compose_invalid', '<path>: <why>', <path>) (422) at the first value the
 * policy does not allow. Every key of the Compose specification has a rule (registry.ts,
 * service-rules.ts); a key without one is refused. A rule is one of:
 *
 * - allowed: anything Compose accepts (image, command, environment, ports, healthcheck,
 *   deploy.replicas/mode/placement, networks with driver overlay, ...);
 * - checked: allowed when the value stays inside the project (bind and file sources relative
 *   and inside the project folder, capabilities Docker grants by default, namespaced sysctls,
 *   `service:` namespaces, ...); other values need host access;
 * - host: allowed only with host access (privileged, devices, include, extends.file, ...);
 * - refused: never, whoever asks (the platform owns it: x-panel.placement, labels
 *   com.docker.compose.*).
 *
 * Options (context.ts has the details):
 * - `hostAccess`: the organization owner's opt-in as it applies to this deploy (on Panel's own
 *   server it also takes a superadmin's grant: src/domain/compose/policy.ts decides).
 * - `platform`: the project is platform-owned (project.component set; written by Panel, never by
 *   a client). It allows exactly the PLATFORM_* allowances of value-checks.ts — today
 *   `network_mode: host`, so an ingress proxy reaches upstreams on the host's published ports —
 *   and nothing else: ports (80/443 included) are allowed for every project, and a platform
 *   project's files belong in its own project folder as relative binds, like a tenant's. A
 *   platform project that needs more gets another named allowance there, with its reason.
 * - `form`: 'stored' (a layer or merged model as saved), 'compiled' (the runtime document a
 *   daemon received) or 'resolved' (Compose's own `config` model, with `projectDir`,
 *   `project` and the daemon's `secretFiles`).
 * - `hostAccessHint`: appended to host-access refusals (how this caller gets host access).
 * - `onHostPath`: every accepted host path, for the daemon's checks on disk.
 *
 * `$VAR` interpolation cannot hide a value: before resolution a checked value that interpolates
 * needs host access. YAML anchors and `<<` merges are expanded before the policy sees a stored
 * document (yaml-data.ts), and `!reset`/`!override` markers are looked through.
 */
import { composeInvalid } from '../limits.ts';
import { isMapping, type JsonValue } from '../values.ts';
import { createContext, type PolicyOptions } from './context.ts';
import { rootRule } from './registry.ts';
import { visit } from './rule.ts';

export type { DocumentForm, HostPathUse, PolicyOptions } from './context.ts';

export function checkComposePolicy(model: JsonValue, options: PolicyOptions): void {
  if (!isMapping(model)) throw composeInvalid('the document root must be a mapping');
  visit(model, rootRule, '', createContext(options));
}
