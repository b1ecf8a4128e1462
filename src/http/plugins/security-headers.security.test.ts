/**
 * L5 of the security review: API responses and /api/reference carried no nosniff, framing or
 * referrer policy, and an https Panel sent no HSTS. Every response now carries them; the
 * console's page keeps its own stricter policy.
 */
import { describe, expect, test } from 'bun:test';
import { createTestApp } from '../../../test/harness.ts';
import { createOwner } from '../../../test/identity.ts';
import { HSTS } from './security-headers.ts';

const EXPECTED = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'content-security-policy': "frame-ancestors 'none'",
};

const headersOf = (headers: Headers, names: string[]) => Object.fromEntries(names.map((name) => [name, headers.get(name)]));

describe('security headers', () => {
  test('API answers, errors included, the API description and the reference viewer carry them', async () => {
    const t = createTestApp();
    const owner = createOwner(t);
    const answers = [
      await t.request('GET', '/api/health'),
      await t.request('GET', `/api/client/v1/workspaces?organizationId=${owner.organizationId}`, undefined, owner.headers),
      await t.request('GET', `/api/client/v1/workspaces?organizationId=${owner.organizationId}`),
      await t.request('POST', '/api/daemon/v1/enroll', '{'),
      await t.request('GET', '/api/no-such-route'),
      await t.request('GET', '/api/openapi.json'),
      await t.request('GET', '/api/reference'),
    ];
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 401, 400, 404, 200, 200]);
    for (const answer of answers) {
      expect(headersOf(answer.headers, Object.keys(EXPECTED))).toEqual(EXPECTED);
      expect(answer.headers.get('strict-transport-security')).toBeNull();
    }
  });

  test('HSTS when the public URL is https', async () => {
    const t = createTestApp({ publicUrl: 'https://panel.example.com' });
    for (const path of ['/api/health', '/api/reference', '/api/no-such-route']) {
      expect((await t.request('GET', path)).headers.get('strict-transport-security')).toBe(HSTS);
    }
  });

  test("the console's page keeps its own stricter policy, which also refuses framing", async () => {
    const t = createTestApp();
    const page = await t.request('GET', '/');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
  });
});
