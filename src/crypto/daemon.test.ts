import { describe, expect, test } from 'bun:test';
import {
  type DaemonIdentity,
  type DaemonRecipient,
  generateDaemonKeyPair,
  openAsDaemon,
  sealForDaemon,
} from './daemon.ts';
import { EnvelopeError } from './envelope.ts';
import { decodeCanonicalBase64url } from './primitives.ts';

const SERVER_ID = '01940000-0000-7000-8000-00000000a001';
const keyPair = generateDaemonKeyPair();
const recipient: DaemonRecipient = { serverId: SERVER_ID, daemonKeyId: 'dk1', publicKey: keyPair.publicKey };
const identity: DaemonIdentity = { serverId: SERVER_ID, daemonKeyId: 'dk1', privateKey: keyPair.privateKey };

describe('generateDaemonKeyPair', () => {
  test('returns raw 32-byte keys as canonical base64url', () => {
    expect(decodeCanonicalBase64url(keyPair.publicKey)?.length).toBe(32);
    expect(decodeCanonicalBase64url(keyPair.privateKey)?.length).toBe(32);
    expect(generateDaemonKeyPair().privateKey).not.toBe(keyPair.privateKey);
  });
});

describe('sealForDaemon / openAsDaemon', () => {
  test('round-trips; fields are scheme, version, serverId, keyId, payload', () => {
    const envelope = sealForDaemon(recipient, 'DB_PASSWORD=hunter2');
    const fields = envelope.split('.');
    expect(fields.slice(0, 4)).toEqual(['pndaemon', 'v1', SERVER_ID, 'dk1']);
    expect(openAsDaemon(identity, envelope)).toBe('DB_PASSWORD=hunter2');
  });

  test('each envelope uses a fresh ephemeral key', () => {
    const ephemeralKey = (envelope: string) =>
      Buffer.from(envelope.split('.')[4] as string, 'base64url').subarray(0, 32).toString('hex');
    const first = sealForDaemon(recipient, 'x');
    const second = sealForDaemon(recipient, 'x');
    expect(ephemeralKey(first)).not.toBe(ephemeralKey(second));
    expect(ephemeralKey(first)).not.toBe(Buffer.from(keyPair.publicKey, 'base64url').toString('hex'));
  });

  test('an envelope for another key pair fails even when the ids match', () => {
    const other = generateDaemonKeyPair();
    const envelope = sealForDaemon({ ...recipient, publicKey: other.publicKey }, 'x');
    expect(() => openAsDaemon(identity, envelope)).toThrow(EnvelopeError);
    expect(openAsDaemon({ ...identity, privateKey: other.privateKey }, envelope)).toBe('x');
  });

  test('an envelope addressed to another server id or daemon key id is refused', () => {
    const envelope = sealForDaemon(recipient, 'x');
    const otherServer = '01940000-0000-7000-8000-00000000a002';
    expect(() => openAsDaemon({ ...identity, serverId: otherServer }, envelope)).toThrow(EnvelopeError);
    expect(() => openAsDaemon({ ...identity, daemonKeyId: 'dk2' }, envelope)).toThrow(EnvelopeError);
  });

  test('bad recipient data is a plain error that does not echo the key', () => {
    const shortKey = Buffer.alloc(31, 9).toString('base64url');
    expect(() => sealForDaemon({ ...recipient, publicKey: shortKey }, 'x')).toThrow(
      'daemon public key must be 32 raw bytes',
    );
    expect(() => sealForDaemon({ ...recipient, publicKey: `${keyPair.publicKey}=` }, 'x')).toThrow(TypeError);
    expect(() => sealForDaemon({ ...recipient, serverId: 'not-a-uuid' }, 'x')).toThrow(
      'pndaemon: serverId has an invalid shape',
    );
    expect(() => openAsDaemon({ ...identity, privateKey: 'short' }, sealForDaemon(recipient, 'x'))).toThrow(
      'daemon private key must be 32 raw bytes',
    );
  });

  test('a low-order public key is refused rather than sealing under an all-zero secret', () => {
    const zeroPoint = Buffer.alloc(32).toString('base64url');
    expect(() => sealForDaemon({ ...recipient, publicKey: zeroPoint }, 'x')).toThrow('not a usable X25519 key');
  });

  test('an envelope carrying a low-order ephemeral key is refused', () => {
    const fields = sealForDaemon(recipient, 'x').split('.');
    const payload = Buffer.from(fields[4] as string, 'base64url');
    payload.fill(0, 0, 32);
    fields[4] = payload.toString('base64url');
    expect(() => openAsDaemon(identity, fields.join('.'))).toThrow(EnvelopeError);
  });
});
