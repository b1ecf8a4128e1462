/**
 * A software WebAuthn authenticator for tests (no browser involved): ES256 (P-256) credentials
 * made with node:crypto, `none` attestation, and assertions built exactly as the WebAuthn
 * specification lays them out:
 *
 *   authenticatorData = SHA-256(rpId) | flags | signCount (u32 BE) [| attestedCredentialData]
 *   attestedCredentialData = AAGUID (16) | credentialId length (u16 BE) | credentialId | COSE key
 *   signature = ECDSA-SHA256(authenticatorData | SHA-256(clientDataJSON)), DER encoded
 *
 * Every field a relying party checks can be bent per call (origin, rpId, ceremony type,
 * challenge, flags, counter), so tests can present the forgeries a phishing site or a cloned
 * authenticator would.
 */
import { createHash, generateKeyPairSync, type KeyObject, randomBytes, sign } from 'node:crypto';

const FLAG_UP = 0x01;
const FLAG_UV = 0x04;
const FLAG_BE = 0x08;
const FLAG_BS = 0x10;
const FLAG_AT = 0x40;

const b64url = (bytes: Uint8Array | string) => Buffer.from(bytes).toString('base64url');
const sha256 = (data: Uint8Array | string) => createHash('sha256').update(data).digest();

/** The CBOR subset attestation objects and COSE keys need (RFC 8949, definite lengths). */
export function cbor(value: unknown): Buffer {
  const head = (major: number, n: number): Buffer => {
    if (n < 24) return Buffer.from([(major << 5) | n]);
    if (n < 0x100) return Buffer.from([(major << 5) | 24, n]);
    if (n < 0x10000) return Buffer.from([(major << 5) | 25, n >> 8, n & 0xff]);
    const out = Buffer.alloc(5);
    out[0] = (major << 5) | 26;
    out.writeUInt32BE(n, 1);
    return out;
  };
  if (typeof value === 'number') return value >= 0 ? head(0, value) : head(1, -1 - value);
  if (typeof value === 'string') {
    const bytes = Buffer.from(value, 'utf8');
    return Buffer.concat([head(3, bytes.length), bytes]);
  }
  if (value instanceof Uint8Array) return Buffer.concat([head(2, value.length), value]);
  if (Array.isArray(value)) return Buffer.concat([head(4, value.length), ...value.map(cbor)]);
  if (value instanceof Map) {
    return Buffer.concat([head(5, value.size), ...[...value].flatMap(([k, v]) => [cbor(k), cbor(v)])]);
  }
  throw new TypeError(`cbor: unsupported value ${String(value)}`);
}

interface StoredCredential {
  id: Buffer;
  privateKey: KeyObject;
  cosePublicKey: Buffer;
  rpId: string;
  userHandle: string;
  counter: number;
}

/** What a test may bend in one ceremony. */
export interface CeremonyOverrides {
  /** clientDataJSON.origin (default: the authenticator's origin). */
  origin?: string;
  /** The RP ID hashed into authenticatorData (default: the one the options name). */
  rpId?: string;
  /** clientDataJSON.type (default `webauthn.create` / `webauthn.get`). */
  type?: string;
  /** clientDataJSON.challenge (default: the options' challenge). */
  challenge?: string;
  /** User verification flag (default: true). */
  userVerified?: boolean;
  /** User presence flag (default: true). */
  userPresent?: boolean;
  /**
   * Which credential answers an assertion (default: the first one allowed / stored for the RP);
   * at registration, the id the new credential claims (a `none` attestation signs nothing).
   */
  credentialId?: string;
  /** Sign with this counter instead of the next one (a cloned authenticator). */
  counter?: number;
  /** userHandle in an assertion (default: the credential's; null leaves it out). */
  userHandle?: string | null;
}

interface CreationOptions {
  challenge: string;
  rp: { id?: string; name: string };
  user: { id: string; name: string };
  excludeCredentials?: { id: string }[];
}

interface RequestOptions {
  challenge: string;
  rpId?: string;
  allowCredentials?: { id: string }[];
}

export class SoftwareAuthenticator {
  readonly credentials = new Map<string, StoredCredential>();

  /**
   * @param origin the page origin the "browser" reports in clientDataJSON
   * @param options.countsSignatures false models authenticators that always report 0
   */
  constructor(
    readonly origin: string,
    private readonly options: { countsSignatures?: boolean; backedUp?: boolean } = {},
  ) {}

  /** navigator.credentials.create(): a RegistrationResponseJSON. */
  register(creation: CreationOptions, overrides: CeremonyOverrides = {}) {
    const rpId = overrides.rpId ?? creation.rp.id ?? new URL(this.origin).hostname;
    const excluded = new Set((creation.excludeCredentials ?? []).map((c) => c.id));
    for (const id of this.credentials.keys()) if (excluded.has(id)) throw new Error('InvalidStateError: credential excluded');

    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const jwk = publicKey.export({ format: 'jwk' });
    const cosePublicKey = cbor(
      new Map<number, number | Buffer>([
        [1, 2], // kty: EC2
        [3, -7], // alg: ES256
        [-1, 1], // crv: P-256
        [-2, Buffer.from(jwk.x!, 'base64url')],
        [-3, Buffer.from(jwk.y!, 'base64url')],
      ]),
    );
    const id = overrides.credentialId === undefined ? randomBytes(32) : Buffer.from(overrides.credentialId, 'base64url');
    const credential: StoredCredential = { id, privateKey, cosePublicKey, rpId, userHandle: creation.user.id, counter: 0 };
    const counter = overrides.counter ?? this.nextCounter(credential);

    const idLength = Buffer.alloc(2);
    idLength.writeUInt16BE(id.length);
    const authData = Buffer.concat([
      this.authDataHead(rpId, FLAG_AT, counter, overrides),
      Buffer.alloc(16), // AAGUID: zeros (a "none" attestation)
      idLength,
      id,
      cosePublicKey,
    ]);
    const clientDataJSON = this.clientData(overrides.type ?? 'webauthn.create', overrides.challenge ?? creation.challenge, overrides);
    const attestationObject = cbor(new Map<string, unknown>([['fmt', 'none'], ['attStmt', new Map()], ['authData', authData]]));
    this.credentials.set(b64url(id), credential);
    return {
      id: b64url(id),
      rawId: b64url(id),
      type: 'public-key' as const,
      authenticatorAttachment: 'platform' as const,
      clientExtensionResults: {},
      response: {
        clientDataJSON: b64url(clientDataJSON),
        attestationObject: b64url(attestationObject),
        transports: ['internal' as const],
      },
    };
  }

  /** navigator.credentials.get(): an AuthenticationResponseJSON. */
  authenticate(request: RequestOptions, overrides: CeremonyOverrides = {}) {
    const rpIdOfRequest = request.rpId ?? new URL(this.origin).hostname;
    const allowed = (request.allowCredentials ?? []).map((c) => c.id);
    const chosenId =
      overrides.credentialId ??
      (allowed.length > 0
        ? allowed.find((id) => this.credentials.has(id))
        : [...this.credentials].find(([, c]) => c.rpId === rpIdOfRequest)?.[0]);
    const credential = chosenId === undefined ? undefined : this.credentials.get(chosenId);
    if (!credential) throw new Error('NotAllowedError: no credential for this request');

    const rpId = overrides.rpId ?? rpIdOfRequest;
    const counter = overrides.counter ?? this.nextCounter(credential);
    const authenticatorData = this.authDataHead(rpId, 0, counter, overrides);
    const clientDataJSON = this.clientData(overrides.type ?? 'webauthn.get', overrides.challenge ?? request.challenge, overrides);
    const signature = sign('sha256', Buffer.concat([authenticatorData, sha256(clientDataJSON)]), credential.privateKey);
    const userHandle = overrides.userHandle === undefined ? credential.userHandle : overrides.userHandle;
    return {
      id: b64url(credential.id),
      rawId: b64url(credential.id),
      type: 'public-key' as const,
      authenticatorAttachment: 'platform' as const,
      clientExtensionResults: {},
      response: {
        clientDataJSON: b64url(clientDataJSON),
        authenticatorData: b64url(authenticatorData),
        signature: b64url(signature),
        ...(userHandle === null ? {} : { userHandle }),
      },
    };
  }

  /** The counter a credential currently holds (the next assertion signs one more). */
  counterOf(credentialId: string): number {
    return this.credentials.get(credentialId)?.counter ?? -1;
  }

  private nextCounter(credential: StoredCredential): number {
    if (this.options.countsSignatures === false) return 0;
    credential.counter += 1;
    return credential.counter;
  }

  private authDataHead(rpId: string, extraFlags: number, counter: number, overrides: CeremonyOverrides): Buffer {
    let flags = extraFlags;
    if (overrides.userPresent !== false) flags |= FLAG_UP;
    if (overrides.userVerified !== false) flags |= FLAG_UV;
    if (this.options.backedUp) flags |= FLAG_BE | FLAG_BS;
    const count = Buffer.alloc(4);
    count.writeUInt32BE(counter);
    return Buffer.concat([sha256(rpId), Buffer.from([flags]), count]);
  }

  private clientData(type: string, challenge: string, overrides: CeremonyOverrides): Buffer {
    return Buffer.from(JSON.stringify({ type, challenge, origin: overrides.origin ?? this.origin, crossOrigin: false }), 'utf8');
  }
}
