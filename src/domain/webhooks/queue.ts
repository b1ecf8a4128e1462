/**
 * Queuing webhook deliveries for a new event (inside the event's own transaction): one pending
 * delivery when the organization's webhook is enabled and selects the event's kind. A webhook
 * holds at most MAX_PENDING pending deliveries (a receiver down for days): beyond that the oldest
 * pending one is given up, so what is delivered when it comes back is the most recent.
 */
import { and, asc, count, eq } from 'drizzle-orm';
import { type Event, type Webhook, webhook, webhookDelivery } from '../../db/schema/index.ts';
import type { Queryable } from '../shared/database.ts';

export const MAX_PENDING = 1_000;

/** The event a "send a test" asks for: delivered whatever kinds the webhook selects. */
export const TEST_EVENT_KIND = 'webhook.test';

/** A kind list entry selects that kind (`deployment.failed`) or its family (`deployment`). */
export function selectsKind(kinds: readonly string[] | null, kind: string): boolean {
  return kinds === null || kind === TEST_EVENT_KIND || kinds.some((entry) => entry === kind || kind.startsWith(`${entry}.`));
}

/**
 * Queues the deliveries of new events, in their transaction. Each organization's webhook and its
 * pending count are read once per call, so a batch of events (a reconnect storm's hundreds of
 * server.connected) costs one lookup per organization, not one per event.
 */
export function queueDeliveries(db: Queryable, rows: readonly Event[], now: Date): number {
  const targets = new Map<string, Webhook | undefined>();
  const pendingOf = new Map<string, number>();
  let queued = 0;
  for (const row of rows) {
    if (!targets.has(row.organizationId)) targets.set(row.organizationId, enabledWebhookOf(db, row.organizationId));
    const target = targets.get(row.organizationId);
    if (!target || !selectsKind(target.eventKinds ?? null, row.kind)) continue;
    let pending = pendingOf.get(target.id) ?? pendingCount(db, target.id);
    if (pending >= MAX_PENDING) {
      giveUpOldest(db, target.id);
      pending--;
    }
    db.insert(webhookDelivery).values({ webhookId: target.id, eventId: row.id, status: 'pending', attempts: 0, nextAttemptAt: now }).run();
    pendingOf.set(target.id, pending + 1);
    queued++;
  }
  return queued;
}

const enabledWebhookOf = (db: Queryable, organizationId: string): Webhook | undefined =>
  db.select().from(webhook).where(and(eq(webhook.organizationId, organizationId), eq(webhook.isEnabled, true))).get();

const isPendingOf = (webhookId: string) => and(eq(webhookDelivery.webhookId, webhookId), eq(webhookDelivery.status, 'pending'));

const pendingCount = (db: Queryable, webhookId: string): number => db.select({ n: count() }).from(webhookDelivery).where(isPendingOf(webhookId)).get()!.n;

function giveUpOldest(db: Queryable, webhookId: string): void {
  const oldest = db.select({ id: webhookDelivery.id }).from(webhookDelivery).where(isPendingOf(webhookId)).orderBy(asc(webhookDelivery.id)).get()!;
  db.update(webhookDelivery)
    .set({ status: 'failed', nextAttemptAt: null, error: `given up: more than ${MAX_PENDING} deliveries were waiting` })
    .where(eq(webhookDelivery.id, oldest.id))
    .run();
}
