/**
 * Public surface of src/crypto: the key ring, the `pn*` envelope schemes and the random helpers.
 * Pure: node:crypto only; clocks and stores are passed in by the caller.
 */
export { ENVELOPE_ERROR_MESSAGE, EnvelopeError } from './envelope.ts';
export { generateKeyRingText, type KeyRing, KeyRingError, MIN_ROOT_KEY_BYTES, parseKeyRing } from './keyring.ts';
export { openSecret, type ResealResult, resealSecret, sealSecret, type SecretOwner, secretKeyId } from './secret.ts';
export {
  type DaemonIdentity,
  type DaemonKeyPair,
  type DaemonRecipient,
  generateDaemonKeyPair,
  openAsDaemon,
  sealForDaemon,
} from './daemon.ts';
export {
  CHALLENGE_LIFETIME_MS,
  CHALLENGE_PURPOSES,
  type Challenge,
  type ChallengePurpose,
  type ConsumedChallengeStore,
  ISSUED_AT_SKEW_MS,
  type JsonValue,
  openChallenge,
  peekChallenge,
  type SealChallengeOptions,
  sealChallenge,
} from './challenge.ts';
export { randomSecretValue, safeEqual } from './primitives.ts';
