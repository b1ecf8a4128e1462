import { describe, expect, test } from 'bun:test';
import { mergedPreview, parseText, placeOf } from './text.ts';

const BASE = `services:
  web:
    image: nginx:1.27
    labels:
      traefik.http.routers.web.rule: Host(\`example.test\`)
    ports:
      - "8080:80"
      - "8443:443"
`;

describe('placing Compose errors in the text', () => {
  test('reads "at line L, column C" from the message', () => {
    expect(placeOf(BASE, 'YAML syntax error: bad indentation at line 4, column 7')).toEqual({ line: 4, column: 7 });
  });

  test('follows a path to the deepest key or item it reaches', () => {
    expect(placeOf(BASE, 'must be a string', 'services.web.image')).toEqual({ line: 3, column: 5 });
    expect(placeOf(BASE, 'port in use', 'services.web.ports.1')).toEqual({ line: 8, column: 9 });
    expect(placeOf(BASE, 'unknown key', 'services.web.ports.7')).toEqual({ line: 6, column: 5 });
    expect(placeOf(BASE, 'missing', 'services.db')).toEqual({ line: 1, column: 1 });
  });

  test('matches keys that hold dots, and the API body prefix of the document', () => {
    expect(placeOf(BASE, 'bad rule', 'services.web.labels.traefik.http.routers.web.rule')).toEqual({ line: 5, column: 7 });
    expect(placeOf(BASE, 'must be a string', 'options.compose.data.services.web.image')).toEqual({ line: 3, column: 5 });
  });

  test('cannot place an error without a path or with a path outside the document', () => {
    expect(placeOf(BASE, 'the document root must be a mapping')).toEqual({});
    expect(placeOf(BASE, 'must be 1', 'options.compose.version')).toEqual({});
    expect(placeOf(BASE, 'nope', 'volumes')).toEqual({});
  });
});

describe('parsing and the merged preview', () => {
  test('parses as the server does and keeps the editor view in the presentation', () => {
    const parsed = parseText(BASE, 'split');
    expect(parsed.document?.presentation).toEqual({ editorView: 'split', yaml: BASE });
    expect(parsed.document?.data).toMatchObject({ services: { web: { image: 'nginx:1.27' } } });
  });

  test('places a syntax error at its line', () => {
    expect(parseText('services:\n  web: [nginx\n', 'yaml').problem).toMatchObject({ line: 3, column: 1 });
  });

  test('merges the overlay onto the base, honouring !reset and !override', () => {
    const overlay = 'services:\n  web:\n    image: nginx:1.28\n    labels: !reset null\n    ports: !override\n      - "9090:80"\n';
    const preview = mergedPreview(BASE, overlay);
    expect(preview.text).toBe('services:\n  web:\n    image: nginx:1.28\n    ports:\n      - 9090:80\n');
  });

  test('says which document does not parse', () => {
    expect(mergedPreview(BASE, 'services: [').problem?.message).toStartWith('The overlay does not parse');
    expect(mergedPreview('- a list', '').problem?.message).toStartWith('The base does not parse');
  });
});
