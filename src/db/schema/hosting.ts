/**
 * hosting — routing entry for a service (hostnames or TCP/UDP ports, bind scope, TLS pin),
 * rendered into the reverse-proxy configuration. Its hostnames are mirrored into `hostname`.
 */
import { sql } from 'drizzle-orm';
import { index, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { enumCheck, id, jsonObject, jsonObjectCheck, timestamps, uuidV7Check } from './columns.ts';
import { ip } from './ip.ts';
import { service } from './service.ts';
import { tls } from './tls.ts';
import { hostingProtocols } from '../../contract/enums.ts';

export const hosting = sqliteTable(
  'hosting',
  {
    id: id(),
    /** Reconcile provenance (`composeOwned`, `composeServiceName`, ...) plus client keys. */
    metadata: jsonObject('metadata'),
    /** Validated routing object: `hostnames`, `pathPrefix`, `targetPort`, `protocol`, `ports`, `bind`, ... */
    options: jsonObject('options'),
    serviceId: text('service_id')
      .notNull()
      .references(() => service.id, { onDelete: 'restrict' }),
    /** Null: the proxy issues a self-signed internal certificate. */
    tlsId: text('tls_id').references(() => tls.id, { onDelete: 'set null' }),
    /** A public-scope ip; requires `bind: public` (API rule). */
    ipId: text('ip_id').references(() => ip.id, { onDelete: 'set null' }),
    /** Length capped by the application, not here. */
    name: text('name'),
    description: text('description'),
    protocol: text('protocol', { enum: hostingProtocols }),
    ...timestamps(),
  },
  (t) => [
    uuidV7Check('hosting', t.id),
    jsonObjectCheck('hosting', t.metadata),
    jsonObjectCheck('hosting', t.options),
    enumCheck('hosting', t.protocol, hostingProtocols),
    index('hosting_service_id_id_index').on(t.serviceId, t.id),
    index('hosting_tls_id_index').on(t.tlsId).where(sql`${t.tlsId} IS NOT NULL`),
    index('hosting_ip_id_index').on(t.ipId).where(sql`${t.ipId} IS NOT NULL`),
  ],
);

export type Hosting = typeof hosting.$inferSelect;
export type NewHosting = typeof hosting.$inferInsert;
