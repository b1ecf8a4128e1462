/**
 * What a policy check knows while it walks a model (PolicyOptions, from the caller, plus the
 * refusals it raises). Every refusal is DomainError('compose_invalid') (422) with the path of the
 * offending value; its message starts with that path.
 */
import type { DomainError } from '../../lib/errors.ts';
import { composeInvalid } from '../limits.ts';

/**
 * Which form of a Compose model is checked:
 * - `stored`: a layer or merged model as Panel stores it (tenant-authored; `!reset`/`!override`
 *   markers may appear; `x-panel` is validated by x-panel.ts; `$VAR` is not resolved yet);
 * - `compiled`: the runtime document a daemon received (authored form; `x-*` keys are inert to
 *   Compose and skipped; Panel's own secret files may be named, see `secretFiles`);
 * - `resolved`: Compose's own model of the staged project (`docker compose config`): paths
 *   absolute, interpolation done, `extends`/`include`/`env_file` already applied.
 */
export type DocumentForm = 'stored' | 'compiled' | 'resolved';

/** A host path the policy accepted, reported so the daemon can check it on disk. */
export interface HostPathUse {
  /** Model path of the value, e.g. `services.web.volumes.0.source`. */
  path: string;
  /** The path as written (stored/compiled form) or absolute (resolved form). */
  value: string;
  /** `bind`: mounted into a container; `file`: read by Compose; `context`: sent to the builder. */
  kind: 'bind' | 'file' | 'context';
  /** A bind mount the container can write through. */
  writable: boolean;
}

export interface PolicyOptions {
  /**
   * The organization's host-access opt-in as it applies to this deploy (on Panel's own server it
   * also needs the superadmin's grant). Host access allows every setting marked `host` below.
   */
  hostAccess: boolean;
  /**
   * A platform-owned project (project.component set: Panel writes its document, clients cannot):
   * allows PLATFORM_ALLOWANCES (rules.ts) and nothing else beyond the tenant policy.
   */
  platform?: boolean;
  form?: DocumentForm;
  /** Resolved form: the absolute Compose project folder every host path must lie in. */
  projectDir?: string;
  /** Resolved form: the Compose project name (`<project>_<key>` resource names are Compose's own). */
  project?: string;
  /**
   * Compiled and resolved forms: the secret files the daemon itself wrote, by top-level secret
   * key, as the exact `file` value that names them (relative in compiled form, absolute in
   * resolved form). Only `secrets.<key>.file` may name them; nothing else may leave the folder.
   */
  secretFiles?: ReadonlyMap<string, string>;
  /**
   * Compiled and resolved forms: the networks the control plane compiled onto the overlay fabric
   * (the deploy command's `fabric`), by network key. Exactly their bridge name, subnet and the
   * fabric's own bridge options are allowed on them; a stored document never gets these.
   */
  fabricNetworks?: ReadonlyMap<string, { bridge: string; subnet: string }>;
  /** Appended to host-access refusals: how this caller could get host access. */
  hostAccessHint?: string;
  /** Called for every host path the policy accepted (the daemon checks them on disk). */
  onHostPath?: (use: HostPathUse) => void;
}

export interface PolicyContext extends Required<Pick<PolicyOptions, 'hostAccess' | 'form'>> {
  options: PolicyOptions;
  platform: boolean;
}

export function createContext(options: PolicyOptions): PolicyContext {
  return { options, hostAccess: options.hostAccess, platform: options.platform === true, form: options.form ?? 'stored' };
}

/** A value no tenant may set: the platform owns it. */
export function refused(path: string, why: string): DomainError {
  return composeInvalid(`${path}: ${why}`, path);
}

/** A value that reaches past the project into the host; `reason` says how. Allowed only with host access. */
export function needsHostAccess(ctx: PolicyContext, path: string, reason: string): DomainError {
  const hint = ctx.options.hostAccessHint ? ` (${ctx.options.hostAccessHint})` : '';
  return composeInvalid(`${path}: ${reason}; this needs host access, which is off for this project${hint}`, path);
}

/** Throws unless host access is on. */
export function requireHostAccess(ctx: PolicyContext, path: string, reason: string): void {
  if (!ctx.hostAccess) throw needsHostAccess(ctx, path, reason);
}

/** Whether Compose would substitute a variable into the string (`$$` is a literal dollar). */
export function interpolates(value: string): boolean {
  return value.replaceAll('$$', '').includes('$');
}

/**
 * A value a rule must read as written. Before resolution (stored and compiled forms) `$VAR` is
 * only known at deploy, so a value that interpolates cannot be checked and needs host access.
 */
export function literal(ctx: PolicyContext, value: unknown, path: string): unknown {
  if (ctx.form !== 'resolved' && typeof value === 'string' && interpolates(value)) {
    requireHostAccess(ctx, path, `${JSON.stringify(value)} uses variable interpolation, which is only resolved at deploy`);
  }
  return value;
}

/** Compose reads booleans with Go's strconv.ParseBool. */
const FALSE_STRINGS = new Set(['0', 'f', 'F', 'false', 'FALSE', 'False']);

export function isFalse(value: unknown): boolean {
  return value === false || value === null || value === 0 || (typeof value === 'string' && FALSE_STRINGS.has(value));
}
