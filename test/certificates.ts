/**
 * Certificates for tests: a throwaway CA and server certificates it signs, made with Panel's own
 * issuer (src/crypto/x509.ts), so TLS library, ingress and lab tests upload realistic PEM.
 */
import { generateKeyPairSync, type KeyObject, X509Certificate } from 'node:crypto';
import { generateSigningKey, issueCertificate, privateKeyPem } from '../src/crypto/x509.ts';

const DAY_MS = 86_400_000;

export interface TestCa {
  certificate: X509Certificate;
  pem: string;
  privateKey: KeyObject;
}

export function testCa(commonName = 'Test CA', now = new Date()): TestCa {
  const key = generateSigningKey();
  const pem = issueCertificate({
    subject: { commonName, organization: 'Panel tests' },
    publicKey: key.publicKey,
    notBefore: new Date(now.getTime() - DAY_MS),
    notAfter: new Date(now.getTime() + 365 * DAY_MS),
    ca: { pathLength: 1 },
    signer: { privateKey: key.privateKey },
  });
  return { certificate: new X509Certificate(pem), pem, privateKey: key.privateKey };
}

export interface ServerCertificateOptions {
  names: string[];
  ca?: TestCa;
  /** Defaults: valid from the day before `now` (default the real time) for 90 days. */
  now?: Date;
  notBefore?: Date;
  notAfter?: Date;
  /** The leaf's key; default a new P-256 key. */
  key?: { privateKey: KeyObject; publicKey: KeyObject };
}

/** A server certificate: `chain` is leaf + CA (PEM), `key` the leaf's PKCS#8 PEM. */
export function serverCertificate(options: ServerCertificateOptions) {
  const now = (options.now ?? new Date()).getTime();
  const ca = options.ca ?? testCa('Test CA', new Date(now));
  const key = options.key ?? generateSigningKey();
  const leaf = issueCertificate({
    subject: { commonName: options.names[0]! },
    publicKey: key.publicKey,
    notBefore: options.notBefore ?? new Date(now - DAY_MS),
    notAfter: options.notAfter ?? new Date(now + 90 * DAY_MS),
    dnsNames: options.names,
    signer: { privateKey: ca.privateKey, certificate: ca.certificate },
  });
  return { leaf, chain: leaf + ca.pem, key: privateKeyPem(key.privateKey), ca };
}

/** An RSA key pair (uploads are often RSA). */
export const rsaKey = (modulusLength = 2048) => generateKeyPairSync('rsa', { modulusLength });
