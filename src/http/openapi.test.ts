/**
 * The API description as third-party tooling reads it (issue 14 §5, issue 15): the operations it
 * listed before the contract work are all still there, `@redocly/cli lint` (recommended rules)
 * finds no error and no warning but the exceptions test/fixtures/redocly.lint-ignore.yaml lists
 * with their reasons, and what clients rely on is stated: security, servers, the answers of every
 * JSON body, nullable fields, optional bodies. That every answer of the API tests matches its
 * documented schema is checked by test/harness.ts on each request (test/api-description.ts).
 */
import { describe, expect, test } from 'bun:test';
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Elysia } from 'elysia';
import * as v from 'valibot';
import before from '../../test/fixtures/openapi-operations-before.json' with { type: 'json' };
import { createTestApp } from '../../test/harness.ts';

type Json = Record<string, any>;
const ROOT = join(import.meta.dir, '..', '..');

async function describedApi(): Promise<Json> {
  const res = await createTestApp().request('GET', '/api/openapi.json');
  expect(res.status).toBe(200);
  return res.json;
}

const operationsOf = (document: Json) =>
  Object.entries(document.paths as Json).flatMap(([path, item]) => Object.entries(item as Json).map(([method, operation]) => ({ method, path, operation: operation as Json })));

/** The `code` values an error response of `operation` documents for `status`. */
const codesOf = (operation: Json, status: number): string[] =>
  operation.responses?.[status]?.content?.['application/json']?.schema?.properties?.error?.properties?.code?.enum ?? [];

describe('the API description', () => {
  test('lists every operation it listed before the contract work (test/fixtures), with every status; it may only gain', async () => {
    const document = await describedApi();
    const now = new Map(operationsOf(document).map(({ method, path, operation }) => [`${method.toUpperCase()} ${path}`, Object.keys(operation.responses ?? {})]));
    const lost = Object.entries(before as Record<string, string[]>).flatMap(([operation, statuses]) => {
      const current = now.get(operation);
      if (!current) return [`${operation}: gone`];
      return statuses.filter((status) => !current.includes(status)).map((status) => `${operation}: no ${status}`);
    });
    expect(lost).toEqual([]);
    expect(Object.keys(before).length).toBe(132);
    expect(now.size).toBeGreaterThanOrEqual(132);
  });

  test('@redocly/cli lint with its recommended rules: 0 errors, 0 warnings beyond the exceptions listed with their reasons', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'panel-openapi-'));
    try {
      const file = join(directory, 'openapi.json');
      writeFileSync(file, JSON.stringify(await describedApi()));
      copyFileSync(join(ROOT, 'test', 'fixtures', 'redocly.lint-ignore.yaml'), join(directory, '.redocly.lint-ignore.yaml'));
      const cli = join(ROOT, 'node_modules', '@redocly', 'cli', 'bin', 'cli.js');
      const lint = Bun.spawnSync(['node', cli, 'lint', file, '--format=json'], { cwd: directory, env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' } });
      const output = lint.stdout.toString();
      const report = JSON.parse(output.slice(output.indexOf('{'))) as {
        totals: { errors: number; warnings: number; ignored: number };
        problems: { ruleId: string; severity: string; message: string; ignored?: boolean }[];
      };
      expect(report.problems.filter((problem) => !problem.ignored)).toEqual([]);
      expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  }, 60_000);

  test('declares the security schemes, each operation’s security and the server', async () => {
    const document = await describedApi();
    expect(Object.keys(document.components.securitySchemes).sort()).toEqual(['apiToken', 'daemonCredential', 'joinToken', 'sessionCookie']);
    expect(document.servers).toEqual([{ url: 'http://127.0.0.1:3000', description: expect.stringContaining('PANEL_PUBLIC_URL') }]);
    const securityOf = (method: string, path: string) => document.paths[path][method].security;
    for (const { method, path, operation } of operationsOf(document)) expect({ method, path, hasSecurity: Array.isArray(operation.security) }).toEqual({ method, path, hasSecurity: true });
    expect(securityOf('post', '/api/client/v1/projects')).toEqual([{ sessionCookie: [] }, { apiToken: [] }]);
    expect(securityOf('post', '/api/admin/v1/secrets/reencrypt')).toEqual([{ sessionCookie: [] }]);
    expect(securityOf('post', '/api/client/v1/auth/sign-in')).toEqual([]);
    expect(securityOf('post', '/api/client/v1/invitations/accept')).toEqual([{}, { sessionCookie: [] }]);
    expect(securityOf('get', '/api/daemon/v1/executable/{file}')).toEqual([{}, { joinToken: [] }]);
    expect(document.info.description).toContain('Authentication:');
  });

  test('every operation with a JSON body documents 400 invalid_json, 413, 415 and 422', async () => {
    const withBodies = operationsOf(await describedApi()).filter(({ operation }) => operation.requestBody);
    expect(withBodies.length).toBeGreaterThan(50);
    for (const { method, path, operation } of withBodies) {
      const documented = [...codesOf(operation, 400), ...codesOf(operation, 413), ...codesOf(operation, 415), ...codesOf(operation, 422)];
      expect({ method, path, documented: ['invalid_json', 'payload_too_large', 'unsupported_media_type', 'validation_failed'].every((code) => documented.includes(code)) }).toEqual({
        method,
        path,
        documented: true,
      });
    }
  });

  test('nullable fields admit null (hosting.protocol, server.flag, every nullable enum)', async () => {
    const document = await describedApi();
    const answer = (path: string) => document.paths[path].get.responses['200'].content['application/json'].schema;
    expect(answer('/api/client/v1/hostings/{id}').properties.protocol.enum).toContain(null);
    expect(answer('/api/client/v1/servers/{id}').properties.flag.enum).toContain(null);
    const refusingNull: string[] = [];
    const walk = (node: unknown, where: string) => {
      if (Array.isArray(node)) return node.forEach((item, index) => walk(item, `${where}/${index}`));
      if (node === null || typeof node !== 'object') return;
      const schema = node as Json;
      if (Array.isArray(schema.enum) && Array.isArray(schema.type) && schema.type.includes('null') && !schema.enum.includes(null)) refusingNull.push(where);
      for (const [key, value] of Object.entries(schema)) walk(value, `${where}/${key}`);
    };
    walk(document, '#');
    expect(refusingNull).toEqual([]);
  });

  test('deploy, stop and destroy take an optional body', async () => {
    const { paths } = await describedApi();
    for (const action of ['deploy', 'stop', 'destroy']) {
      const body = paths[`/api/client/v1/environments/{id}/${action}`].post.requestBody;
      expect({ action, required: body.required }).toEqual({ action, required: false });
    }
  });

  test('the error codes of each operation come from the catalog, described one by one', async () => {
    const { paths } = await describedApi();
    const signIn = paths['/api/client/v1/auth/sign-in'].post.responses['401'];
    expect(signIn.content['application/json'].schema.properties.error.properties.code.enum).toEqual(expect.arrayContaining(['unauthenticated', 'invalid_credentials']));
    expect(signIn.description).toContain('`invalid_credentials`: ');
  });
});

describe('answers are checked against the description (test/api-description.ts)', () => {
  test('an answer its documented schema refuses fails the request', async () => {
    const t = createTestApp();
    // A Response object, which Elysia does not validate: drift only the description check sees.
    const drifted = () => new Response(JSON.stringify({ name: 7 }), { headers: { 'content-type': 'application/json' } });
    t.app.use(new Elysia().get('/api/client/v1/test-drift', drifted as never, { response: { 200: v.object({ name: v.string() }) } }));
    await expect(t.request('GET', '/api/client/v1/test-drift')).rejects.toThrow('with a body its description refuses: /name');
  });

  test('a status its description does not list fails the request', async () => {
    const t = createTestApp();
    t.app.use(
      new Elysia().get(
        '/api/client/v1/test-status',
        ({ set }) => {
          set.status = 202;
          return { name: 'x' };
        },
        { response: { 200: v.object({ name: v.string() }) } },
      ),
    );
    await expect(t.request('GET', '/api/client/v1/test-status')).rejects.toThrow('answered 202, which its description does not list');
  });
});
