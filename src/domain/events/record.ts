/**
 * The events feed of an organization (issue 19): one function records an event, in the same
 * transaction queues its webhook delivery (src/domain/webhooks/queue.ts), and hands it to live
 * subscribers once committed. Kinds are dotted names; their families are
 *
 *   container.started|exited|died|restarting|paused|unpaused|unknown   state changes between deploys
 *   deployment.succeeded|failed                                         outcomes of deploy, stop, destroy
 *   server.connected|disconnected                                       daemons coming and going
 *   certificate.issued|renewed|failed|expiring                          from the ingress (certificates.ts)
 *   webhook.test                                                        a test delivery someone asked for
 */
import { type Event, event, type EventSeverity, type JsonObject } from '../../db/schema/index.ts';
import type { Queryable } from '../shared/database.ts';
import { queueDeliveries } from '../webhooks/queue.ts';

export const EVENT_KIND_PATTERN = /^[a-z][a-z_]*(\.[a-z][a-z_]*)+$/;
const MAX_MESSAGE = 2_000;

export interface NewEventInput {
  organizationId: string;
  kind: string;
  severity: EventSeverity;
  message: string;
  serverId?: string | null;
  environmentId?: string | null;
  serviceId?: string | null;
  containerId?: string | null;
  deploymentId?: string | null;
  data?: JsonObject | null;
}

export interface EventRecorderOptions {
  db: Queryable;
  now: () => Date;
  /** Called with each committed event (the live feed). */
  publish: (event: Event) => void;
  /** Called when deliveries were queued (the webhook dispatcher may want to run now). */
  delivered?: () => void;
}

/** An event as the API answers it and a webhook receives it. */
export const eventJson = (row: Event) => ({
  id: row.id,
  organizationId: row.organizationId,
  kind: row.kind,
  severity: row.severity,
  message: row.message,
  serverId: row.serverId,
  environmentId: row.environmentId,
  serviceId: row.serviceId,
  containerId: row.containerId,
  deploymentId: row.deploymentId,
  data: row.data,
  createdAt: row.createdAt.toISOString(),
});

export class EventRecorder {
  /** Events recorded since start, by kind family, for /metrics. */
  readonly counts = new Map<string, number>();

  constructor(private readonly options: EventRecorderOptions) {}

  /** Records the event (and its webhook deliveries) in one transaction; answers the row. */
  record(input: NewEventInput): Event {
    if (!EVENT_KIND_PATTERN.test(input.kind)) throw new Error(`invalid event kind ${input.kind}`);
    const { db } = this.options;
    const { row, queued } = db.transaction((tx) => {
      const inserted = tx
        .insert(event)
        .values({ ...input, message: input.message.slice(0, MAX_MESSAGE), createdAt: this.options.now() })
        .returning()
        .get();
      return { row: inserted, queued: queueDeliveries(tx, inserted, this.options.now()) };
    });
    const family = input.kind.split('.')[0]!;
    this.counts.set(family, (this.counts.get(family) ?? 0) + 1);
    this.options.publish(row);
    if (queued > 0) this.options.delivered?.();
    return row;
  }
}
