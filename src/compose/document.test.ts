import { describe, expect, test } from 'bun:test';
import { composeToText, fromJson, parseComposeText, stringifyComposeModel } from './document.ts';
import type { JsonObject } from './values.ts';

/** A compose_invalid error; with `path` given (even undefined) the path must match too. */
const invalid = (...path: [string?]) =>
  expect.objectContaining({ code: 'compose_invalid', status: 422, ...(path.length > 0 ? { path: path[0] } : {}) });

/** Applies `edit` to a copy of the document's data and returns the YAML the editor would get. */
function editText(text: string, edit: (data: any) => void): string {
  const saved = parseComposeText(text);
  const data = structuredClone(saved.data);
  edit(data);
  const next = fromJson(data, saved);
  expect(parseComposeText(next.presentation.yaml).data).toEqual(data);
  return next.presentation.yaml;
}

describe('parseComposeText', () => {
  test('keeps the text and the editor view, and gives plain JSON data', () => {
    const text = 'services:\n  web:\n    image: nginx # pinned later\n';
    const doc = parseComposeText(text, { editorView: 'form' });
    expect(doc).toEqual({
      version: 1,
      data: { services: { web: { image: 'nginx' } } },
      presentation: { yaml: text, editorView: 'form' },
    });
  });

  test('represents !reset and !override as $reset / $override markers', () => {
    const doc = parseComposeText('services:\n  web:\n    ports: !reset []\n    image: !override httpd\n    user: !reset\n');
    expect(doc.data).toEqual({ services: { web: { ports: { $reset: [] }, image: { $override: 'httpd' }, user: { $reset: null } } } });
  });

  test('a tagged plain scalar keeps its YAML type', () => {
    const doc = parseComposeText('services: {web: {stop_signal: !override 9, tty: !override true, user: !override "9"}}');
    expect(doc.data).toEqual({ services: { web: { stop_signal: { $override: 9 }, tty: { $override: true }, user: { $override: '9' } } } });
  });

  test('reads 0644 as an octal number, as Compose (Go yaml.v3) does', () => {
    expect(parseComposeText('x: 0644\ny: 0o17\nz: "0644"\n').data).toEqual({ x: 420, y: 15, z: '0644' });
  });

  test('applies YAML merge keys; own keys win, then earlier sources', () => {
    const text = 'a: &a {x: 1, y: 1}\nb: &b {y: 2, z: 2}\nc:\n  <<: [*a, *b]\n  x: 0\n';
    expect(parseComposeText(text).data.c).toEqual({ x: 0, y: 1, z: 2 });
  });

  test('an empty or comments-only text is an empty model', () => {
    expect(parseComposeText('').data).toEqual({});
    expect(parseComposeText('# nothing yet\n').data).toEqual({});
  });

  test('syntax errors give line and column and no path', () => {
    expect(() => parseComposeText('services:\n  web: [nginx\n')).toThrow(invalid(undefined));
    expect(() => parseComposeText('services:\n  web: [nginx\n')).toThrow(/line \d+, column \d+/);
    expect(() => parseComposeText('a: 1\na: 2\n')).toThrow(/unique.*line 2, column 1/);
  });

  test('refuses what JSON or Compose cannot hold', () => {
    expect(() => parseComposeText('a: 1\n---\nb: 2\n')).toThrow(invalid(undefined));
    expect(() => parseComposeText('- a\n- b\n')).toThrow(/root must be a mapping/);
    expect(() => parseComposeText('services: {web: {x: !custom 1}}')).toThrow(invalid('services.web.x'));
    expect(() => parseComposeText('x: !!binary aGk=')).toThrow(invalid('x'));
    expect(() => parseComposeText('x: .inf')).toThrow(invalid('x'));
    expect(() => parseComposeText('? [a, b]\n: c\n')).toThrow(/keys must be scalars/);
    expect(() => parseComposeText('x: *nowhere')).toThrow(invalid('x'));
    expect(() => parseComposeText('a: &a {b: *a}')).toThrow(/refers to a node that contains it/);
  });
});

describe('composeToText', () => {
  test('returns the saved text while it still represents the data, whatever the key order', () => {
    const text = '# header\nservices:\n  web:\n    image: nginx\n    restart: always\n';
    const saved = parseComposeText(text);
    const reordered: JsonObject = { services: { web: { restart: 'always', image: 'nginx' } } };
    expect(composeToText({ ...saved, data: reordered })).toBe(text);
  });

  test('regenerates YAML when there is no saved text', () => {
    const data: JsonObject = { services: { web: { image: 'nginx', ports: ['8080:80'], user: { $override: '1000' } } } };
    const text = composeToText({ version: 1, data, presentation: { yaml: '' } });
    expect(text).toContain('user: !override "1000"');
    expect(parseComposeText(text).data).toEqual(data);
  });
});

describe('edits made through JSON', () => {
  const base = [
    '# Shop',
    'services:',
    '  web: # the storefront',
    '    image: shop:1.0 # bumped by CI',
    '    ports:',
    '      - "8080:80" # http',
    '      - "8443:443" # https',
    '    environment:',
    '      # feature flags',
    '      FLAG_A: "on"',
    '    x-mode: 0640',
    '  # background jobs',
    '  worker:',
    '    image: shop:1.0',
    '',
  ].join('\n');

  test('changing a scalar keeps its comment and every other one', () => {
    const text = editText(base, (data) => {
      data.services.web.image = 'shop:1.1';
    });
    expect(text).toContain('image: shop:1.1 # bumped by CI');
    for (const comment of ['# Shop', '# the storefront', '# http', '# https', '# feature flags', '# background jobs']) {
      expect(text).toContain(comment);
    }
    expect(text).toContain('x-mode: 0640');
  });

  test('inserting a sequence item keeps the comments on the items around it', () => {
    const text = editText(base, (data) => {
      data.services.web.ports.splice(1, 0, '9090:90');
    });
    expect(text).toContain('"8080:80" # http');
    expect(text).toContain('"8443:443" # https');
    expect(text.indexOf('9090:90')).toBeGreaterThan(text.indexOf('# http'));
    expect(text.indexOf('9090:90')).toBeLessThan(text.indexOf('# https'));
  });

  test('removing a service keeps the comments of the others', () => {
    const text = editText(base, (data) => {
      delete data.services.worker;
    });
    expect(text).not.toContain('worker');
    expect(text).toContain('image: shop:1.0 # bumped by CI');
  });

  test('adding keys appends them after the existing ones', () => {
    const text = editText(base, (data) => {
      data.services.web.environment.FLAG_B = 'off';
      data.volumes = { data: {} };
    });
    expect(text.indexOf('FLAG_B')).toBeGreaterThan(text.indexOf('FLAG_A'));
    expect(text.trimEnd().endsWith('data: {}')).toBe(true);
  });

  test('tag markers are written back as YAML tags', () => {
    const text = editText(base, (data) => {
      data.services.web.ports = { $reset: [] };
      data.services.worker.image = { $override: 'shop:2.0' };
    });
    expect(text).toContain('ports: !reset []');
    expect(text).toContain('image: !override shop:2.0');
  });

  test('a service built with a merge key keeps it; an edit becomes an own key', () => {
    const anchored = 'x-base: &base\n  image: app\n  restart: always\nservices:\n  web:\n    <<: *base\n    command: serve # main\n';
    const text = editText(anchored, (data) => {
      data.services.web.restart = 'no';
    });
    expect(text).toContain('<<: *base');
    expect(text).toContain('command: serve # main');
    expect(text).toContain('restart: no');
  });

  test('an alias whose value changes at one place is expanded there only', () => {
    const aliased = 'x-log: &log {driver: local}\nservices:\n  a: {image: a, logging: *log}\n  b: {image: b, logging: *log}\n';
    const text = editText(aliased, (data) => {
      data.services.b.logging = { driver: 'syslog' };
    });
    expect(text).toContain('logging: *log');
    expect(text).toContain('driver: syslog');
  });

  test('fromJson keeps the editor view and needs no previous document', () => {
    const saved = parseComposeText('services: {web: {image: a}}', { editorView: 'form' });
    expect(fromJson({ services: { web: { image: 'b' } } }, saved).presentation.editorView).toBe('form');
    const fresh = fromJson({ services: { web: { image: 'b' } } });
    expect(parseComposeText(fresh.presentation.yaml).data).toEqual({ services: { web: { image: 'b' } } });
  });

  test('fromJson refuses what is not a JSON mapping', () => {
    expect(() => fromJson(['x'])).toThrow(invalid());
    expect(() => fromJson({ a: Number.NaN })).toThrow(invalid('a'));
    expect(() => fromJson({ a: new Date() })).toThrow(invalid('a'));
  });
});

describe('stringifyComposeModel', () => {
  test('quotes strings other YAML readers would take for numbers or booleans', () => {
    const text = stringifyComposeModel({ services: { web: { ports: ['2222:22'], environment: { A: 'yes', B: '0644' } } } });
    expect(text).toContain('"2222:22"');
    expect(text).toContain('A: "yes"');
    expect(text).toContain('B: "0644"');
  });
});
