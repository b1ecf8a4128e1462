/**
 * Delivers queued webhook deliveries: a signed JSON POST to the organization's URL, to an address
 * checked against the operator's networks at every attempt (destination.ts). A 2xx answer
 * delivers; anything else (another status, a timeout, a refused destination) is retried after
 * RETRY_DELAYS_MS[attempt], and given up after the last one. Deliveries are rows, so a restart
 * resumes them; at most CONCURRENCY requests run at once, each bounded by REQUEST_TIMEOUT_MS.
 */
import { and, asc, desc, eq, lte, notInArray, sql } from 'drizzle-orm';
import type { KeyRing } from '../../crypto/keyring.ts';
import { openSecret } from '../../crypto/index.ts';
import { type Event, event, webhook, webhookDelivery } from '../../db/schema/index.ts';
import type { Logger } from '../../lib/logger.ts';
import { PANEL_VERSION } from '../../version.ts';
import { eventJson } from '../events/record.ts';
import type { Queryable } from '../shared/database.ts';
import { checkWebhookUrl, DestinationRefused, type Lookup, type NetworkPolicy, resolveDestination } from './destination.ts';
import { SIGNATURE_HEADER, signPayload } from './signature.ts';

export const RETRY_DELAYS_MS = [10_000, 30_000, 120_000, 600_000, 1_800_000, 3_600_000, 10_800_000, 21_600_000];
const CONCURRENCY = 4;
const REQUEST_TIMEOUT_MS = 10_000;
/** Finished deliveries kept per webhook (its recent history). */
const KEPT_FINISHED = 200;

export interface OutgoingRequest {
  url: URL;
  /** The checked address the connection must go to. */
  address: string;
  family: 4 | 6;
  headers: Record<string, string>;
  body: string;
}

/** Sends one request; answers the HTTP status, or throws when there was none. */
export type WebhookSender = (request: OutgoingRequest) => Promise<number>;

/**
 * node:http(s) with the lookup pinned to the checked address; no redirect is followed. The
 * modules load at the first delivery: at start they cost the server memory most installs never
 * use (docs/PERFORMANCE.md).
 */
export const sendPinned: WebhookSender = async (outgoing) => {
  const { url } = outgoing;
  const { request: send } = url.protocol === 'https:' ? await import('node:https') : await import('node:http');
  return new Promise((resolve, reject) => {
    const request = send(
      {
        hostname: url.hostname.replace(/^\[|\]$/g, ''),
        port: url.port || (url.protocol === 'https:' ? 443 : 80),
        path: `${url.pathname}${url.search}`,
        method: 'POST',
        headers: { ...outgoing.headers, 'content-length': String(Buffer.byteLength(outgoing.body)) },
        timeout: REQUEST_TIMEOUT_MS,
        lookup: (_host: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) =>
          options?.all ? callback(null, [{ address: outgoing.address, family: outgoing.family }]) : callback(null, outgoing.address, outgoing.family),
      } as never,
      (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      },
    );
    request.on('timeout', () => request.destroy(new Error(`no answer within ${REQUEST_TIMEOUT_MS / 1000} s`)));
    request.on('error', reject);
    request.end(outgoing.body);
  });
};

export interface DispatcherOptions {
  db: Queryable;
  keyring: KeyRing;
  now: () => Date;
  policy: NetworkPolicy;
  logger: Logger;
  send?: WebhookSender;
  lookup?: Lookup;
}

export class WebhookDispatcher {
  private running = 0;
  private readonly inFlight = new Set<string>();
  /** Outcomes since start, for /metrics. */
  readonly stats = { delivered: 0, failedAttempts: 0, givenUp: 0 };

  constructor(private readonly options: DispatcherOptions) {}

  /** Starts due deliveries (up to the concurrency bound); resolves when those attempts are done. */
  async tick(): Promise<void> {
    const { db } = this.options;
    const free = CONCURRENCY - this.running;
    if (free <= 0) return;
    const due = db
      .select({ id: webhookDelivery.id })
      .from(webhookDelivery)
      .where(
        and(
          eq(webhookDelivery.status, 'pending'),
          lte(webhookDelivery.nextAttemptAt, this.options.now()),
          this.inFlight.size > 0 ? notInArray(webhookDelivery.id, [...this.inFlight]) : undefined,
        ),
      )
      .orderBy(asc(webhookDelivery.nextAttemptAt))
      .limit(free)
      .all();
    await Promise.all(due.map(({ id }) => this.attempt(id)));
  }

  private async attempt(deliveryId: string): Promise<void> {
    const { db, logger } = this.options;
    this.running++;
    this.inFlight.add(deliveryId);
    try {
      const delivery = db.select().from(webhookDelivery).where(eq(webhookDelivery.id, deliveryId)).get();
      const hook = delivery && db.select().from(webhook).where(eq(webhook.id, delivery.webhookId)).get();
      const row = delivery && db.select().from(event).where(eq(event.id, delivery.eventId)).get();
      if (!delivery || delivery.status !== 'pending') return;
      if (!hook || !row || !hook.isEnabled) return this.finish(deliveryId, { status: 'failed', error: 'the webhook was disabled or removed' });
      let status: number | null = null;
      let error: string | null = null;
      try {
        status = await this.post(hook, row, deliveryId);
        if (status < 200 || status >= 300) error = `the receiver answered ${status}`;
      } catch (failure) {
        error = failure instanceof DestinationRefused ? `destination refused: ${failure.message}` : `request failed: ${(failure as Error).message}`;
      }
      if (error === null) {
        this.stats.delivered++;
        return this.finish(deliveryId, { status: 'delivered', attempts: delivery.attempts + 1, responseStatus: status, error: null });
      }
      this.stats.failedAttempts++;
      const attempts = delivery.attempts + 1;
      const delay = RETRY_DELAYS_MS[attempts - 1];
      if (delay === undefined) {
        this.stats.givenUp++;
        logger.warn('webhook delivery given up', { deliveryId, webhookId: hook.id, attempts, error });
        return this.finish(deliveryId, { status: 'failed', attempts, responseStatus: status, error });
      }
      this.finish(deliveryId, { attempts, responseStatus: status, error, nextAttemptAt: new Date(this.options.now().getTime() + delay) });
    } finally {
      this.running--;
      this.inFlight.delete(deliveryId);
    }
  }

  private async post(hook: typeof webhook.$inferSelect, row: Event, deliveryId: string): Promise<number> {
    const url = checkWebhookUrl(hook.url);
    const { address, family } = await resolveDestination(url, this.options.policy, this.options.lookup);
    const secret = openSecret(this.options.keyring, hook.secret, { table: 'webhook', column: 'secret', id: hook.id });
    // The event as GET /events answers it.
    const body = JSON.stringify(eventJson(row));
    const timestamp = Math.floor(this.options.now().getTime() / 1000);
    const headers = {
      'content-type': 'application/json',
      'user-agent': `Panel-Webhook/${PANEL_VERSION}`,
      'panel-event': row.kind,
      'panel-delivery': deliveryId,
      [SIGNATURE_HEADER]: signPayload(secret, timestamp, body),
    };
    return (this.options.send ?? sendPinned)({ url, address, family, headers, body });
  }

  private finish(deliveryId: string, changes: Partial<typeof webhookDelivery.$inferInsert>): void {
    const done = changes.status === 'delivered' || changes.status === 'failed';
    this.options.db
      .update(webhookDelivery)
      .set({ ...changes, ...(done ? { nextAttemptAt: null } : {}) })
      .where(eq(webhookDelivery.id, deliveryId))
      .run();
  }

  /** Keeps each webhook's finished deliveries to its most recent KEPT_FINISHED. */
  prune(): void {
    const { db } = this.options;
    for (const { id } of db.select({ id: webhook.id }).from(webhook).all()) {
      const cutoff = db
        .select({ id: webhookDelivery.id })
        .from(webhookDelivery)
        .where(and(eq(webhookDelivery.webhookId, id), sql`${webhookDelivery.status} <> 'pending'`))
        .orderBy(desc(webhookDelivery.id))
        .limit(1)
        .offset(KEPT_FINISHED)
        .get();
      if (cutoff) db.delete(webhookDelivery).where(and(eq(webhookDelivery.webhookId, id), sql`${webhookDelivery.status} <> 'pending'`, lte(webhookDelivery.id, cutoff.id))).run();
    }
  }
}
