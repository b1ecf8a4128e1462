/**
 * What each server's ingress is and does (docs/DECISIONS.md "Ingress"):
 *
 * - server_certificate_authority: the server's own CA, signed by the organization CA, that its
 *   Caddy issues internal certificates with; renewed by the control plane well before it expires
 *   and when the organization CA changes. Its key is sealed as `pnsecret` and reaches the server
 *   only as `pndaemon`.
 * - ingress_route: per server and hosting, what the daemon last reported the route does (how
 *   many containers it sends traffic to, or why none).
 * - ingress_certificate: per server and hostname, where its certificate comes from and its state
 *   (ACME: pending, issued with its expiry, failed with the error).
 */
import { sql } from 'drizzle-orm';
import { check, index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { certificateAuthority } from './certificate_authority.ts';
import { enumCheck, id, isIntegerAtLeast, isSealedSecret, lengthBetween, timestampMs, timestamps, uuidV7Check } from './columns.ts';
import { hosting } from './hosting.ts';
import { certificateSources, certificateStatuses } from '../../contract/enums.ts';
import { server } from './server.ts';

export const serverCertificateAuthority = sqliteTable(
  'server_certificate_authority',
  {
    id: id(),
    serverId: text('server_id')
      .notNull()
      .references(() => server.id, { onDelete: 'cascade' }),
    /** The organization CA that signed it; a new organization CA means a new server CA. */
    authorityId: text('authority_id')
      .notNull()
      .references(() => certificateAuthority.id, { onDelete: 'cascade' }),
    certificate: text('certificate').notNull(),
    privateKey: text('private_key').notNull(),
    notAfter: timestampMs('not_after').notNull(),
    ...timestamps(),
  },
  (t) => [
    uuidV7Check('server_certificate_authority', t.id),
    check('server_certificate_authority_private_key_is_sealed', isSealedSecret(t.privateKey)),
    uniqueIndex('server_certificate_authority_server_id_unique').on(t.serverId),
    index('server_certificate_authority_authority_id_index').on(t.authorityId),
  ],
);

export const ingressRoute = sqliteTable(
  'ingress_route',
  {
    id: id(),
    serverId: text('server_id')
      .notNull()
      .references(() => server.id, { onDelete: 'cascade' }),
    hostingId: text('hosting_id')
      .notNull()
      .references(() => hosting.id, { onDelete: 'cascade' }),
    /** Containers the route sends traffic to. */
    upstreams: integer('upstreams').notNull(),
    /** Containers of the service observed on the server, ready or not. */
    containers: integer('containers').notNull(),
    /** Why the route sends traffic to fewer containers than it could, or to none. */
    problem: text('problem'),
    ...timestamps(),
  },
  (t) => [
    uuidV7Check('ingress_route', t.id),
    check('ingress_route_upstreams_non_negative', isIntegerAtLeast(t.upstreams, 0)),
    check('ingress_route_containers_non_negative', isIntegerAtLeast(t.containers, 0)),
    uniqueIndex('ingress_route_server_id_hosting_id_unique').on(t.serverId, t.hostingId),
    index('ingress_route_hosting_id_index').on(t.hostingId),
  ],
);

export const ingressCertificate = sqliteTable(
  'ingress_certificate',
  {
    id: id(),
    serverId: text('server_id')
      .notNull()
      .references(() => server.id, { onDelete: 'cascade' }),
    hostingId: text('hosting_id')
      .notNull()
      .references(() => hosting.id, { onDelete: 'cascade' }),
    hostname: text('hostname').notNull(),
    source: text('source', { enum: certificateSources }).notNull(),
    /** Null for plain http (source none). */
    status: text('status', { enum: certificateStatuses }),
    /** The ACME error, or why the hostname is not served as asked (a wildcard, a library certificate not covering it). */
    error: text('error'),
    issuer: text('issuer'),
    notAfter: timestampMs('not_after'),
    ...timestamps(),
  },
  (t) => [
    uuidV7Check('ingress_certificate', t.id),
    check('ingress_certificate_hostname_length', lengthBetween(t.hostname, 1, 253)),
    enumCheck('ingress_certificate', t.source, certificateSources),
    enumCheck('ingress_certificate', t.status, certificateStatuses),
    uniqueIndex('ingress_certificate_server_id_hostname_unique').on(t.serverId, sql`lower(${t.hostname})`),
    index('ingress_certificate_hosting_id_index').on(t.hostingId),
  ],
);

export type ServerCertificateAuthority = typeof serverCertificateAuthority.$inferSelect;
export type IngressRouteRow = typeof ingressRoute.$inferSelect;
export type IngressCertificateRow = typeof ingressCertificate.$inferSelect;
