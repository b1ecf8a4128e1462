/**
 * Our merge and our YAML reading against the real Compose v2. For every merge case,
 * `compose -f base -f overlay config` (Compose's own merge) must describe the same model as
 * `compose -f ours config` on the file our merge produced. Both go through Compose's canonical form, so short and long
 * syntax compare equal; the only normalization here is the one Compose leaves undone
 * (KEY=VALUE lists versus mappings). Skipped, with the reason printed, when no binary exists.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { composeV2ForTests } from '../../test/compose-v2.ts';
import { type ComposeBinary, runComposeConfig } from './compose-binary.ts';
import { composeToText, parseComposeText, stringifyComposeModel } from './document.ts';
import { MERGE_CASE_FAMILIES, type MergeCase } from './fixtures/merge/index.ts';
import { mergeCompose } from './merge.ts';
import { isMapping, type JsonObject, type JsonValue } from './values.ts';

const lookup = await composeV2ForTests();
if (!lookup.found) console.warn(`compose-cli.test.ts skipped: ${lookup.reason}`);
const binary: ComposeBinary | null = lookup.found ? lookup.binary : null;

const CONFIG_FLAGS = ['--no-interpolate', '--no-path-resolution', '--no-consistency', '--no-env-resolution'];

/** Attributes Compose may print either as `KEY=VALUE` lists or as mappings. */
const KEY_VALUE_ATTRIBUTES = new Set(['environment', 'labels', 'annotations', 'sysctls', 'args']);

function keyValueMapping(value: JsonValue): JsonValue {
  if (!Array.isArray(value)) return value;
  const mapping: JsonObject = {};
  for (const entry of value.map(String)) {
    const equals = entry.indexOf('=');
    mapping[equals === -1 ? entry : entry.slice(0, equals)] = equals === -1 ? null : entry.slice(equals + 1);
  }
  return mapping;
}

/** An emptied key-value attribute is null after Compose's merge and {} after ours: both mean none. */
function normalize(value: JsonValue, key = ''): JsonValue {
  if (KEY_VALUE_ATTRIBUTES.has(key)) value = keyValueMapping(value) ?? {};
  if (Array.isArray(value)) return value.map((item) => normalize(item));
  if (!isMapping(value)) return value;
  const result: JsonObject = {};
  for (const [childKey, child] of Object.entries(value)) result[childKey] = normalize(child, childKey);
  return result;
}

let workDir = '';
let caseNumber = 0;

async function composeModel(files: Record<string, string>): Promise<JsonValue> {
  const dir = join(workDir, String(++caseNumber));
  mkdirSync(dir);
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  const result = await runComposeConfig(binary!, Object.keys(files), {
    cwd: dir,
    projectName: 'panel-merge',
    format: 'json',
    flags: CONFIG_FLAGS,
  });
  if (result.exitCode !== 0) throw new Error(`compose config failed: ${result.stderr}`);
  return normalize(JSON.parse(result.stdout) as JsonValue);
}

async function checkAgainstCompose(mergeCase: MergeCase): Promise<void> {
  const ours = mergeCompose(parseComposeText(mergeCase.base).data, parseComposeText(mergeCase.overlay).data);
  const [composeMerged, ourMerged] = await Promise.all([
    composeModel({ 'base.yaml': mergeCase.base, 'overlay.yaml': mergeCase.overlay }),
    composeModel({ 'ours.yaml': stringifyComposeModel(ours) }),
  ]);
  expect(ourMerged).toEqual(composeMerged);
  // Compose would also drop duplicates we left behind, so equal models alone do not prove our
  // uniqueness rules: every sequence we produced must have the length Compose's merge gives it.
  expect(sequenceLengths(ours, composeMerged)).toEqual(sequenceLengths(composeMerged, ours));
}

/** Lengths of the sequences of `model` that are sequences in `other` too, by path. */
function sequenceLengths(model: JsonValue, other: JsonValue, path = ''): Record<string, number> {
  if (Array.isArray(model)) return Array.isArray(other) ? { [path]: model.length } : {};
  if (!isMapping(model) || !isMapping(other)) return {};
  const lengths: Record<string, number> = {};
  for (const [key, value] of Object.entries(model)) {
    if (Object.hasOwn(other, key)) Object.assign(lengths, sequenceLengths(value, other[key]!, `${path}.${key}`));
  }
  return lengths;
}

/**
 * Our reading of YAML must be Compose's: each round-trip fixture, and YAML regenerated from the
 * data we parsed out of it (tags included, no original text), must give Compose the same model.
 */
async function checkReadingAgainstCompose(text: string): Promise<void> {
  const data = parseComposeText(text).data;
  const regenerated = composeToText({ version: 1, data, presentation: { yaml: '' } });
  const [original, ours] = await Promise.all([
    composeModel({ 'original.yaml': text }),
    composeModel({ 'regenerated.yaml': regenerated }),
  ]);
  expect(ours).toEqual(original);
}

const roundTripDir = join(import.meta.dir, 'fixtures/roundtrip');
const roundTripFixtures = readdirSync(roundTripDir)
  .filter((name) => name.endsWith('.yaml'))
  .map((name) => ({ name, text: readFileSync(join(roundTripDir, name), 'utf8') }))
  // Compose refuses an empty file; the empty overlay fixture has nothing to compare.
  .filter(({ text }) => Object.keys(parseComposeText(text).data).length > 0);

const suiteName = binary === null ? 'against Compose v2 (not found)' : `against ${binary.command.join(' ')} ${binary.version}`;

describe.skipIf(binary === null)(suiteName, () => {
  beforeAll(() => {
    workDir = mkdtempSync(join(tmpdir(), 'panel-compose-cli-'));
  });
  afterAll(() => {
    if (workDir !== '') rmSync(workDir, { recursive: true, force: true });
  });

  for (const [family, cases] of Object.entries(MERGE_CASE_FAMILIES)) {
    for (const mergeCase of cases) {
      test(`${family}: ${mergeCase.name}`, () => checkAgainstCompose(mergeCase));
    }
  }

  for (const { name, text } of roundTripFixtures) {
    test(`reading YAML: ${name}`, () => checkReadingAgainstCompose(text));
  }
});
