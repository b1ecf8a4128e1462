/**
 * Webhook delivery: a signed POST a receiver can verify, retried with backoff until the last
 * delay and then given up; refused destinations are attempts that fail (and are never sent); a
 * real POST over node:http goes to exactly the address that was checked.
 */
import { afterEach, describe, expect, test } from 'bun:test';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { webhook, webhookDelivery } from '../../db/schema/index.ts';
import { silentLogger } from '../../lib/logger.ts';
import { createTestApp, type TestApp } from '../../../test/harness.ts';
import { createOwner } from '../../../test/identity.ts';
import { parseNetworkPolicy, type NetworkPolicy } from './destination.ts';
import { type OutgoingRequest, RETRY_DELAYS_MS, sendPinned, WebhookDispatcher } from './dispatcher.ts';
import { saveWebhook } from './service.ts';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

function setup(url: string, policyText = 'public', answer: (request: OutgoingRequest) => Promise<number> = async () => 204) {
  const t = createTestApp();
  const owner = createOwner(t);
  const policy = parseNetworkPolicy(policyText) as NetworkPolicy;
  const actor = { kind: 'session' as const, userId: owner.userId, isSuperadmin: false, credentialId: 'x', memberships: new Map([[owner.organizationId, 'owner' as const]]) };
  const { secret } = saveWebhook({ db: t.db, keyring: t.deps.keyring, policy }, actor, owner.organizationId, { url });
  const sent: OutgoingRequest[] = [];
  const dispatcher = new WebhookDispatcher({
    db: t.db,
    keyring: t.deps.keyring,
    now: () => t.clock.now(),
    policy,
    logger: silentLogger,
    lookup: async () => [{ address: '93.184.216.34', family: 4 }],
    send: async (request) => {
      sent.push(request);
      return answer(request);
    },
  });
  const record = () => t.hub.observe.events.record({ organizationId: owner.organizationId, kind: 'deployment.failed', severity: 'error', message: 'it broke' });
  return { t, owner, secret: secret!, dispatcher, sent, record };
}

/**
 * What a receiver does with the documented header (docs/DECISIONS.md), written from that text
 * alone rather than with Panel's signing code: HMAC-SHA256 of "<t>.<raw body>" under the secret,
 * compared in constant time, refused when `t` is more than 5 minutes from its clock.
 */
function receiverAccepts(secret: string, header: string, body: string, nowSeconds: number): boolean {
  const match = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(header);
  if (!match || Math.abs(nowSeconds - Number(match[1])) > 300) return false;
  const expected = createHmac('sha256', secret).update(`${match[1]}.${body}`).digest();
  return timingSafeEqual(expected, Buffer.from(match[2]!, 'hex'));
}

const delivery = (t: TestApp) => t.db.select().from(webhookDelivery).get()!;

describe('delivering', () => {
  test('a POST of the event, signed so the receiver can verify it, to the checked address', async () => {
    const { t, secret, dispatcher, sent, record } = setup('https://hooks.example.test/panel?x=1');
    const row = record();
    await dispatcher.tick();
    expect(sent).toHaveLength(1);
    const [request] = sent;
    expect(request!.url.href).toBe('https://hooks.example.test/panel?x=1');
    expect(request!.address).toBe('93.184.216.34');
    expect(JSON.parse(request!.body)).toMatchObject({ id: row.id, kind: 'deployment.failed', message: 'it broke', organizationId: row.organizationId });
    expect(request!.headers['panel-event']).toBe('deployment.failed');
    const now = Math.floor(t.clock.now().getTime() / 1000);
    const signature = request!.headers['panel-signature']!;
    expect(signature).toStartWith(`t=${now},v1=`);
    expect(receiverAccepts(secret, signature, request!.body, now)).toBe(true);
    expect(receiverAccepts(secret, signature, `${request!.body} `, now)).toBe(false);
    expect(receiverAccepts('whsec_other', signature, request!.body, now)).toBe(false);
    expect(receiverAccepts(secret, signature, request!.body, now + 3600)).toBe(false);
    expect(delivery(t)).toMatchObject({ status: 'delivered', attempts: 1, responseStatus: 204, nextAttemptAt: null });
  });

  test('a failing receiver is retried after each delay, then given up', async () => {
    const { t, dispatcher, sent, record } = setup('https://hooks.example.test/', 'public', async () => 500);
    record();
    await dispatcher.tick();
    for (const [index, delay] of RETRY_DELAYS_MS.entries()) {
      expect(delivery(t)).toMatchObject({ status: 'pending', attempts: index + 1, responseStatus: 500, error: 'the receiver answered 500' });
      t.clock.advance(delay - 1);
      await dispatcher.tick();
      expect(sent).toHaveLength(index + 1);
      t.clock.advance(1);
      await dispatcher.tick();
    }
    expect(sent).toHaveLength(RETRY_DELAYS_MS.length + 1);
    expect(delivery(t)).toMatchObject({ status: 'failed', attempts: RETRY_DELAYS_MS.length + 1, nextAttemptAt: null });
  });

  test('a destination outside the allowed networks fails the attempt without any request', async () => {
    const { t, dispatcher, sent, record } = setup('http://10.1.2.3/hook', '10.0.0.0/8');
    // The operator narrowed the policy after the webhook was saved: every attempt checks again.
    (dispatcher as unknown as { options: { policy: NetworkPolicy } }).options.policy = parseNetworkPolicy('public') as NetworkPolicy;
    record();
    await dispatcher.tick();
    expect(sent).toHaveLength(0);
    expect(delivery(t)).toMatchObject({ status: 'pending', attempts: 1 });
    expect(delivery(t).error).toContain('destination refused');
  });

  test('only the kinds the webhook selects are sent (the test event always is); a disabled webhook queues nothing', async () => {
    const { t, owner, dispatcher, sent, record } = setup('https://hooks.example.test/');
    t.db.update(webhook).set({ eventKinds: ['server'] }).run();
    record();
    t.hub.observe.events.record({ organizationId: owner.organizationId, kind: 'server.connected', severity: 'info', message: 'up' });
    t.hub.observe.events.record({ organizationId: owner.organizationId, kind: 'webhook.test', severity: 'info', message: 'test' });
    await dispatcher.tick();
    expect(sent.map((request) => JSON.parse(request.body).kind).sort()).toEqual(['server.connected', 'webhook.test']);
    t.db.update(webhook).set({ isEnabled: false }).run();
    t.hub.observe.events.record({ organizationId: owner.organizationId, kind: 'server.connected', severity: 'info', message: 'again' });
    expect(t.db.select().from(webhookDelivery).all()).toHaveLength(2);
  });
});

describe('sendPinned', () => {
  test('connects to the checked address while the URL (and Host) keep the name', async () => {
    const seen: { host: string | null; body: string }[] = [];
    const receiver = Bun.serve({
      hostname: '127.0.0.1',
      port: 0,
      async fetch(request) {
        seen.push({ host: request.headers.get('host'), body: await request.text() });
        return new Response(null, { status: 202 });
      },
    });
    cleanups.push(() => receiver.stop(true));
    const status = await sendPinned({
      url: new URL(`http://hooks.invalid:${receiver.port}/panel`),
      address: '127.0.0.1',
      family: 4,
      headers: { 'content-type': 'application/json' },
      body: '{"ok":true}',
    });
    expect(status).toBe(202);
    expect(seen).toEqual([{ host: `hooks.invalid:${receiver.port}`, body: '{"ok":true}' }]);
  });

  test('a redirect is not followed: its status is the answer', async () => {
    const receiver = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => new Response(null, { status: 302, headers: { location: 'http://169.254.169.254/' } }) });
    cleanups.push(() => receiver.stop(true));
    expect(await sendPinned({ url: new URL(`http://127.0.0.1:${receiver.port}/`), address: '127.0.0.1', family: 4, headers: {}, body: '{}' })).toBe(302);
  });
});
