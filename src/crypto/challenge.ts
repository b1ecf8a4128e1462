/**
 * Stateless, expiring, single-use challenges: `pn2fa` (pending two-factor sign-in),
 * `pnwebauthn` (a WebAuthn ceremony) and `pnoauth` (oauth start/callback CSRF state).
 *
 *   pn<purpose>.v1.<keyId>.<payload>
 *
 * The payload is AES-256-GCM under the purpose's own key ring subkey, over the JSON
 * {purpose, subject, id, issuedAt, expiresAt, data?}. A challenge is bound to its purpose three
 * times (subkey, scheme name in the authenticated header, purpose inside the plaintext), so one
 * can never be replayed as another. Single use is enforced through `ConsumedChallengeStore`,
 * which remembers ids until they expire.
 */
import type { Clock } from '../lib/clock.ts';
import { newId } from '../lib/ids.ts';
import {
  type EnvelopeLayout,
  envelopeHeader,
  formatEnvelope,
  keyIdField,
  parseEnvelope,
  refuseEnvelope,
} from './envelope.ts';
import type { KeyRing } from './keyring.ts';
import { aesGcmOpen, aesGcmSeal, GCM_NONCE_BYTES, GCM_TAG_BYTES } from './primitives.ts';

export const CHALLENGE_PURPOSES = ['2fa', 'webauthn', 'oauth'] as const;
export type ChallengePurpose = (typeof CHALLENGE_PURPOSES)[number];

const MINUTE_MS = 60_000;
export const CHALLENGE_LIFETIME_MS: Readonly<Record<ChallengePurpose, number>> = {
  '2fa': 5 * MINUTE_MS,
  webauthn: 5 * MINUTE_MS,
  oauth: 10 * MINUTE_MS,
};

/**
 * How far in the future `issuedAt` may lie: room for clocks of replicas that disagree slightly,
 * while a challenge minted with a clock far ahead (to outlive its lifetime) is refused.
 */
export const ISSUED_AT_SKEW_MS = 30_000;

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

export interface Challenge {
  readonly purpose: ChallengePurpose;
  /** Who the challenge is for (a user id, or a browser session for oauth state). */
  readonly subject: string;
  /** UUID v7; the single-use key. */
  readonly id: string;
  readonly issuedAt: Date;
  readonly expiresAt: Date;
  /** Whatever the ceremony needs to carry between its steps (e.g. a WebAuthn challenge). */
  readonly data?: JsonValue;
}

/** Remembers consumed challenge ids (table `consumed_challenge(id pk, purpose, expires_at)`). */
export interface ConsumedChallengeStore {
  /**
   * Records `id` as used and returns true, or returns false when it was already recorded.
   * Must be atomic (an insert that fails on the primary key). Rows may be purged once
   * `expiresAt` has passed: an expired challenge is refused before the store is asked.
   */
  consume(id: string, purpose: ChallengePurpose, expiresAt: Date): boolean;
}

export interface SealChallengeOptions {
  /** Overrides the purpose's default lifetime (`CHALLENGE_LIFETIME_MS`). */
  readonly lifetimeMs?: number;
}

const layouts = new Map<string, EnvelopeLayout<'keyId'>>(
  CHALLENGE_PURPOSES.map((purpose) => [
    purpose,
    { scheme: `pn${purpose}`, idFields: [keyIdField('keyId')], minPayloadBytes: GCM_NONCE_BYTES + GCM_TAG_BYTES },
  ]),
);

function layoutFor(purpose: ChallengePurpose): EnvelopeLayout<'keyId'> {
  const layout = layouts.get(purpose);
  if (layout === undefined) throw new TypeError('unknown challenge purpose');
  return layout;
}

/** Seals a challenge for `subject`, expiring after the purpose's lifetime. */
export function sealChallenge(
  ring: KeyRing,
  clock: Clock,
  purpose: ChallengePurpose,
  subject: string,
  data?: JsonValue,
  options: SealChallengeOptions = {},
): string {
  const layout = layoutFor(purpose);
  if (typeof subject !== 'string' || subject === '') {
    throw new TypeError('challenge subject must be a non-empty string');
  }
  const lifetimeMs = options.lifetimeMs ?? CHALLENGE_LIFETIME_MS[purpose];
  if (!Number.isInteger(lifetimeMs) || lifetimeMs <= 0) {
    throw new RangeError('challenge lifetime must be a positive integer');
  }

  const issuedAt = clock.now();
  const body = {
    purpose,
    subject,
    id: newId(),
    issuedAt: issuedAt.toISOString(),
    expiresAt: new Date(issuedAt.getTime() + lifetimeMs).toISOString(),
    ...(data === undefined ? {} : { data }),
  };
  const header = envelopeHeader(layout, { keyId: ring.currentKeyId });
  const plaintext = Buffer.from(JSON.stringify(body), 'utf8');
  const payload = aesGcmSeal(ring.currentSubkey(layout.scheme), plaintext, Buffer.from(header, 'utf8'));
  return formatEnvelope(header, payload);
}

/**
 * Verifies and consumes a challenge: it opens at most once. Throws `EnvelopeError` when the
 * envelope is malformed, of another purpose, expired, issued in the future, or already used.
 */
export function openChallenge(
  ring: KeyRing,
  clock: Clock,
  purpose: ChallengePurpose,
  envelope: string,
  consumed: ConsumedChallengeStore,
): Challenge {
  const challenge = peekChallenge(ring, clock, purpose, envelope);
  if (!consumed.consume(challenge.id, purpose, challenge.expiresAt)) refuseEnvelope();
  return challenge;
}

/**
 * Verifies a challenge WITHOUT consuming it, for the non-final steps of a multi-step ceremony:
 * e.g. checking that a pending two-factor sign-in is still valid before showing the code form,
 * or checking a TOTP code so that a mistyped code does not burn the challenge. The step that
 * grants anything (issues the session, registers the passkey, completes the oauth callback)
 * must call `openChallenge`, so that the grant happens once. Peek does not consult the store:
 * a challenge that was already consumed still peeks as valid until it expires.
 */
export function peekChallenge(ring: KeyRing, clock: Clock, purpose: ChallengePurpose, envelope: string): Challenge {
  const layout = layoutFor(purpose);
  const { header, ids, payload } = parseEnvelope(layout, envelope);
  const key = ring.subkey(ids.keyId, layout.scheme) ?? refuseEnvelope();
  const plaintext = aesGcmOpen(key, payload, Buffer.from(header, 'utf8')) ?? refuseEnvelope();
  const challenge = decodeChallengeBody(plaintext) ?? refuseEnvelope();

  const now = clock.now().getTime();
  if (challenge.purpose !== purpose) refuseEnvelope();
  if (now >= challenge.expiresAt.getTime()) refuseEnvelope();
  if (challenge.issuedAt.getTime() > now + ISSUED_AT_SKEW_MS) refuseEnvelope();
  return challenge;
}

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** Our own JSON, authenticated; still checked field by field. Null when it is not well-formed. */
function decodeChallengeBody(plaintext: Buffer): Challenge | null {
  let body: unknown;
  try {
    body = JSON.parse(plaintext.toString('utf8'));
  } catch {
    return null;
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return null;
  const { purpose, subject, id, issuedAt, expiresAt, data } = body as Record<string, unknown>;
  if (!CHALLENGE_PURPOSES.includes(purpose as ChallengePurpose)) return null;
  if (typeof subject !== 'string' || subject === '') return null;
  if (typeof id !== 'string' || !UUID_V7.test(id)) return null;
  const issued = parseIsoTimestamp(issuedAt);
  const expires = parseIsoTimestamp(expiresAt);
  if (issued === null || expires === null || expires.getTime() <= issued.getTime()) return null;
  return {
    purpose: purpose as ChallengePurpose,
    subject,
    id,
    issuedAt: issued,
    expiresAt: expires,
    ...(data === undefined ? {} : { data: data as JsonValue }),
  };
}

function parseIsoTimestamp(value: unknown): Date | null {
  if (typeof value !== 'string') return null;
  const date = new Date(value);
  return !Number.isNaN(date.getTime()) && date.toISOString() === value ? date : null;
}
