/**
 * An open /ws/client/v1 socket does not outlive the credential it was opened with: after a
 * sign-out or a revoked API token the next change closes it (4401) instead of being delivered,
 * and a member removed from the organization stops hearing its changes, over real sockets.
 */
import { afterEach, describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { apiToken, membership } from '../../db/schema/index.ts';
import { clientAs } from '../../../test/client.ts';
import { enrolledServer, listenOnLoopback, SocketProbe } from '../../../test/daemon.ts';
import { createTestApp, type TestApp } from '../../../test/harness.ts';
import { addMember, createOwner, tokenFor } from '../../../test/identity.ts';
import { CREDENTIAL_ENDED_CLOSE_CODE } from '../../contract/live.ts';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function watchServers(t: TestApp, organizationId: string, headers: Record<string, string>): Promise<SocketProbe> {
  const probe = await SocketProbe.open(`${listenOnLoopback(t, cleanups)}/ws/client/v1`, headers);
  cleanups.push(() => probe.socket.close());
  probe.send({ type: 'subscribe', organizationId });
  await probe.next((frame) => frame.type === 'subscribed');
  return probe;
}

const serverFrames = (probe: SocketProbe) => probe.frames.filter((frame: any) => frame.type === 'server');

describe('/ws/client/v1 after the credential or the membership ends', () => {
  test('a signed-out session hears no further change: the socket closes with 4401', async () => {
    const t = createTestApp();
    const owner = createOwner(t);
    const member = addMember(t, owner.organizationId, 'member');
    const node = enrolledServer(t, owner.organizationId, { name: 'web' });
    const watcher = await watchServers(t, owner.organizationId, member.headers);

    expect((await clientAs(t, member)('POST', '/auth/sign-out')).status).toBe(204);
    expect((await clientAs(t, owner)('PATCH', `/servers/${node.id}`, { name: 'after-sign-out' })).status).toBe(200);

    expect(await watcher.next((frame) => frame.type === 'error')).toMatchObject({ code: 'unauthenticated' });
    expect(await watcher.closedWith()).toMatchObject({ code: CREDENTIAL_ENDED_CLOSE_CODE });
    expect(serverFrames(watcher)).toEqual([]);
    expect(t.hub.feed.size).toBe(0);
  });

  test('a revoked API token hears no further change', async () => {
    const t = createTestApp();
    const owner = createOwner(t);
    const node = enrolledServer(t, owner.organizationId);
    const watcher = await watchServers(t, owner.organizationId, tokenFor(t, owner, 'member'));

    const token = t.db.select().from(apiToken).where(eq(apiToken.userId, owner.userId)).get()!;
    expect((await clientAs(t, owner)('DELETE', `/api-tokens/${token.id}`)).status).toBe(204);
    expect((await clientAs(t, owner)('PATCH', `/servers/${node.id}`, { name: 'after-revoke' })).status).toBe(200);

    expect(await watcher.closedWith()).toMatchObject({ code: CREDENTIAL_ENDED_CLOSE_CODE });
    expect(serverFrames(watcher)).toEqual([]);
  });

  test('a member removed from the organization stops hearing it; the socket stays open', async () => {
    const t = createTestApp();
    const owner = createOwner(t);
    const member = addMember(t, owner.organizationId, 'member');
    const node = enrolledServer(t, owner.organizationId);
    const watcher = await watchServers(t, owner.organizationId, member.headers);

    const row = t.db.select().from(membership).where(eq(membership.userId, member.userId)).get()!;
    expect((await clientAs(t, owner)('DELETE', `/memberships/${row.id}`)).status).toBe(204);
    expect((await clientAs(t, owner)('PATCH', `/servers/${node.id}`, { name: 'secret-name' })).status).toBe(200);

    expect(await watcher.next((frame) => frame.type === 'error')).toMatchObject({ code: 'not_found', organizationId: owner.organizationId });
    expect(t.hub.feed.size).toBe(0);
    expect(JSON.stringify(watcher.frames)).not.toContain('secret-name');
    expect(watcher.closed).toBeNull();
  });
});
