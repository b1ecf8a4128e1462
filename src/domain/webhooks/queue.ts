/**
 * Queuing webhook deliveries for a new event (inside the event's own transaction): one pending
 * delivery when the organization's webhook is enabled and selects the event's kind. A webhook
 * holds at most MAX_PENDING pending deliveries (a receiver down for days): beyond that the oldest
 * pending one is given up, so what is delivered when it comes back is the most recent.
 */
import { and, asc, count, eq } from 'drizzle-orm';
import { type Event, webhook, webhookDelivery } from '../../db/schema/index.ts';
import type { Queryable } from '../shared/database.ts';

export const MAX_PENDING = 1_000;

/** The event a "send a test" asks for: delivered whatever kinds the webhook selects. */
export const TEST_EVENT_KIND = 'webhook.test';

/** A kind list entry selects that kind (`deployment.failed`) or its family (`deployment`). */
export function selectsKind(kinds: readonly string[] | null, kind: string): boolean {
  return kinds === null || kind === TEST_EVENT_KIND || kinds.some((entry) => entry === kind || kind.startsWith(`${entry}.`));
}

export function queueDeliveries(db: Queryable, row: Event, now: Date): number {
  const target = db.select().from(webhook).where(and(eq(webhook.organizationId, row.organizationId), eq(webhook.isEnabled, true))).get();
  if (!target || !selectsKind(target.eventKinds ?? null, row.kind)) return 0;
  const pending = db
    .select({ n: count() })
    .from(webhookDelivery)
    .where(and(eq(webhookDelivery.webhookId, target.id), eq(webhookDelivery.status, 'pending')))
    .get()!.n;
  if (pending >= MAX_PENDING) {
    const oldest = db
      .select({ id: webhookDelivery.id })
      .from(webhookDelivery)
      .where(and(eq(webhookDelivery.webhookId, target.id), eq(webhookDelivery.status, 'pending')))
      .orderBy(asc(webhookDelivery.id))
      .get()!;
    db.update(webhookDelivery)
      .set({ status: 'failed', nextAttemptAt: null, error: `given up: more than ${MAX_PENDING} deliveries were waiting` })
      .where(eq(webhookDelivery.id, oldest.id))
      .run();
  }
  db.insert(webhookDelivery).values({ webhookId: target.id, eventId: row.id, status: 'pending', attempts: 0, nextAttemptAt: now }).run();
  return 1;
}
