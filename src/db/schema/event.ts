/**
 * event — an organization's events feed (issue 19): container state changes, deploy outcomes,
 * servers connecting and disconnecting, certificate events. Written once, never updated; bounded
 * per organization by count and age (src/domain/events/retention.ts). The subject columns are
 * cleared when their row goes, so the feed keeps its history.
 */
import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { enumCheck, id, jsonObject, jsonObjectCheck, sqlNowMs, uuidV7Check } from './columns.ts';
import { container } from './container.ts';
import { deployment } from './deployment.ts';
import { environment } from './environment.ts';
import { organization } from './organization.ts';
import { server } from './server.ts';
import { service } from './service.ts';
import { eventSeverities } from '../../contract/enums.ts';


export const event = sqliteTable(
  'event',
  {
    id: id(),
    organizationId: text('organization_id')
      .notNull()
      .references(() => organization.id, { onDelete: 'cascade' }),
    /** Dotted, e.g. `container.exited`, `deployment.failed`, `server.connected`, `certificate.issued`. */
    kind: text('kind').notNull(),
    severity: text('severity', { enum: eventSeverities }).notNull(),
    message: text('message').notNull(),
    serverId: text('server_id').references(() => server.id, { onDelete: 'set null' }),
    environmentId: text('environment_id').references(() => environment.id, { onDelete: 'set null' }),
    serviceId: text('service_id').references(() => service.id, { onDelete: 'set null' }),
    containerId: text('container_id').references(() => container.id, { onDelete: 'set null' }),
    deploymentId: text('deployment_id').references(() => deployment.id, { onDelete: 'set null' }),
    /** Small facts of the event (exit code, hostnames, a certificate's expiry). */
    data: jsonObject('data'),
    createdAt: integer('created_at', { mode: 'timestamp_ms' }).notNull().default(sqlNowMs),
  },
  (t) => [
    uuidV7Check('event', t.id),
    enumCheck('event', t.severity, eventSeverities),
    jsonObjectCheck('event', t.data),
    index('event_organization_id_id_index').on(t.organizationId, t.id),
    index('event_server_id_index').on(t.serverId),
    index('event_environment_id_index').on(t.environmentId),
    index('event_service_id_index').on(t.serviceId),
    index('event_container_id_index').on(t.containerId),
    index('event_deployment_id_index').on(t.deploymentId),
  ],
);

export type Event = typeof event.$inferSelect;
export type NewEvent = typeof event.$inferInsert;
