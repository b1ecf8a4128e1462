/**
 * The server records behind daemon connections: resolving the canonical record a hello names,
 * flagging identities presented by more than one machine, and the connected/disconnected
 * status with last_seen_at. The hub (src/daemon/hub.ts) keeps the sockets and decides when;
 * what is written, and in which transaction, is here.
 */
import { and, asc, eq, inArray, ne, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { organization, type Server, server } from '../../db/schema/index.ts';
import { param } from '../commands/prepared.ts';
import { distinctServerName } from '../servers/queries.ts';
import { preparedOnce, type Queryable } from '../shared/database.ts';
import type { HelloFrame } from '../../contract/daemon-protocol.ts';

/** The single local server record (is_local), if there is one. */
export function findLocalServer(db: Queryable): Server | undefined {
  return db.select().from(server).where(eq(server.isLocal, true)).get();
}

/** The installing organization: the first one created (ids are time-ordered). */
export function firstOrganizationId(db: Queryable): string | undefined {
  return db.select({ id: organization.id }).from(organization).orderBy(asc(organization.id)).limit(1).get()?.id;
}

const machineTwinStatement = (db: Queryable) =>
  db
    .select({ id: server.id })
    .from(server)
    .where(
      and(
        eq(server.organizationId, sql.placeholder('organizationId')),
        eq(server.machineId, sql.placeholder('machineId')),
        ne(server.id, sql.placeholder('exceptId')),
      ),
    )
    .prepare();

/** Another record of the organization claiming this machine id (prepared: every hello asks). */
export function findMachineTwin(db: Queryable, organizationId: string, machineId: string, exceptId: string): { id: string } | undefined {
  return preparedOnce(db, machineTwinStatement).get({ organizationId, machineId, exceptId });
}

/**
 * The local slot's record, created for the installing organization on the first local hello.
 * Undefined before the install (no organization yet).
 */
export function resolveLocalServer(db: Queryable, hello: HelloFrame): Server | undefined {
  const existing = findLocalServer(db);
  if (existing) return existing;
  const organizationId = firstOrganizationId(db);
  if (!organizationId) return undefined;
  const twin = db
    .select({ id: server.id })
    .from(server)
    .where(and(eq(server.organizationId, organizationId), eq(server.machineId, hello.machineId)))
    .get();
  return db
    .insert(server)
    .values({
      organizationId,
      name: distinctServerName(db, organizationId, hello.hostname, hello.machineId),
      hostname: hello.hostname,
      // A remote record of this very machine keeps the machine id; the hello flags the pair.
      machineId: twin ? null : hello.machineId,
      isLocal: true,
      status: 'pending',
    })
    .returning()
    .get();
}

// Every value is a placeholder, updated_at too: a prepared statement must not freeze $onUpdate's time.
const connectStatement = (db: Queryable) =>
  db
    .update(server)
    .set({ status: 'connected', lastSeenAt: param('now'), hostname: param('hostname'), updatedAt: param('now') })
    .where(eq(server.id, sql.placeholder('id')))
    .returning()
    .prepare();

export type LocalKeyCheck = { accepted: true; record: boolean } | { accepted: false; reason: string };

/**
 * The local slot's daemon key is pinned on first use: the first hello records it, later hellos
 * must present the same key, unless an operator reset the pin (key_reset_at), which the next
 * hello consumes whatever key it brings. `record` says whether the row must be written. The
 * reason is a WebSocket close reason (at most 123 bytes).
 */
export function checkLocalKey(row: Server, hello: HelloFrame): LocalKeyCheck {
  const offered = hello.daemonKey;
  if (!offered) return { accepted: false, reason: 'the local daemon must present its daemon key' };
  const same = offered.keyId === row.daemonKeyId && offered.publicKey === row.publicKey;
  if (row.publicKey === null || row.keyResetAt !== null) return { accepted: true, record: !same || row.keyResetAt !== null };
  if (same) return { accepted: true, record: false };
  return { accepted: false, reason: `key ${offered.keyId.slice(0, 32)} is not the pinned ${row.daemonKeyId}; see panel local-daemon reset-key` };
}

/**
 * Marks the record connected and records what the hello said: a machine id the record lacks
 * (`claimMachineId`), and for the local slot the daemon key when checkLocalKey said to.
 */
export function recordHello(db: Queryable, row: Server, hello: HelloFrame, now: Date, claimMachineId: boolean, recordKey = false): Server | undefined {
  const claim = row.machineId === null && claimMachineId;
  if (!recordKey && !claim) {
    // The common reconnect: one prepared statement.
    return preparedOnce(db, connectStatement).get({ id: row.id, now: now.getTime(), hostname: hello.hostname });
  }
  const key = recordKey && hello.daemonKey ? { publicKey: hello.daemonKey.publicKey, daemonKeyId: hello.daemonKey.keyId, keyResetAt: null } : {};
  const machine = claim ? { machineId: hello.machineId } : {};
  return db
    .update(server)
    .set({ status: 'connected', lastSeenAt: now, hostname: hello.hostname, ...key, ...machine })
    .where(eq(server.id, row.id))
    .returning()
    .get();
}

/** The local slot's record for this hello (created at the first one after the install), in one transaction. */
export const localServerFor = (db: Db, hello: HelloFrame): Server | undefined => db.transaction((tx) => resolveLocalServer(tx, hello));

/** What a hello found: records to flag as sharing one machine, and what the record takes from it. */
export interface HelloOutcome {
  flagged: readonly string[];
  claimMachineId: boolean;
  recordKey: boolean;
}

/**
 * A daemon's hello accepted: the record is connected, and the records sharing its identity
 * (`flagged`) are flagged, together. Undefined when the record was deleted meanwhile.
 */
export function connectServer(
  db: Queryable,
  row: Server,
  hello: HelloFrame,
  now: Date,
  outcome: HelloOutcome,
): Server | undefined {
  const { flagged, claimMachineId, recordKey } = outcome;
  if (flagged.length === 0) return recordHello(db, row, hello, now, claimMachineId, recordKey);
  return db.transaction((tx) => {
    flagDuplicateMachine(tx, flagged, now);
    return recordHello(tx, row, hello, now, claimMachineId, recordKey);
  });
}

export function flagDuplicateMachine(db: Queryable, serverIds: readonly string[], now: Date): void {
  if (serverIds.length === 0) return;
  db.update(server).set({ flag: 'duplicate_machine_id', flaggedAt: now }).where(inArray(server.id, [...serverIds])).run();
}

const disconnectStatement = (db: Queryable) =>
  db
    .update(server)
    .set({ status: 'disconnected', lastSeenAt: param('now'), updatedAt: param('now') })
    .where(and(eq(server.id, sql.placeholder('id')), eq(server.status, 'connected')))
    .returning()
    .prepare();

/**
 * The record now disconnected, or undefined when it was not connected (deleted meanwhile, or a
 * daemon that closed before its hello was written: nothing to undo, no event). Prepared: when
 * many daemons drop at once (a network blip, a restart of their side) every close asks.
 */
export function markDisconnected(db: Queryable, serverId: string, now: Date): Server | undefined {
  return preparedOnce(db, disconnectStatement).get({ id: serverId, now: now.getTime() });
}

/** At start: no daemon is connected to a hub that was not running. */
export function markAllDisconnected(db: Queryable): void {
  db.update(server).set({ status: 'disconnected' }).where(eq(server.status, 'connected')).run();
}

export function touchLastSeen(db: Queryable, serverIds: readonly string[], now: Date): void {
  if (serverIds.length === 0) return;
  db.update(server).set({ lastSeenAt: now }).where(inArray(server.id, [...serverIds])).run();
}
