import { describe, expect, test } from 'bun:test';
import { ManualClock } from '../lib/clock.ts';
import {
  CHALLENGE_LIFETIME_MS,
  CHALLENGE_PURPOSES,
  type ChallengePurpose,
  type ConsumedChallengeStore,
  ISSUED_AT_SKEW_MS,
  openChallenge,
  peekChallenge,
  sealChallenge,
} from './challenge.ts';
import { EnvelopeError } from './envelope.ts';
import { generateKeyRingText, parseKeyRing } from './keyring.ts';
import { MemoryConsumedChallengeStore } from './testing.ts';

const ring = parseKeyRing(generateKeyRingText());
const SUBJECT = '01940000-0000-7000-8000-0000000000c1';
const START = new Date('2026-01-01T00:00:00.000Z');

describe('sealChallenge / openChallenge', () => {
  test.each(CHALLENGE_PURPOSES.map((purpose) => [purpose]))('%s round-trips with its default lifetime', (purpose) => {
    const clock = new ManualClock(START);
    const envelope = sealChallenge(ring, clock, purpose, SUBJECT);
    expect(envelope.startsWith(`pn${purpose}.v1.${ring.currentKeyId}.`)).toBe(true);
    const challenge = openChallenge(ring, clock, purpose, envelope, new MemoryConsumedChallengeStore());
    expect(challenge).toMatchObject({ purpose, subject: SUBJECT, issuedAt: START });
    expect(challenge.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(challenge.expiresAt.getTime() - START.getTime()).toBe(CHALLENGE_LIFETIME_MS[purpose]);
    expect(challenge).not.toHaveProperty('data');
  });

  test('default lifetimes are 5, 5 and 10 minutes', () => {
    expect(CHALLENGE_LIFETIME_MS).toEqual({ '2fa': 300_000, webauthn: 300_000, oauth: 600_000 });
  });

  test('carries data and honours a lifetime override', () => {
    const clock = new ManualClock(START);
    const data = { challenge: 'abc', allow: ['usb', 'nfc'], nested: { n: 1, ok: true, none: null } };
    const envelope = sealChallenge(ring, clock, 'webauthn', SUBJECT, data, { lifetimeMs: 1_000 });
    const challenge = peekChallenge(ring, clock, 'webauthn', envelope);
    expect(challenge.data).toEqual(data);
    expect(challenge.expiresAt).toEqual(new Date(START.getTime() + 1_000));
  });

  test('opens until just before expiry, not at it', () => {
    const clock = new ManualClock(START);
    const envelope = sealChallenge(ring, clock, 'oauth', SUBJECT);
    clock.advance(CHALLENGE_LIFETIME_MS.oauth - 1);
    expect(peekChallenge(ring, clock, 'oauth', envelope).subject).toBe(SUBJECT);
    clock.advance(1);
    expect(() => peekChallenge(ring, clock, 'oauth', envelope)).toThrow(EnvelopeError);
  });

  test('refuses a challenge issued further in the future than the allowed skew', () => {
    const clock = new ManualClock(START);
    const envelope = sealChallenge(ring, clock, '2fa', SUBJECT);
    const withinSkew = new ManualClock(new Date(START.getTime() - ISSUED_AT_SKEW_MS));
    expect(peekChallenge(ring, withinSkew, '2fa', envelope).subject).toBe(SUBJECT);
    const beyondSkew = new ManualClock(new Date(START.getTime() - ISSUED_AT_SKEW_MS - 1));
    expect(() => peekChallenge(ring, beyondSkew, '2fa', envelope)).toThrow(EnvelopeError);
  });

  test('opens once: a second open is refused', () => {
    const clock = new ManualClock(START);
    const consumed = new MemoryConsumedChallengeStore();
    const envelope = sealChallenge(ring, clock, '2fa', SUBJECT);
    const challenge = openChallenge(ring, clock, '2fa', envelope, consumed);
    expect(consumed.consumed.get(challenge.id)).toEqual({ purpose: '2fa', expiresAt: challenge.expiresAt });
    expect(() => openChallenge(ring, clock, '2fa', envelope, consumed)).toThrow(EnvelopeError);
  });

  test('peek does not consume; the final open still works once', () => {
    const clock = new ManualClock(START);
    const consumed = new MemoryConsumedChallengeStore();
    const envelope = sealChallenge(ring, clock, '2fa', SUBJECT);
    peekChallenge(ring, clock, '2fa', envelope);
    peekChallenge(ring, clock, '2fa', envelope);
    expect(consumed.consumed.size).toBe(0);
    expect(openChallenge(ring, clock, '2fa', envelope, consumed).subject).toBe(SUBJECT);
    expect(() => openChallenge(ring, clock, '2fa', envelope, consumed)).toThrow(EnvelopeError);
  });

  test('a refused challenge never reaches the store', () => {
    const clock = new ManualClock(START);
    const calls: string[] = [];
    const spy: ConsumedChallengeStore = { consume: (id) => (calls.push(id), true) };
    const envelope = sealChallenge(ring, clock, '2fa', SUBJECT);
    clock.advance(CHALLENGE_LIFETIME_MS['2fa']);
    expect(() => openChallenge(ring, clock, '2fa', envelope, spy)).toThrow(EnvelopeError);
    expect(() => openChallenge(ring, clock, 'oauth', envelope, spy)).toThrow(EnvelopeError);
    expect(calls).toEqual([]);
  });

  const purposePairs = CHALLENGE_PURPOSES.flatMap((sealedAs) =>
    CHALLENGE_PURPOSES.filter((openedAs) => openedAs !== sealedAs).map((openedAs) => [sealedAs, openedAs] as const),
  );
  test.each(purposePairs)('a %s challenge never opens as %s, even renamed', (sealedAs, openedAs) => {
    const clock = new ManualClock(START);
    const envelope = sealChallenge(ring, clock, sealedAs, SUBJECT);
    const renamed = envelope.replace(`pn${sealedAs}.`, `pn${openedAs}.`);
    const consumed = new MemoryConsumedChallengeStore();
    for (const candidate of [envelope, renamed]) {
      expect(() => openChallenge(ring, clock, openedAs, candidate, consumed)).toThrow(EnvelopeError);
    }
  });

  test('a key dropped from the ring no longer opens its challenges', () => {
    const clock = new ManualClock(START);
    const envelope = sealChallenge(parseKeyRing(generateKeyRingText()), clock, '2fa', SUBJECT);
    expect(() => peekChallenge(ring, clock, '2fa', envelope)).toThrow(EnvelopeError);
  });

  test('refuses bad arguments as programming errors', () => {
    const clock = new ManualClock(START);
    expect(() => sealChallenge(ring, clock, '2fa', '')).toThrow('challenge subject must be a non-empty string');
    for (const unknown of ['sms', 'constructor']) {
      const purpose = unknown as ChallengePurpose;
      expect(() => sealChallenge(ring, clock, purpose, SUBJECT)).toThrow('unknown challenge purpose');
      expect(() => peekChallenge(ring, clock, purpose, 'x')).toThrow('unknown challenge purpose');
    }
    expect(() => sealChallenge(ring, clock, '2fa', SUBJECT, undefined, { lifetimeMs: 0 })).toThrow(RangeError);
  });
});
