/**
 * A server's own CA: signed by the organization CA (path length 0: it signs server certificates
 * only), 90 days, renewed by the control plane when less than 30 remain or when the organization
 * CA is another one. The server's Caddy signs its internal certificates with it, so every
 * server's certificates chain to the one organization root while that root's key never leaves
 * the control plane; a server that is compromised holds a CA that expires within 90 days.
 */
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { openSecret, type SecretOwner, sealSecret } from '../../crypto/index.ts';
import { generateSigningKey, issueCertificate, privateKeyPem } from '../../crypto/x509.ts';
import { type Server, type ServerCertificateAuthority, serverCertificateAuthority } from '../../db/schema/index.ts';
import { newId } from '../../lib/ids.ts';
import { type AuthorityContext, authorityKeyOwner, CLOCK_SKEW_MS, organizationAuthority } from '../certificate-authority/service.ts';
import { findOrganization } from '../organizations/queries.ts';
import { eq } from 'drizzle-orm';

const DAY_MS = 86_400_000;
export const SERVER_CA_LIFETIME_MS = 90 * DAY_MS;
export const SERVER_CA_RENEW_BEFORE_MS = 30 * DAY_MS;

export const serverAuthorityKeyOwner = (id: string): SecretOwner => ({ table: 'server_certificate_authority', column: 'private_key', id });

/** The server's CA as it should be now: the stored one, or a new one replacing it. */
export function serverAuthority(ctx: AuthorityContext, server: Server): ServerCertificateAuthority {
  const root = organizationAuthority(ctx, server.organizationId);
  const now = ctx.clock.now().getTime();
  const stored = ctx.db.select().from(serverCertificateAuthority).where(eq(serverCertificateAuthority.serverId, server.id)).get();
  if (stored && stored.authorityId === root.id && stored.notAfter.getTime() - now > SERVER_CA_RENEW_BEFORE_MS) return stored;

  const organization = findOrganization(ctx.db, server.organizationId)!;
  const key = generateSigningKey();
  const rootKey = createPrivateKey(openSecret(ctx.keyring, root.privateKey, authorityKeyOwner(root.id)));
  const certificate = issueCertificate({
    subject: { commonName: `${server.name} CA`, organization: organization.name },
    publicKey: key.publicKey,
    notBefore: new Date(now - CLOCK_SKEW_MS),
    notAfter: new Date(now + SERVER_CA_LIFETIME_MS),
    ca: { pathLength: 0 },
    signer: { privateKey: rootKey, certificate: new X509Certificate(root.certificate) },
  });
  const id = stored?.id ?? newId();
  const values = {
    authorityId: root.id,
    certificate,
    privateKey: sealSecret(ctx.keyring, privateKeyPem(key.privateKey), serverAuthorityKeyOwner(id)),
    notAfter: new Date(new X509Certificate(certificate).validTo),
  };
  if (stored) return ctx.db.update(serverCertificateAuthority).set(values).where(eq(serverCertificateAuthority.id, id)).returning().get()!;
  return ctx.db.insert(serverCertificateAuthority).values({ id, serverId: server.id, ...values }).returning().get();
}
