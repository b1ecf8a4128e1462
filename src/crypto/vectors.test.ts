/**
 * Runs every vector in vectors.json (see vectors.generate.ts): valid envelopes open to their
 * stated plaintext; every invalid one throws EnvelopeError with the one identical message.
 */
import { describe, expect, test } from 'bun:test';
import { ManualClock } from '../lib/clock.ts';
import { openChallenge } from './challenge.ts';
import { openAsDaemon, sealForDaemon } from './daemon.ts';
import { ENVELOPE_ERROR_MESSAGE, EnvelopeError } from './envelope.ts';
import { parseKeyRing } from './keyring.ts';
import { openSecret } from './secret.ts';
import { MemoryConsumedChallengeStore } from './testing.ts';
import type { OpenAs, VectorFile } from './vectors.generate.ts';
import vectorFile from './vectors.json' with { type: 'json' };

const vectors = vectorFile as VectorFile;
const ring = parseKeyRing(vectors.keyRing);

/** Opens a vector as it says; challenges get a fresh consumed store and a clock at `at`. */
function openVector(envelope: string, open: OpenAs): unknown {
  switch (open.scheme) {
    case 'pnsecret':
      return { plaintext: openSecret(ring, envelope, open.owner) };
    case 'pndaemon':
      return { plaintext: openAsDaemon(open.identity, envelope) };
    case 'challenge': {
      const clock = new ManualClock(new Date(open.at));
      const consumed = new MemoryConsumedChallengeStore();
      // A reuse vector: the first use must succeed; the vector is the second.
      if (open.consumedBefore) openChallenge(ring, clock, open.purpose, envelope, consumed);
      const { subject, data } = openChallenge(ring, clock, open.purpose, envelope, consumed);
      return data === undefined ? { subject } : { subject, data };
    }
  }
}

function thrownBy(action: () => unknown): unknown {
  try {
    action();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('envelope vectors', () => {
  test('the file states the error message the code throws', () => {
    expect(vectors.errorMessage).toBe(ENVELOPE_ERROR_MESSAGE);
  });

  test('the fixed daemon key pairs in the file belong together', () => {
    for (const daemon of Object.values(vectors.daemons)) {
      expect(openAsDaemon(daemon, sealForDaemon(daemon, 'check'))).toBe('check');
    }
  });

  test('vector names are unique', () => {
    const names = [...vectors.valid, ...vectors.invalid].map((vector) => vector.name);
    expect(new Set(names).size).toBe(names.length);
  });

  test('the invalid set covers every required kind of failure', () => {
    const names = vectors.invalid.map((vector) => vector.name).join('\n');
    for (const required of [
      'pnsecret: flipped bit in scheme',
      'pnsecret: flipped bit in version',
      'pnsecret: flipped bit in id field 2',
      'pndaemon: flipped bit in id field 2', // serverId
      'pndaemon: flipped bit in id field 3', // keyId
      'flipped bit in payload text',
      'flipped bit in auth tag',
      'truncated by one character',
      'extra dot at the end',
      'missing id field',
      'bad base64 character',
      'padded base64',
      'non-canonical base64',
      'version v2',
      'version v01',
      'version V1',
      'pn2fa: expired',
      'pn2fa: issued in the future',
      'pn2fa: reused',
      'wrong recipient: another server id',
      'wrong recipient: another daemon key id',
      'wrong recipient: another key pair',
      'pn2fa: wrong purpose: opened as pnoauth',
      'pnsecret: wrong row: another table',
      'pnsecret: wrong row: another column',
      'pnsecret: wrong row: another row id',
      'pnsecret: unknown key id',
      'pn2fa: unknown key id',
    ]) {
      expect(names).toContain(required);
    }
  });

  describe('valid', () => {
    test.each(vectors.valid.map((vector) => [vector.name, vector] as const))('%s', (_name, vector) => {
      expect(openVector(vector.envelope, vector.open)).toEqual(vector.expected);
    });
  });

  describe('invalid', () => {
    test.each(vectors.invalid.map((vector) => [vector.name, vector] as const))('%s', (_name, vector) => {
      const error = thrownBy(() => openVector(vector.envelope, vector.open));
      expect(error).toBeInstanceOf(EnvelopeError);
      expect((error as Error).message).toBe(vectors.errorMessage);
    });
  });
});
