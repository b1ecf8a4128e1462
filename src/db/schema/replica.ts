/** replica — one instance of a managed cluster on one server (spec: referenced only). */
import { check, index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { id, isIntegerAtLeast, timestamps, uuidV7Check } from './columns.ts';
import { managed } from './managed.ts';
import { server } from './server.ts';

export const replica = sqliteTable(
  'replica',
  {
    id: id(),
    managedId: text('managed_id')
      .notNull()
      .references(() => managed.id, { onDelete: 'cascade' }),
    /** Restrict: a server cannot be deleted while it still hosts a replica (move or drop it first). */
    serverId: text('server_id')
      .notNull()
      .references(() => server.id, { onDelete: 'restrict' }),
    /** 1-based; the replica's containers carry the same ordinal. */
    ordinal: integer('ordinal').notNull().default(1),
    ...timestamps(),
  },
  (t) => [
    uuidV7Check('replica', t.id),
    check('replica_ordinal_at_least_one', isIntegerAtLeast(t.ordinal, 1)),
    uniqueIndex('replica_managed_id_ordinal_unique').on(t.managedId, t.ordinal),
    index('replica_server_id_index').on(t.serverId),
  ],
);

export type Replica = typeof replica.$inferSelect;
export type NewReplica = typeof replica.$inferInsert;
