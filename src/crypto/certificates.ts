/**
 * Reading certificates and keys people upload to the organization TLS library: a PEM chain
 * (leaf first, each certificate issued by the next) and the leaf's private key. Everything is
 * checked before anything is stored; a refusal names the field (`certificate` or `privateKey`)
 * and says what to fix. Key material never appears in a message. Pure: node:crypto only.
 */
import { createPrivateKey, type KeyObject, X509Certificate } from 'node:crypto';
import { MAX_CERTIFICATE_PEM_CHARS, MAX_PRIVATE_KEY_PEM_CHARS } from '../contract/certificates.ts';
import { toPem } from './x509.ts';

export const MAX_CHAIN_CERTIFICATES = 10;
const MIN_RSA_BITS = 2048;
const ACCEPTED_CURVES = new Set(['prime256v1', 'secp384r1', 'secp521r1']);

export type CertificateField = 'certificate' | 'privateKey';

export class CertificateError extends Error {
  override name = 'CertificateError';
  constructor(
    message: string,
    readonly field: CertificateField,
  ) {
    super(message);
  }
}

/** What the library shows about a certificate (never anything secret). */
export interface CertificateFacts {
  subject: string;
  /** DNS names (and `IP:` addresses) the leaf is valid for: its SANs, else its common name. */
  names: string[];
  issuer: string;
  notBefore: Date;
  notAfter: Date;
  /** SHA-256 of the leaf, colon-separated hex. */
  fingerprint: string;
  serialNumber: string;
  keyType: string;
  chainLength: number;
}

interface PemBlock {
  label: string;
  headers: string;
  der: Buffer;
}

const PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----\r?\n([\s\S]*?)-----END \1-----/g;

/** The PEM blocks of `text`; text between blocks (openssl's "subject=" lines) is ignored. */
function pemBlocks(text: string): PemBlock[] {
  const blocks: PemBlock[] = [];
  for (const match of text.matchAll(PEM_BLOCK)) {
    const body = match[2]!;
    const headerEnd = body.search(/\r?\n\r?\n/);
    const hasHeaders = /^[A-Za-z-]+:/.test(body);
    const headers = hasHeaders && headerEnd >= 0 ? body.slice(0, headerEnd) : '';
    const base64 = (hasHeaders && headerEnd >= 0 ? body.slice(headerEnd) : body).replace(/\s+/g, '');
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(base64)) blocks.push({ label: match[1]!, headers, der: Buffer.alloc(0) });
    else blocks.push({ label: match[1]!, headers, der: Buffer.from(base64, 'base64') });
  }
  return blocks;
}

const ordinal = (index: number) => `certificate ${index + 1}`;

/** The certificates of a PEM chain, leaf first. */
export function readCertificateChain(pem: string): X509Certificate[] {
  if (pem.length > MAX_CERTIFICATE_PEM_CHARS) throw new CertificateError(`must be at most ${MAX_CERTIFICATE_PEM_CHARS} characters`, 'certificate');
  const blocks = pemBlocks(pem);
  if (blocks.length === 0) throw new CertificateError('must hold at least one PEM "CERTIFICATE" block', 'certificate');
  if (blocks.length > MAX_CHAIN_CERTIFICATES) throw new CertificateError(`must hold at most ${MAX_CHAIN_CERTIFICATES} certificates`, 'certificate');
  return blocks.map((block, index) => {
    if (block.label !== 'CERTIFICATE') {
      throw new CertificateError(`${ordinal(index)} is a "${block.label}" block; the chain holds certificates only (the key goes in privateKey)`, 'certificate');
    }
    try {
      return new X509Certificate(block.der);
    } catch {
      throw new CertificateError(`${ordinal(index)} is not a readable X.509 certificate`, 'certificate');
    }
  });
}

/** The private key of a PEM text: PKCS#8, PKCS#1 (RSA) or SEC 1 (EC); never an encrypted one. */
export function readPrivateKey(pem: string): KeyObject {
  if (pem.length > MAX_PRIVATE_KEY_PEM_CHARS) throw new CertificateError(`must be at most ${MAX_PRIVATE_KEY_PEM_CHARS} characters`, 'privateKey');
  const keys = pemBlocks(pem).filter((block) => block.label !== 'EC PARAMETERS');
  if (keys.length !== 1) throw new CertificateError('must hold exactly one PEM private key block', 'privateKey');
  const [block] = keys as [PemBlock];
  if (block.label === 'ENCRYPTED PRIVATE KEY' || /ENCRYPTED/.test(block.headers)) {
    throw new CertificateError('is encrypted; upload the key without its passphrase (it is sealed at rest)', 'privateKey');
  }
  const type = { 'PRIVATE KEY': 'pkcs8', 'RSA PRIVATE KEY': 'pkcs1', 'EC PRIVATE KEY': 'sec1' }[block.label] as 'pkcs8' | 'pkcs1' | 'sec1' | undefined;
  if (!type) throw new CertificateError(`is a "${block.label}" block, not a private key`, 'privateKey');
  let key: KeyObject;
  try {
    key = createPrivateKey({ key: block.der, format: 'der', type });
  } catch {
    throw new CertificateError('is not a readable private key', 'privateKey');
  }
  describeKey(key);
  return key;
}

/** `rsa 2048`, `ec prime256v1`, `ed25519`; refuses what TLS clients or Caddy would not take. */
function describeKey(key: KeyObject): string {
  const details = key.asymmetricKeyDetails ?? {};
  switch (key.asymmetricKeyType) {
    case 'rsa':
      if ((details.modulusLength ?? 0) < MIN_RSA_BITS) throw new CertificateError(`is an RSA key of ${details.modulusLength} bits; at least ${MIN_RSA_BITS} are needed`, 'privateKey');
      return `rsa ${details.modulusLength}`;
    case 'ec':
      if (!ACCEPTED_CURVES.has(details.namedCurve ?? '')) throw new CertificateError(`uses the curve ${details.namedCurve}; P-256, P-384 or P-521 are accepted`, 'privateKey');
      return `ec ${details.namedCurve}`;
    case 'ed25519':
      return 'ed25519';
    default:
      throw new CertificateError(`is a ${key.asymmetricKeyType} key; RSA, ECDSA or Ed25519 keys are accepted`, 'privateKey');
  }
}

/**
 * Checks a chain and key as the library accepts them: the key belongs to the leaf, every
 * certificate was issued (and signed) by the next one, and the leaf is valid `now`.
 */
export function checkCertificate(chain: readonly X509Certificate[], key: KeyObject, now: Date): CertificateFacts {
  const leaf = chain[0]!;
  if (!leaf.checkPrivateKey(key)) throw new CertificateError('does not belong to the first certificate of the chain', 'privateKey');
  chain.slice(1).forEach((issuer, i) => {
    if (!chain[i]!.checkIssued(issuer) || !chain[i]!.verify(issuer.publicKey)) {
      throw new CertificateError(`${ordinal(i + 1)} did not issue ${ordinal(i)}: order the chain leaf first, each followed by its issuer`, 'certificate');
    }
  });
  const facts = describeCertificate(chain);
  if (facts.notAfter.getTime() <= now.getTime()) throw new CertificateError(`expired on ${facts.notAfter.toISOString()}`, 'certificate');
  if (facts.notBefore.getTime() > now.getTime()) throw new CertificateError(`is not valid before ${facts.notBefore.toISOString()}`, 'certificate');
  return facts;
}

export function describeCertificate(chain: readonly X509Certificate[]): CertificateFacts {
  const leaf = chain[0]!;
  const sans = (leaf.subjectAltName ?? '')
    .split(', ')
    .filter((entry) => entry.startsWith('DNS:') || entry.startsWith('IP Address:'))
    .map((entry) => (entry.startsWith('DNS:') ? entry.slice(4) : `IP:${entry.slice(11)}`));
  const commonName = /(?:^|\n)CN=([^\n]*)/.exec(leaf.subject)?.[1];
  return {
    subject: leaf.subject.replaceAll('\n', ', '),
    names: sans.length > 0 ? sans : commonName ? [commonName] : [],
    issuer: leaf.issuer.replaceAll('\n', ', '),
    notBefore: new Date(leaf.validFrom),
    notAfter: new Date(leaf.validTo),
    fingerprint: leaf.fingerprint256,
    serialNumber: leaf.serialNumber,
    keyType: describeKey(leaf.publicKey),
    chainLength: chain.length,
  };
}

/** The chain re-encoded from its DER: no text between blocks, uniform line breaks. */
export const chainPem = (chain: readonly X509Certificate[]): string => chain.map((certificate) => toPem('CERTIFICATE', certificate.raw)).join('');

/** The key as unencrypted PKCS#8 PEM (what is sealed and what Caddy reads). */
export const keyPem = (key: KeyObject): string => key.export({ type: 'pkcs8', format: 'pem' }).toString();
