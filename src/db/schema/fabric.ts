/**
 * The overlay fabric's allocations (src/fabric/allocate.ts), kept so they are stable across
 * restarts and never collide (unique per organization):
 *
 * - fabric_member: one row per server in its organization's fabric (on, and its daemon reported
 *   a WireGuard key): its mesh address and listen port, the hash of the configuration last sent
 *   (`desired_hash`) and of the one its daemon reported applied, the last apply error (for
 *   `error_hash`) and the last handshake with each peer. Rows go when the fabric is turned off or
 *   the server is deleted; their address and port are then free again.
 * - fabric_subnet: the /24 of one network spanning servers on one server, with the host number of
 *   each replica there (`<service>#<ordinal>`). Rows go when the network stops spanning that
 *   server, or with the environment or the server.
 */
import { sql } from 'drizzle-orm';
import { check, index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { environment } from './environment.ts';
import { id, jsonObjectCheck, timestampMs, timestamps, uuidV7Check } from './columns.ts';
import { organization } from './organization.ts';
import { server } from './server.ts';

export const fabricMember = sqliteTable(
  'fabric_member',
  {
    id: id(),
    serverId: text('server_id')
      .notNull()
      .references(() => server.id, { onDelete: 'cascade' }),
    organizationId: text('organization_id')
      .notNull()
      .references(() => organization.id, { onDelete: 'cascade' }),
    meshAddress: text('mesh_address').notNull(),
    listenPort: integer('listen_port').notNull(),
    desiredHash: text('desired_hash').notNull(),
    appliedHash: text('applied_hash'),
    /** `<code>: <message>` of the last failed apply, for the configuration `error_hash`. */
    error: text('error'),
    errorHash: text('error_hash'),
    /** Peer server id -> epoch milliseconds of its last handshake, as the daemon last reported. */
    handshakes: text('handshakes', { mode: 'json' }).$type<Record<string, number>>().notNull().default(sql`'{}'`),
    reportedAt: timestampMs('reported_at'),
    ...timestamps(),
  },
  (t) => [
    uuidV7Check('fabric_member', t.id),
    jsonObjectCheck('fabric_member', t.handshakes),
    check('fabric_member_listen_port_range', sql`${t.listenPort} BETWEEN 1 AND 65535`),
    uniqueIndex('fabric_member_server_id_unique').on(t.serverId),
    uniqueIndex('fabric_member_organization_id_mesh_address_unique').on(t.organizationId, t.meshAddress),
    uniqueIndex('fabric_member_organization_id_listen_port_unique').on(t.organizationId, t.listenPort),
  ],
);

export type FabricMemberRow = typeof fabricMember.$inferSelect;

export const fabricSubnet = sqliteTable(
  'fabric_subnet',
  {
    id: id(),
    organizationId: text('organization_id')
      .notNull()
      .references(() => organization.id, { onDelete: 'cascade' }),
    environmentId: text('environment_id')
      .notNull()
      .references(() => environment.id, { onDelete: 'cascade' }),
    serverId: text('server_id')
      .notNull()
      .references(() => server.id, { onDelete: 'cascade' }),
    /** The network's key in the environment's document. */
    network: text('network').notNull(),
    subnet: text('subnet').notNull(),
    hosts: text('hosts', { mode: 'json' }).$type<Record<string, number>>().notNull().default(sql`'{}'`),
    ...timestamps(),
  },
  (t) => [
    uuidV7Check('fabric_subnet', t.id),
    jsonObjectCheck('fabric_subnet', t.hosts),
    uniqueIndex('fabric_subnet_organization_id_subnet_unique').on(t.organizationId, t.subnet),
    uniqueIndex('fabric_subnet_environment_id_network_server_id_unique').on(t.environmentId, t.network, t.serverId),
    index('fabric_subnet_server_id_index').on(t.serverId),
  ],
);

export type FabricSubnetRow = typeof fabricSubnet.$inferSelect;
