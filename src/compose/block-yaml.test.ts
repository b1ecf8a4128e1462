/**
 * readBlockYaml against the `yaml` package's way (parseDocument, then NodeReader): on every text
 * it either declines (undefined) or gives the very data the package gives, with the same key
 * order, and never data for a text the package refuses. Texts: the fixtures and corpora, models
 * written by several printers, those texts mutated character by character and line by line, and
 * lines put together at random from YAML's special tokens.
 */
import { describe, expect, test } from 'bun:test';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { Document, parseDocument, stringify } from 'yaml';
import { readBlockYaml } from './block-yaml.ts';
import { writeComposeYaml } from './compose-yaml.ts';
import { MERGE_CASE_FAMILIES } from './fixtures/merge/index.ts';
import { TRICKY_WORDS } from './fixtures/yaml-words.ts';
import { resolveLimits } from './limits.ts';
import { POLICY_CASES } from './policy/corpus/index.ts';
import { isMapping, type JsonObject, type JsonValue } from './values.ts';
import { nodeToData, YAML_OPTIONS } from './yaml-data.ts';
import { stringifyComposeModel } from './yaml-print.ts';

const LIMITS = resolveLimits();

/** The package's data for a text, or 'refused' (a syntax error, or NodeReader's refusal). */
function packageData(text: string): JsonValue | 'refused' {
  const doc = parseDocument(text, { ...YAML_OPTIONS, prettyErrors: false });
  if (doc.errors.length > 0) return 'refused';
  try {
    const data = doc.contents === null ? {} : nodeToData(doc, LIMITS);
    return isMapping(data) ? data : 'refused';
  } catch {
    return 'refused';
  }
}

/** Equal values, mapping keys in the same order, numbers by Object.is (-0 is not 0). */
function same(a: JsonValue, b: JsonValue): boolean {
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((item, i) => same(item, b[i]!));
  if (isMapping(a)) {
    if (!isMapping(b)) return false;
    const keys = Object.keys(a);
    const otherKeys = Object.keys(b);
    return keys.length === otherKeys.length && keys.every((key, i) => key === otherKeys[i] && same(a[key]!, b[key]!));
  }
  return Object.is(a, b);
}

let read = 0;
let declined = 0;
/** The property: declined, or the package's data exactly. */
function expectAgreement(text: string): void {
  const fast = readBlockYaml(text, LIMITS.maxDepth);
  if (fast === undefined) {
    declined++;
    return;
  }
  read++;
  const expected = packageData(text);
  if (expected === 'refused' || !same(fast, expected)) {
    throw new Error(`readBlockYaml disagrees on ${JSON.stringify(text)}:\n  read    ${JSON.stringify(fast)}\n  package ${JSON.stringify(expected)}`);
  }
}

const SPECIAL = [...' \n#:-?,[]{}&*!|>\'"%@`~.019eExo+_yYnNtTfFlua\\/<=$'];
const word = fc.oneof(
  fc.constantFrom(...TRICKY_WORDS),
  fc.string({ unit: fc.constantFrom(...SPECIAL), maxLength: 10 }),
  fc.string({ unit: fc.constantFrom(...'abcxyz019_-.'), minLength: 1, maxLength: 8 }),
  fc.string({ unit: 'grapheme', maxLength: 6 }),
);
const number = fc.oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.constantFrom(0, -0, 1e21, 0.5, 420));
const leaf = fc.oneof(word, number, fc.boolean(), fc.constant(null));
const { value } = fc.letrec<{ value: JsonValue }>((tie) => ({
  value: fc.oneof({ depthSize: 'small' }, leaf, fc.array(tie('value'), { maxLength: 4 }), fc.dictionary(word, tie('value'), { maxKeys: 4 })),
}));
const model = fc.dictionary(word, value, { minKeys: 1, maxKeys: 5 });

/** Ways models are written: ours, the compile writer, the package with its options, Bun's. */
const PRINTERS: ((data: JsonObject) => string)[] = [
  stringifyComposeModel,
  writeComposeYaml,
  (data) => stringify(data, { lineWidth: 0 }),
  (data) => stringify(data, { indent: 4, indentSeq: false }),
  (data) => stringify(data, { defaultStringType: 'QUOTE_SINGLE', defaultKeyType: 'PLAIN', lineWidth: 0 }),
  (data) => stringify(data, { defaultStringType: 'QUOTE_DOUBLE', lineWidth: 0 }),
  (data) => stringify(data, { blockQuote: 'folded', lineWidth: 30 }),
  (data) => stringify(data, { blockQuote: 'literal', lineWidth: 0, version: '1.1' }),
  (data) => stringify(data, { collectionStyle: 'flow', lineWidth: 0 }),
  (data) => Bun.YAML.stringify(data, null, 2),
];
const written = fc.tuple(model, fc.nat(PRINTERS.length - 1)).map(([data, printer]) => PRINTERS[printer]!(data));

/**
 * A model written by hand, as it were: random indents (sequences at their key's indent or
 * deeper), scalars raw, quoted or as block scalars whatever they hold, flow collections, quoted
 * keys, comments, blank and space-only lines. What the text means does not matter, only that
 * both readers agree on it.
 */
function handWritten(data: JsonObject, seed: number): string {
  let state = seed >>> 0;
  const random = (n: number) => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return (((t ^ (t >>> 14)) >>> 0) % n) as number;
  };
  const pick = <T,>(...options: T[]) => options[random(options.length)]!;
  const out: string[] = [];
  const scalarText = (item: JsonValue): string => {
    const raw = typeof item === 'string' ? item : JSON.stringify(item);
    if (raw.includes('\n')) return JSON.stringify(raw);
    switch (random(6)) {
      case 0:
        return `'${raw.replaceAll("'", "''")}'`;
      case 1:
        return JSON.stringify(raw);
      default:
        return raw;
    }
  };
  const flow = (item: JsonValue): string => {
    if (Array.isArray(item)) return `[${pick('', ' ')}${item.map(flow).join(pick(', ', ',', ' , '))}${pick('', ' ')}]`;
    if (isMapping(item)) return `{${pick('', ' ')}${Object.entries(item).map(([key, value]) => `${scalarText(key)}: ${flow(value)}`).join(', ')}${pick('', ' ')}}`;
    return scalarText(item);
  };
  const extras = (indent: number) => {
    const roll = random(10);
    if (roll === 0) out.push(`${' '.repeat(random(8))}# a comment`);
    else if (roll === 1) out.push('');
    else if (roll === 2) out.push(' '.repeat(random(indent + 4)));
  };
  const comment = () => pick('', '', '', '', ' # note', '  #x', '#x');
  const inline = (prefix: string, item: JsonValue, indent: number) => {
    if (typeof item === 'string' && random(4) === 0) {
      const body = item.split('\n');
      const contentIndent = indent + 1 + random(3);
      out.push(`${prefix}${pick('|', '>')}${pick('', '-', '+')}${comment()}`);
      for (const row of body) out.push(row === '' ? pick('', ' '.repeat(random(contentIndent + 2))) : `${' '.repeat(contentIndent + (random(5) === 0 ? 1 : 0))}${row}`);
      return;
    }
    out.push(`${prefix}${(Array.isArray(item) || isMapping(item)) ? flow(item) : scalarText(item)}${comment()}`);
  };
  const node = (item: JsonValue, indent: number, first: string | null, block = random(5) !== 0) => {
    if (Array.isArray(item) && item.length > 0 && block) {
      item.forEach((entry, i) => {
        const dash = `${i === 0 && first !== null ? first : ' '.repeat(indent)}-${' '.repeat(1 + random(2))}`;
        extras(indent);
        if ((Array.isArray(entry) && entry.length > 0) || (isMapping(entry) && Object.keys(entry).length > 0)) {
          if (random(3) === 0) {
            out.push(dash.trimEnd());
            node(entry, indent + 1 + random(3), null);
          } else node(entry, dash.length, dash);
        } else inline(dash, entry, indent);
      });
      return;
    }
    if (isMapping(item) && Object.keys(item).length > 0 && block) {
      Object.entries(item).forEach(([key, value], i) => {
        const start = `${i === 0 && first !== null ? first : ' '.repeat(indent)}${random(4) === 0 ? scalarText(key) : key}:`;
        extras(indent);
        if (Array.isArray(value) && value.length > 0 && random(2) === 0) {
          out.push(`${start}${comment()}`);
          node(value, random(2) === 0 ? indent : indent + 1 + random(3), null);
        } else if (isMapping(value) && Object.keys(value).length > 0 && random(4) !== 0) {
          out.push(`${start}${comment()}`);
          node(value, indent + 1 + random(3), null);
        } else inline(`${start}${pick(' ', ' ', '  ')}`, value, indent);
      });
      return;
    }
    inline(first ?? ' '.repeat(indent), item, indent);
  };
  if (random(8) === 0) out.push(pick('---', '--- # start'));
  node(data, random(8) === 0 ? 1 : 0, null, true);
  return out.join('\n') + pick('\n', '', '\n\n');
}
// Mostly words that are fine raw, so that the texts are mostly YAML; some of any kind.
const handWord = fc.oneof(
  { weight: 6, arbitrary: fc.stringMatching(/^[a-z0-9][a-z0-9_.\/-]{0,8}( [a-z0-9:#'"-]{1,4})?$/) },
  { weight: 1, arbitrary: fc.constantFrom(...TRICKY_WORDS.filter((text) => !/[\t\r]/.test(text))) },
  { weight: 1, arbitrary: fc.string({ unit: fc.constantFrom(...SPECIAL), maxLength: 6 }) },
);
const handLeaf = fc.oneof({ weight: 4, arbitrary: handWord }, number, fc.boolean(), fc.constant(null), fc.constantFrom('line one\nline two', 'a\n\nb\n', '  indented\nnot', 'x\n  more\ny'));
const { handValue } = fc.letrec<{ handValue: JsonValue }>((tie) => ({
  handValue: fc.oneof({ depthSize: 'small' }, handLeaf, fc.array(tie('handValue'), { maxLength: 4 }), fc.dictionary(handWord, tie('handValue'), { maxKeys: 4 })),
}));
const handWrittenText = fc.tuple(fc.dictionary(handWord, handValue, { minKeys: 1, maxKeys: 5 }), fc.integer()).map(([data, seed]) => handWritten(data, seed));

/** Edits that take a text just outside (or inside) the subset. */
const edit = fc.oneof(
  fc.record({ kind: fc.constant('insert' as const), at: fc.nat(), text: fc.oneof(fc.constantFrom(...SPECIAL, '  ', '\n  ', '\n- ', ': ', ' #', '\t', '\r'), word) }),
  fc.record({ kind: fc.constant('delete' as const), at: fc.nat(), length: fc.integer({ min: 1, max: 3 }) }),
  fc.record({ kind: fc.constant('indent' as const), at: fc.nat(), by: fc.integer({ min: -2, max: 2 }) }),
  fc.record({ kind: fc.constant('duplicate' as const), at: fc.nat() }),
);
type Edit = typeof edit extends fc.Arbitrary<infer T> ? T : never;

function applyEdit(text: string, change: Edit): string {
  const at = text.length === 0 ? 0 : change.at % (text.length + 1);
  if (change.kind === 'insert') return text.slice(0, at) + change.text + text.slice(at);
  if (change.kind === 'delete') return text.slice(0, at) + text.slice(at + change.length);
  const lines = text.split('\n');
  const row = change.at % lines.length;
  if (change.kind === 'duplicate') lines.splice(row, 0, lines[row]!);
  else lines[row] = change.by > 0 ? ' '.repeat(change.by) + lines[row] : lines[row]!.slice(-change.by);
  return lines.join('\n');
}

/** Lines of YAML's shapes (keys, entries, block scalar headers, comments) at random indents. */
const scalarToken = fc.oneof(word, fc.constantFrom('|', '|-', '|+', '>', '>-', '>+', '[a, b]', '{a: 1}', '"q"', "'s'", '[]', '{}', '# c', ''));
const line = fc.oneof(
  fc.tuple(fc.nat(6), word, scalarToken).map(([indent, key, token]) => `${' '.repeat(indent)}${key}: ${token}`),
  fc.tuple(fc.nat(6), word).map(([indent, key]) => `${' '.repeat(indent)}${key}:`),
  fc.tuple(fc.nat(6), scalarToken).map(([indent, token]) => `${' '.repeat(indent)}- ${token}`),
  fc.tuple(fc.nat(6), word, scalarToken).map(([indent, key, token]) => `${' '.repeat(indent)}- ${key}: ${token}`),
  fc.tuple(fc.nat(8), word).map(([indent, text]) => `${' '.repeat(indent)}${text}`),
  fc.constantFrom('', '  ', '# comment', '---', '...'),
);
const lines = fc.array(line, { minLength: 1, maxLength: 12 }).map((rows) => rows.join('\n'));

/** Block scalars: any header, body lines at any indent (blank, spaces only, `#`, `---`), then more keys. */
const bodyLine = fc.tuple(fc.nat(6), fc.constantFrom('', 'text', 'more words', '# not a comment', '---', 'key: value', '- item', '  deeper', "'q'")).map(([indent, text]) => ' '.repeat(indent) + text);
const blockScalarText = fc
  .tuple(
    fc.constantFrom('a:', 'a:\n  b:', '- ', 'a:\n  - ', 'a:\n  - b:'),
    fc.constantFrom('|', '|-', '|+', '>', '>-', '>+', '|2', '>1-', '| # c', '|#c'),
    fc.array(bodyLine, { maxLength: 6 }),
    fc.constantFrom('', '\nz: 1', '\n  z: 1', '\n- z', '\n# end', '\n\n'),
    fc.constantFrom('', '\n'),
  )
  .map(([start, header, body, after, end]) => `${start}${start.endsWith(' ') ? '' : ' '}${header}\n${body.join('\n')}${after}${end}`);

describe('readBlockYaml reads what the yaml package reads, or declines', () => {
  test('the round-trip and compile fixtures, the merge cases and the policy corpus', () => {
    const dir = join(import.meta.dir, 'fixtures');
    const texts = ['roundtrip', 'compile'].flatMap((folder) =>
      readdirSync(join(dir, folder))
        .filter((name) => name.endsWith('.yaml'))
        .map((name) => readFileSync(join(dir, folder, name), 'utf8')),
    );
    for (const family of Object.values(MERGE_CASE_FAMILIES)) for (const { base, overlay, expected } of family) texts.push(base, overlay, expected);
    for (const { base, overlay } of POLICY_CASES) texts.push(...(typeof base === 'string' ? [base] : []), ...(overlay === undefined ? [] : [overlay]));
    const before = read;
    for (const text of texts) expectAgreement(text);
    // Most of them are in the subset: the reader is no bystander here.
    expect(read - before).toBeGreaterThan(texts.length / 2);
  });

  test('models as several printers write them', () => {
    const before = read;
    fc.assert(fc.property(written, (text) => expectAgreement(text)), { numRuns: 2000, includeErrorInReport: true });
    expect(read - before).toBeGreaterThan(300);
  }, 60_000); // a generous bound for a loaded machine; nothing here is timed

  test('models as written by hand', () => {
    const before = read;
    fc.assert(fc.property(handWrittenText, (text) => expectAgreement(text)), { numRuns: 3000, includeErrorInReport: true });
    expect(read - before).toBeGreaterThan(400);
  }, 60_000);

  test('those texts after edits', () => {
    fc.assert(
      fc.property(fc.oneof(written, handWrittenText), fc.array(edit, { minLength: 1, maxLength: 3 }), (text, edits) => expectAgreement(edits.reduce(applyEdit, text))),
      { numRuns: 3000, includeErrorInReport: true },
    );
  }, 60_000);

  test('lines of YAML shapes put together at random', () => {
    fc.assert(fc.property(lines, (text) => expectAgreement(text)), { numRuns: 5000, includeErrorInReport: true });
  }, 60_000);

  test('block scalars of every kind among other lines', () => {
    const before = read;
    fc.assert(fc.property(blockScalarText, (text) => expectAgreement(text)), { numRuns: 3000, includeErrorInReport: true });
    expect(read - before).toBeGreaterThan(150);
  }, 60_000);

  test("the schema's plain-scalar tests can be joined into one expression", () => {
    const tests = new Document(null, YAML_OPTIONS).schema.tags.flatMap((tag) => (tag.default === true && 'test' in tag && tag.test ? [tag.test] : []));
    expect(tests.length).toBeGreaterThan(5);
    expect(tests.every((regexp) => regexp.flags === '' && !/\\[1-9]/.test(regexp.source))).toBe(true);
  });

  test('depth beyond the limit, a root that is no mapping, an empty text are left to the package or read as it does', () => {
    const deep = Array.from({ length: 70 }, (_, i) => `${' '.repeat(i * 2)}k${i}:`).join('\n');
    expect(readBlockYaml(deep, LIMITS.maxDepth)).toBeUndefined();
    expect(readBlockYaml('- a\n- b\n', LIMITS.maxDepth)).toBeUndefined();
    expect(readBlockYaml('', LIMITS.maxDepth)).toEqual({});
    expect(readBlockYaml('# only a comment\n', LIMITS.maxDepth)).toEqual({});
    expect(readBlockYaml('a: 1\na: 2\n', LIMITS.maxDepth)).toBeUndefined();
    expect(readBlockYaml('a: !reset []\n', LIMITS.maxDepth)).toBeUndefined();
  });

  test('implicit keys up to the 1,024 characters YAML allows them, plain and quoted, at every depth', () => {
    for (const length of [1023, 1024, 1025, 1030]) {
      const key = 'k'.repeat(length);
      for (const text of [`${key}: 1\n`, `a:\n  ${key}: 1\n`, `a:\n- ${key}: 1\n`, `"${key}": 1\n`, `a:\n  '${key}': 1\n`, `a: {${key}: 1}\n`]) expectAgreement(text);
    }
    expect(packageData(`${'k'.repeat(1025)}: 1\n`)).toBe('refused');
  });
});
