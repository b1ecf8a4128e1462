/**
 * server — a machine running the Panel daemon. The spec only references it; the fields below are
 * what enrollment and the daemon hello need (ARCHITECTURE.md §6).
 *
 * Deleting an organization cascades to its servers; the database still refuses it while an
 * environment pin or a container (both restrict) points at one of them.
 */
import { sql } from 'drizzle-orm';
import { check, index, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { boolean, booleanCheck, enumCheck, id, jsonObjectCheck, lengthBetween, timestampMs, timestamps, uuidV7Check } from './columns.ts';
import { organization } from './organization.ts';
import { serverFlags, serverStatuses } from '../../contract/enums.ts';

export const server = sqliteTable(
  'server',
  {
    id: id(),
    organizationId: text('organization_id')
      .notNull()
      .references(() => organization.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    /** As announced in the daemon hello; null until the first hello. */
    hostname: text('hostname'),
    /** /etc/machine-id of the host as announced in the hello; identifies reconnects. */
    machineId: text('machine_id'),
    /** The daemon on the control plane's own host, connected over the unix socket. */
    isLocal: boolean('is_local').notNull().default(false),
    status: text('status', { enum: serverStatuses }).notNull().default('pending'),
    lastSeenAt: timestampMs('last_seen_at'),
    /** The daemon's X25519 public key (pndaemon envelopes are sealed to it). */
    publicKey: text('public_key'),
    /** Names the daemon key pair `public_key` belongs to (the `<keyId>` field of pndaemon envelopes). */
    daemonKeyId: text('daemon_key_id'),
    /**
     * The local server only: set by an operator (`panel local-daemon reset-key`, or the admin
     * API) to let the next local hello replace the pinned daemon key; cleared by that hello.
     */
    keyResetAt: timestampMs('key_reset_at'),
    /** Hash of the daemon's bearer credential; null before enrollment completes. */
    credentialHash: text('credential_hash'),
    /** Set when the hub saw two machines present this record's identity (never merged silently). */
    flag: text('flag', { enum: serverFlags }),
    flaggedAt: timestampMs('flagged_at'),
    /**
     * Key/value labels set by the organization's admins; the placement planner matches
     * `node.labels.<key>` constraints and spread preferences against them. Not tags: tags group
     * and filter, labels describe the machine (disk=ssd, zone=eu-1).
     */
    labels: text('labels', { mode: 'json' }).$type<Record<string, string>>().notNull().default(sql`'{}'`),
    /** The daemon's WireGuard public key, as it reported it (its private key never leaves the server). */
    wireguardPublicKey: text('wireguard_public_key'),
    /** Addresses the daemon reported the server can be reached at (a JSON array), most useful first. */
    fabricCandidates: text('fabric_candidates', { mode: 'json' }).$type<string[]>().notNull().default(sql`'[]'`),
    /** Set by an admin: where the other servers reach this one (`host`, `host:port`); wins over the candidates. */
    fabricEndpoint: text('fabric_endpoint'),
    /** Set by an admin: servers naming the same datacenter reach each other at their private addresses. */
    datacenter: text('datacenter'),
    /** Set by an admin: the server's address on its private (datacenter) network, where tcp/udp hostings with bind `datacenter` publish. */
    privateAddress: text('private_address'),
    ...timestamps(),
  },
  (t) => [
    uuidV7Check('server', t.id),
    check('server_name_length', lengthBetween(t.name, 1, 255)),
    booleanCheck('server', t.isLocal),
    enumCheck('server', t.status, serverStatuses),
    enumCheck('server', t.flag, serverFlags),
    jsonObjectCheck('server', t.labels),
    check('server_private_address_length', lengthBetween(t.privateAddress, 2, 45)),
    check('server_fabric_candidates_is_json_array', sql`json_valid(${t.fabricCandidates}) AND json_type(${t.fabricCandidates}) = 'array'`),
    // The local slot collapses to a single server record for the whole installation.
    uniqueIndex('server_one_local').on(t.isLocal).where(sql`${t.isLocal} = 1`),
    // One canonical record per machine and organization: reconnects never add a second row.
    uniqueIndex('server_organization_id_machine_id_unique')
      .on(t.organizationId, t.machineId)
      .where(sql`${t.machineId} IS NOT NULL`),
    uniqueIndex('server_credential_hash_unique').on(t.credentialHash).where(sql`${t.credentialHash} IS NOT NULL`),
    index('server_organization_id_index').on(t.organizationId),
  ],
);

export type Server = typeof server.$inferSelect;
export type NewServer = typeof server.$inferInsert;
