/**
 * stringifyComposeModel writes, byte for byte, what the `yaml` package's Document printer writes
 * for the same model (the printer it replaced): property tests over models built from the
 * characters and words YAML treats specially, and the Compose fixtures.
 */
import { describe, expect, test } from 'bun:test';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { Document } from 'yaml';
import { parseComposeText } from './document.ts';
import { TRICKY_WORDS } from './fixtures/yaml-words.ts';
import { READS_AS_OTHER_THAN_STRING, stringifyComposeModel } from './yaml-print.ts';
import type { JsonObject, JsonValue } from './values.ts';

const documentPrinter = (model: JsonObject) => new Document(model, { version: '1.1' }).toString({ lineWidth: 0 });


// Characters that change how YAML writes or reads a string.
const SPECIAL = [...' \n\t\r#:-?,[]{}&*!|>\'"%@`~.0123456789eExob+_yYnNtTfFlLuUa\\/'];
const CONTROL = ['\u0000', '\u0007', '\u001b', '\u007f', '\u0085', '\u00a0', '\u2028', '\ufeff', '\ud800', 'é', '😀'];
const text = fc.oneof(
  fc.constantFrom(...TRICKY_WORDS),
  fc.string({ unit: fc.constantFrom(...SPECIAL), maxLength: 14 }),
  fc.string({ unit: fc.constantFrom(...SPECIAL, ...CONTROL), maxLength: 50 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.tuple(fc.constantFrom(...TRICKY_WORDS), fc.constantFrom('', ' ', '\n', '\n\n', ': ', ' #', '\t'), fc.constantFrom(...TRICKY_WORDS)).map((parts) => parts.join('')),
);
const number = fc.oneof(fc.integer(), fc.double(), fc.constantFrom(0, -0, 1e21, -1e21, 5e-324, 2 ** 53, 0.1, 1.5e-7, 1e100));
const leaf = fc.oneof(text, number, fc.boolean(), fc.constant(null));
const { value } = fc.letrec<{ value: JsonValue }>((tie) => ({
  value: fc.oneof({ depthSize: 'small' }, leaf, fc.array(tie('value'), { maxLength: 4 }), fc.dictionary(text, tie('value'), { maxKeys: 4 })),
}));
const model = fc.dictionary(text, value, { maxKeys: 6 });

describe('stringifyComposeModel', () => {
  test('writes what the Document printer writes, for any model', () => {
    fc.assert(
      fc.property(model, (generated) => {
        expect(stringifyComposeModel(generated)).toBe(documentPrinter(generated));
      }),
      { numRuns: 3000 },
    );
  }, 60_000); // a generous bound for a loaded machine; nothing here is timed

  test('every tricky word as a key and as a value, at every depth', () => {
    const entries = () => Object.fromEntries(TRICKY_WORDS.map((word, i) => [word, i % 2 === 0 ? word : [word, { [word]: word }]]));
    const generated: JsonObject = { ...entries(), nested: { deeper: entries(), list: [entries(), [entries()]] } };
    expect(stringifyComposeModel(generated)).toBe(documentPrinter(generated));
  });

  test('keys too long to be implicit, empty collections, an empty model', () => {
    const long = 'k'.repeat(1030);
    const generated: JsonObject = { [long]: { a: 1 }, [`${long} x`]: 'v', short: { [long]: [] }, empty: {}, none: [], list: [{}, [], [[]], { a: {} }] };
    expect(stringifyComposeModel(generated)).toBe(documentPrinter(generated));
    expect(stringifyComposeModel({})).toBe(documentPrinter({}));
  });

  test('one object in two places is written with an anchor, as the Document printer does', () => {
    const shared: JsonObject = { image: 'nginx', ports: ['80:80'] };
    const generated: JsonObject = { services: { a: shared, b: shared, c: { list: [shared] } } };
    expect(stringifyComposeModel(generated)).toBe(documentPrinter(generated));
    expect(stringifyComposeModel(generated)).toContain('&a1');
  });

  test('the Compose fixtures', () => {
    const dir = join(import.meta.dir, 'fixtures');
    for (const folder of ['roundtrip', 'compile']) {
      for (const name of readdirSync(join(dir, folder)).filter((file) => file.endsWith('.yaml'))) {
        const { data } = parseComposeText(readFileSync(join(dir, folder, name), 'utf8'));
        expect(stringifyComposeModel(data)).toBe(documentPrinter(data));
      }
    }
  });

  test('the union of the YAML 1.1 tag tests matches exactly when one of them does', () => {
    const tests = new Document(null, { version: '1.1' }).schema.tags.flatMap((tag) =>
      tag.default && tag.tag !== 'tag:yaml.org,2002:str' && 'test' in tag && tag.test ? [tag.test] : [],
    );
    expect(tests.every((regexp) => regexp.flags === '' && !/\\[1-9]/.test(regexp.source))).toBe(true);
    fc.assert(
      fc.property(text, (candidate) => {
        expect(READS_AS_OTHER_THAN_STRING.test(candidate)).toBe(tests.some((regexp) => regexp.test(candidate)));
      }),
      { numRuns: 3000 },
    );
  });
});
