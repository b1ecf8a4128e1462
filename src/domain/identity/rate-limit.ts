/**
 * Failed-attempt limits for sign-in, second factor, passkey and install attempts, per account
 * and per client address. Every failure is a row in `rate_limit`; a bucket is full when it holds
 * `limit` failures younger than its window (an exact sliding window). Persisted in SQLite so a
 * restart does not hand an attacker a fresh budget; time comes from the injected clock.
 *
 * A full bucket refuses the attempt before any password or code is checked, so a correct guess
 * made while limited tells the caller nothing. Successes do not clear a bucket: the victim's own
 * sign-in would otherwise reset the attacker's budget, breaking "at most N failures per account
 * per window".
 *
 * Passwords and passkeys also back off per account and address, and their account-wide bucket
 * refuses only addresses that failed on that account within its window: failures from elsewhere
 * must not lock the owner out (issue 13 M1: 100 failed sign-ins from anywhere used to refuse the
 * owner's right password for an hour). Once an account's bucket is full, each address that has
 * not failed on it gets one attempt per window, and the per-address buckets bound the rest.
 * Six-digit codes keep a strict account-wide bucket: they are far easier to guess, and whoever
 * fails them already holds the password.
 */
import { and, asc, count, eq, gt, lte } from 'drizzle-orm';
import { hashToken } from '../../auth/token.ts';
import type { Db } from '../../db/client.ts';
import { rateLimit } from '../../db/schema/index.ts';
import type { Clock } from '../../lib/clock.ts';
import { DomainError } from '../../lib/errors.ts';

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;

export interface RatePolicy {
  readonly name: string;
  readonly limit: number;
  readonly windowMs: number;
}

export type AttemptKind = 'sign-in' | 'second-factor' | 'passkey' | 'install';

interface KindPolicies {
  address: RatePolicy;
  account?: RatePolicy;
  /** With one, the account bucket refuses only addresses that failed on the account (see above). */
  accountAddress?: RatePolicy;
}

/**
 * Per account: at most 100 failed sign-ins an hour (the ceiling), and a tighter 10 per
 * 15 minutes for six-digit codes, which are far easier to guess than passwords. Per account and
 * address: 10 per 15 minutes. Per address: 50 failures per 15 minutes (room for an office behind
 * one NAT, far too few for spraying); install proofs (the host-account password) 10 per 15 minutes.
 */
export const ATTEMPT_POLICIES: Readonly<Record<AttemptKind, KindPolicies>> = {
  'sign-in': {
    account: { name: 'sign-in:account', limit: 100, windowMs: HOUR_MS },
    accountAddress: { name: 'sign-in:account-address', limit: 10, windowMs: 15 * MINUTE_MS },
    address: { name: 'sign-in:address', limit: 50, windowMs: 15 * MINUTE_MS },
  },
  'second-factor': {
    account: { name: 'second-factor:account', limit: 10, windowMs: 15 * MINUTE_MS },
    address: { name: 'second-factor:address', limit: 50, windowMs: 15 * MINUTE_MS },
  },
  passkey: {
    account: { name: 'passkey:account', limit: 100, windowMs: HOUR_MS },
    accountAddress: { name: 'passkey:account-address', limit: 10, windowMs: 15 * MINUTE_MS },
    address: { name: 'passkey:address', limit: 50, windowMs: 15 * MINUTE_MS },
  },
  install: {
    address: { name: 'install:address', limit: 10, windowMs: 15 * MINUTE_MS },
  },
};

const LONGEST_WINDOW_MS = Math.max(
  ...Object.values(ATTEMPT_POLICIES).flatMap((p) => [p.address.windowMs, p.account?.windowMs ?? 0, p.accountAddress?.windowMs ?? 0]),
);

/** 429 with the seconds until the fullest bucket frees a slot (the mapper sends Retry-After). */
export const rateLimited = (retryAfterSeconds: number) =>
  new DomainError('rate_limited', 'too many failed attempts; try again later', undefined, retryAfterSeconds);

export interface Bucket {
  readonly policy: RatePolicy;
  /** Already-safe subject: an account id or hash, or a client address. */
  readonly subject: string;
  /** When full, this bucket refuses only callers whose own bucket here failed within its window. */
  readonly refusesOnlyAfterFailureIn?: Bucket;
}

/** An e-mail as an account subject: hashed, so the table holds no addresses. */
export const emailSubject = (normalizedEmail: string) => `email:${hashToken(normalizedEmail)}`;

/** The buckets an attempt of `kind` counts against. */
export function attemptBuckets(kind: AttemptKind, who: { account?: string; address: string }): Bucket[] {
  const policies = ATTEMPT_POLICIES[kind];
  const buckets: Bucket[] = [{ policy: policies.address, subject: who.address }];
  if (!policies.account || who.account === undefined) return buckets;
  if (!policies.accountAddress) return [...buckets, { policy: policies.account, subject: who.account }];
  const pair: Bucket = { policy: policies.accountAddress, subject: `${who.account}|${who.address}` };
  return [...buckets, pair, { policy: policies.account, subject: who.account, refusesOnlyAfterFailureIn: pair }];
}

const keyOf = (bucket: Bucket) => `${bucket.policy.name}:${bucket.subject}`.slice(0, 512);

export class AttemptLimiter {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {}

  private failuresSince(bucket: Bucket, since: Date): number {
    const inWindow = and(eq(rateLimit.key, keyOf(bucket)), gt(rateLimit.failedAt, since));
    return this.db.select({ n: count() }).from(rateLimit).where(inWindow).get()?.n ?? 0;
  }

  /** Seconds until the bucket accepts this caller's next attempt; 0 when it is not refused. */
  retryAfterSeconds(bucket: Bucket): number {
    const now = this.clock.now().getTime();
    const key = keyOf(bucket);
    const since = new Date(now - bucket.policy.windowMs);
    const inWindow = and(eq(rateLimit.key, key), gt(rateLimit.failedAt, since));
    const failures = this.failuresSince(bucket, since);
    if (failures < bucket.policy.limit) return 0;
    const gate = bucket.refusesOnlyAfterFailureIn;
    if (gate && this.failuresSince(gate, since) === 0) return 0;
    // The bucket has room again once enough of its oldest failures have left the window.
    const freeing = this.db
      .select({ at: rateLimit.failedAt })
      .from(rateLimit)
      .where(inWindow)
      .orderBy(asc(rateLimit.failedAt))
      .limit(1)
      .offset(failures - bucket.policy.limit)
      .get();
    const waitMs = (freeing?.at.getTime() ?? now) + bucket.policy.windowMs - now;
    return Math.max(1, Math.ceil(waitMs / 1000));
  }

  /** Throws 429 `rate_limited` (with the longest wait) when any bucket is full. */
  check(buckets: readonly Bucket[]): void {
    const wait = Math.max(0, ...buckets.map((bucket) => this.retryAfterSeconds(bucket)));
    if (wait > 0) throw rateLimited(wait);
  }

  /** Records one failure in every bucket, and forgets failures older than any window. */
  fail(buckets: readonly Bucket[]): void {
    const now = this.clock.now();
    this.db.transaction((tx) => {
      tx.delete(rateLimit).where(lte(rateLimit.failedAt, new Date(now.getTime() - LONGEST_WINDOW_MS))).run();
      for (const bucket of buckets) tx.insert(rateLimit).values({ key: keyOf(bucket), failedAt: now }).run();
    });
  }
}

/**
 * One attempt against the limits, for flows that check their own credential (passkeys):
 * `const attempt = beginAttempt(...)` throws 429 when limited; call `attempt.fail()` when the
 * credential is wrong.
 */
export function beginAttempt(db: Db, clock: Clock, kind: AttemptKind, who: { account?: string; address: string }) {
  const limiter = new AttemptLimiter(db, clock);
  const buckets = attemptBuckets(kind, who);
  limiter.check(buckets);
  return { fail: () => limiter.fail(buckets) };
}
