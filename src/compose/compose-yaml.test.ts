import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { parse } from 'yaml';
import { writeComposeYaml } from './compose-yaml.ts';
import { stringifyComposeModel } from './document.ts';
import { readFixture } from './fixtures/compile/index.ts';
import type { JsonObject } from './values.ts';

/** What a YAML 1.1 reader and a YAML 1.2 (core schema) reader get from the text. */
function readBack(text: string): { yaml11: unknown; yaml12: unknown } {
  return { yaml11: parse(text, { version: '1.1', uniqueKeys: false }), yaml12: parse(text, { uniqueKeys: false }) };
}

const TRICKY_STRINGS = [
  'yes', 'No', 'ON', 'off', 'y', 'N', 'true', 'False', 'null', 'NULL', '~', '', ' ', '-', '- x', '? x', ': x', 'a: b', 'a #b',
  '#comment', '2222:22', '1:20', '0644', '0x1F', '1_000', '1e3', '.5', '.inf', '-.Inf', '.NaN', '2001-12-14', '2001-12-14t21:59:43.10-05:00',
  '=', '<<', '*alias', '&anchor', '!tag', '%directive', '@at', '`tick`', '|', '>', "'single'", '"double"', '{a}', '[a]', 'a,b',
  'line\nbreak', 'tab\there', 'trailing ', ' leading', 'key:', 'a:b', 'ends with colon:', '\u0085nel', 'ls\u2028ps\u2029',
  'E0', 'e+5', '5s', '512M', '1e5', '0b1', '0o17', '1_000', 'pg_isready -U shop', 'a  b', 'a :b', './app', '../x', '.../x', 'del\u007f', 'bom\ufeff', 'emoji 😀', 'ünïcödé', '$$0.00', '${HOME}/cache', 'ghcr.io/acme/shop:1.4.1', '/run/secrets/KEY',
];

describe('writeComposeYaml', () => {
  test('strings YAML would read as something else are quoted; both YAML versions read back the model', () => {
    const model: JsonObject = { values: TRICKY_STRINGS, keys: Object.fromEntries(TRICKY_STRINGS.map((text, i) => [text, i])) };
    const text = writeComposeYaml(model);
    expect(readBack(text)).toEqual({ yaml11: model, yaml12: model });
  });

  test('numbers, booleans, null, empty and nested collections', () => {
    const model: JsonObject = {
      numbers: [0, -1, 8080, 1.5, -0.25, 1e21, 5e-324, 2 ** 53],
      flags: [true, false, null],
      empty: { mapping: {}, sequence: [] },
      nested: [[1, [2, { a: [] }]], { b: { c: [{ d: 'e' }] } }, []],
    };
    expect(readBack(writeComposeYaml(model))).toEqual({ yaml11: model, yaml12: model });
  });

  test('any JSON model reads back the same in YAML 1.1 and 1.2', () => {
    // Strings from the characters that make YAML read numbers, dates, booleans or structure.
    const risky = fc.string({ unit: fc.constantFrom(...'019eExob.-+:_ /yYnNtTaZ#~,'), maxLength: 12 });
    const key = fc.oneof(fc.string(), risky, fc.constantFrom(...TRICKY_STRINGS));
    const leaf = fc.oneof(fc.string({ unit: 'grapheme' }), risky, fc.constantFrom(...TRICKY_STRINGS), fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.boolean(), fc.constant(null));
    const { value } = fc.letrec((tie) => ({
      value: fc.oneof({ depthSize: 'small' }, leaf, fc.array(tie('value'), { maxLength: 4 }), fc.dictionary(key, tie('value'), { maxKeys: 4 })),
    }));
    fc.assert(
      fc.property(fc.dictionary(key, value, { maxKeys: 5 }), (model) => {
        const expected = JSON.parse(JSON.stringify(model)); // -0 is written (and read) as 0
        expect(readBack(writeComposeYaml(model as JsonObject))).toEqual({ yaml11: expected, yaml12: expected });
      }),
      { numRuns: 300 },
    );
  }, 30_000); // a generous bound for a loaded machine; nothing here is timed

  test('a Compose model reads back as stringifyComposeModel writes it, in the same block layout', () => {
    const model = readFixture('shop.base.yaml');
    expect(parse(writeComposeYaml(model))).toEqual(parse(stringifyComposeModel(model)));
    expect(writeComposeYaml({ services: { web: { image: 'nginx', command: ['a', 'b'], ports: [{ target: 80 }] } } })).toBe(
      'services:\n  web:\n    image: nginx\n    command:\n      - a\n      - b\n    ports:\n      - target: 80\n',
    );
    expect(writeComposeYaml({})).toBe('{}\n');
  });
});
