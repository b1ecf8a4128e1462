import { describe, expect, test } from 'bun:test';
import { createTestApp } from '../../../../test/harness.ts';

const V1 = '/api/client/v1';
const TAGGABLES = ['servers', 'workspaces', 'projects', 'environments', 'services', 'datacenters', 'storages'];

/** Path -> method -> the error statuses the route documents. */
const EXPECTED: Record<string, Record<string, number[]>> = {
  [`${V1}/organizations`]: { get: [401, 422] },
  [`${V1}/organizations/{id}`]: { get: [401, 404, 422], patch: [401, 403, 404, 422] },
  [`${V1}/services`]: { get: [401, 404, 422] },
  [`${V1}/services/{id}`]: { get: [401, 404, 422], patch: [401, 403, 404, 422], delete: [401, 403, 404, 409, 422] },
  [`${V1}/servers`]: { get: [401, 404, 422] },
  [`${V1}/servers/{id}`]: { get: [401, 404, 422], patch: [401, 403, 404, 422], delete: [401, 403, 404, 409, 422] },
  [`${V1}/markers`]: { get: [401, 404, 422] },
  ...Object.fromEntries(['workspaces', 'projects', 'environments', 'hostings', 'containers', 'tags'].flatMap((collection) => [
    [`${V1}/${collection}`, { get: [401, 404, 422], post: [401, 403, 404, 422] }],
    [`${V1}/${collection}/{id}`, { get: [401, 404, 422], patch: [401, 403, 404, 422], delete: [401, 403, 404, 422] }],
  ])),
  ...Object.fromEntries(TAGGABLES.map((collection) => [`${V1}/${collection}/{id}/tags`, { get: [401, 404, 422], put: [401, 403, 404, 422] }])),
};

describe('OpenAPI description of the resource routes', () => {
  test('documents every route with its request body and error statuses', async () => {
    const t = createTestApp();
    const { paths } = (await t.request('GET', '/api/openapi.json')).json;
    for (const [path, methods] of Object.entries(EXPECTED)) {
      for (const [method, statuses] of Object.entries(methods)) {
        const operation = paths[path]?.[method];
        expect(operation, `${method.toUpperCase()} ${path}`).toBeDefined();
        for (const status of statuses) expect(operation.responses[status], `${method} ${path} ${status}`).toBeDefined();
        if (['post', 'patch', 'put'].includes(method)) {
          expect(operation.requestBody.content['application/json'].schema.type, `${method} ${path} body`).toBe('object');
        }
      }
    }
  });
});

describe('OpenAPI description of the recent sign-in rule', () => {
  test('every route under it documents 403 with reauthentication_required', async () => {
    const t = createTestApp();
    const { paths } = (await t.request('GET', '/api/openapi.json')).json;
    const routes: [string, string][] = [
      [`${V1}/auth/passkeys/register/options`, 'post'],
      [`${V1}/auth/passkeys/register/verify`, 'post'],
      [`${V1}/auth/passkeys/{id}`, 'delete'],
      [`${V1}/api-tokens`, 'post'],
      [`${V1}/auth/totp/enrol`, 'post'],
      [`${V1}/auth/totp/confirm`, 'post'],
      [`${V1}/auth/password`, 'post'],
    ];
    for (const [path, method] of routes) {
      const operation = paths[path]?.[method];
      expect({ path, method, documented: operation?.responses?.[403] !== undefined }).toEqual({ path, method, documented: true });
      expect(operation.description, `${method} ${path}`).toContain('reauthentication_required');
    }
  });
});
