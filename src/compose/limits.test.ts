import { describe, expect, test } from 'bun:test';
import { fromJson, parseComposeText } from './document.ts';
import { DEFAULT_COMPOSE_LIMITS } from './limits.ts';
import { validateCompose } from './validate.ts';

/** A compose_invalid error; with `path` given (even undefined) the path must match too. */
const invalid = (...path: [string?]) =>
  expect.objectContaining({ code: 'compose_invalid', status: 422, ...(path.length > 0 ? { path: path[0] } : {}) });

describe('alias expansion (billion laughs)', () => {
  const laughs = [
    'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]',
    ...'bcdefghi'.split('').map((name, i) => {
      const previous = 'abcdefgh'[i];
      return `${name}: &${name} [${Array(9).fill(`*${previous}`).join(',')}]`;
    }),
  ].join('\n');

  test('a billion-laughs document is refused before it expands', () => {
    expect(() => parseComposeText(laughs)).toThrow(invalid());
    expect(() => parseComposeText(laughs)).toThrow(/too many alias expansions/);
  });

  test('ordinary reuse of anchors is fine', () => {
    const services = Array.from({ length: 40 }, (_, i) => `  s${i}:\n    <<: *common\n    logging: *log`).join('\n');
    const text = `x-log: &log {driver: local}\nx-common: &common {restart: always, image: app}\nservices:\n${services}\n`;
    expect(Object.keys(parseComposeText(text).data.services as object)).toHaveLength(40);
  });

  test('the alias budget can be lowered', () => {
    const text = 'x: &x 1\ny: [*x, *x, *x]\n';
    expect(() => parseComposeText(text, {}, { maxAliasCount: 2 })).toThrow(invalid('y.2'));
  });
});

describe('nesting depth', () => {
  const nested = (depth: number) => `x: ${'['.repeat(depth - 1)}${']'.repeat(depth - 1)}\n`;

  test(`${DEFAULT_COMPOSE_LIMITS.maxDepth} levels are accepted, one more is refused`, () => {
    expect(() => parseComposeText(nested(DEFAULT_COMPOSE_LIMITS.maxDepth))).not.toThrow();
    expect(() => parseComposeText(nested(DEFAULT_COMPOSE_LIMITS.maxDepth + 1))).toThrow(/nested deeper than 64/);
  });

  test('nesting deep enough to exhaust the parser is refused as too deep', () => {
    expect(() => parseComposeText(nested(100_000))).toThrow(/nested deeper than 64/);
    expect(() => parseComposeText(`x:\n  ${'- '.repeat(100_000)}a\n`)).toThrow(/nested deeper than 64/);
  });

  test('block nesting counts the same', () => {
    let text = '';
    for (let level = 0; level < 70; level++) text += `${' '.repeat(level)}k${level}:\n`;
    expect(() => parseComposeText(`${text}${' '.repeat(70)}leaf: 1\n`)).toThrow(invalid());
  });

  test('JSON input and validation apply the same cap', () => {
    let deep: unknown = 1;
    for (let level = 0; level < 70; level++) deep = { k: deep };
    expect(() => fromJson({ x: deep })).toThrow(/nested deeper than 64/);
    expect(() => validateCompose({ x: deep })).toThrow(/nested deeper than 64/);
  });
});

describe('document size', () => {
  test('512 KiB is the default cap', () => {
    const filler = `# ${'x'.repeat(DEFAULT_COMPOSE_LIMITS.maxTextBytes)}\n`;
    expect(() => parseComposeText(`services: {}\n${filler}`)).toThrow(/bytes; the limit is 524288 bytes/);
  });

  test('counts bytes, not characters', () => {
    const text = `x: "${'é'.repeat(600)}"\n`; // 600 characters, 1200 bytes
    expect(() => parseComposeText(text, {}, { maxTextBytes: 1000 })).toThrow(invalid());
    expect(() => parseComposeText(text, {}, { maxTextBytes: 2000 })).not.toThrow();
  });

  test('a document built from JSON is measured as YAML', () => {
    expect(() => fromJson({ x: 'y'.repeat(2000) }, null, { maxTextBytes: 1000 })).toThrow(invalid());
  });
});

describe('number of services', () => {
  const services = (count: number) => ({
    services: Object.fromEntries(Array.from({ length: count }, (_, i) => [`s${i}`, { image: 'busybox' }])),
  });

  test('1000 services are accepted, 1001 are refused', () => {
    expect(() => validateCompose(services(1000))).not.toThrow();
    expect(() => validateCompose(services(1001))).toThrow(invalid('services'));
  });
});
