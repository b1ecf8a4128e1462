import { describe, expect, test } from 'bun:test';
import { codeChallengeS256, newCodeVerifier, newNonce } from './pkce.ts';

describe('PKCE', () => {
  test('S256 matches RFC 7636 Appendix B', () => {
    expect(codeChallengeS256('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk')).toBe('E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM');
  });

  test('verifiers and nonces: 43 unreserved characters (256 bits), never repeated', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 100; i++) {
      for (const value of [newCodeVerifier(), newNonce()]) {
        expect(value).toMatch(/^[A-Za-z0-9_-]{43}$/);
        seen.add(value);
      }
    }
    expect(seen.size).toBe(200);
  });
});
