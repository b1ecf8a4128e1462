/**
 * A server's own CA: signed by the organization CA (path length 0: it signs server certificates
 * only), 90 days, renewed by the control plane when less than 30 remain or when the organization
 * CA is another one. The server's Caddy signs its internal certificates with it, so every
 * server's certificates chain to the one organization root while that root's key never leaves
 * the control plane; a server that is compromised holds a CA that expires within 90 days.
 *
 * It is name-constrained to the hostnames the server serves with internal or ACME certificates
 * (a wildcard as its parent domain; no IPv6 address, IPv4 ones only when a hostname is one), and
 * issued again whenever that set changes: a compromised server cannot mint a certificate the
 * organization's users trust for any other name.
 */
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { openSecret, type SecretOwner, sealSecret } from '../../crypto/index.ts';
import { generateSigningKey, issueCertificate, type PermittedNames, permittedNames, privateKeyPem } from '../../crypto/x509.ts';
import { type Server, type ServerCertificateAuthority, serverCertificateAuthority } from '../../db/schema/index.ts';
import { newId } from '../../lib/ids.ts';
import { type AuthorityContext, authorityKeyOwner, CLOCK_SKEW_MS, organizationAuthority } from '../certificate-authority/service.ts';
import { findOrganization } from '../organizations/queries.ts';
import { eq } from 'drizzle-orm';

const DAY_MS = 86_400_000;
export const SERVER_CA_LIFETIME_MS = 90 * DAY_MS;
export const SERVER_CA_RENEW_BEFORE_MS = 30 * DAY_MS;

export const serverAuthorityKeyOwner = (id: string): SecretOwner => ({ table: 'server_certificate_authority', column: 'private_key', id });

const IPV4 = /^(?:(?:25[0-5]|2[0-4]\d|1?\d?\d)\.){3}(?:25[0-5]|2[0-4]\d|1?\d?\d)$/;

/**
 * What a server's CA may sign for `hostnames`: each DNS name once (lower case, a wildcard as its
 * parent domain, none below another one it already permits), IPv4 addresses apart; `invalid`
 * (RFC 6761) when there is nothing, so that it signs nothing valid.
 */
export function permittedFor(hostnames: Iterable<string>): PermittedNames {
  const dns = new Set<string>();
  const ipv4 = new Set<string>();
  for (const hostname of hostnames) {
    const name = hostname.toLowerCase().replace(/^\*\./, '');
    (IPV4.test(name) ? ipv4 : dns).add(name);
  }
  const covered = (name: string) => [...dns].some((other) => other !== name && name.endsWith(`.${other}`));
  const names = [...dns].filter((name) => !covered(name)).sort();
  return { dns: names.length === 0 && ipv4.size === 0 ? ['invalid'] : names, ipv4: [...ipv4].sort() };
}

const samePermitted = (certificate: string, wanted: PermittedNames) => JSON.stringify(permittedNames(new X509Certificate(certificate))) === JSON.stringify(wanted);

/** The server's CA as it should be now for `permitted`: the stored one, or a new one replacing it. */
export function serverAuthority(ctx: AuthorityContext, server: Server, permitted: PermittedNames): ServerCertificateAuthority {
  const root = organizationAuthority(ctx, server.organizationId);
  const now = ctx.clock.now().getTime();
  const stored = ctx.db.select().from(serverCertificateAuthority).where(eq(serverCertificateAuthority.serverId, server.id)).get();
  const current = stored && stored.authorityId === root.id && stored.notAfter.getTime() - now > SERVER_CA_RENEW_BEFORE_MS;
  if (current && samePermitted(stored.certificate, permitted)) return stored;

  const organization = findOrganization(ctx.db, server.organizationId)!;
  const key = generateSigningKey();
  const rootKey = createPrivateKey(openSecret(ctx.keyring, root.privateKey, authorityKeyOwner(root.id)));
  const certificate = issueCertificate({
    subject: { commonName: `${server.name} CA`, organization: organization.name },
    publicKey: key.publicKey,
    notBefore: new Date(now - CLOCK_SKEW_MS),
    notAfter: new Date(now + SERVER_CA_LIFETIME_MS),
    ca: { pathLength: 0, permitted },
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
