import { describe, expect, test } from 'bun:test';
import { createHmac, generateKeyPairSync, type KeyObject, sign } from 'node:crypto';
import { type Jwk, verifyJws } from './jwt.ts';

const b64 = (value: unknown) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');

function keyPair(kind: 'ES256' | 'RS256', bits = 2048) {
  const { privateKey, publicKey } = kind === 'ES256' ? generateKeyPairSync('ec', { namedCurve: 'P-256' }) : generateKeyPairSync('rsa', { modulusLength: bits });
  return { privateKey, jwk: publicKey.export({ format: 'jwk' }) as Jwk };
}

function jws(header: Record<string, unknown>, payload: Record<string, unknown>, key: KeyObject, encoding: 'ieee-p1363' | 'der' = 'ieee-p1363') {
  const input = `${b64(header)}.${b64(payload)}`;
  const signature = header.alg === 'ES256' ? sign('sha256', Buffer.from(input), { key, dsaEncoding: encoding }) : sign('sha256', Buffer.from(input), key);
  return `${input}.${signature.toString('base64url')}`;
}

describe('ID token signatures', () => {
  const es = keyPair('ES256');
  const rs = keyPair('RS256');
  const keys: Jwk[] = [{ ...es.jwk, kid: 'ec1', use: 'sig' }, { ...rs.jwk, kid: 'rsa1', alg: 'RS256' }];

  test('ES256 and RS256 verify with the key of their kid', () => {
    expect(verifyJws(jws({ alg: 'ES256', kid: 'ec1' }, { sub: 'a' }, es.privateKey), keys)).toMatchObject({ ok: true, payload: { sub: 'a' } });
    expect(verifyJws(jws({ alg: 'RS256', kid: 'rsa1' }, { sub: 'b' }, rs.privateKey), keys)).toMatchObject({ ok: true, payload: { sub: 'b' } });
    // Without a kid, any fitting key may verify.
    expect(verifyJws(jws({ alg: 'ES256' }, { sub: 'c' }, es.privateKey), keys).ok).toBe(true);
  });

  test('refused: another key, unknown kid, the kid of a key of another type', () => {
    const other = keyPair('ES256');
    expect(verifyJws(jws({ alg: 'ES256', kid: 'ec1' }, {}, other.privateKey), keys)).toEqual({ ok: false, reason: 'bad_signature' });
    expect(verifyJws(jws({ alg: 'ES256', kid: 'nope' }, {}, es.privateKey), keys)).toEqual({ ok: false, reason: 'unknown_key' });
    expect(verifyJws(jws({ alg: 'ES256', kid: 'rsa1' }, {}, es.privateKey), keys)).toEqual({ ok: false, reason: 'unknown_key' });
  });

  test('algorithm confusion: none, HS256 keyed with the public key, and steering headers are refused', () => {
    const input = `${b64({ alg: 'none' })}.${b64({ sub: 'x' })}`;
    expect(verifyJws(`${input}.`, keys).ok).toBe(false);
    expect(verifyJws(`${input}.AAAA`, keys)).toEqual({ ok: false, reason: 'unsupported' });
    const hsInput = `${b64({ alg: 'HS256', kid: 'rsa1' })}.${b64({ sub: 'x' })}`;
    const mac = createHmac('sha256', JSON.stringify(rs.jwk)).update(hsInput).digest('base64url');
    expect(verifyJws(`${hsInput}.${mac}`, keys)).toEqual({ ok: false, reason: 'unsupported' });
    for (const extra of [{ jwk: es.jwk }, { jku: 'https://evil.example/keys' }, { x5u: 'https://evil.example' }, { crit: ['exp'] }]) {
      expect(verifyJws(jws({ alg: 'ES256', kid: 'ec1', ...extra }, {}, es.privateKey), keys)).toEqual({ ok: false, reason: 'unsupported' });
    }
  });

  test('refused: a key declared for encryption or another algorithm, an RSA key under 2048 bits, a DER ES256 signature', () => {
    expect(verifyJws(jws({ alg: 'ES256', kid: 'e' }, {}, es.privateKey), [{ ...es.jwk, kid: 'e', use: 'enc' }]).ok).toBe(false);
    expect(verifyJws(jws({ alg: 'RS256', kid: 'r' }, {}, rs.privateKey), [{ ...rs.jwk, kid: 'r', alg: 'PS256' }]).ok).toBe(false);
    const small = keyPair('RS256', 1024);
    expect(verifyJws(jws({ alg: 'RS256', kid: 's' }, {}, small.privateKey), [{ ...small.jwk, kid: 's' }])).toEqual({ ok: false, reason: 'bad_signature' });
    expect(verifyJws(jws({ alg: 'ES256', kid: 'ec1' }, {}, es.privateKey, 'der'), keys)).toEqual({ ok: false, reason: 'bad_signature' });
  });

  test('malformed tokens', () => {
    for (const token of ['', 'a.b', 'a.b.c.d', `${b64('not json')}.${b64({})}.AAAA`, `${b64({ alg: 'ES256' })}.${b64([1])}.AAAA`, `${b64({ alg: 'ES256' })}.${b64({})}.AA+A`]) {
      expect(verifyJws(token, keys).ok).toBe(false);
    }
  });
});
