/**
 * An organization's events feed and its outgoing webhook (issue 19). A webhook delivery carries
 * the event as GET /events answers it, signed: `Panel-Signature: t=<unix seconds>,v1=<hex
 * HMAC-SHA256 of "<t>.<raw body>" under the secret>`.
 */
import * as v from 'valibot';
import { JsonColumn, ListQuery, strict, Timestamps, Uuid } from './common.ts';
import { eventSeverities, webhookDeliveryStatuses } from './enums.ts';

/** An event kind (`deployment.failed`) or a family (`deployment`). */
export const EventKindOrFamily = v.pipe(v.string(), v.maxLength(64), v.regex(/^[a-z][a-z_]*(\.[a-z][a-z_]*)*$/, 'must be an event kind like deployment.failed, or a family like deployment'));

export const EventsQuery = v.object({
  organizationId: Uuid,
  kind: v.optional(EventKindOrFamily),
  serverId: v.optional(Uuid),
  environmentId: v.optional(Uuid),
  serviceId: v.optional(Uuid),
  ...ListQuery,
});

export const Event = v.object({
  id: v.string(),
  organizationId: v.string(),
  kind: v.string(),
  severity: v.picklist(eventSeverities),
  message: v.string(),
  serverId: v.nullable(v.string()),
  environmentId: v.nullable(v.string()),
  serviceId: v.nullable(v.string()),
  containerId: v.nullable(v.string()),
  deploymentId: v.nullable(v.string()),
  data: JsonColumn,
  createdAt: v.string(),
});
export type Event = v.InferOutput<typeof Event>;

export const WebhookRequest = strict({
  url: v.pipe(v.string(), v.minLength(1, 'must not be empty'), v.maxLength(2_000, 'must be at most 2000 characters')),
  isEnabled: v.optional(v.boolean()),
  /** Event kinds or families to send (`deployment`, `container.exited`); null sends every event. */
  eventKinds: v.optional(v.nullable(v.pipe(v.array(EventKindOrFamily), v.maxLength(50, 'at most 50 kinds')))),
});
export type WebhookRequest = v.InferInput<typeof WebhookRequest>;

export const Webhook = v.object({
  id: v.string(),
  organizationId: v.string(),
  url: v.string(),
  isEnabled: v.boolean(),
  eventKinds: v.nullable(v.array(v.string())),
  ...Timestamps,
});
export type Webhook = v.InferOutput<typeof Webhook>;
/** At creation and when replaced: the signing secret, shown this once. */
export const WebhookWithSecret = v.object({ ...Webhook.entries, secret: v.string() });

export const WebhookDeliveriesQuery = v.object(ListQuery);

export const WebhookDelivery = v.object({
  id: v.string(),
  eventId: v.string(),
  status: v.picklist(webhookDeliveryStatuses),
  attempts: v.number(),
  nextAttemptAt: v.nullable(v.string()),
  responseStatus: v.nullable(v.number()),
  error: v.nullable(v.string()),
  ...Timestamps,
});
export type WebhookDelivery = v.InferOutput<typeof WebhookDelivery>;
