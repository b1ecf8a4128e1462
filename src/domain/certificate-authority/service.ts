/**
 * The organization CA: one root per organization that every server's internal certificates
 * chain to (docs/DECISIONS.md "Ingress"). It is made the first time anything asks for it (the
 * console's download, an ingress plan), with an ECDSA P-256 key sealed as `pnsecret`. The root
 * key stays in the control plane: servers get a CA of their own signed by this root.
 */
import { X509Certificate } from 'node:crypto';
import { type KeyRing, type SecretOwner, sealSecret } from '../../crypto/index.ts';
import { generateSigningKey, issueCertificate, privateKeyPem } from '../../crypto/x509.ts';
import type { CertificateAuthority } from '../../db/schema/index.ts';
import type { Clock } from '../../lib/clock.ts';
import { newId } from '../../lib/ids.ts';
import { type Actor, authorize } from '../actor.ts';
import { findOrganization } from '../organizations/queries.ts';
import type { Queryable } from '../shared/database.ts';
import { findAuthorityOf, insertAuthority } from './queries.ts';

const HOUR_MS = 3_600_000;
export const ROOT_LIFETIME_MS = 3650 * 24 * HOUR_MS;
/** Backdated so a server whose clock runs a little behind still accepts what it signs. */
export const CLOCK_SKEW_MS = HOUR_MS;

export interface AuthorityContext {
  db: Queryable;
  keyring: KeyRing;
  clock: Clock;
}

export const authorityKeyOwner = (id: string): SecretOwner => ({ table: 'certificate_authority', column: 'private_key', id });

/** The organization's root, made on first use. */
export function organizationAuthority(ctx: AuthorityContext, organizationId: string): CertificateAuthority {
  const existing = findAuthorityOf(ctx.db, organizationId);
  if (existing) return existing;
  const organization = findOrganization(ctx.db, organizationId)!;
  const now = ctx.clock.now().getTime();
  const key = generateSigningKey();
  const certificate = issueCertificate({
    subject: { commonName: `${organization.name} Root CA`, organization: organization.name },
    publicKey: key.publicKey,
    notBefore: new Date(now - CLOCK_SKEW_MS),
    notAfter: new Date(now + ROOT_LIFETIME_MS),
    ca: { pathLength: 1 },
    signer: { privateKey: key.privateKey },
  });
  const id = newId();
  // A concurrent first use may have made one meanwhile: the unique index keeps that one.
  return insertAuthority(ctx.db, {
    id,
    organizationId,
    certificate,
    privateKey: sealSecret(ctx.keyring, privateKeyPem(key.privateKey), authorityKeyOwner(id)),
    notAfter: new Date(new X509Certificate(certificate).validTo),
  });
}

/** The root a member downloads to trust the organization's internal certificates. */
export function readOrganizationAuthority(ctx: AuthorityContext, actor: Actor, organizationId: string): CertificateAuthority {
  authorize(actor, organizationId, 'read', 'organization');
  return organizationAuthority(ctx, organizationId);
}
