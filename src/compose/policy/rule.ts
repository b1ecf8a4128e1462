/**
 * A policy rule and the walk that applies rules to a model. The registry (registry.ts and
 * service-rules.ts) is a tree of rules mirroring the Compose specification: a key it does not
 * name is refused with its path; `x-*` extension keys are inert to Compose and only Panel's own
 * `x-panel` is looked at (in stored documents, where x-panel.ts validates it).
 */
import { isReset, plain } from '../checks.ts';
import { isMapping, type JsonObject, type JsonValue, joinPath } from '../values.ts';
import { composeInvalid } from '../limits.ts';
import { type PolicyContext, refused, requireHostAccess } from './context.ts';

/**
 * - `allowed`: any value Compose accepts;
 * - `checked`: allowed when its value passes `check` (some values may need host access);
 * - `host`: allowed only with host access (an empty value, `[]` or `{}`, sets nothing and passes);
 * - `refused`: never, host access or not (the platform owns it).
 */
export type Access = 'allowed' | 'checked' | 'host' | 'refused';

/** Checks one value; `parent` is the mapping holding it (a Dockerfile is read relative to its context). */
export type ValueCheck = (value: JsonValue, path: string, ctx: PolicyContext, parent?: JsonObject) => void;

export interface Rule {
  access: Access;
  /** host/refused: what the setting gives (the refusal's reason); checked: what is checked. */
  why?: string;
  check?: ValueCheck;
  /** Turns a short form (`build: ./dir`, `extends: web`) into the long form `keys`/`items` describe. */
  shorthand?: (value: JsonValue) => JsonValue;
  /** A mapping with exactly these keys (plus inert `x-*` ones). */
  keys?: Readonly<Record<string, Rule>>;
  /** A mapping of names (services, networks, ...), each value shaped by this rule. */
  entries?: Rule;
  /** Sequence items shaped by this rule. */
  items?: Rule;
}

export const allowed: Rule = { access: 'allowed' };
export const host = (why: string): Rule => ({ access: 'host', why });
export const platformOwned = (why: string): Rule => ({ access: 'refused', why });
export const checked = (why: string, check: ValueCheck, shape: Omit<Rule, 'access' | 'why' | 'check'> = {}): Rule => ({
  access: 'checked',
  why,
  check,
  ...shape,
});
/** A structured mapping whose own value needs no check: its keys carry the rules. */
export const mapping = (keys: Record<string, Rule>, shape: Omit<Rule, 'access' | 'keys'> = {}): Rule => ({ access: 'allowed', keys, ...shape });

export function visit(value: JsonValue, rule: Rule, path: string, ctx: PolicyContext, parent?: JsonObject): void {
  const current = plain(value);
  if (current === null) return;
  if (rule.access === 'refused') throw refused(path, rule.why ?? 'the platform sets this');
  if (rule.access === 'host') {
    if (!isEmpty(current)) requireHostAccess(ctx, path, rule.why ?? 'this setting reaches the host');
    return;
  }
  rule.check?.(current, path, ctx, parent);
  const shaped = rule.shorthand ? rule.shorthand(current) : current;
  if (rule.keys !== undefined) visitKeys(shaped, rule.keys, path, ctx);
  if (rule.entries !== undefined) {
    for (const [name, entry] of entriesOf(shaped, path)) visit(entry, rule.entries, joinPath(path, name), ctx);
  }
  if (rule.items !== undefined && Array.isArray(shaped)) {
    shaped.forEach((item, i) => visit(item, rule.items!, joinPath(path, i), ctx));
  }
}

const isEmpty = (value: JsonValue) => (Array.isArray(value) ? value.length === 0 : isMapping(value) && Object.keys(value).length === 0);

function mappingAt(value: JsonValue, path: string): JsonObject {
  if (!isMapping(value)) throw composeInvalid(`${path} must be a mapping`, path);
  return value;
}

function entriesOf(value: JsonValue, path: string): [string, JsonValue][] {
  return Object.entries(mappingAt(value, path)).filter(([, entry]) => !isReset(entry));
}

export function visitKeys(value: JsonValue, keys: Readonly<Record<string, Rule>>, path: string, ctx: PolicyContext): void {
  const parent = mappingAt(value, path);
  for (const [key, entry] of entriesOf(parent, path)) {
    const keyPath = joinPath(path, key);
    const rule = Object.hasOwn(keys, key) ? keys[key] : undefined;
    if (key.startsWith('x-') && (rule === undefined || ctx.form !== 'stored')) continue;
    if (rule === undefined) throw composeInvalid(`${keyPath} is not a Compose setting Panel knows`, keyPath);
    visit(entry, rule, keyPath, ctx, parent);
  }
}
