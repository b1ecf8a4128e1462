/**
 * Durable daemon commands (table daemon_command). Every transition is a compare-and-set on the
 * current status inside one UPDATE, so duplicate, late or foreign acks and results change
 * nothing:
 *
 *   queued -> delivered          sent on a connection (again after each reconnect until finished)
 *   queued|delivered -> acknowledged        the daemon's ack
 *   open -> succeeded | failed   the daemon's result (payload set to NULL)
 *   open -> expired              expires_at passed (payload set to NULL)
 *
 * "Open" is queued, delivered or acknowledged. A command is delivered only while open and not
 * past its expiry, and the daemon journals the ids it ran, so a redelivery is answered from the
 * journal instead of running again. Acks and results only count for the server the command is
 * for: one daemon cannot finish another server's work.
 */
import { and, eq, gt, inArray, lte, sql } from 'drizzle-orm';
import { type DaemonCommand, daemonCommand, type DeploymentKind, type JsonObject } from '../../db/schema/index.ts';
import { preparedOnce, type Queryable } from '../shared/database.ts';
import { param } from './prepared.ts';

/** Default time a command may wait for its daemon before it expires. */
export const DEFAULT_COMMAND_TTL_MS = 60 * 60_000;
export const OPEN_COMMAND_STATUSES = ['queued', 'delivered', 'acknowledged'] as const;

/**
 * "The command is open", written as the partial indexes' own condition (db/schema/daemon_command.ts)
 * with literals: SQLite uses a partial index only when the query repeats that condition, and an
 * `inArray` binds parameters, which prove nothing. Without it every hello and every dispatch read
 * the whole table, every command ever sent.
 */
export const isOpenCommand = () => sql`${daemonCommand.status} IN ${sql.raw(`(${OPEN_COMMAND_STATUSES.map((status) => `'${status}'`).join(', ')})`)}`;

export interface NewCommand {
  serverId: string;
  deploymentId: string;
  kind: DeploymentKind;
  payload: JsonObject;
  expiresAt: Date;
}

export function insertCommand(db: Queryable, values: NewCommand): DaemonCommand {
  return db.insert(daemonCommand).values({ ...values, status: 'queued' }).returning().get();
}

const findCommandStatement = (db: Queryable) => db.select().from(daemonCommand).where(eq(daemonCommand.id, sql.placeholder('id'))).prepare();

export function findCommand(db: Queryable, id: string): DaemonCommand | undefined {
  return preparedOnce(db, findCommandStatement).get({ id });
}

/** Exported for the query-plan test. */
export const openCommandsStatement = (db: Queryable) =>
  db
    .select()
    .from(daemonCommand)
    .where(
      and(
        eq(daemonCommand.serverId, sql.placeholder('serverId')),
        isOpenCommand(),
        gt(daemonCommand.expiresAt, sql.placeholder('now')),
      ),
    )
    .prepare();

const oldestFirst = (a: DaemonCommand, b: DaemonCommand) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/**
 * The open, unexpired commands of a server, oldest first (ids are time-ordered): what a
 * (re)connecting daemon gets. Sorted here, not by the query: every hello and every dispatch asks,
 * and with an ORDER BY each run of the prepared statement costs Bun's SQLite (3.54) what preparing
 * it costs (~3 µs of the ~4 µs the query took), as if compiled again each time.
 */
export function openCommandsOf(db: Queryable, serverId: string, now: Date): DaemonCommand[] {
  return preparedOnce(db, openCommandsStatement).all({ serverId, now: now.getTime() }).sort(oldestFirst);
}

/*
 * The transitions a connected daemon drives are prepared once per database (a drizzle query
 * built per call costs several times the SQL). Every value is a placeholder, updated_at too:
 * a prepared statement would otherwise freeze $onUpdate's time.
 */
const deliveredStatement = (db: Queryable) =>
  db
    .update(daemonCommand)
    .set({ status: 'delivered', deliveredAt: param('now'), updatedAt: param('now') })
    .where(and(eq(daemonCommand.id, sql.placeholder('id')), eq(daemonCommand.status, 'queued')))
    .returning({ id: daemonCommand.id })
    .prepare();

/** queued -> delivered; false when it was no longer queued (a redelivery keeps its state). */
export function markDelivered(db: Queryable, id: string, now: Date): boolean {
  return preparedOnce(db, deliveredStatement).all({ id, now: now.getTime() }).length === 1;
}

const acknowledgeStatement = (db: Queryable) =>
  db
    .update(daemonCommand)
    .set({ status: 'acknowledged', updatedAt: param('now') })
    .where(
      and(
        eq(daemonCommand.id, sql.placeholder('id')),
        eq(daemonCommand.serverId, sql.placeholder('serverId')),
        inArray(daemonCommand.status, ['queued', 'delivered']),
      ),
    )
    .returning()
    .prepare();

/** queued|delivered -> acknowledged for `serverId`'s command; the row, or null when nothing changed. */
export function acknowledgeCommand(db: Queryable, serverId: string, id: string, now = new Date()): DaemonCommand | null {
  return preparedOnce(db, acknowledgeStatement).get({ id, serverId, now: now.getTime() }) ?? null;
}

export type CommandOutcome = { ok: true } | { ok: false; error: { code: string; message: string } };

export const describeFailure = (error: { code: string; message: string }) => `${error.code}: ${error.message}`.slice(0, 4200);

const finishStatement = (status: 'succeeded' | 'failed') => (db: Queryable) =>
  db
    .update(daemonCommand)
    .set({ status, error: param('error'), payload: null, finishedAt: param('now'), updatedAt: param('now') })
    .where(
      and(
        eq(daemonCommand.id, sql.placeholder('id')),
        eq(daemonCommand.serverId, sql.placeholder('serverId')),
        isOpenCommand(),
      ),
    )
    .returning()
    .prepare();
const finishSucceeded = finishStatement('succeeded');
const finishFailed = finishStatement('failed');

/** open -> succeeded | failed for `serverId`'s command, payload cleared; null when it was not open. */
export function finishCommand(db: Queryable, serverId: string, id: string, outcome: CommandOutcome, now: Date): DaemonCommand | null {
  const statement = preparedOnce(db, outcome.ok ? finishSucceeded : finishFailed);
  return statement.get({ id, serverId, now: now.getTime(), error: outcome.ok ? null : describeFailure(outcome.error) }) ?? null;
}

/** A command the hub could not send at all (it outgrew a frame): failed without reaching a daemon. */
export function failUndeliverable(db: Queryable, id: string, message: string, now: Date): DaemonCommand | null {
  return (
    db
      .update(daemonCommand)
      .set({ status: 'failed', error: `undeliverable: ${message}`, payload: null, finishedAt: now })
      .where(and(eq(daemonCommand.id, id), isOpenCommand()))
      .returning()
      .get() ?? null
  );
}

/** Open and past its expiry (exported for the query-plan test). */
export const isDueForExpiry = (now: Date) => and(isOpenCommand(), lte(daemonCommand.expiresAt, now));

/** Every open command whose expiry has passed becomes expired (payload cleared); the rows changed. */
export function expireDueCommands(db: Queryable, now: Date): DaemonCommand[] {
  return db
    .update(daemonCommand)
    .set({ status: 'expired', error: 'command_expired: the daemon did not finish it in time', payload: null, finishedAt: now })
    .where(isDueForExpiry(now))
    .returning()
    .all();
}
