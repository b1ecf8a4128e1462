/**
 * The browser half of passkeys: the server speaks WebAuthn JSON (binary fields as base64url),
 * navigator.credentials speaks ArrayBuffers. These helpers convert both ways, no library.
 */
import type { JsonObject } from './api.ts';

export function base64urlToBuffer(text: string): ArrayBuffer {
  const base64 = text.replace(/-/g, '+').replace(/_/g, '/').replace(/=+$/, '');
  const padded = base64 + '='.repeat((4 - (base64.length % 4)) % 4);
  const binary = atob(padded);
  const bytes = new Uint8Array(binary.length);
  for (let index = 0; index < binary.length; index++) bytes[index] = binary.charCodeAt(index);
  return bytes.buffer;
}

export function bufferToBase64url(buffer: ArrayBuffer | ArrayBufferView): string {
  const bytes = buffer instanceof ArrayBuffer ? new Uint8Array(buffer) : new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

export const passkeysSupported = () => typeof window.PublicKeyCredential === 'function' && !!navigator.credentials;

type Descriptor = { id: string; type: string; transports?: string[] };
const toDescriptors = (list: unknown) =>
  ((list as Descriptor[] | undefined) ?? []).map((item) => ({ ...item, id: base64urlToBuffer(item.id) }) as PublicKeyCredentialDescriptor);

/** Asks the browser for an assertion (sign-in) and answers the JSON the server verifies. */
export async function getPasskeyAssertion(options: JsonObject): Promise<JsonObject> {
  const publicKey = {
    ...options,
    challenge: base64urlToBuffer(options.challenge as string),
    allowCredentials: toDescriptors(options.allowCredentials),
  } as PublicKeyCredentialRequestOptions;
  const credential = (await navigator.credentials.get({ publicKey })) as PublicKeyCredential | null;
  if (!credential) throw new Error('No passkey was chosen.');
  const response = credential.response as AuthenticatorAssertionResponse;
  return {
    id: credential.id,
    rawId: bufferToBase64url(credential.rawId),
    type: credential.type,
    response: {
      clientDataJSON: bufferToBase64url(response.clientDataJSON),
      authenticatorData: bufferToBase64url(response.authenticatorData),
      signature: bufferToBase64url(response.signature),
      ...(response.userHandle ? { userHandle: bufferToBase64url(response.userHandle) } : {}),
    },
    clientExtensionResults: {},
    ...(credential.authenticatorAttachment ? { authenticatorAttachment: credential.authenticatorAttachment } : {}),
  };
}

/** Asks the browser to create a passkey (registration) and answers the attestation JSON. */
export async function createPasskey(options: JsonObject): Promise<JsonObject> {
  const user = options.user as { id: string; name: string; displayName: string };
  const publicKey = {
    ...options,
    challenge: base64urlToBuffer(options.challenge as string),
    user: { ...user, id: base64urlToBuffer(user.id) },
    excludeCredentials: toDescriptors(options.excludeCredentials),
  } as PublicKeyCredentialCreationOptions;
  const credential = (await navigator.credentials.create({ publicKey })) as PublicKeyCredential | null;
  if (!credential) throw new Error('The browser created no passkey.');
  const response = credential.response as AuthenticatorAttestationResponse;
  return {
    id: credential.id,
    rawId: bufferToBase64url(credential.rawId),
    type: credential.type,
    response: {
      clientDataJSON: bufferToBase64url(response.clientDataJSON),
      attestationObject: bufferToBase64url(response.attestationObject),
      transports: response.getTransports?.() ?? [],
    },
    clientExtensionResults: {},
    ...(credential.authenticatorAttachment ? { authenticatorAttachment: credential.authenticatorAttachment } : {}),
  };
}

/** A WebAuthn failure in words (the user cancelled, no passkey here, …). */
export function passkeyProblem(error: unknown): string {
  if (error instanceof DOMException && error.name === 'NotAllowedError') return 'The passkey request was cancelled or timed out.';
  if (error instanceof DOMException && error.name === 'InvalidStateError') return 'This authenticator already holds a passkey for your account.';
  return error instanceof Error ? error.message : 'The passkey could not be used.';
}
