import { describe, expect, test } from 'bun:test';
import { rateLimit } from '../../db/schema/index.ts';
import { createDb } from '../../db/client.ts';
import { ManualClock } from '../../lib/clock.ts';
import { openMigratedDatabase } from '../../../test/db.ts';
import { ATTEMPT_POLICIES, AttemptLimiter, attemptBuckets, beginAttempt } from './rate-limit.ts';
import { DomainError } from '../../lib/errors.ts';

const setup = () => {
  const db = createDb(openMigratedDatabase());
  return { db, clock: new ManualClock() };
};

const retryAfter = (run: () => void): number | null => {
  try {
    run();
    return null;
  } catch (error) {
    if (error instanceof DomainError && error.code === 'rate_limited') return error.retryAfterSeconds!;
    throw error;
  }
};

describe('attempt limits', () => {
  test('the policies stay within the ceiling of 100 failures per account per hour', () => {
    for (const { account } of Object.values(ATTEMPT_POLICIES)) {
      if (account) expect(account.limit * (3_600_000 / account.windowMs)).toBeLessThanOrEqual(100);
    }
  });

  test('an exact sliding window: full after `limit` failures, free again as the oldest ages out', () => {
    const { db, clock } = setup();
    const limiter = new AttemptLimiter(db, clock);
    const buckets = attemptBuckets('second-factor', { account: 'user-1', address: '192.0.2.1' });
    for (let i = 0; i < 10; i++) {
      expect(retryAfter(() => limiter.check(buckets))).toBeNull();
      limiter.fail(buckets);
      clock.advance(60_000);
    }
    // Ten failures one minute apart; the first leaves the 15-minute window in 5 minutes.
    expect(retryAfter(() => limiter.check(buckets))).toBe(5 * 60);
    clock.advance(5 * 60_000 - 1);
    expect(retryAfter(() => limiter.check(buckets))).toBe(1);
    clock.advance(1);
    expect(retryAfter(() => limiter.check(buckets))).toBeNull();
    limiter.fail(buckets);
    expect(retryAfter(() => limiter.check(buckets))).toBe(60);
  });

  test('accounts and addresses are separate buckets', () => {
    const { db, clock } = setup();
    const limiter = new AttemptLimiter(db, clock);
    for (let i = 0; i < 10; i++) limiter.fail(attemptBuckets('second-factor', { account: 'user-1', address: `192.0.2.${i}` }));
    expect(retryAfter(() => limiter.check(attemptBuckets('second-factor', { account: 'user-1', address: '192.0.2.200' })))).toBe(900);
    expect(retryAfter(() => limiter.check(attemptBuckets('second-factor', { account: 'user-2', address: '192.0.2.1' })))).toBeNull();
    // Sign-in buckets are not second-factor buckets.
    expect(retryAfter(() => limiter.check(attemptBuckets('sign-in', { account: 'user-1', address: '192.0.2.1' })))).toBeNull();
  });

  test('persisted: a new limiter on the same database (a restart) sees the failures', () => {
    const { db, clock } = setup();
    for (let i = 0; i < 50; i++) new AttemptLimiter(db, clock).fail(attemptBuckets('passkey', { address: '192.0.2.9' }));
    expect(() => beginAttempt(db, clock, 'passkey', { account: 'user-9', address: '192.0.2.9' })).toThrow(expect.objectContaining({ code: 'rate_limited' }));
  });

  test('old failures are purged as new ones arrive', () => {
    const { db, clock } = setup();
    const limiter = new AttemptLimiter(db, clock);
    limiter.fail(attemptBuckets('sign-in', { account: 'a', address: 'x' }));
    clock.advance(60 * 60_000 + 1);
    limiter.fail(attemptBuckets('sign-in', { account: 'b', address: 'y' }));
    expect(db.select().from(rateLimit).all().map((row) => row.key)).toEqual(['sign-in:address:y', 'sign-in:account-address:b|y', 'sign-in:account:b']);
  });

  test('beginAttempt: fail() records against account and address', () => {
    const { db, clock } = setup();
    for (let i = 0; i < 100; i++) beginAttempt(db, clock, 'passkey', { account: 'user-1', address: `198.51.100.${i % 40}` }).fail();
    expect(() => beginAttempt(db, clock, 'passkey', { account: 'user-1', address: '198.51.100.1' })).toThrow(expect.objectContaining({ code: 'rate_limited' }));
    expect(() => beginAttempt(db, clock, 'passkey', { account: 'user-2', address: '198.51.100.1' })).not.toThrow();
  });
});
