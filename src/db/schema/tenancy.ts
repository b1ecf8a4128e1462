/** tenancy — join edge marking the system principal a service runs as. No metadata/options (spec). */
import { index, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { id, timestamps, uuidV7Check } from './columns.ts';
import { principal } from './principal.ts';
import { service } from './service.ts';

export const tenancy = sqliteTable(
  'tenancy',
  {
    id: id(),
    principalId: text('principal_id')
      .notNull()
      .references(() => principal.id, { onDelete: 'cascade' }),
    /** Restrict: run-as edges must be cleared before a service is deleted. */
    serviceId: text('service_id')
      .notNull()
      .references(() => service.id, { onDelete: 'restrict' }),
    ...timestamps(),
  },
  (t) => [
    uuidV7Check('tenancy', t.id),
    uniqueIndex('tenancy_principal_id_service_id_unique').on(t.principalId, t.serviceId),
    index('tenancy_service_id_index').on(t.serviceId),
  ],
);

export type Tenancy = typeof tenancy.$inferSelect;
export type NewTenancy = typeof tenancy.$inferInsert;
