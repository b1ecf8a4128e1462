/**
 * Round trips of real-world Compose files (fixtures/roundtrip): saving then loading gives the
 * exact bytes back, and an edit made through the JSON side keeps every comment of the file.
 */
import { describe, expect, test } from 'bun:test';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseDocument, visit } from 'yaml';
import { composeToText, fromJson, parseComposeText } from './document.ts';
import { isMapping, type JsonObject } from './values.ts';

const FIXTURES = join(import.meta.dir, 'fixtures/roundtrip');
const fixtures = readdirSync(FIXTURES)
  .filter((name) => name.endsWith('.yaml'))
  .sort()
  .map((name) => ({ name, text: readFileSync(join(FIXTURES, name), 'utf8') }));

/** Every comment the `yaml` parser attaches anywhere in a text. */
function commentsOf(text: string): string[] {
  const doc = parseDocument(text);
  const comments: (string | null | undefined)[] = [doc.commentBefore, doc.comment];
  visit(doc, {
    Node(_key, node) {
      comments.push(node.commentBefore, node.comment);
    },
  });
  return comments
    .filter((comment): comment is string => typeof comment === 'string')
    .flatMap((comment) => comment.split('\n'))
    .map((line) => line.trim())
    .filter((line) => line !== '');
}

test('at least 20 round-trip fixtures', () => {
  expect(fixtures.length).toBeGreaterThanOrEqual(20);
});

describe('save then load returns the file byte for byte', () => {
  for (const { name, text } of fixtures) {
    test(name, () => {
      const saved = parseComposeText(text, { editorView: 'yaml' });
      expect(saved.presentation.editorView).toBe('yaml');
      expect(composeToText(saved)).toBe(text);
      // The stored document survives a trip through the JSON column too.
      expect(composeToText(JSON.parse(JSON.stringify(saved)))).toBe(text);
    });
  }
});

describe('an edit through JSON keeps every comment and the rest of the data', () => {
  for (const { name, text } of fixtures) {
    test(name, () => {
      const saved = parseComposeText(text);
      const edited = { ...structuredClone(saved.data), 'x-edited': { by: 'api' } };
      const next = fromJson(edited, saved);
      expect(parseComposeText(next.presentation.yaml).data).toEqual(edited);
      const output = next.presentation.yaml;
      for (const comment of commentsOf(text)) expect(output).toContain(comment);
    });
  }
});

describe('an edit deep inside a service keeps the comments around it', () => {
  for (const { name, text } of fixtures) {
    const saved = parseComposeText(text);
    const services = saved.data.services;
    if (!isMapping(services)) continue;
    const [first] = Object.keys(services);
    if (first === undefined) continue;
    test(name, () => {
      const edited = structuredClone(saved.data);
      const service = (edited.services as JsonObject)[first];
      if (isMapping(service) && !('$reset' in service)) service.hostname = 'edited';
      const output = fromJson(edited, saved).presentation.yaml;
      expect(parseComposeText(output).data).toEqual(edited);
      for (const comment of commentsOf(text)) expect(output).toContain(comment);
    });
  }
});
