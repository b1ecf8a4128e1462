/**
 * `pndaemon.v1.<serverId>.<keyId>.<payload>`: a secret re-sealed at delivery to one daemon.
 *
 * Sealing is ECIES-style over X25519: a fresh ephemeral key pair per envelope, ECDH with the
 * daemon's public key, HKDF-SHA256 (salt = ephemeral public key || recipient public key, info
 * `pn/v1/pndaemon`) to an AES-256-GCM key. The payload is
 * base64url(ephemeral public key (32 raw bytes) || nonce || ciphertext || tag) and the
 * associated data is the header, so the recipient (server id and daemon key id) is authenticated
 * and cannot be rewritten. `keyId` names the daemon's key pair, not a key ring entry: the
 * control plane only ever holds daemon public keys.
 */
import { createPrivateKey, createPublicKey, diffieHellman, generateKeyPairSync, type KeyObject } from 'node:crypto';
import {
  type EnvelopeLayout,
  envelopeHeader,
  formatEnvelope,
  keyIdField,
  parseEnvelope,
  refuseEnvelope,
  uuidField,
} from './envelope.ts';
import {
  aesGcmOpen,
  aesGcmSeal,
  decodeCanonicalBase64url,
  GCM_NONCE_BYTES,
  GCM_TAG_BYTES,
  hkdfSha256,
} from './primitives.ts';

const DAEMON_SCHEME = 'pndaemon';
const MESSAGE_KEY_INFO = 'pn/v1/pndaemon';
const X25519_KEY_BYTES = 32;

// Fixed DER prefixes that wrap a raw 32-byte X25519 key as SPKI (public) or PKCS#8 (private),
// the forms node:crypto imports; the raw key is always the last 32 bytes.
const X25519_SPKI_PREFIX = Buffer.from('302a300506032b656e032100', 'hex');
const X25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b656e04220420', 'hex');

const daemonLayout: EnvelopeLayout<'serverId' | 'keyId'> = {
  scheme: DAEMON_SCHEME,
  idFields: [uuidField('serverId'), keyIdField('keyId')],
  minPayloadBytes: X25519_KEY_BYTES + GCM_NONCE_BYTES + GCM_TAG_BYTES,
};

/** Raw 32-byte X25519 keys as unpadded base64url. */
export interface DaemonKeyPair {
  readonly publicKey: string;
  readonly privateKey: string;
}

/** Who an envelope is sealed to: the control plane's record of an enrolled daemon key. */
export interface DaemonRecipient {
  readonly serverId: string;
  readonly daemonKeyId: string;
  readonly publicKey: string;
}

/** The daemon's own view: its server id, key id and private key. */
export interface DaemonIdentity {
  readonly serverId: string;
  readonly daemonKeyId: string;
  readonly privateKey: string;
}

export function generateDaemonKeyPair(): DaemonKeyPair {
  const { publicKey, privateKey } = generateKeyPairSync('x25519');
  return {
    publicKey: rawPublicKey(publicKey).toString('base64url'),
    privateKey: rawPrivateKey(privateKey).toString('base64url'),
  };
}

/** Seals `plaintext` so that only the daemon holding `recipient`'s private key can open it. */
export function sealForDaemon(recipient: DaemonRecipient, plaintext: string): string {
  const header = envelopeHeader(daemonLayout, { serverId: recipient.serverId, keyId: recipient.daemonKeyId });
  const recipientPublic = decodeRawKey(recipient.publicKey, 'daemon public key');
  const ephemeral = generateKeyPairSync('x25519');
  const ephemeralPublic = rawPublicKey(ephemeral.publicKey);
  let sharedSecret: Buffer;
  try {
    sharedSecret = diffieHellman({ privateKey: ephemeral.privateKey, publicKey: importPublicKey(recipientPublic) });
  } catch {
    // A low-order point gives an all-zero shared secret, which OpenSSL refuses.
    throw new TypeError('daemon public key is not a usable X25519 key');
  }
  const messageKey = deriveMessageKey(sharedSecret, ephemeralPublic, recipientPublic);
  const sealed = aesGcmSeal(messageKey, Buffer.from(plaintext, 'utf8'), Buffer.from(header, 'utf8'));
  return formatEnvelope(header, Buffer.concat([ephemeralPublic, sealed]));
}

/**
 * Opens an envelope addressed to `identity`. Throws `EnvelopeError` when it is malformed,
 * addressed to another server or daemon key, or sealed to another key pair.
 */
export function openAsDaemon(identity: DaemonIdentity, envelope: string): string {
  const privateKey = importPrivateKey(decodeRawKey(identity.privateKey, 'daemon private key'));
  const { header, ids, payload } = parseEnvelope(daemonLayout, envelope);
  // Checked explicitly as well as through the associated data: two servers that happen to share
  // a key pair (a cloned machine) still never open each other's deliveries.
  if (ids.serverId !== identity.serverId || ids.keyId !== identity.daemonKeyId) refuseEnvelope();

  const ephemeralPublic = payload.subarray(0, X25519_KEY_BYTES);
  let sharedSecret: Buffer;
  try {
    sharedSecret = diffieHellman({ privateKey, publicKey: importPublicKey(ephemeralPublic) });
  } catch {
    refuseEnvelope();
  }
  const messageKey = deriveMessageKey(sharedSecret, ephemeralPublic, rawPublicKey(createPublicKey(privateKey)));
  const plaintext = aesGcmOpen(messageKey, payload.subarray(X25519_KEY_BYTES), Buffer.from(header, 'utf8'));
  return (plaintext ?? refuseEnvelope()).toString('utf8');
}

function deriveMessageKey(sharedSecret: Buffer, ephemeralPublic: Buffer, recipientPublic: Buffer): Buffer {
  return hkdfSha256(sharedSecret, Buffer.concat([ephemeralPublic, recipientPublic]), MESSAGE_KEY_INFO);
}

/** Keys are configuration, not envelope input: a bad one is reported plainly (never echoed). */
function decodeRawKey(text: string, what: string): Buffer {
  const raw = typeof text === 'string' ? decodeCanonicalBase64url(text) : null;
  if (raw === null || raw.length !== X25519_KEY_BYTES) {
    throw new TypeError(`${what} must be ${X25519_KEY_BYTES} raw bytes as unpadded base64url`);
  }
  return raw;
}

const importPublicKey = (raw: Buffer): KeyObject =>
  createPublicKey({ key: Buffer.concat([X25519_SPKI_PREFIX, raw]), format: 'der', type: 'spki' });

const importPrivateKey = (raw: Buffer): KeyObject =>
  createPrivateKey({ key: Buffer.concat([X25519_PKCS8_PREFIX, raw]), format: 'der', type: 'pkcs8' });

const rawPublicKey = (key: KeyObject): Buffer =>
  key.export({ format: 'der', type: 'spki' }).subarray(X25519_SPKI_PREFIX.length);

const rawPrivateKey = (key: KeyObject): Buffer =>
  key.export({ format: 'der', type: 'pkcs8' }).subarray(X25519_PKCS8_PREFIX.length);
