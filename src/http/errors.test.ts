import { describe, expect, test } from 'bun:test';
import { ERROR_CATALOG, ERROR_CODES } from '../contract/errors.ts';
import { DomainError } from '../lib/errors.ts';
import { silentLogger } from '../lib/logger.ts';
import { createTestApp } from '../../test/harness.ts';
import { toErrorResponse } from './errors.ts';

describe('the error catalog', () => {
  test('every code is snake_case with an HTTP error status and a condition', () => {
    for (const code of ERROR_CODES) {
      const { status, when } = ERROR_CATALOG[code];
      expect({ code, snake: /^[a-z]+(_[a-z]+)*$/.test(code), status: status >= 400 && status < 600, when: when.length > 10 }).toEqual({
        code,
        snake: true,
        status: true,
        when: true,
      });
    }
  });

  test('a DomainError takes its status from the catalog', () => {
    expect(new DomainError('project_name_in_use', 'taken', 'name').status).toBe(409);
    expect(new DomainError('wrong_code', 'no').status).toBe(422);
    expect(new DomainError('invalid_code', 'no').status).toBe(401);
  });
});

describe('the error mapper', () => {
  test('answers the catalog status and the one body, with Retry-After for a wait', () => {
    const limited = toErrorResponse(new DomainError('rate_limited', 'slow down', undefined, 42), undefined, 'r1', silentLogger);
    expect(limited).toEqual({
      status: 429,
      headers: { 'retry-after': '42' },
      body: { error: { code: 'rate_limited', message: 'slow down', requestId: 'r1' } },
    });
    const conflict = toErrorResponse(new DomainError('name_in_use', 'taken', 'name'), undefined, 'r2', silentLogger);
    expect(conflict).toEqual({ status: 409, headers: {}, body: { error: { code: 'name_in_use', message: 'taken', path: 'name', requestId: 'r2' } } });
  });

  test('anything else is 500 internal_error without detail', () => {
    const answer = toErrorResponse(new Error('secret detail'), undefined, 'r3', silentLogger);
    expect(answer).toEqual({ status: 500, headers: {}, body: { error: { code: 'internal_error', message: 'internal error', requestId: 'r3' } } });
  });
});

describe('the API description', () => {
  test('lists per operation the codes it answers, grouped by their status, with their conditions', async () => {
    const t = createTestApp();
    const { paths } = (await t.request('GET', '/api/openapi.json')).json;
    const conflict = paths['/api/client/v1/projects/{id}'].patch.responses[409];
    const schema = conflict.content['application/json'].schema;
    expect(schema.properties.error.properties.code.enum).toContain('project_name_in_use');
    expect(conflict.description).toContain(ERROR_CATALOG.project_name_in_use.when);
    const notFound = paths['/api/client/v1/projects/{id}'].get.responses[404].content['application/json'].schema;
    expect(notFound.properties.error.properties.code.enum).toEqual(['not_found']);
  });
});
