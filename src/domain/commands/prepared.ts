import { type SQL, sql } from 'drizzle-orm';

/**
 * A named parameter usable as a value in `.set()` of a prepared statement (drizzle's typings
 * take SQL there, not a bare placeholder). It is bound as given, without the column's mapping:
 * pass timestamps as epoch milliseconds.
 */
export const param = (name: string): SQL => sql`${sql.placeholder(name)}`;
