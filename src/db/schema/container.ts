/**
 * container — pins one container to a service and the server observed to host it. Pre-allocated
 * at deploy (status `pending`, container_id null) and upserted from the daemon's report.
 */
import { sql } from 'drizzle-orm';
import { check, index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import {
  enumCheck,
  id,
  isIntegerAtLeast,
  jsonObject,
  jsonObjectCheck,
  timestamps,
  uuidV7Check,
} from './columns.ts';
import { server } from './server.ts';
import { service } from './service.ts';
import { containerRoles, containerStatuses } from '../../contract/enums.ts';

export const container = sqliteTable(
  'container',
  {
    id: id(),
    /** Free-form; never read or written by the platform. */
    metadata: jsonObject('metadata'),
    options: jsonObject('options'),
    serviceId: text('service_id')
      .notNull()
      .references(() => service.id, { onDelete: 'restrict' }),
    /** Observed placement (the desired pin lives on environment.server_id). */
    serverId: text('server_id')
      .notNull()
      .references(() => server.id, { onDelete: 'restrict' }),
    /** Runtime id from the daemon report; null before the first report and after stop/destroy. */
    containerId: text('container_id'),
    containerName: text('container_name').notNull(),
    status: text('status', { enum: containerStatuses }).notNull().default('pending'),
    role: text('role', { enum: containerRoles }).notNull().default('service'),
    /** Compose service key as reported; multi-instance clones carry a `-N` suffix. */
    composeServiceName: text('compose_service_name').notNull(),
    /** 1-based instance index; managed replicas match replica.ordinal. */
    ordinal: integer('ordinal').notNull().default(1),
    ...timestamps(),
  },
  (t) => [
    uuidV7Check('container', t.id),
    jsonObjectCheck('container', t.metadata),
    jsonObjectCheck('container', t.options),
    enumCheck('container', t.status, containerStatuses),
    enumCheck('container', t.role, containerRoles),
    check('container_ordinal_at_least_one', isIntegerAtLeast(t.ordinal, 1)),
    check('container_ingress_ordinal_is_one', sql`${t.role} <> 'ingress' OR ${t.ordinal} = 1`),
    check('container_container_name_not_empty', sql`length(${t.containerName}) >= 1`),
    check('container_compose_service_name_not_empty', sql`length(${t.composeServiceName}) >= 1`),
    // Also serves the service_id foreign key.
    uniqueIndex('container_service_id_role_ordinal_unique').on(t.serviceId, t.role, t.ordinal),
    uniqueIndex('container_server_id_container_id_unique')
      .on(t.serverId, t.containerId)
      .where(sql`${t.containerId} IS NOT NULL`),
    index('container_server_id_index').on(t.serverId),
  ],
);

export type Container = typeof container.$inferSelect;
export type NewContainer = typeof container.$inferInsert;
