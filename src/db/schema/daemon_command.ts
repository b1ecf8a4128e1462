/**
 * daemon_command — one durable command for one server's daemon (ARCHITECTURE.md §6). Queued by
 * a deploy, stop or destroy (with their deployment), or by the overlay fabric (`fabric`, the
 * server's WireGuard configuration; no deployment); delivered when the daemon is connected
 * (again on every reconnect until it finishes); finished by the daemon's result or expired by
 * the sweep.
 *
 *   queued -> delivered -> acknowledged -> succeeded | failed
 *   any non-terminal state -> expired (expires_at passed)
 *
 * Every transition is a compare-and-set on the current status, so a duplicate ack or result
 * changes nothing. `payload` is the command frame's payload (secrets only as pndaemon envelopes)
 * and is set to NULL at a terminal state: nothing sealed lingers once the command is done.
 */
import { sql } from 'drizzle-orm';
import { check, index, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { enumCheck, id, jsonObject, jsonObjectCheck, timestampMs, timestamps, uuidV7Check } from './columns.ts';
import { deployment } from './deployment.ts';
import { server } from './server.ts';
import { deploymentKinds } from '../../contract/enums.ts';

export const daemonCommandKinds = [...deploymentKinds, 'fabric'] as const;
export type DaemonCommandKind = (typeof daemonCommandKinds)[number];

export const daemonCommandStatuses = ['queued', 'delivered', 'acknowledged', 'succeeded', 'failed', 'expired'] as const;
export type DaemonCommandStatus = (typeof daemonCommandStatuses)[number];
export const terminalCommandStatuses = ['succeeded', 'failed', 'expired'] as const;

export const daemonCommand = sqliteTable(
  'daemon_command',
  {
    id: id(),
    /** Commands go with their server. */
    serverId: text('server_id')
      .notNull()
      .references(() => server.id, { onDelete: 'cascade' }),
    /** And with the deployment they carry out; null for fabric commands. */
    deploymentId: text('deployment_id').references(() => deployment.id, { onDelete: 'cascade' }),
    kind: text('kind', { enum: daemonCommandKinds }).notNull(),
    payload: jsonObject('payload'),
    status: text('status', { enum: daemonCommandStatuses }).notNull().default('queued'),
    expiresAt: timestampMs('expires_at').notNull(),
    /** `<code>: <message>` of a failed or expired command. */
    error: text('error'),
    deliveredAt: timestampMs('delivered_at'),
    finishedAt: timestampMs('finished_at'),
    ...timestamps(),
  },
  (t) => [
    uuidV7Check('daemon_command', t.id),
    enumCheck('daemon_command', t.kind, daemonCommandKinds),
    check('daemon_command_deployment_id_by_kind', sql`(${t.kind} = 'fabric') = (${t.deploymentId} IS NULL)`),
    enumCheck('daemon_command', t.status, daemonCommandStatuses),
    jsonObjectCheck('daemon_command', t.payload),
    check('daemon_command_terminal_has_no_payload', sql`${t.status} NOT IN ('succeeded', 'failed', 'expired') OR ${t.payload} IS NULL`),
    // Delivery reads the open commands of one server, oldest first.
    index('daemon_command_open_server_id_id_index')
      .on(t.serverId, t.id)
      .where(sql`${t.status} IN ('queued', 'delivered', 'acknowledged')`),
    index('daemon_command_open_expires_at_index')
      .on(t.expiresAt)
      .where(sql`${t.status} IN ('queued', 'delivered', 'acknowledged')`),
    index('daemon_command_deployment_id_index').on(t.deploymentId),
  ],
);

export type DaemonCommand = typeof daemonCommand.$inferSelect;
export type NewDaemonCommand = typeof daemonCommand.$inferInsert;
