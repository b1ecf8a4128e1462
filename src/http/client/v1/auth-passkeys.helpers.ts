/** Passkey test helpers: registration and sign-in through the real routes with a software authenticator. */
import { expect } from 'bun:test';
import type { TestApp } from '../../../../test/harness.ts';
import { createPasswordUser, originOf, signIn } from '../../../../test/identity.ts';
import { SoftwareAuthenticator } from '../../../../test/webauthn-authenticator.ts';

export const PASSKEYS = '/api/client/v1/auth/passkeys';

export const authenticatorFor = (t: TestApp, options: { countsSignatures?: boolean; backedUp?: boolean } = {}) =>
  new SoftwareAuthenticator(new URL(t.config.publicUrl).origin, options);

/** Registers a passkey on `authenticator` for the signed-in `headers`; answers the response. */
export async function registerPasskey(t: TestApp, headers: Record<string, string>, authenticator: SoftwareAuthenticator, name?: string) {
  const start = await t.request('POST', `${PASSKEYS}/register/options`, undefined, headers);
  expect(start.status).toBe(200);
  const response = authenticator.register(start.json.options);
  const done = await t.request('POST', `${PASSKEYS}/register/verify`, { challenge: start.json.challenge, response, ...(name ? { name } : {}) }, headers);
  return { start, response, done };
}

/** A password user, signed in, with one passkey registered on a fresh software authenticator. */
export async function userWithPasskey(t: TestApp, options: { countsSignatures?: boolean } = {}) {
  const person = await createPasswordUser(t);
  const { headers } = await signIn(t, person.email, person.password);
  const authenticator = authenticatorFor(t, options);
  const { done, response } = await registerPasskey(t, headers!, authenticator, 'Laptop');
  expect(done.status).toBe(201);
  return { ...person, headers: headers!, authenticator, credentialId: response.id, passkeyId: done.json.id as string };
}

/** Discoverable passkey sign-in through the real routes. */
export async function passkeySignIn(t: TestApp, authenticator: SoftwareAuthenticator, extra: Record<string, string> = {}) {
  const start = await t.request('POST', `${PASSKEYS}/sign-in/options`, {}, { ...originOf(t), ...extra });
  expect(start.status).toBe(200);
  const response = authenticator.authenticate(start.json.options);
  return t.request('POST', `${PASSKEYS}/sign-in/verify`, { challenge: start.json.challenge, response }, { ...originOf(t), ...extra });
}

