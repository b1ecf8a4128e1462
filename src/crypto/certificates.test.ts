import { describe, expect, test } from 'bun:test';
import { generateKeyPairSync } from 'node:crypto';
import { rsaKey, serverCertificate, testCa } from '../../test/certificates.ts';
import { CertificateError, chainPem, checkCertificate, readCertificateChain, readPrivateKey } from './certificates.ts';

const DAY_MS = 86_400_000;
const now = () => new Date();

function refusal(run: () => unknown): { field: string; message: string } {
  try {
    run();
  } catch (error) {
    if (error instanceof CertificateError) return { field: error.field, message: error.message };
    throw error;
  }
  throw new Error('expected a CertificateError');
}

describe('reading a chain', () => {
  test('leaf first; text between blocks ignored; re-encoded cleanly', () => {
    const { chain, ca } = serverCertificate({ names: ['shop.example.test'] });
    const noisy = `subject=CN = shop.example.test\n${chain.replace('-----END CERTIFICATE-----\n', '-----END CERTIFICATE-----\r\n\nissuer=CN = Test CA\n')}`;
    const certificates = readCertificateChain(noisy);
    expect(certificates).toHaveLength(2);
    expect(certificates[1]!.fingerprint256).toBe(ca.certificate.fingerprint256);
    expect(chainPem(certificates)).toBe(chain);
  });

  test('refusals say which certificate and why', () => {
    const { chain, key } = serverCertificate({ names: ['a.example.test'] });
    expect(refusal(() => readCertificateChain('hello'))).toEqual({ field: 'certificate', message: 'must hold at least one PEM "CERTIFICATE" block' });
    expect(refusal(() => readCertificateChain(chain + key)).message).toContain('certificate 3 is a "PRIVATE KEY" block');
    expect(refusal(() => readCertificateChain('-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n')).message).toBe('certificate 1 is not a readable X.509 certificate');
    expect(refusal(() => readCertificateChain('-----BEGIN CERTIFICATE-----\n!!\n-----END CERTIFICATE-----\n')).message).toBe('certificate 1 is not a readable X.509 certificate');
    expect(refusal(() => readCertificateChain(chain.repeat(6))).message).toBe('must hold at most 10 certificates');
    expect(refusal(() => readCertificateChain('x'.repeat(70_000))).message).toContain('at most');
  });
});

describe('reading a private key', () => {
  test('PKCS#8, PKCS#1 and SEC 1 (with its EC PARAMETERS block)', () => {
    const rsa = rsaKey();
    expect(readPrivateKey(rsa.privateKey.export({ type: 'pkcs1', format: 'pem' }).toString()).asymmetricKeyType).toBe('rsa');
    expect(readPrivateKey(rsa.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString()).asymmetricKeyType).toBe('rsa');
    const ec = generateKeyPairSync('ec', { namedCurve: 'secp384r1' });
    const sec1 = ec.privateKey.export({ type: 'sec1', format: 'pem' }).toString();
    expect(readPrivateKey(`-----BEGIN EC PARAMETERS-----\nBgUrgQQAIg==\n-----END EC PARAMETERS-----\n${sec1}`).asymmetricKeyType).toBe('ec');
    expect(readPrivateKey(generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString()).asymmetricKeyType).toBe('ed25519');
  });

  test('encrypted, weak, exotic, missing or doubled keys are refused', () => {
    const encrypted = rsaKey().privateKey.export({ type: 'pkcs8', format: 'pem', cipher: 'aes-256-cbc', passphrase: 'secret' }).toString();
    expect(refusal(() => readPrivateKey(encrypted))).toEqual({ field: 'privateKey', message: 'is encrypted; upload the key without its passphrase (it is sealed at rest)' });
    const legacy = rsaKey().privateKey.export({ type: 'pkcs1', format: 'pem', cipher: 'aes-256-cbc', passphrase: 'secret' }).toString();
    expect(refusal(() => readPrivateKey(legacy)).message).toContain('is encrypted');
    const weak = rsaKey(1024).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    expect(refusal(() => readPrivateKey(weak)).message).toBe('is an RSA key of 1024 bits; at least 2048 are needed');
    const p224 = generateKeyPairSync('ec', { namedCurve: 'secp224r1' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    expect(refusal(() => readPrivateKey(p224)).message).toBe('uses the curve secp224r1; P-256, P-384 or P-521 are accepted');
    const x25519 = generateKeyPairSync('x25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    expect(refusal(() => readPrivateKey(x25519)).message).toBe('is a x25519 key; RSA, ECDSA or Ed25519 keys are accepted');
    const { key, leaf } = serverCertificate({ names: ['a.example.test'] });
    expect(refusal(() => readPrivateKey(key + key)).message).toBe('must hold exactly one PEM private key block');
    expect(refusal(() => readPrivateKey(leaf)).message).toBe('is a "CERTIFICATE" block, not a private key');
    const secret = 'MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg';
    const broken = refusal(() => readPrivateKey(`-----BEGIN PRIVATE KEY-----\n${secret}\n-----END PRIVATE KEY-----\n`));
    expect(broken.message).toBe('is not a readable private key');
    expect(broken.message).not.toContain(secret);
  });
});

describe('checking a certificate with its key', () => {
  test('facts of a valid chain: names, issuer, validity, fingerprint, key type', () => {
    const key = rsaKey();
    const { chain, key: pem } = serverCertificate({ names: ['shop.example.test', '*.shop.example.test'], key });
    const facts = checkCertificate(readCertificateChain(chain), readPrivateKey(pem), now());
    expect(facts).toMatchObject({
      subject: 'CN=shop.example.test',
      names: ['shop.example.test', '*.shop.example.test'],
      issuer: 'O=Panel tests, CN=Test CA',
      keyType: 'rsa 2048',
      chainLength: 2,
    });
    expect(facts.fingerprint).toMatch(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
    expect(facts.notAfter.getTime()).toBeGreaterThan(Date.now());
  });

  test('a key of another certificate is refused on privateKey', () => {
    const first = serverCertificate({ names: ['a.example.test'] });
    const second = serverCertificate({ names: ['a.example.test'] });
    expect(refusal(() => checkCertificate(readCertificateChain(first.chain), readPrivateKey(second.key), now()))).toEqual({
      field: 'privateKey',
      message: 'does not belong to the first certificate of the chain',
    });
  });

  test('expired, not yet valid and out-of-order chains are refused on certificate', () => {
    const expired = serverCertificate({ names: ['a.example.test'], notBefore: new Date(Date.now() - 90 * DAY_MS), notAfter: new Date(Date.now() - DAY_MS) });
    const expiredRefusal = refusal(() => checkCertificate(readCertificateChain(expired.chain), readPrivateKey(expired.key), now()));
    expect(expiredRefusal.field).toBe('certificate');
    expect(expiredRefusal.message).toMatch(/^expired on \d{4}-/);
    const future = serverCertificate({ names: ['a.example.test'], notBefore: new Date(Date.now() + DAY_MS) });
    expect(refusal(() => checkCertificate(readCertificateChain(future.chain), readPrivateKey(future.key), now())).message).toMatch(/^is not valid before/);

    const valid = serverCertificate({ names: ['a.example.test'] });
    const [leafPem, caPem] = valid.chain.split(/(?<=-----END CERTIFICATE-----\n)/);
    const reversed = refusal(() => checkCertificate(readCertificateChain(caPem! + leafPem!), readPrivateKey(valid.key), now()));
    expect(reversed.field).toBe('privateKey'); // the first block must be the leaf
    const stranger = testCa('Another CA');
    const wrongIssuer = refusal(() => checkCertificate(readCertificateChain(leafPem! + stranger.pem), readPrivateKey(valid.key), now()));
    expect(wrongIssuer).toEqual({ field: 'certificate', message: 'certificate 2 did not issue certificate 1: order the chain leaf first, each followed by its issuer' });
  });
});
