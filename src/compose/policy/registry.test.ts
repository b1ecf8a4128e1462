/**
 * The registry covers every key Compose v2 accepts. The keys come from the Compose
 * specification's JSON schema as Compose v2 itself validates with it: compose-go's
 * schema/compose-spec.json, vendored beside this test as compose-spec.schema.json, taken from
 * github.com/compose-spec/compose-go at commit e70e961c3a3acebf0800b882f1afb3dbf1fb74a2
 * (2026-07-21, Apache-2.0). It is a superset of the schema of compose-go v2.9.1, which Compose
 * 2.40.3 (the version the tests run) embeds: the newer one adds `pre_start` and
 * `build.no_cache_filter`, and removes nothing.
 *
 * Walking the schema from the root, every object it describes with named properties must have
 * a rule with exactly those keys, down to where a rule says `host` or `refused` (the subtree is
 * then decided whole) or the schema stops naming keys (free-form values such as labels).
 */
import { describe, expect, test } from 'bun:test';
import schemaJson from './compose-spec.schema.json';
import { rootRule } from './registry.ts';
import type { Rule } from './rule.ts';

type Schema = {
  $ref?: string;
  properties?: Record<string, Schema>;
  patternProperties?: Record<string, Schema>;
  additionalProperties?: boolean | Schema;
  items?: Schema;
  oneOf?: Schema[];
  anyOf?: Schema[];
  allOf?: Schema[];
};

const schema = schemaJson as unknown as Schema & { $defs: Record<string, Schema> };

/** Every variant a schema node can take, with $ref and oneOf/anyOf/allOf expanded. */
function variants(node: Schema, seen = new Set<string>()): Schema[] {
  if (node.$ref !== undefined) {
    if (seen.has(node.$ref)) return [];
    const name = node.$ref.replace('#/$defs/', '');
    return variants(schema.$defs[name]!, new Set([...seen, node.$ref]));
  }
  const nested = [...(node.oneOf ?? []), ...(node.anyOf ?? []), ...(node.allOf ?? [])].flatMap((child) => variants(child, seen));
  return [node, ...nested];
}

/** Whether a schema subtree names any keys (an object with properties somewhere below). */
function namesKeys(node: Schema, depth = 0): boolean {
  if (depth > 12) return false;
  return variants(node).some(
    (variant) =>
      (variant.properties !== undefined && Object.keys(variant.properties).length > 0) ||
      Object.entries(variant.patternProperties ?? {}).some(([pattern, child]) => !pattern.startsWith('^x-') && namesKeys(child, depth + 1)) ||
      (typeof variant.additionalProperties === 'object' && namesKeys(variant.additionalProperties, depth + 1)) ||
      (variant.items !== undefined && namesKeys(variant.items, depth + 1)),
  );
}

interface Finding {
  path: string;
  problem: string;
}

/** Compares the rule tree with the schema below `path`; returns what does not match. */
function compare(node: Schema, rule: Rule | undefined, path: string, findings: Finding[], depth = 0): void {
  if (rule === undefined) {
    findings.push({ path, problem: 'no rule' });
    return;
  }
  if (rule.access === 'host' || rule.access === 'refused' || depth > 12) return;
  const shapes = variants(node);
  const properties = new Map<string, Schema>();
  for (const shape of shapes) for (const [key, child] of Object.entries(shape.properties ?? {})) properties.set(key, child);
  if (properties.size > 0) {
    if (rule.keys === undefined) findings.push({ path, problem: `the schema names keys (${[...properties.keys()].join(', ')}), the rule none` });
    for (const [key, child] of properties) compare(child, rule.keys?.[key], `${path}.${key}`, findings, depth + 1);
    for (const key of Object.keys(rule.keys ?? {})) {
      // Compose's resolved JSON prints a few keys with Go's field names (blkio: Path, Rate, Weight).
      const goFieldName = properties.has(key.toLowerCase()) && key !== key.toLowerCase();
      if (!properties.has(key) && key !== 'x-panel' && !goFieldName) findings.push({ path: `${path}.${key}`, problem: 'a rule for a key the schema does not have' });
    }
  }
  for (const shape of shapes) {
    const named = [
      ...Object.entries(shape.patternProperties ?? {}).filter(([pattern]) => !pattern.startsWith('^x-')).map(([, child]) => child),
      ...(typeof shape.additionalProperties === 'object' ? [shape.additionalProperties] : []),
    ];
    for (const child of named) if (namesKeys(child)) compare(child, rule.entries, `${path}.*`, findings, depth + 1);
    if (shape.items !== undefined && namesKeys(shape.items)) compare(shape.items, rule.items, `${path}[]`, findings, depth + 1);
  }
}

describe('the policy registry against the Compose specification schema', () => {
  test('classifies every key Compose v2 accepts, and only those', () => {
    const findings: Finding[] = [];
    compare(schema, rootRule, '', findings);
    expect(findings).toEqual([]);
  });

  test('the schema is the one named in the header (top-level and service keys present)', () => {
    expect(Object.keys(schema.properties!)).toEqual(expect.arrayContaining(['services', 'networks', 'volumes', 'secrets', 'configs', 'include', 'models']));
    expect(Object.keys(schema.$defs.service!.properties!)).toContain('pre_start');
  });

  test('a key missing from the registry is found', () => {
    const { privileged: _privileged, ...withoutPrivileged } = rootRule.keys!.services!.entries!.keys!;
    const trimmed: Rule = { ...rootRule, keys: { ...rootRule.keys, services: { access: 'allowed', entries: { access: 'allowed', keys: withoutPrivileged } } } };
    const findings: Finding[] = [];
    compare(schema, trimmed, '', findings);
    expect(findings).toEqual([{ path: '.services.*.privileged', problem: 'no rule' }]);
  });
});
