/**
 * Issuing X.509 certificates: the organization CA (a self-signed root) and the per-server CAs it
 * signs (ARCHITECTURE.md §8, docs/DECISIONS.md "Ingress"). node:crypto reads certificates
 * (X509Certificate) but cannot write them, so the TBSCertificate is encoded here with der.ts and
 * signed with node:crypto. Keys are ECDSA P-256 and signatures ecdsa-with-SHA256: one algorithm,
 * supported by every TLS client and by Caddy. Pure: no clock, no I/O.
 */
import { createHash, generateKeyPairSync, type KeyObject, randomBytes, sign, X509Certificate } from 'node:crypto';
import {
  bitString,
  boolean,
  explicit,
  implicitPrimitive,
  namedBits,
  objectIdentifier,
  octetString,
  readTlv,
  sequence,
  set,
  smallInteger,
  time,
  unsignedInteger,
  utf8String,
} from './der.ts';

const OID = {
  ecdsaWithSha256: '1.2.840.10045.4.3.2',
  commonName: '2.5.4.3',
  organizationName: '2.5.4.10',
  subjectKeyIdentifier: '2.5.29.14',
  keyUsage: '2.5.29.15',
  subjectAltName: '2.5.29.17',
  basicConstraints: '2.5.29.19',
  authorityKeyIdentifier: '2.5.29.35',
  extendedKeyUsage: '2.5.29.37',
  nameConstraints: '2.5.29.30',
  serverAuth: '1.3.6.1.5.5.7.3.1',
} as const;

/** RFC 5280 §4.2.1.3 bit numbers. */
const KEY_USAGE = { digitalSignature: 0, keyCertSign: 5, cRLSign: 6 } as const;

export interface DistinguishedName {
  commonName: string;
  organization?: string;
}

/** The names a constrained CA may sign. */
export interface PermittedNames {
  dns: readonly string[];
  ipv4: readonly string[];
}

/** What a certificate says and who signs it. */
export interface CertificateRequest {
  subject: DistinguishedName;
  publicKey: KeyObject;
  notBefore: Date;
  notAfter: Date;
  /**
   * A CA certificate with this many CAs allowed below it (0: it signs leaf certificates only),
   * and, with `permitted`, a critical name constraint every verifier (OpenSSL, Go, browsers)
   * enforces: certificates below it may carry only these DNS names (each with its subdomains)
   * and these IPv4 addresses (none: no IP address at all), and never an IPv6 address.
   */
  ca?: { pathLength: number; permitted?: PermittedNames };
  /** dNSName subject alternative names of a server (leaf) certificate. */
  dnsNames?: readonly string[];
  /** iPAddress subject alternative names (IPv4) of a server certificate. */
  ipAddresses?: readonly string[];
  /** The issuer's key, and its certificate; without a certificate the result is self-signed (a root). */
  signer: { privateKey: KeyObject; certificate?: X509Certificate };
}

/** A new ECDSA P-256 key pair. */
export function generateSigningKey(): { privateKey: KeyObject; publicKey: KeyObject } {
  return generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
}

export const privateKeyPem = (key: KeyObject): string => key.export({ type: 'pkcs8', format: 'pem' }).toString();

function name(dn: DistinguishedName): Buffer {
  const attribute = (oid: string, value: string) => set(sequence(objectIdentifier(oid), utf8String(value)));
  return sequence(...(dn.organization ? [attribute(OID.organizationName, dn.organization)] : []), attribute(OID.commonName, dn.commonName));
}

/** RFC 5280 §4.2.1.2 method 1: SHA-1 of the subjectPublicKey bits. */
function keyIdentifier(publicKey: KeyObject): Buffer {
  const spki = publicKey.export({ type: 'spki', format: 'der' });
  const outer = readTlv(spki);
  const algorithm = readTlv(outer.content);
  const keyBits = readTlv(outer.content, algorithm.end);
  return createHash('sha1').update(keyBits.content.subarray(1)).digest();
}

const ipv4Bytes = (address: string) => Buffer.from(address.split('.').map(Number));

const extension = (oid: string, critical: boolean, value: Buffer) =>
  sequence(objectIdentifier(oid), ...(critical ? [boolean(true)] : []), octetString(value));

function extensions(request: CertificateRequest, issuerKey: KeyObject): Buffer {
  const list = [
    request.ca
      ? extension(OID.basicConstraints, true, sequence(boolean(true), smallInteger(request.ca.pathLength)))
      : extension(OID.basicConstraints, true, sequence()),
    extension(
      OID.keyUsage,
      true,
      namedBits(request.ca ? [KEY_USAGE.digitalSignature, KEY_USAGE.keyCertSign, KEY_USAGE.cRLSign] : [KEY_USAGE.digitalSignature]),
    ),
    extension(OID.subjectKeyIdentifier, false, octetString(keyIdentifier(request.publicKey))),
    extension(OID.authorityKeyIdentifier, false, sequence(implicitPrimitive(0, keyIdentifier(issuerKey)))),
  ];
  if (!request.ca) list.push(extension(OID.extendedKeyUsage, false, sequence(objectIdentifier(OID.serverAuth))));
  const altNames = [...(request.dnsNames ?? []).map((dns) => implicitPrimitive(2, Buffer.from(dns, 'ascii'))), ...(request.ipAddresses ?? []).map((address) => implicitPrimitive(7, ipv4Bytes(address)))];
  if (altNames.length > 0) list.push(extension(OID.subjectAltName, false, sequence(...altNames)));
  if (request.ca?.permitted) list.push(extension(OID.nameConstraints, true, nameConstraints(request.ca.permitted)));
  return explicit(3, sequence(...list));
}

/**
 * NameConstraints ::= SEQUENCE { permittedSubtrees [0], excludedSubtrees [1] } of GeneralSubtree
 * ::= SEQUENCE { base GeneralName }: dNSName [2], iPAddress [7] (address then mask). IPv6
 * addresses are excluded, IPv4 ones too unless some are permitted.
 */
function nameConstraints(permitted: PermittedNames): Buffer {
  const subtree = (tag: number, bytes: Buffer) => sequence(implicitPrimitive(tag, bytes));
  const allowed = [
    ...permitted.dns.map((dns) => subtree(2, Buffer.from(dns, 'ascii'))),
    ...permitted.ipv4.map((address) => subtree(7, Buffer.concat([ipv4Bytes(address), Buffer.from([255, 255, 255, 255])]))),
  ];
  const excluded = [...(permitted.ipv4.length > 0 ? [] : [subtree(7, Buffer.alloc(8))]), subtree(7, Buffer.alloc(32))];
  return sequence(...(allowed.length > 0 ? [explicit(0, Buffer.concat(allowed))] : []), explicit(1, Buffer.concat(excluded)));
}

/** Encodes and signs the certificate; answers it as PEM. */
export function issueCertificate(request: CertificateRequest): string {
  const issuer = request.signer.certificate;
  if (!issuer && !request.ca) throw new TypeError('a self-signed certificate must be a CA');
  // A positive 127-bit serial (RFC 5280: at most 20 octets, unique per issuer).
  const serial = randomBytes(16);
  serial[0]! &= 0x7f;
  const algorithm = sequence(objectIdentifier(OID.ecdsaWithSha256));
  const tbs = sequence(
    explicit(0, smallInteger(2)),
    unsignedInteger(serial),
    algorithm,
    issuer ? subjectOf(issuer) : name(request.subject),
    sequence(time(request.notBefore), time(request.notAfter)),
    name(request.subject),
    request.publicKey.export({ type: 'spki', format: 'der' }),
    extensions(request, issuer ? issuer.publicKey : request.publicKey),
  );
  const der = sequence(tbs, algorithm, bitString(sign('sha256', tbs, request.signer.privateKey)));
  return toPem('CERTIFICATE', der);
}

/** The names a CA certificate's name constraint permits (what `nameConstraints` wrote); null without one. */
export function permittedNames(certificate: X509Certificate): PermittedNames | null {
  const tbs = tbsOf(certificate);
  for (let offset = 0; offset < tbs.length; ) {
    const field = readTlv(tbs, offset);
    offset = field.end;
    if (field.tag !== 0xa3) continue; // extensions [3]
    const list = readTlv(field.content);
    for (let at = 0; at < list.content.length; ) {
      const entry = readTlv(list.content, at);
      at = entry.end;
      const oid = readTlv(entry.content);
      if (!entry.content.subarray(0, oid.end).equals(objectIdentifier(OID.nameConstraints))) continue;
      let value = readTlv(entry.content, oid.end);
      if (value.tag === 0x01) value = readTlv(entry.content, value.end); // critical
      const permitted = readTlv(readTlv(value.content).content);
      const names: PermittedNames = { dns: [], ipv4: [] };
      for (let next = 0; permitted.tag === 0xa0 && next < permitted.content.length; ) {
        const subtree = readTlv(permitted.content, next);
        next = subtree.end;
        const base = readTlv(subtree.content);
        if (base.tag === 0x82) (names.dns as string[]).push(base.content.toString('ascii'));
        if (base.tag === 0x87 && base.content.length === 8) (names.ipv4 as string[]).push([...base.content.subarray(0, 4)].join('.'));
      }
      return names;
    }
  }
  return null;
}

/** The content of the TBSCertificate of a parsed certificate (the first field of Certificate). */
function tbsOf(certificate: X509Certificate): Buffer {
  return readTlv(readTlv(certificate.raw).content).content;
}

/** The encoded subject Name of a certificate (its issuer field for certificates it signs). */
function subjectOf(certificate: X509Certificate): Buffer {
  const tbs = tbsOf(certificate);
  let offset = 0;
  // version [0], serial, signature algorithm, issuer, validity, then the subject.
  for (let field = 0; field < 5; field++) offset = readTlv(tbs, offset).end;
  const subject = readTlv(tbs, offset);
  return tbs.subarray(offset, subject.end);
}

export function toPem(label: string, der: Uint8Array): string {
  const base64 = Buffer.from(der).toString('base64');
  return `-----BEGIN ${label}-----\n${base64.replace(/(.{64})/g, '$1\n').replace(/\n$/, '')}\n-----END ${label}-----\n`;
}
