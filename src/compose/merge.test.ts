/**
 * The merge cases of fixtures/merge (drawn from the Compose specification's merge page and
 * compose-go's override tests) run against mergeCompose, plus the properties of the API itself.
 */
import { describe, expect, test } from 'bun:test';
import { DomainError } from '../lib/errors.ts';
import { parseComposeText } from './document.ts';
import { MERGE_CASE_FAMILIES } from './fixtures/merge/index.ts';
import { mergeCompose } from './merge.ts';
import type { JsonObject } from './values.ts';

const model = (text: string): JsonObject => parseComposeText(text).data;

for (const [family, cases] of Object.entries(MERGE_CASE_FAMILIES)) {
  describe(`merge: ${family}`, () => {
    for (const mergeCase of cases) {
      test(mergeCase.name, () => {
        expect(mergeCompose(model(mergeCase.base), model(mergeCase.overlay))).toEqual(model(mergeCase.expected));
      });
    }
  });
}

describe('mergeCompose: extends', () => {
  const refusal = (base: string, overlay = '') => () => mergeCompose(model(base), model(overlay));
  const refusedAt = (path: string, message: RegExp) => expect.objectContaining({ code: 'compose_invalid', path, message: expect.stringMatching(message) });

  test('a service that is not in the same document is refused with the path of extends', () => {
    expect(refusal('services: {job: {extends: web}}')).toThrow(refusedAt('services.job.extends', /service "web" is not in the same document/));
    // An overlay's extends names the overlay's services only, as in Compose.
    expect(refusal('services: {web: {image: a}}', 'services: {job: {extends: web}}')).toThrow(refusedAt('services.job.extends', /same document/));
  });

  test('cycles, a service extending itself included, are refused', () => {
    expect(refusal('services: {a: {image: x, extends: a}}')).toThrow(refusedAt('services.a.extends', /circular reference a -> a/));
    expect(refusal('services: {a: {extends: b}, b: {extends: c}, c: {extends: a}}')).toThrow(refusedAt('services.c.extends', /circular reference a -> b -> c -> a/));
  });

  test('extends.file is left to Compose; the layers are not modified', () => {
    const base = model('services: {web: {image: a}, job: {extends: {file: other.yaml, service: web}}}');
    const copy = structuredClone(base);
    expect(mergeCompose(base).services).toEqual({ web: { image: 'a' }, job: { extends: { file: 'other.yaml', service: 'web' } } });
    expect(base).toEqual(copy);
  });
});

describe('mergeCompose', () => {
  test('the case collection covers at least 60 cases', () => {
    expect(Object.values(MERGE_CASE_FAMILIES).flat().length).toBeGreaterThanOrEqual(60);
  });

  test('applies several overlays in order', () => {
    const merged = mergeCompose(
      model('services: {web: {image: a, ports: ["80:80"]}}'),
      model('services: {web: {image: b, ports: ["443:443"]}}'),
      model('services: {web: {ports: !override ["8080:80"]}}'),
    );
    expect(merged).toEqual(model('services: {web: {image: b, ports: ["8080:80"]}}'));
  });

  test('skips a missing overlay', () => {
    expect(mergeCompose(model('services: {web: {image: a}}'), null, undefined)).toEqual(model('services: {web: {image: a}}'));
  });

  test('does not modify its inputs', () => {
    const base = model('services: {web: {image: a, environment: [A=1], ports: ["80:80"]}}');
    const overlay = model('services: {web: {environment: {B: "2"}, ports: !reset []}}');
    const before = structuredClone([base, overlay]);
    mergeCompose(base, overlay);
    expect([base, overlay]).toEqual(before);
  });

  test('accepts the JSON form of the tags, as written through the API', () => {
    const overlay: JsonObject = { services: { web: { ports: { $reset: null }, image: { $override: 'httpd' } } } };
    expect(mergeCompose(model('services: {web: {image: nginx, ports: ["80:80"]}}'), overlay)).toEqual({
      services: { web: { image: 'httpd' } },
    });
  });

  test('the result carries no tag markers, even from tags nested in a new value', () => {
    const merged = mergeCompose(
      model('services: {web: {image: a}}'),
      model('services: {api: {image: b, user: !reset x, dns: !override [1.1.1.1]}}'),
    );
    expect(merged).toEqual(model('services: {web: {image: a}, api: {image: b, dns: [1.1.1.1]}}'));
  });

  test('refuses layers that give one attribute incompatible types, naming the path', () => {
    const merge = () => mergeCompose(model('services: {web: {image: a, cap_add: [NET_ADMIN]}}'), model('services: {web: {cap_add: {a: 1}}}'));
    expect(merge).toThrow(DomainError);
    expect(merge).toThrow(expect.objectContaining({ code: 'compose_invalid', path: 'services.web.cap_add' }));
  });

  test('refuses a root that is not a mapping', () => {
    expect(() => mergeCompose(['services'] as never)).toThrow(expect.objectContaining({ code: 'compose_invalid' }));
  });
});
