/**
 * webhook and webhook_delivery — an organization's optional outgoing webhook (issue 19): every
 * event of the kinds it selects is POSTed as JSON, signed with HMAC-SHA256 under the webhook's
 * secret (sealed at rest: Panel needs it to sign), and retried with backoff. Deliveries are rows,
 * so a restart loses none; destinations are checked against the operator's allowed networks at
 * every attempt (src/domain/webhooks/destination.ts).
 */
import { sql } from 'drizzle-orm';
import { check, index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { boolean, booleanCheck, enumCheck, id, isSealedSecret, timestampMs, timestamps, uuidV7Check } from './columns.ts';
import { event } from './event.ts';
import { organization } from './organization.ts';
import { webhookDeliveryStatuses } from '../../contract/enums.ts';

export const webhook = sqliteTable(
  'webhook',
  {
    id: id(),
    organizationId: text('organization_id')
      .notNull()
      .references(() => organization.id, { onDelete: 'cascade' }),
    url: text('url').notNull(),
    /** pnsecret envelope of the signing secret. */
    secret: text('secret').notNull(),
    isEnabled: boolean('is_enabled').notNull().default(true),
    /** JSON array of event kinds (or kind prefixes ending in `.`); null sends every event. */
    eventKinds: text('event_kinds', { mode: 'json' }).$type<string[]>(),
    ...timestamps(),
  },
  (t) => [
    uuidV7Check('webhook', t.id),
    booleanCheck('webhook', t.isEnabled),
    check('webhook_secret_is_sealed', isSealedSecret(t.secret)),
    check('webhook_event_kinds_is_json_array', sql`${t.eventKinds} IS NULL OR (json_valid(${t.eventKinds}) AND json_type(${t.eventKinds}) = 'array')`),
    check('webhook_url_is_http', sql`${t.url} GLOB 'http://?*' OR ${t.url} GLOB 'https://?*'`),
    uniqueIndex('webhook_organization_id_unique').on(t.organizationId),
  ],
);


export const webhookDelivery = sqliteTable(
  'webhook_delivery',
  {
    id: id(),
    webhookId: text('webhook_id')
      .notNull()
      .references(() => webhook.id, { onDelete: 'cascade' }),
    eventId: text('event_id')
      .notNull()
      .references(() => event.id, { onDelete: 'cascade' }),
    status: text('status', { enum: webhookDeliveryStatuses }).notNull().default('pending'),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: timestampMs('next_attempt_at'),
    /** HTTP status of the last attempt, when one was answered. */
    responseStatus: integer('response_status'),
    /** Why the last attempt failed (never a secret). */
    error: text('error'),
    ...timestamps(),
  },
  (t) => [
    uuidV7Check('webhook_delivery', t.id),
    enumCheck('webhook_delivery', t.status, webhookDeliveryStatuses),
    index('webhook_delivery_pending_next_attempt_at_index')
      .on(t.nextAttemptAt)
      .where(sql`${t.status} = 'pending'`),
    index('webhook_delivery_webhook_id_id_index').on(t.webhookId, t.id),
    index('webhook_delivery_event_id_index').on(t.eventId),
  ],
);

export type Webhook = typeof webhook.$inferSelect;
export type WebhookDelivery = typeof webhookDelivery.$inferSelect;
