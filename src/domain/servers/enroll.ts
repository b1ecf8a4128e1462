/**
 * Daemon enrollment (`POST /api/daemon/v1/enroll`): a join token, the machine's hostname,
 * machine id and X25519 public key (with the key id envelopes will name) in; the server id and
 * a bearer credential out. Only the credential's SHA-256 is stored (server.credential_hash).
 *
 * - The token is single-use: spending it is a compare-and-set, inside the same transaction that
 *   writes the server, so a failed enrollment leaves the token unspent.
 * - A machine already enrolled in the organization (same machine_id) enrolls again only with a
 *   token made to replace that server (join_token.replaces_server_id), else 409
 *   machine_already_enrolled and the token stays unspent: a machine id is visible to every member,
 *   so an ordinary token plus a machine id must not take over a server. A replacing token gives
 *   its server's record to whichever machine enrolls with it (the same machine with a new key, or
 *   new hardware, whose machine id it takes), with a new credential and key: the old credential
 *   stops working at once, and containers, pins and history stay attached to the one record.
 * - The local server's machine (the control plane's own host) does not enroll: its record is the
 *   local slot, served over the unix socket; 409 machine_is_local, the token stays unspent.
 * - Failures are counted per client address (src/domain/identity/rate-limit.ts); a full bucket
 *   refuses before the token is even looked at. Every refusal has one answer, so a caller cannot
 *   tell an unknown token from a used, expired or revoked one.
 */
import { and, eq, sql } from 'drizzle-orm';
import { hashToken, newOpaqueToken } from '../../auth/token.ts';
import type { Db } from '../../db/client.ts';
import { type Server, server } from '../../db/schema/index.ts';
import type { Clock } from '../../lib/clock.ts';
import { DomainError } from '../../lib/errors.ts';
import { AttemptLimiter, type Bucket, type RatePolicy } from '../identity/rate-limit.ts';
import { findJoinToken, recordEnrolledServer, spendJoinToken } from '../join-tokens/service.ts';
import { preparedOnce, type Queryable } from '../shared/database.ts';
import type { Notifier } from '../notify.ts';
import { distinctServerName } from './queries.ts';

export const DAEMON_CREDENTIAL_PREFIX = 'pnd';

/** 20 failed enrollments per address per 15 minutes: plenty for a fleet rollout with typos. */
export const ENROLL_ADDRESS_POLICY: RatePolicy = { name: 'enroll:address', limit: 20, windowMs: 15 * 60_000 };

export interface EnrollInput {
  token: string;
  hostname: string;
  machineId: string;
  /** Raw 32-byte X25519 public key, unpadded base64url. */
  publicKey: string;
  keyId: string;
  /** Chosen when the join command was made; else the hostname, told apart from a namesake. */
  name?: string;
}

export interface Enrolled {
  server: Server;
  credential: string;
  /** True when the token replaced an existing record (its old credential is now dead). */
  reenrolled: boolean;
}

export const invalidJoinToken = () =>
  new DomainError('invalid_join_token', 'the join token is unknown, expired, revoked or already used; create a new one');

/** The machine is the control plane's own host: its daemon is the local slot and never enrolls. */
export const machineIsLocal = () =>
  new DomainError(
    'machine_is_local',
    "this machine is the control plane's local server; its daemon connects over the unix socket (panel daemon run --local) and does not enroll",
  );

export const machineAlreadyEnrolled = (enrolled: Server) =>
  new DomainError(
    'machine_already_enrolled',
    `this machine is already enrolled as server "${enrolled.name}" (${enrolled.id}); to enroll it again, create a join token that replaces that server`,
  );

/**
 * The record an enrollment writes: the one its token replaces, else none (a new server). Refuses
 * a machine that another record of the organization holds, and the local server's machine.
 */
function recordToReplace(tx: Queryable, organizationId: string, replacesServerId: string | null, machineId: string): Server | undefined {
  const holder = tx.select().from(server).where(and(eq(server.organizationId, organizationId), eq(server.machineId, machineId))).get();
  if (holder?.isLocal) throw machineIsLocal();
  if (holder && holder.id !== replacesServerId) throw machineAlreadyEnrolled(holder);
  // The foreign key deletes a replacing token with its server, so a live one names a live record.
  return replacesServerId === null ? undefined : tx.select().from(server).where(eq(server.id, replacesServerId)).get();
}

/**
 * The join token a caller presents, if it can still enroll (unused, unexpired); every refusal
 * counts against the caller's address, and a full bucket refuses before the token is looked at.
 * Enrollment spends it; downloading the executable only needs it to be valid.
 */
export function acceptJoinToken(db: Db, clock: Clock, presented: string, address: string) {
  const limiter = new AttemptLimiter(db, clock);
  const buckets: Bucket[] = [{ policy: ENROLL_ADDRESS_POLICY, subject: address }];
  limiter.check(buckets);
  const token = findJoinToken(db, presented);
  if (!token || token.usedAt || token.expiresAt.getTime() <= clock.now().getTime()) {
    limiter.fail(buckets);
    throw invalidJoinToken();
  }
  return { token, refuse: () => limiter.fail(buckets) };
}

export interface EnrollContext {
  db: Db;
  clock: Clock;
  notify: Notifier;
}

/**
 * What an enrollment does: spend the join token and write the server record (new, or the one
 * the token replaces, with a new key and credential) in one transaction, then tell subscribers
 * of the record and, for a replaced record, end the connection that holds the old credential.
 */
export function enrollServer({ db, clock, notify }: EnrollContext, input: EnrollInput, address: string): Enrolled {
  const { token, refuse } = acceptJoinToken(db, clock, input.token, address);
  const now = clock.now();
  const credential = newOpaqueToken(DAEMON_CREDENTIAL_PREFIX);
  const enrolled = db.transaction((tx) => {
    if (!spendJoinToken(tx, token.id, now)) return null;
    const identity = {
      hostname: input.hostname,
      publicKey: input.publicKey,
      daemonKeyId: input.keyId,
      credentialHash: hashToken(credential),
    };
    const existing = recordToReplace(tx, token.organizationId, token.replacesServerId, input.machineId);
    const row = existing
      ? tx
          .update(server)
          .set({ ...identity, machineId: input.machineId, ...(input.name ? { name: input.name } : {}) })
          .where(eq(server.id, existing.id))
          .returning()
          .get()!
      : tx
          .insert(server)
          .values({
            organizationId: token.organizationId,
            name: input.name ?? distinctServerName(tx, token.organizationId, input.hostname, input.machineId),
            machineId: input.machineId,
            ...identity,
          })
          .returning()
          .get();
    recordEnrolledServer(tx, token.id, row.id);
    return { server: row, credential, reenrolled: existing !== undefined };
  });
  if (!enrolled) {
    refuse();
    throw invalidJoinToken();
  }
  // Published before the disconnect, whose own (newer) event then says the server is disconnected.
  notify.server(enrolled.server);
  if (enrolled.reenrolled) notify.credentialRotated(enrolled.server.id);
  return enrolled;
}

const byCredentialStatement = (db: Queryable) =>
  db.select({ id: server.id }).from(server).where(eq(server.credentialHash, sql.placeholder('hash'))).prepare();

/**
 * The id of the server a daemon credential belongs to, or undefined (unknown, rotated or never
 * issued). The id only: every daemon upgrade asks, and the hello reads the record itself.
 */
export function serverIdForCredential(db: Queryable, credential: string): string | undefined {
  return preparedOnce(db, byCredentialStatement).get({ hash: hashToken(credential) })?.id;
}
