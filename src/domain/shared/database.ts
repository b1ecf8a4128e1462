import { Column, type DriverValueDecoder, type GetColumnData, is, type SQL } from 'drizzle-orm';
import type { BaseSQLiteDatabase } from 'drizzle-orm/sqlite-core';
import { conflict, type DomainError } from '../../lib/errors.ts';

/** The database or an open transaction: queries run the same on both. */
export type Queryable = BaseSQLiteDatabase<'sync', void>;

/** 409 has_dependents for a restrict delete, naming the kind of row still holding the parent. */
export const hasDependents = (what: string, dependents: string): DomainError =>
  conflict('has_dependents', `${what} still has ${dependents}; remove them first`);

/** The first kind of dependent that exists, in the order given (checks run lazily). */
export function firstDependent(checks: ReadonlyArray<readonly [kind: string, exists: () => boolean]>): string | undefined {
  return checks.find(([, exists]) => exists())?.[0];
}

function isForeignKeyFailure(error: unknown): boolean {
  for (let current = error; current instanceof Error; current = current.cause) {
    if (current.message.includes('FOREIGN KEY constraint failed')) return true;
  }
  return false;
}

/**
 * Runs a delete whose restrict dependents were checked beforehand. Should a new restrict
 * reference appear that the check does not know, the database still refuses the delete; that
 * refusal becomes the same 409 instead of a 500.
 */
export function deleteRestricted(what: string, remove: () => void): void {
  try {
    remove();
  } catch (error) {
    if (isForeignKeyFailure(error)) throw conflict('has_dependents', `${what} is still referenced by other records`);
    throw error;
  }
}

const statementCache = new WeakMap<object, Map<unknown, unknown>>();

/**
 * The statement `build` makes, prepared once per database and reused: on hot paths a drizzle
 * `.prepare()`d statement is several times faster than building the query on every call. Kept per
 * connection (drizzle's session, which a transaction shares with its database), not per object:
 * keyed by the transaction object, every batch written in a transaction of its own prepared its
 * statements again.
 */
export function preparedOnce<T>(db: Queryable, build: (db: Queryable) => T): T {
  const connection = (db as unknown as { session: object }).session;
  let statements = statementCache.get(connection);
  if (!statements) {
    statements = new Map();
    statementCache.set(connection, statements);
  }
  let statement = statements.get(build) as T | undefined;
  if (statement === undefined) {
    statement = build(db);
    statements.set(build, statement);
  }
  return statement;
}

/** The fields of a flat select: columns and SQL expressions by output key. */
type Fields = Record<string, Column | SQL>;

export type RowOf<F extends Fields> = { [K in keyof F]: F[K] extends Column ? GetColumnData<F[K]> : F[K] extends SQL<infer T> ? T : never };

/**
 * Decodes the value arrays of a flat select over `fields` (a prepared statement's `values()`:
 * drizzle selects the fields in their key order) into rows, each value through its field's own
 * decoder, as drizzle's row mapper does. That mapper is general (nested paths, joins) and costs
 * a primary-key read about as much as SQLite's own work; the hottest reads decode here instead.
 */
export function rowDecoder<F extends Fields>(fields: F): (values: unknown[]) => RowOf<F> {
  const keys = Object.keys(fields);
  // A column decodes its own values; an SQL expression carries the decoder mapWith() gave it.
  const decoders = keys.map((key) => {
    const field = fields[key]!;
    return is(field, Column) ? field : (field as unknown as { decoder: DriverValueDecoder<unknown, unknown> }).decoder;
  });
  return (values) => {
    const row: Record<string, unknown> = {};
    for (let i = 0; i < keys.length; i++) {
      const value = values[i];
      row[keys[i]!] = value === null ? null : decoders[i]!.mapFromDriverValue(value);
    }
    return row as RowOf<F>;
  };
}
