/**
 * An organization's webhook through the API: admins create it (the secret shown once, sealed at
 * rest), change it, rotate the secret, send a test and read the deliveries; members read it
 * without the secret; destinations outside the operator's networks are refused at save.
 */
import { describe, expect, test } from 'bun:test';
import { parseNetworkPolicy } from '../../../domain/webhooks/destination.ts';
import { clientAs, rawRow } from '../../../../test/client.ts';
import { createTestApp } from '../../../../test/harness.ts';
import { addMember, createOwner } from '../../../../test/identity.ts';

function world(networks = 'public') {
  const t = createTestApp({ webhookNetworks: parseNetworkPolicy(networks) as never });
  const owner = createOwner(t);
  return { t, owner, as: clientAs(t, owner), path: `/organizations/${owner.organizationId}/webhook` };
}

describe('the organization webhook', () => {
  test('created once with its secret; read back without it; changed without a new one; stored sealed', async () => {
    const { t, owner, as, path } = world();
    expect((await as('GET', path)).status).toBe(404);
    const created = await as('PUT', path, { url: 'https://hooks.example.test/panel', eventKinds: ['deployment'] });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({ url: 'https://hooks.example.test/panel', isEnabled: true, eventKinds: ['deployment'] });
    expect(created.json.secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    const stored = rawRow(t, 'webhook', created.json.id)!;
    expect(String(stored.secret)).toStartWith('pnsecret.');
    expect(JSON.stringify(stored)).not.toContain(created.json.secret);
    const member = clientAs(t, addMember(t, owner.organizationId, 'member'));
    const read = await member('GET', path);
    expect(read.json.secret).toBeUndefined();
    const changed = await as('PUT', path, { url: 'https://hooks.example.test/other', isEnabled: false });
    expect(changed.status).toBe(200);
    expect(changed.json).toMatchObject({ url: 'https://hooks.example.test/other', isEnabled: false, eventKinds: ['deployment'] });
    expect(changed.json.secret).toBeUndefined();
    expect(rawRow(t, 'webhook', created.json.id)!.secret).toBe(stored.secret);
  });

  test('rotating answers a new secret once; a test event is queued for delivery and listed', async () => {
    const { as, path } = world();
    const created = await as('PUT', path, { url: 'https://hooks.example.test/' });
    const rotated = await as('POST', `${path}/secret`);
    expect(rotated.json.secret).toMatch(/^whsec_/);
    expect(rotated.json.secret).not.toBe(created.json.secret);
    const sent = await as('POST', `${path}/test`);
    expect(sent.status).toBe(202);
    expect(sent.json.kind).toBe('webhook.test');
    const deliveries = await as('GET', `${path}/deliveries`);
    expect(deliveries.json.data).toEqual([expect.objectContaining({ eventId: sent.json.id, status: 'pending', attempts: 0 })]);
  });

  test.each([
    ['http://127.0.0.1:8080/hook', 'public'],
    ['http://[::1]/hook', 'public'],
    ['http://169.254.169.254/latest/meta-data', 'public'],
    ['http://localhost:9000/', 'public'],
    ['http://10.0.0.5/', '192.168.0.0/16'],
  ])('refuses %s when the operator allows %s', async (url, networks) => {
    const { as, path } = world(networks);
    const refused = await as('PUT', path, { url });
    expect(refused.status).toBe(422);
    expect(refused.json.error).toMatchObject({ code: 'webhook_destination_refused', path: 'url' });
    expect((await as('GET', path)).status).toBe(404);
  });

  test('an internal receiver is fine once its range is allowed; webhooks off answers 409', async () => {
    const allowed = world('10.0.0.0/8');
    expect((await allowed.as('PUT', allowed.path, { url: 'http://10.0.0.5/hook' })).status).toBe(201);
    const off = world('none');
    expect((await off.as('PUT', off.path, { url: 'https://hooks.example.test/' })).json.error.code).toBe('webhooks_disabled');
  });

  test('members cannot change it; bad input is 422; another organization is 404', async () => {
    const { t, owner, as, path } = world();
    const member = clientAs(t, addMember(t, owner.organizationId, 'member'));
    expect((await member('PUT', path, { url: 'https://hooks.example.test/' })).status).toBe(403);
    expect((await as('PUT', path, { url: 'ftp://hooks.example.test/' })).json.error.path).toBe('url');
    expect((await as('PUT', path, { url: 'https://user:pw@hooks.example.test/' })).status).toBe(422);
    expect((await as('PUT', path, { url: 'https://hooks.example.test/', eventKinds: ['Not A Kind'] })).json.error.path).toBe('eventKinds.0');
    expect((await as('PUT', path, { url: 'https://hooks.example.test/', extra: true })).status).toBe(422);
    await as('PUT', path, { url: 'https://hooks.example.test/' });
    const stranger = clientAs(t, createOwner(t));
    for (const [method, suffix] of [['GET', ''], ['PUT', ''], ['DELETE', ''], ['POST', '/secret'], ['POST', '/test'], ['GET', '/deliveries']] as const) {
      expect((await stranger(method, `${path}${suffix}`, method === 'PUT' ? { url: 'https://x.example/' } : undefined)).status).toBe(404);
    }
    expect((await as('DELETE', path)).status).toBe(204);
    expect((await as('GET', path)).status).toBe(404);
  });
});
