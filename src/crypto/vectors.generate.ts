/**
 * Writes src/crypto/vectors.json: envelopes built from fixed test keys, run by vectors.test.ts.
 * Valid vectors are sealed here (random nonces, so each run writes different but equally valid
 * text); invalid ones are deterministic mutations of them, plus a few crafted with the
 * primitives. Run once after a format change:  bun src/crypto/vectors.generate.ts
 *
 * The keys are derived from public labels: they are test keys, never usable in production.
 */
import { createHash, createPrivateKey } from 'node:crypto';
import { ManualClock } from '../lib/clock.ts';
import { newId } from '../lib/ids.ts';
import {
  CHALLENGE_LIFETIME_MS,
  CHALLENGE_PURPOSES,
  type ChallengePurpose,
  ISSUED_AT_SKEW_MS,
  type JsonValue,
  sealChallenge,
} from './challenge.ts';
import { type DaemonIdentity, openAsDaemon, sealForDaemon } from './daemon.ts';
import { ENVELOPE_ERROR_MESSAGE } from './envelope.ts';
import { type KeyRing, parseKeyRing } from './keyring.ts';
import { aesGcmSeal, encodeBase64url } from './primitives.ts';
import { type SecretOwner, sealSecret } from './secret.ts';

/** How a vector is opened; the test dispatches on `scheme`. */
type OpenChallengeAs = { scheme: 'challenge'; purpose: ChallengePurpose; at: string; consumedBefore?: boolean };
export type OpenAs =
  | { scheme: 'pnsecret'; owner: SecretOwner }
  | { scheme: 'pndaemon'; identity: DaemonIdentity }
  | OpenChallengeAs;

export type Expected = { plaintext: string } | { subject: string; data?: JsonValue };

export interface VectorFile {
  description: string;
  keyRing: string;
  daemons: Record<'A' | 'B', DaemonIdentity & { publicKey: string }>;
  errorMessage: string;
  valid: { name: string; envelope: string; open: OpenAs; expected: Expected }[];
  invalid: { name: string; envelope: string; open: OpenAs }[];
}

/** Named envelopes: [what is wrong with it, envelope text]. */
type Mutations = [string, string][];

const fixedBytes = (label: string) => createHash('sha256').update(`panel test vector: ${label}`).digest();

const ringEntry = (keyId: string) => `${keyId}:${fixedBytes(keyId).toString('base64')}`;
const KEY_RING = `${ringEntry('kvec-current')},${ringEntry('kvec-previous')}`;
const PREVIOUS_ONLY_RING = ringEntry('kvec-previous');
const RETIRED_RING = ringEntry('kvec-retired'); // a key id the vector ring does not hold
const ISSUED_AT = new Date('2026-01-01T00:00:00.000Z');
const OWNER: SecretOwner = { table: 'variable', column: 'value', id: '01940000-0000-7000-8000-000000000001' };

/** A daemon whose X25519 private key is fixed bytes; the public key is computed from it. */
function fixedDaemon(label: string, serverId: string, daemonKeyId: string) {
  const pkcs8 = Buffer.concat([Buffer.from('302e020100300506032b656e04220420', 'hex'), fixedBytes(label)]);
  const jwk = createPrivateKey({ key: pkcs8, format: 'der', type: 'pkcs8' }).export({ format: 'jwk' });
  return { serverId, daemonKeyId, privateKey: jwk.d as string, publicKey: jwk.x as string };
}
const DAEMON_A = fixedDaemon('daemon A', '01940000-0000-7000-8000-00000000a001', 'dk-a1');
const DAEMON_B = fixedDaemon('daemon B', '01940000-0000-7000-8000-00000000b002', 'dk-b1');
const identityOf = ({ serverId, daemonKeyId, privateKey }: DaemonIdentity): DaemonIdentity => ({
  serverId,
  daemonKeyId,
  privateKey,
});

const at = (offsetMs: number) => new Date(ISSUED_AT.getTime() + offsetMs).toISOString();
const fieldsOf = (envelope: string) => envelope.split('.');
const replaceField = (envelope: string, index: number, value: string) =>
  fieldsOf(envelope).map((field, i) => (i === index ? value : field)).join('.');
const removeField = (envelope: string, index: number) => fieldsOf(envelope).filter((_, i) => i !== index).join('.');
const flipCharBit = (text: string, index: number) =>
  text.slice(0, index) + String.fromCharCode(text.charCodeAt(index) ^ 1) + text.slice(index + 1);

const flipByteBit = (bytes: Buffer, index: number) => {
  bytes[index] = (bytes[index] as number) ^ 0x01;
};

function withPayloadBytes(envelope: string, change: (bytes: Buffer) => void): string {
  const fields = fieldsOf(envelope);
  const bytes = Buffer.from(fields.at(-1) as string, 'base64url');
  change(bytes);
  return replaceField(envelope, fields.length - 1, bytes.toString('base64url'));
}

/** Same bytes, but the unused low bits of the last character set: decodes, is not canonical. */
function nonCanonicalPayload(payload: string): string {
  if (payload.length % 4 === 0) throw new Error('pick a plaintext whose payload is not a multiple of 3 bytes');
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  const last = alphabet.indexOf(payload.at(-1) as string);
  return payload.slice(0, -1) + alphabet[last ^ 1];
}

/** A base64url text of length 1 (mod 4): no byte string encodes to it. */
const impossibleLength = (payload: string) => payload + 'A'.repeat((5 - (payload.length % 4)) % 4 || 4);

/**
 * Mutations every scheme must refuse; `idIndexes` are the positions of the id fields and
 * `nonceOffset` where the nonce starts in the payload bytes.
 */
function structuralMutations(envelope: string, idIndexes: number[], nonceOffset = 0): Mutations {
  const fields = fieldsOf(envelope);
  const header = fields.slice(0, -1).join('.');
  const payloadIndex = fields.length - 1;
  const payload = fields[payloadIndex] as string;
  const withPayload = (text: string) => replaceField(envelope, payloadIndex, text);
  const withVersion = (text: string) => replaceField(envelope, 1, text);
  const payloadBytes = Buffer.from(payload, 'base64url');
  return [
    ['flipped bit in scheme', replaceField(envelope, 0, flipCharBit(fields[0] as string, 0))],
    ['flipped bit in version (v1 -> v0)', withVersion(flipCharBit('v1', 1))],
    ...idIndexes.map((index): [string, string] => {
      const id = fields[index] as string;
      return [`flipped bit in id field ${index}`, replaceField(envelope, index, flipCharBit(id, id.length - 1))];
    }),
    ['flipped bit in payload text', withPayload(flipCharBit(payload, 4))],
    ['flipped bit in nonce', withPayloadBytes(envelope, (b) => flipByteBit(b, nonceOffset))],
    ['flipped bit in ciphertext', withPayloadBytes(envelope, (b) => flipByteBit(b, b.length - 17))],
    ['flipped bit in auth tag', withPayloadBytes(envelope, (b) => flipByteBit(b, b.length - 1))],
    ['truncated by one character', envelope.slice(0, -1)],
    ['truncated by four characters (short tag)', envelope.slice(0, -4)],
    ['truncated to the header', header],
    ['empty payload', `${header}.`],
    ['extra dot at the end', `${envelope}.`],
    ['extra dot at the start', `.${envelope}`],
    ['extra dot inside the payload', withPayload(`${payload.slice(0, 10)}.${payload.slice(10)}`)],
    ['extra field', withVersion('v1.extra')],
    ['missing version field', removeField(envelope, 1)],
    ...idIndexes.map((index): [string, string] => [`missing id field ${index}`, removeField(envelope, index)]),
    ['empty id field', replaceField(envelope, idIndexes[0] as number, '')],
    ['bad base64 character +', withPayload(`+${payload.slice(1)}`)],
    ['bad base64 character /', withPayload(`/${payload.slice(1)}`)],
    ['bad base64 character *', withPayload(`*${payload.slice(1)}`)],
    ['padded base64', withPayload(payload.padEnd(Math.ceil(payload.length / 4) * 4, '='))],
    ['standard base64 alphabet with padding', withPayload(payloadBytes.toString('base64'))],
    ['base64 of impossible length', withPayload(impossibleLength(payload))],
    ['non-canonical base64 (trailing bits set)', withPayload(nonCanonicalPayload(payload))],
    ['version v2', withVersion('v2')],
    ['version v01', withVersion('v01')],
    ['version V1', withVersion('V1')],
    ['version without number', withVersion('v')],
    ['scheme in upper case', replaceField(envelope, 0, (fields[0] as string).toUpperCase())],
    ['leading space', ` ${envelope}`],
    ['trailing newline', `${envelope}\n`],
    ['empty string', ''],
  ];
}

class VectorCollector {
  readonly valid: VectorFile['valid'] = [];
  readonly invalid: VectorFile['invalid'] = [];

  addValid(name: string, envelope: string, open: OpenAs, expected: Expected): void {
    this.valid.push({ name, envelope, open, expected });
  }

  addInvalid(scheme: string, open: OpenAs, mutations: Mutations): void {
    for (const [name, envelope] of mutations) this.invalid.push({ name: `${scheme}: ${name}`, envelope, open });
  }
}

function collectSecretVectors(out: VectorCollector, ring: KeyRing): void {
  const open: OpenAs = { scheme: 'pnsecret', owner: OWNER };
  const text = 'postgres://app:s3cret@db/app'; // 28 bytes: a 56-byte payload, not a multiple of 3
  const secret = sealSecret(ring, text, OWNER);
  const beforeRotation = 'sealed before the rotation';
  const pem = '-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEIÉ\n-----END PRIVATE KEY-----\n';
  out.addValid('pnsecret: current key', secret, open, { plaintext: text });
  const underPreviousKey = sealSecret(parseKeyRing(PREVIOUS_ONLY_RING), beforeRotation, OWNER);
  out.addValid('pnsecret: previous key still in the ring', underPreviousKey, open, { plaintext: beforeRotation });
  out.addValid('pnsecret: empty value', sealSecret(ring, '', OWNER), open, { plaintext: '' });
  out.addValid('pnsecret: multi-line non-ASCII value', sealSecret(ring, pem, OWNER), open, { plaintext: pem });

  out.addInvalid('pnsecret', open, structuralMutations(secret, [2]));
  out.addInvalid('pnsecret', open, [['unknown key id', sealSecret(parseKeyRing(RETIRED_RING), text, OWNER)]]);
  const elsewhere: [string, SecretOwner][] = [
    ['wrong row: another table', { ...OWNER, table: 'tls_certificate' }],
    ['wrong row: another column', { ...OWNER, column: 'password' }],
    ['wrong row: another row id', { ...OWNER, id: '01940000-0000-7000-8000-000000000002' }],
  ];
  for (const [name, owner] of elsewhere) out.addInvalid('pnsecret', { scheme: 'pnsecret', owner }, [[name, secret]]);
  out.addInvalid('pnsecret', { scheme: 'pndaemon', identity: identityOf(DAEMON_A) }, [['opened as pndaemon', secret]]);
}

function collectDaemonVectors(out: VectorCollector): void {
  const identityA = identityOf(DAEMON_A);
  const openAsA: OpenAs = { scheme: 'pndaemon', identity: identityA };
  const as = (identity: Partial<DaemonIdentity>): OpenAs => ({
    scheme: 'pndaemon',
    identity: { ...identityA, ...identity },
  });
  const text = 'REDIS_PASSWORD=correct horse'; // 28 bytes: an 88-byte payload
  const toA = sealForDaemon(DAEMON_A, text);
  if (openAsDaemon(identityA, toA) !== text) throw new Error('daemon A key pair does not round-trip');
  out.addValid('pndaemon: to daemon A', toA, openAsA, { plaintext: text });
  const toB = sealForDaemon(DAEMON_B, 'for B only');
  out.addValid('pndaemon: to daemon B', toB, as(identityOf(DAEMON_B)), { plaintext: 'for B only' });

  out.addInvalid('pndaemon', openAsA, structuralMutations(toA, [2, 3], 32));
  out.addInvalid('pndaemon', openAsA, [
    ['flipped bit in the ephemeral public key', withPayloadBytes(toA, (b) => flipByteBit(b, 0))],
    ['recipient fields swapped', replaceField(replaceField(toA, 2, DAEMON_A.daemonKeyId), 3, DAEMON_A.serverId)],
  ]);
  // The header is rewritten to match the claimed identity, so only authentication can refuse it.
  const rewrittenServerId = flipCharBit(DAEMON_A.serverId, DAEMON_A.serverId.length - 1);
  out.addInvalid('pndaemon', as({ serverId: rewrittenServerId }), [
    ["server id rewritten in the header, opened as that server with A's key", replaceField(toA, 2, rewrittenServerId)],
  ]);
  out.addInvalid('pndaemon', as({ serverId: DAEMON_B.serverId }), [['wrong recipient: another server id', toA]]);
  out.addInvalid('pndaemon', as({ daemonKeyId: 'dk-a2' }), [['wrong recipient: another daemon key id', toA]]);
  out.addInvalid('pndaemon', as({ privateKey: DAEMON_B.privateKey }), [['wrong recipient: another key pair', toA]]);
  out.addInvalid('pndaemon', as(identityOf(DAEMON_B)), [['wrong recipient: daemon B', toA]]);
  out.addInvalid('pndaemon', { scheme: 'pnsecret', owner: OWNER }, [['opened as pnsecret', toA]]);
}

const CHALLENGE_DATA: Record<ChallengePurpose, JsonValue | undefined> = {
  '2fa': undefined,
  webauthn: { challenge: 'q1w2e3r4t5y6u7i8o9p0', userVerification: 'required' },
  oauth: { provider: 'github', redirectTo: '/projects', pkceVerifier: 'x'.repeat(43) },
};

/** Valid vectors for every purpose; the failure modes on pn2fa (they are shared code). */
function collectChallengeVectors(out: VectorCollector, ring: KeyRing): void {
  const clock = new ManualClock(ISSUED_AT);
  const subject = '01940000-0000-7000-8000-0000000000c1';
  for (const purpose of CHALLENGE_PURPOSES) {
    const scheme = `pn${purpose}`;
    const lifetime = CHALLENGE_LIFETIME_MS[purpose];
    const data = CHALLENGE_DATA[purpose];
    const challenge = sealChallenge(ring, clock, purpose, subject, data);
    const openAt = (offsetMs: number, as: ChallengePurpose = purpose): OpenChallengeAs => ({
      scheme: 'challenge',
      purpose: as,
      at: at(offsetMs),
    });
    const expected = data === undefined ? { subject } : { subject, data };
    out.addValid(`${scheme}: at issue time`, challenge, openAt(0), expected);
    out.addValid(`${scheme}: 1 ms before expiry`, challenge, openAt(lifetime - 1), expected);
    out.addValid(`${scheme}: issued within the allowed clock skew`, challenge, openAt(-ISSUED_AT_SKEW_MS), expected);
    if (purpose !== '2fa') continue;

    out.addInvalid(scheme, openAt(0), structuralMutations(challenge, [2]));
    out.addInvalid(scheme, openAt(lifetime), [['expired (at expiresAt)', challenge]]);
    out.addInvalid(scheme, openAt(lifetime + 3_600_000), [['expired (an hour later)', challenge]]);
    out.addInvalid(scheme, openAt(-ISSUED_AT_SKEW_MS - 1), [['issued in the future beyond the skew', challenge]]);
    out.addInvalid(scheme, { ...openAt(0), consumedBefore: true }, [['reused (consumed before)', challenge]]);
    out.addInvalid(scheme, openAt(0, 'oauth'), [
      ['wrong purpose: opened as pnoauth', challenge],
      ['wrong purpose: scheme renamed to pnoauth', replaceField(challenge, 0, 'pnoauth')],
    ]);
    out.addInvalid(scheme, openAt(0, 'webauthn'), [
      ['wrong purpose: scheme renamed to pnwebauthn', replaceField(challenge, 0, 'pnwebauthn')],
    ]);
    const underRetiredKey = sealChallenge(parseKeyRing(RETIRED_RING), clock, purpose, subject);
    out.addInvalid(scheme, openAt(0), [['unknown key id', underRetiredKey]]);
  }
}

/**
 * `pnoauth` envelopes sealed directly with the primitives. The control is a well-formed body and
 * must open, which shows that each invalid one is refused for its inner JSON alone.
 */
function collectCraftedChallengeVectors(out: VectorCollector, ring: KeyRing): void {
  const header = `pnoauth.v1.${ring.currentKeyId}`;
  const sealText = (text: string) =>
    `${header}.${encodeBase64url(aesGcmSeal(ring.currentSubkey('pnoauth'), Buffer.from(text), Buffer.from(header)))}`;
  const seal = (body: unknown) => sealText(JSON.stringify(body));
  const body = { purpose: 'oauth', subject: 'crafted', id: newId(), issuedAt: at(0), expiresAt: at(600_000) };
  const open: OpenAs = { scheme: 'challenge', purpose: 'oauth', at: at(0) };
  out.addValid('pnoauth: sealed with the primitives (control)', seal(body), open, { subject: 'crafted' });
  out.addInvalid('pnoauth', open, [
    ['inner purpose is 2fa', seal({ ...body, purpose: '2fa' })],
    ['inner id is not a UUID v7', seal({ ...body, id: '01940000-0000-4000-8000-000000000001' })],
    ['inner expiresAt before issuedAt', seal({ ...body, expiresAt: at(-1) })],
    ['inner timestamp not canonical ISO', seal({ ...body, expiresAt: '2026-01-01T00:10:00Z' })],
    ['inner subject missing', seal({ ...body, subject: undefined })],
    ['inner body is an array', seal([body])],
    ['inner body is not JSON', sealText('{"purpose":')],
  ]);
}

function generate(): VectorFile {
  const ring = parseKeyRing(KEY_RING);
  const out = new VectorCollector();
  collectSecretVectors(out, ring);
  collectDaemonVectors(out);
  collectChallengeVectors(out, ring);
  collectCraftedChallengeVectors(out, ring);
  return {
    description: 'pn* envelope vectors from fixed TEST keys; regenerate with: bun src/crypto/vectors.generate.ts',
    keyRing: KEY_RING,
    daemons: { A: DAEMON_A, B: DAEMON_B },
    errorMessage: ENVELOPE_ERROR_MESSAGE,
    valid: out.valid,
    invalid: out.invalid,
  };
}

if (import.meta.main) {
  const file = generate();
  const target = new URL('./vectors.json', import.meta.url);
  await Bun.write(target, `${JSON.stringify(file, null, 2)}\n`);
  console.log(`wrote ${file.valid.length} valid and ${file.invalid.length} invalid vectors to ${target.pathname}`);
}
