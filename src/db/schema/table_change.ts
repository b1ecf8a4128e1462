/**
 * table_change — how many times each table whose read answers Panel caches has changed. A trigger
 * on each such table (migrations/0017_add_table_change_triggers.sql) raises its row in the same
 * transaction as the write, whoever writes (this process, another connection, a sqlite3 shell),
 * and a rollback takes the raise back with the write. A cached answer is served only while the
 * counters of the tables it was read from are what they were when it was read
 * (src/http/answer-cache.ts).
 */
import { integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';

export const tableChange = sqliteTable('table_change', {
  tableName: text('table_name').primaryKey(),
  changes: integer('changes').notNull().default(0),
});
