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
import { newId } from '../../lib/ids.ts';
import { param } from '../commands/prepared.ts';
import { preparedOnce, type Queryable } from '../shared/database.ts';
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

// Prepared (a drizzle insert built per event cost more than SQLite's work), so every value is a
// placeholder in its stored form: the id and created_at too, which a prepared statement would freeze.
const insertStatement = (db: Queryable) =>
  db
    .insert(event)
    .values({
      id: param('id'),
      organizationId: param('organizationId'),
      kind: param('kind'),
      severity: param('severity'),
      message: param('message'),
      serverId: param('serverId'),
      environmentId: param('environmentId'),
      serviceId: param('serviceId'),
      containerId: param('containerId'),
      deploymentId: param('deploymentId'),
      data: param('data'),
      createdAt: param('createdAt'),
    })
    .prepare();

/** The row an input becomes (the insert reads nothing back: every value is known here). */
const rowOf = (input: NewEventInput, now: Date): Event => ({
  id: newId(),
  organizationId: input.organizationId,
  kind: input.kind,
  severity: input.severity,
  message: input.message.slice(0, MAX_MESSAGE),
  serverId: input.serverId ?? null,
  environmentId: input.environmentId ?? null,
  serviceId: input.serviceId ?? null,
  containerId: input.containerId ?? null,
  deploymentId: input.deploymentId ?? null,
  data: input.data ?? null,
  createdAt: now,
});

const storedValuesOf = (row: Event) => ({ ...row, data: row.data === null ? null : JSON.stringify(row.data), createdAt: row.createdAt.getTime() });

export class EventRecorder {
  /** Events recorded since start, by kind family, for /metrics. */
  readonly counts = new Map<string, number>();

  constructor(private readonly options: EventRecorderOptions) {}

  /** Records the event (and its webhook deliveries) in one transaction; answers the row. */
  record(input: NewEventInput): Event {
    return this.recordAll([input])[0]!;
  }

  /**
   * Records events (and their webhook deliveries) in one transaction: a thousand daemons
   * reconnecting are a few commits, not a thousand. Each is published once committed; answers
   * the rows.
   */
  recordAll(inputs: readonly NewEventInput[]): Event[] {
    if (inputs.length === 0) return [];
    for (const input of inputs) if (!EVENT_KIND_PATTERN.test(input.kind)) throw new Error(`invalid event kind ${input.kind}`);
    const { db } = this.options;
    const now = this.options.now();
    const { rows, queued } = db.transaction((tx) => {
      const insert = preparedOnce(tx, insertStatement);
      const inserted = inputs.map((input) => rowOf(input, now));
      for (const row of inserted) insert.run(storedValuesOf(row));
      return { rows: inserted, queued: queueDeliveries(tx, inserted, now) };
    });
    for (const row of rows) {
      const family = row.kind.split('.')[0]!;
      this.counts.set(family, (this.counts.get(family) ?? 0) + 1);
      this.options.publish(row);
    }
    if (queued > 0) this.options.delivered?.();
    return rows;
  }
}
