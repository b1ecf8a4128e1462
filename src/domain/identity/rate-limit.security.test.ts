/**
 * M1 of the security review: after 100 failed sign-ins from anywhere, the owner with the right
 * password got 429 for an hour. The account-wide bucket now refuses only addresses that failed
 * on that account; everyone backs off per account and address.
 */
import { describe, expect, test } from 'bun:test';
import { createDb } from '../../db/client.ts';
import { DomainError } from '../../lib/errors.ts';
import { ManualClock } from '../../lib/clock.ts';
import { openMigratedDatabase } from '../../../test/db.ts';
import { AttemptLimiter, attemptBuckets, type AttemptKind } from './rate-limit.ts';

const setup = () => ({ limiter: new AttemptLimiter(createDb(openMigratedDatabase()), new ManualClock()) });

const refused = (limiter: AttemptLimiter, kind: AttemptKind, account: string, address: string): boolean => {
  try {
    limiter.check(attemptBuckets(kind, { account, address }));
    return false;
  } catch (error) {
    if (error instanceof DomainError && error.code === 'rate_limited') return true;
    throw error;
  }
};

describe.each(['sign-in', 'passkey'] as const)('%s: the account limit spares addresses without failures', (kind) => {
  test('100 failures from 20 addresses refuse those addresses, not a clean one', () => {
    const { limiter } = setup();
    for (let i = 0; i < 100; i++) limiter.fail(attemptBuckets(kind, { account: 'owner', address: `192.0.2.${i % 20}` }));
    expect(refused(limiter, kind, 'owner', '192.0.2.3')).toBe(true);
    expect(refused(limiter, kind, 'owner', '198.51.100.1')).toBe(false);
    // One failure makes an address one that failed: while the account is full, it is refused.
    limiter.fail(attemptBuckets(kind, { account: 'owner', address: '198.51.100.1' }));
    expect(refused(limiter, kind, 'owner', '198.51.100.1')).toBe(true);
    expect(refused(limiter, kind, 'owner', '198.51.100.2')).toBe(false);
    // Other accounts are untouched.
    expect(refused(limiter, kind, 'someone-else', '192.0.2.3')).toBe(false);
  });

  test('one address backs off on one account after 10 failures in 15 minutes', () => {
    const { limiter } = setup();
    for (let i = 0; i < 10; i++) limiter.fail(attemptBuckets(kind, { account: 'owner', address: '203.0.113.5' }));
    expect(refused(limiter, kind, 'owner', '203.0.113.5')).toBe(true);
    expect(refused(limiter, kind, 'other', '203.0.113.5')).toBe(false);
    expect(refused(limiter, kind, 'owner', '203.0.113.6')).toBe(false);
  });
});

test('six-digit codes keep a strict account-wide limit: whoever fails them already has the password', () => {
  const { limiter } = setup();
  for (let i = 0; i < 10; i++) limiter.fail(attemptBuckets('second-factor', { account: 'owner', address: `192.0.2.${i}` }));
  expect(refused(limiter, 'second-factor', 'owner', '198.51.100.1')).toBe(true);
});
