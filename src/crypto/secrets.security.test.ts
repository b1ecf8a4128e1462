/**
 * Security properties that cut across the schemes: nothing secret leaks through errors or
 * serialization, and a delivery envelope opens only for its recipient.
 */
import { describe, expect, test } from 'bun:test';
import { randomBytes } from 'node:crypto';
import { ManualClock } from '../lib/clock.ts';
import { openChallenge, peekChallenge, sealChallenge } from './challenge.ts';
import { generateDaemonKeyPair, openAsDaemon, sealForDaemon } from './daemon.ts';
import { ENVELOPE_ERROR_MESSAGE, EnvelopeError } from './envelope.ts';
import { KeyRingError, parseKeyRing } from './keyring.ts';
import { openSecret, resealSecret, sealSecret, secretKeyId } from './secret.ts';
import { MemoryConsumedChallengeStore } from './testing.ts';

const rootKey = randomBytes(32);
const retiredKey = randomBytes(32);
const ring = parseKeyRing(`live:${rootKey.toString('base64')}`);
const retiredRing = parseKeyRing(`retired:${retiredKey.toString('base64')}`);
const daemonA = { serverId: '01940000-0000-7000-8000-00000000a001', daemonKeyId: 'dk-a', ...generateDaemonKeyPair() };
const daemonB = { serverId: '01940000-0000-7000-8000-00000000b002', daemonKeyId: 'dk-b', ...generateDaemonKeyPair() };
const owner = { table: 'variable', column: 'value', id: '01940000-0000-7000-8000-000000000001' };
const PLAINTEXT = 'plaintext-canary-7f3a9c';

/** Every spelling of every secret that must never show up in an error or a log line. */
const forbidden: string[] = [PLAINTEXT];
const subkeys = ['pnsecret', 'pn2fa', 'pnwebauthn', 'pnoauth'].map((purpose) => ring.currentSubkey(purpose));
for (const key of [rootKey, retiredKey, ...subkeys]) {
  forbidden.push(key.toString('base64'), key.toString('base64url'), key.toString('hex'));
}
for (const daemon of [daemonA, daemonB]) {
  forbidden.push(daemon.privateKey, Buffer.from(daemon.privateKey, 'base64url').toString('hex'));
}

function errorOf(action: () => unknown): Error {
  try {
    action();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected the action to throw');
}

function expectNothingSecretIn(error: Error) {
  const renderings = [error.message, String(error), error.stack ?? '', Bun.inspect(error), JSON.stringify(error)];
  for (const rendering of renderings) {
    for (const secret of forbidden) {
      // A prefix catches partial echoes (a truncated key in a message) as well as whole ones.
      expect(rendering).not.toContain(secret.slice(0, 12));
    }
  }
}

describe('errors never reveal key material or plaintext', () => {
  const clock = new ManualClock();
  const secret = sealSecret(ring, PLAINTEXT, owner);
  const tampered = `${secret.slice(0, -2)}${secret.endsWith('AA') ? 'BA' : 'AA'}`;
  const toA = sealForDaemon(daemonA, PLAINTEXT);
  const challenge = sealChallenge(ring, clock, '2fa', 'user-1', { code: PLAINTEXT });
  const consumed = new MemoryConsumedChallengeStore();
  openChallenge(ring, clock, '2fa', challenge, consumed);

  const envelopeFailures: [string, () => unknown][] = [
    ['pnsecret at another row', () => openSecret(ring, secret, { ...owner, id: 'another' })],
    ['pnsecret tampered', () => openSecret(ring, tampered, owner)],
    ['pnsecret under a retired key', () => openSecret(ring, sealSecret(retiredRing, PLAINTEXT, owner), owner)],
    ['pnsecret opened with the retired ring', () => openSecret(retiredRing, secret, owner)],
    ['pnsecret reseal at another row', () => resealSecret(ring, secret, { ...owner, column: 'other' })],
    ['malformed pnsecret key id lookup', () => secretKeyId(`${secret}.`)],
    ['pndaemon opened by B', () => openAsDaemon(daemonB, toA)],
    ['pndaemon opened with B key under A ids', () => openAsDaemon({ ...daemonA, privateKey: daemonB.privateKey }, toA)],
    ['pn2fa reused', () => openChallenge(ring, clock, '2fa', challenge, consumed)],
    ['pn2fa as pnoauth', () => peekChallenge(ring, clock, 'oauth', challenge)],
  ];
  test.each(envelopeFailures)('%s: the generic envelope error, nothing else', (_name, action) => {
    const error = errorOf(action);
    expect(error).toBeInstanceOf(EnvelopeError);
    expect(error.message).toBe(ENVELOPE_ERROR_MESSAGE);
    expect(error.cause).toBeUndefined();
    expectNothingSecretIn(error);
  });

  const rootText = rootKey.toString('base64');
  const privateKeyHex = Buffer.from(daemonA.privateKey, 'base64url').toString('hex');
  const configurationFailures: [string, () => unknown][] = [
    ['ring entry without key id', () => parseKeyRing(rootText)],
    ['ring entry with id and key swapped', () => parseKeyRing(`${rootText}:live`)],
    ['ring entry with a mistyped key', () => parseKeyRing(`live:${rootText.replace(/^./, '*')}`)],
    ['ring entry with a truncated key', () => parseKeyRing(`live:${rootText.slice(0, 40)}`)],
    ['ring entry repeated', () => parseKeyRing(`live:${rootText},live:${retiredKey.toString('base64')}`)],
    ['daemon private key padded', () => openAsDaemon({ ...daemonA, privateKey: `${daemonA.privateKey}=` }, toA)],
    ['daemon private key in hex', () => openAsDaemon({ ...daemonA, privateKey: privateKeyHex }, toA)],
  ];
  test.each(configurationFailures)('%s: a descriptive error without the key', (_name, action) => {
    const error = errorOf(action);
    expect(error).not.toBeInstanceOf(EnvelopeError);
    expectNothingSecretIn(error);
  });

  test('the key ring serializes as its key ids only', () => {
    for (const rendering of [JSON.stringify(ring), Bun.inspect(ring), String(ring)]) {
      for (const secret of forbidden) expect(rendering).not.toContain(secret.slice(0, 12));
    }
    expect(JSON.parse(JSON.stringify(ring))).toEqual({ currentKeyId: 'live', keyIds: ['live'] });
  });

  test('envelopes do not carry the plaintext in the clear', () => {
    for (const envelope of [secret, toA, challenge]) expect(envelope).not.toContain(PLAINTEXT);
  });
});

describe('key ring errors name the entry, never the key', () => {
  const live = `live:${rootKey.toString('base64')}`;
  const otherKeyText = retiredKey.toString('base64');
  test.each([
    ['short key', `${live},short:${randomBytes(16).toString('base64')}`, 'entry 2 (keyId "short")'],
    ['bad base64', `${live},typo:!${otherKeyText.slice(1)}`, 'entry 2 (keyId "typo")'],
    ['duplicate id', `${live},live:${otherKeyText}`, 'entry 2 (keyId "live")'],
    ['no key id', `${live},${otherKeyText}`, 'entry 2 '],
  ])('%s', (_name, text, names) => {
    const error = errorOf(() => parseKeyRing(text));
    expect(error).toBeInstanceOf(KeyRingError);
    expect(error.message).toContain(names);
    const keyTexts = text.split(',').map((entry) => entry.slice(entry.indexOf(':') + 1));
    for (const keyText of keyTexts) expect(error.message).not.toContain(keyText.slice(0, 8));
  });
});

describe('pndaemon is bound to its recipient', () => {
  test('sealed for server A: fails with server B and B key, opens with A', () => {
    const envelope = sealForDaemon(daemonA, PLAINTEXT);
    expect(() => openAsDaemon(daemonB, envelope)).toThrow(EnvelopeError);
    const bKeyUnderAIds = { ...daemonB, serverId: daemonA.serverId, daemonKeyId: daemonA.daemonKeyId };
    expect(() => openAsDaemon(bKeyUnderAIds, envelope)).toThrow(EnvelopeError);
    expect(() => openAsDaemon({ ...daemonA, serverId: daemonB.serverId }, envelope)).toThrow(EnvelopeError);
    expect(openAsDaemon(daemonA, envelope)).toBe(PLAINTEXT);
  });

  test('rewriting the recipient in the header does not redirect it to B', () => {
    const envelope = sealForDaemon(daemonA, PLAINTEXT);
    const recipientOf = (daemon: typeof daemonA) => `.${daemon.serverId}.${daemon.daemonKeyId}.`;
    const redirected = envelope.replace(recipientOf(daemonA), recipientOf(daemonB));
    expect(redirected).not.toBe(envelope);
    expect(() => openAsDaemon(daemonB, redirected)).toThrow(EnvelopeError);
  });
});
