/**
 * An organization's outgoing webhook (issue 19): every event it selects is POSTed as JSON, signed
 * (`Panel-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`), retried with
 * backoff, only to networks the operator allows (PANEL_WEBHOOK_ALLOWED_NETWORKS).
 *   GET    /organizations/:id/webhook              any member (never the secret)
 *   PUT    /organizations/:id/webhook              admins: create (201, with the secret, shown once) or change
 *   DELETE /organizations/:id/webhook              admins
 *   POST   /organizations/:id/webhook/secret       admins: a new secret, shown once
 *   POST   /organizations/:id/webhook/test         admins: records a webhook.test event and delivers it
 *   GET    /organizations/:id/webhook/deliveries   any member: recent deliveries, newest first
 */
import { Elysia } from 'elysia';
import type { AppDeps } from '../../../deps.ts';
import { IdParams, listEnvelope, NoContent } from '../../../contract/common.ts';
import { Event as EventResponse, Webhook as WebhookResponse, WebhookDeliveriesQuery, WebhookDelivery as DeliveryResponse, WebhookRequest, WebhookWithSecret } from '../../../contract/events.ts';
import { authorize } from '../../../domain/actor.ts';
import { TEST_EVENT_KIND } from '../../../domain/webhooks/queue.ts';
import { deleteWebhook, listDeliveries, loadWebhook, rotateWebhookSecret, saveWebhook } from '../../../domain/webhooks/service.ts';
import { clientGuard } from '../../plugins/guard.ts';
import { presenterOf } from '../../present.ts';
import { errorResponses } from '../../schemas.ts';
import { presentEvent } from './events.ts';

const present = presenterOf(WebhookResponse);
const presentDelivery = presenterOf(DeliveryResponse);

export const webhookRoutes = (deps: AppDeps) => {
  const context = { db: deps.db, keyring: deps.keyring, policy: deps.config.webhookNetworks };
  return new Elysia({ prefix: '/organizations', detail: { tags: ['webhooks'] } })
    .use(clientGuard(deps))
    .get('/:id/webhook', ({ actor, params }) => present(loadWebhook(deps.db, actor, params.id)), {
      params: IdParams,
      response: { 200: WebhookResponse, ...errorResponses('unauthenticated', 'not_found', 'validation_failed') },
      role: 'member',
      detail: { summary: "Read the organization's webhook (404 when it has none)" },
    })
    .put(
      '/:id/webhook',
      ({ actor, params, body, set }) => {
        const { row, secret, created } = saveWebhook(context, actor, params.id, body);
        set.status = created ? 201 : 200;
        return secret ? { ...present(row), secret } : present(row);
      },
      {
        params: IdParams,
        body: WebhookRequest,
        response: { 200: WebhookResponse, 201: WebhookWithSecret, ...errorResponses('unauthenticated', 'forbidden', 'not_found', 'webhooks_disabled', 'validation_failed', 'webhook_destination_refused') },
        role: 'admin',
        detail: {
          summary: "Create or change the organization's webhook (admins)",
          description: 'Created: 201 with `secret`, shown this once. Changed: 200; the secret stays. 409 `webhooks_disabled` when the operator turned them off; 422 `webhook_destination_refused` for an address outside the allowed networks.',
        },
      },
    )
    .delete(
      '/:id/webhook',
      ({ actor, params, set }) => {
        deleteWebhook(deps.db, actor, params.id);
        set.status = 204;
      },
      { params: IdParams, response: { 204: NoContent, ...errorResponses('unauthenticated', 'forbidden', 'not_found', 'validation_failed') }, role: 'admin', detail: { summary: "Remove the organization's webhook and its deliveries (admins)" } },
    )
    .post('/:id/webhook/secret', ({ actor, params }) => {
      const { row, secret } = rotateWebhookSecret(context, actor, params.id);
      return { ...present(row), secret };
    }, {
      params: IdParams,
      response: { 200: WebhookWithSecret, ...errorResponses('unauthenticated', 'forbidden', 'not_found', 'validation_failed') },
      role: 'admin',
      detail: { summary: 'Replace the signing secret (admins); the new one is shown this once' },
    })
    .post(
      '/:id/webhook/test',
      async ({ actor, params, set }) => {
        authorize(actor, params.id, 'write', 'organization');
        loadWebhook(deps.db, actor, params.id);
        const row = deps.hub.observe.events.record({ organizationId: params.id, kind: TEST_EVENT_KIND, severity: 'info', message: 'A test event: the webhook is reachable and its signature checks out' });
        set.status = 202;
        return presentEvent(row);
      },
      {
        params: IdParams,
        response: { 202: EventResponse, ...errorResponses('unauthenticated', 'forbidden', 'not_found', 'validation_failed') },
        role: 'admin',
        detail: { summary: 'Record a webhook.test event and deliver it (admins); follow it in the deliveries' },
      },
    )
    .get(
      '/:id/webhook/deliveries',
      ({ actor, params, query }) => {
        const page = listDeliveries(deps.db, actor, params.id, query);
        return { data: page.data.map(presentDelivery), nextCursor: page.nextCursor };
      },
      {
        params: IdParams,
        query: WebhookDeliveriesQuery,
        response: { 200: listEnvelope(DeliveryResponse), ...errorResponses('unauthenticated', 'not_found', 'validation_failed') },
        role: 'member',
        detail: { summary: "The webhook's recent deliveries, newest first (the last 200 finished ones are kept)" },
      },
    );
};
