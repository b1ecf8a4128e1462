/**
 * L1 of the security review: X-Forwarded-For was believed from any loopback peer, so a client
 * could pick its own rate-limit bucket and spoof the address a session records. It is believed
 * only from proxies named in PANEL_TRUSTED_PROXIES, never by default.
 */
import { afterEach, describe, expect, test } from 'bun:test';
import { rateLimit } from '../../db/schema/index.ts';
import { createTestApp, type TestApp } from '../../../test/harness.ts';
import { resolveClientAddress } from './client-address.ts';

describe('resolveClientAddress', () => {
  test('without trusted proxies the peer is the client, whatever the header says', () => {
    expect(resolveClientAddress('127.0.0.1', '203.0.113.9', [])).toBe('127.0.0.1');
    expect(resolveClientAddress('::ffff:192.0.2.1', '203.0.113.9', [])).toBe('192.0.2.1');
    expect(resolveClientAddress(null, '203.0.113.9', ['127.0.0.1'])).toBe('local');
  });

  test('an untrusted peer cannot name a client', () => {
    expect(resolveClientAddress('198.51.100.4', '203.0.113.9', ['10.0.0.0/8'])).toBe('198.51.100.4');
  });

  test('a trusted peer names the client: the rightmost address that is not a trusted proxy', () => {
    const trusted = ['127.0.0.1', '10.0.0.0/8', 'fd00::/8'];
    expect(resolveClientAddress('127.0.0.1', '203.0.113.9', trusted)).toBe('203.0.113.9');
    // A client's own forged entries sit left of what the proxies appended: ignored.
    expect(resolveClientAddress('127.0.0.1', '1.1.1.1, 203.0.113.9, 10.1.2.3', trusted)).toBe('203.0.113.9');
    expect(resolveClientAddress('fd00::5', '2001:db8::7', trusted)).toBe('2001:db8::7');
    // Only trusted hops: the leftmost one. A non-address entry stops at the last trusted hop.
    expect(resolveClientAddress('127.0.0.1', '10.0.0.9, 10.0.0.8', trusted)).toBe('10.0.0.9');
    expect(resolveClientAddress('127.0.0.1', 'evil, 10.0.0.8', trusted)).toBe('10.0.0.8');
    expect(resolveClientAddress('127.0.0.1', '', trusted)).toBe('127.0.0.1');
  });
});

const ENROLL = '/api/daemon/v1/enroll';
const wrongEnrollment = { token: 'pnj_wrong', hostname: 'h', machineId: 'm', publicKey: 'A'.repeat(43), keyId: 'dk_1' };
const bucketsOf = (t: TestApp) => [...new Set(t.db.select().from(rateLimit).all().map((row) => row.key))];

describe('the per-address limits over HTTP', () => {
  const cleanups: (() => unknown)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup();
  });

  test('by default a spoofed X-Forwarded-For neither picks a bucket nor escapes the limit', async () => {
    const t = createTestApp();
    for (let i = 0; i < 20; i++) {
      expect((await t.request('POST', ENROLL, wrongEnrollment, { 'x-forwarded-for': `203.0.113.${i}` })).status).toBe(401);
    }
    expect((await t.request('POST', ENROLL, wrongEnrollment, { 'x-forwarded-for': '198.51.100.1' })).status).toBe(429);
    expect(bucketsOf(t)).toEqual(['enroll:address:127.0.0.1']);
  });

  test('on a real socket: the peer address by default, the forwarded one only from a configured proxy', async () => {
    for (const [trustedProxies, expected] of [
      [[], 'enroll:address:127.0.0.1'],
      [['127.0.0.0/8'], 'enroll:address:203.0.113.50'],
    ] as const) {
      const t = createTestApp({ trustedProxies });
      const server = t.app.listen({ hostname: '127.0.0.1', port: 0, reusePort: false });
      cleanups.push(() => server.stop(true));
      const res = await fetch(`http://127.0.0.1:${server.server!.port}${ENROLL}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': '203.0.113.50' },
        body: JSON.stringify(wrongEnrollment),
      });
      expect(res.status).toBe(401);
      expect(bucketsOf(t)).toEqual([expected]);
    }
  });
});
