/**
 * Recording events in batches (a reconnect storm's server.connected and server.disconnected):
 * one transaction, one delivery per event whose kind the organization's webhook selects, each
 * event published once after the commit, and the pending-delivery bound held across the batch.
 */
import { describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { type Event, event, webhookDelivery } from '../../db/schema/index.ts';
import { createTestApp } from '../../../test/harness.ts';
import { createOwner } from '../../../test/identity.ts';
import { parseNetworkPolicy, type NetworkPolicy } from '../webhooks/destination.ts';
import { MAX_PENDING } from '../webhooks/queue.ts';
import { saveWebhook } from '../webhooks/service.ts';
import { EventRecorder, type NewEventInput } from './record.ts';

function setup(eventKinds: string[] | null) {
  const t = createTestApp();
  const [a, b] = [createOwner(t), createOwner(t)];
  const actor = { kind: 'session' as const, userId: a.userId, isSuperadmin: false, credentialId: 'x', memberships: new Map([[a.organizationId, 'owner' as const]]) };
  const policy = parseNetworkPolicy('public') as NetworkPolicy;
  const hook = saveWebhook({ db: t.db, keyring: t.deps.keyring, policy }, actor, a.organizationId, { url: 'https://hooks.example.test/panel', eventKinds }).row;
  const published: Event[] = [];
  let deliveredCalls = 0;
  const recorder = new EventRecorder({ db: t.db, now: () => t.clock.now(), publish: (row) => published.push(row), delivered: () => deliveredCalls++ });
  const input = (organizationId: string, kind: string, n: number): NewEventInput => ({ organizationId, kind, severity: 'info', message: `event ${n}` });
  const pending = () => t.db.select().from(webhookDelivery).where(eq(webhookDelivery.status, 'pending')).all();
  return { t, a, b, hook, recorder, published, input, pending, deliveredCalls: () => deliveredCalls };
}

describe('recording events in a batch', () => {
  test('every event is stored and published once; deliveries only where the webhook selects the kind', () => {
    const { t, a, b, recorder, published, input, pending, deliveredCalls } = setup(['server.connected']);
    const inputs = [input(a.organizationId, 'server.connected', 1), input(b.organizationId, 'server.connected', 2), input(a.organizationId, 'server.disconnected', 3), input(a.organizationId, 'server.connected', 4)];
    const rows = recorder.recordAll(inputs);
    expect(rows.map((row) => row.message)).toEqual(['event 1', 'event 2', 'event 3', 'event 4']);
    expect(published.map((row) => row.id)).toEqual(rows.map((row) => row.id));
    expect(t.db.select().from(event).all()).toHaveLength(4);
    expect(pending().map((row) => row.eventId).sort()).toEqual([rows[0]!.id, rows[3]!.id].sort());
    expect(deliveredCalls()).toBe(1);
    expect(recorder.counts.get('server')).toBe(4);
  });

  test('a batch beyond the pending bound gives up the oldest pending deliveries, one per new one', () => {
    const { t, a, hook, recorder, input, pending } = setup(null);
    const old = recorder.recordAll(Array.from({ length: MAX_PENDING - 1 }, (_, n) => input(a.organizationId, 'server.connected', n)));
    expect(pending()).toHaveLength(MAX_PENDING - 1);
    const fresh = recorder.recordAll([input(a.organizationId, 'server.connected', 1), input(a.organizationId, 'server.connected', 2), input(a.organizationId, 'server.connected', 3)]);
    const waiting = pending();
    expect(waiting).toHaveLength(MAX_PENDING);
    expect(waiting.every((row) => row.webhookId === hook.id)).toBe(true);
    const given = t.db.select().from(webhookDelivery).where(eq(webhookDelivery.status, 'failed')).all();
    expect(given.map((row) => row.eventId).sort()).toEqual([old[0]!.id, old[1]!.id].sort());
    for (const row of fresh) expect(waiting.some((delivery) => delivery.eventId === row.id)).toBe(true);
  });

  test('an invalid kind records nothing of the batch', () => {
    const { t, a, recorder, input, published } = setup(null);
    expect(() => recorder.recordAll([input(a.organizationId, 'server.connected', 1), input(a.organizationId, 'Not A Kind', 2)])).toThrow(/invalid event kind/);
    expect(t.db.select().from(event).all()).toEqual([]);
    expect(published).toEqual([]);
  });
});
