/** The organization TLS library (`tls` in the specification) and the organization CA. */
import * as v from 'valibot';
import { ListQuery, strict, Text, Timestamp, Timestamps, Uuid } from './common.ts';

export const MAX_CERTIFICATE_PEM_CHARS = 64 * 1024;
export const MAX_PRIVATE_KEY_PEM_CHARS = 16 * 1024;

const CertificatePem = v.pipe(v.string(), v.maxLength(MAX_CERTIFICATE_PEM_CHARS, `must be at most ${MAX_CERTIFICATE_PEM_CHARS} characters`));
/** Messages never echo the key. */
const PrivateKeyPem = v.pipe(v.string('privateKey must be a string'), v.maxLength(MAX_PRIVATE_KEY_PEM_CHARS, `privateKey must be at most ${MAX_PRIVATE_KEY_PEM_CHARS} characters`));

export const CertificateCreate = strict({
  organizationId: Uuid,
  name: Text(255),
  /** PEM chain: the certificate first, then each issuer (intermediates; the root may be left out). */
  certificate: CertificatePem,
  /** PEM private key of the first certificate (PKCS#8, PKCS#1 or SEC 1; not encrypted). Write-only. */
  privateKey: PrivateKeyPem,
});
export type CertificateCreate = v.InferInput<typeof CertificateCreate>;
export const CertificateUpdate = strict({ name: v.optional(Text(255)), certificate: v.optional(CertificatePem), privateKey: v.optional(PrivateKeyPem) });
export type CertificateUpdate = v.InferInput<typeof CertificateUpdate>;
export const CertificateListQuery = v.object({ organizationId: Uuid, ...ListQuery });

export const Certificate = v.object({
  id: v.string(),
  organizationId: v.string(),
  name: v.string(),
  certificate: v.string(),
  /** Write-only: always null. */
  privateKey: v.null(),
  subject: v.string(),
  /** DNS names (and IP: addresses) the certificate is valid for. */
  names: v.array(v.string()),
  issuer: v.string(),
  notBefore: Timestamp,
  notAfter: Timestamp,
  fingerprint: v.string(),
  keyType: v.string(),
  chainLength: v.number(),
  /** Hostings that pin it. */
  hostingCount: v.number(),
  ...Timestamps,
});
export type Certificate = v.InferOutput<typeof Certificate>;

export const CertificateAuthority = v.object({
  organizationId: v.string(),
  /** PEM of the root certificate (public). */
  certificate: v.string(),
  subject: v.string(),
  notBefore: Timestamp,
  notAfter: Timestamp,
  /** SHA-256 of the certificate, colon-separated hex: compare it before trusting the file. */
  fingerprint: v.string(),
});
export type CertificateAuthority = v.InferOutput<typeof CertificateAuthority>;
