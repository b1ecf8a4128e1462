import { describe, expect, test } from 'bun:test';
import { type Access, type Actor, authorize } from './actor.ts';

const actorWith = (role: 'member' | 'admin' | 'owner', routeRole?: Actor['routeRole']): Actor => ({
  kind: 'session',
  userId: 'user',
  isSuperadmin: false,
  credentialId: 'session',
  memberships: new Map([['org', role]]),
  routeRole,
});

const outcome = (actor: Actor, access: Access) => {
  try {
    return authorize(actor, 'org', access);
  } catch (error) {
    return (error as { code: string }).code;
  }
};

describe('authorize with the role the route declares', () => {
  test('the route role raises what a read or write asks, never lowers it', () => {
    expect(outcome(actorWith('member', 'admin'), 'read')).toBe('forbidden');
    expect(outcome(actorWith('admin', 'admin'), 'read')).toBe('admin');
    expect(outcome(actorWith('admin', 'owner'), 'write')).toBe('forbidden');
    expect(outcome(actorWith('member', 'member'), 'write')).toBe('forbidden');
    expect(outcome(actorWith('admin', 'member'), 'manage')).toBe('forbidden');
    expect(outcome(actorWith('member'), 'read')).toBe('member');
  });

  test('another organization stays 404 whatever the route declares', () => {
    const actor = actorWith('owner', 'admin');
    expect(() => authorize(actor, 'other', 'read')).toThrow(expect.objectContaining({ code: 'not_found' }));
  });
});
