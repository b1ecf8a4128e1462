import { describe, expect, test } from 'bun:test';
import { generateTotpSecret, matchTotp, totpCode, totpStep, totpUri } from './totp.ts';

const base32 = (ascii: string) => {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = '';
  for (const byte of Buffer.from(ascii, 'ascii')) bits += byte.toString(2).padStart(8, '0');
  return (bits.match(/.{1,5}/g) ?? []).map((chunk) => alphabet[parseInt(chunk.padEnd(5, '0'), 2)]).join('');
};

/** RFC 6238 Appendix B: 8-digit codes; the seeds are the ASCII strings of the reference code. */
const SEEDS = {
  SHA1: base32('12345678901234567890'),
  SHA256: base32('12345678901234567890123456789012'),
  SHA512: base32('1234567890123456789012345678901234567890123456789012345678901234'),
} as const;

const VECTORS: [seconds: number, sha1: string, sha256: string, sha512: string][] = [
  [59, '94287082', '46119246', '90693936'],
  [1111111109, '07081804', '68084774', '25091201'],
  [1111111111, '14050471', '67062674', '99943326'],
  [1234567890, '89005924', '91819424', '93441116'],
  [2000000000, '69279037', '90698825', '38618901'],
  [20000000000, '65353130', '77737706', '47863826'],
];

describe('TOTP', () => {
  test('RFC 6238 test vectors (SHA1, SHA256, SHA512)', () => {
    for (const [seconds, sha1, sha256, sha512] of VECTORS) {
      const at = new Date(seconds * 1000);
      expect(totpCode(SEEDS.SHA1, at, { digits: 8 })).toBe(sha1);
      expect(totpCode(SEEDS.SHA256, at, { digits: 8, algorithm: 'SHA256' })).toBe(sha256);
      expect(totpCode(SEEDS.SHA512, at, { digits: 8, algorithm: 'SHA512' })).toBe(sha512);
    }
  });

  test('six-digit codes are the last six digits of the RFC values', () => {
    expect(totpCode(SEEDS.SHA1, new Date(59_000))).toBe('287082');
    expect(totpCode(SEEDS.SHA1, new Date(1111111109_000))).toBe('081804');
  });

  test('matching accepts ±1 step, reports the step, and refuses steps already used', () => {
    const secret = generateTotpSecret();
    const now = new Date(1_700_000_000_000);
    const step = totpStep(now);
    const at = (delta: number) => new Date(now.getTime() + delta * 30_000);
    expect(matchTotp(secret, totpCode(secret, now), now, null)).toBe(step);
    expect(matchTotp(secret, totpCode(secret, at(-1)), now, null)).toBe(step - 1);
    expect(matchTotp(secret, totpCode(secret, at(1)), now, null)).toBe(step + 1);
    expect(matchTotp(secret, totpCode(secret, at(-2)), now, null)).toBeNull();
    expect(matchTotp(secret, totpCode(secret, at(2)), now, null)).toBeNull();
    expect(matchTotp(secret, totpCode(secret, now), now, step)).toBeNull();
    expect(matchTotp(secret, totpCode(secret, at(1)), now, step)).toBe(step + 1);
    expect(matchTotp(secret, ` ${totpCode(secret, now).slice(0, 3)} ${totpCode(secret, now).slice(3)} `, now, null)).toBe(step);
    expect(matchTotp(secret, 'abcdef', now, null)).toBeNull();
    expect(matchTotp(secret, '1234567', now, null)).toBeNull();
  });

  test('secrets are 160 random bits; the URI names the issuer and account', () => {
    const secret = generateTotpSecret();
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(generateTotpSecret()).not.toBe(secret);
    const uri = new URL(totpUri(secret, 'alice@example.test'));
    expect(`${uri.protocol}//${uri.host}${decodeURIComponent(uri.pathname)}`).toBe('otpauth://totp/Panel:alice@example.test');
    expect(Object.fromEntries(uri.searchParams)).toMatchObject({ secret, issuer: 'Panel', algorithm: 'SHA1', digits: '6', period: '30' });
  });
});
