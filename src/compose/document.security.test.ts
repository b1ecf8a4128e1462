/**
 * A key named `__proto__` would not be a key of the model at all: assigned to a plain object it
 * replaces the object's prototype, so what a document puts under it is invisible to every check
 * that walks the model's own keys (the tenant policy among them) and visible to every property
 * read. Refused wherever it appears, from YAML text and from JSON alike.
 */
import { describe, expect, test } from 'bun:test';
import { DomainError } from '../lib/errors.ts';
import { fromJson, parseComposeText } from './document.ts';

function refusal(read: () => unknown): { code: string; path: string | undefined } {
  try {
    read();
  } catch (error) {
    if (error instanceof DomainError) return { code: error.code, path: error.path };
    throw error;
  }
  throw new Error('accepted');
}

const TEXTS: [string, string][] = [
  ['__proto__:\n  services:\n    pwn:\n      image: alpine\n      privileged: true\n', '__proto__'],
  ['services:\n  web:\n    image: nginx\n__proto__:\n  x-evil: 1\n', '__proto__'],
  ['services:\n  __proto__:\n    image: alpine\n    privileged: true\n', 'services.__proto__'],
  ['services:\n  web:\n    image: nginx\n    __proto__: {privileged: true}\n', 'services.web.__proto__'],
  ['services:\n  web:\n    image: nginx\n    environment:\n      - A=1\n    labels: {"__proto__": x}\n', 'services.web.labels.__proto__'],
  ['x-base: &base\n  __proto__: {privileged: true}\nservices:\n  web:\n    <<: *base\n    image: nginx\n', 'x-base.__proto__'],
];

describe('__proto__ as a Compose key', () => {
  for (const [text, path] of TEXTS) {
    test(`refused in YAML at ${path}`, () => {
      expect(refusal(() => parseComposeText(text))).toEqual({ code: 'compose_invalid', path });
    });
  }

  test('refused in JSON, where JSON.parse makes it an own key', () => {
    const data = JSON.parse('{"services":{"web":{"image":"nginx"},"__proto__":{"image":"alpine","privileged":true}}}');
    expect(refusal(() => fromJson(data))).toEqual({ code: 'compose_invalid', path: 'services.__proto__' });
    expect(refusal(() => fromJson(JSON.parse('{"__proto__":{"services":{}}}')))).toEqual({ code: 'compose_invalid', path: '__proto__' });
  });

  test('a key that merely contains the word is an ordinary key', () => {
    const document = parseComposeText('services:\n  web:\n    image: nginx\n    labels:\n      my__proto__: x\n');
    expect((document.data as { services: { web: { labels: Record<string, string> } } }).services.web.labels).toEqual({ my__proto__: 'x' });
  });
});
