import { describe, expect, test } from 'bun:test';
import { SoftwareAuthenticator } from '../../test/webauthn-authenticator.ts';
import { authenticationOptions, checkAuthentication, checkRegistration, registrationOptions, relyingPartyOf, userHandleOf } from './passkey.ts';

const USER = { id: '01900000-0000-7000-8000-000000000001', email: 'alice@example.test', displayName: 'Alice' };

describe('relying party', () => {
  test('RP ID is the public URL hostname, the origin its origin', () => {
    expect(relyingPartyOf('https://panel.example.test')).toEqual({ id: 'panel.example.test', origin: 'https://panel.example.test', name: 'Panel' });
    expect(relyingPartyOf('http://localhost:3000')).toEqual({ id: 'localhost', origin: 'http://localhost:3000', name: 'Panel' });
  });

  test('user handles are the UTF-8 bytes of the user id', () => {
    expect(Buffer.from(userHandleOf(USER.id), 'base64url').toString('utf8')).toBe(USER.id);
  });
});

describe('ceremonies', () => {
  const rp = relyingPartyOf('https://panel.example.test');

  async function registered() {
    const authenticator = new SoftwareAuthenticator(rp.origin);
    const options = await registrationOptions(rp, USER, []);
    expect(options.pubKeyCredParams.map((p) => p.alg)).toEqual([-8, -7, -257]);
    const credential = await checkRegistration(rp, authenticator.register(options) as never, options.challenge);
    expect(credential).not.toBeNull();
    return { authenticator, credential: credential! };
  }

  test('registration then assertion; the counter moves forward', async () => {
    const { authenticator, credential } = await registered();
    const options = await authenticationOptions(rp, null, 'required');
    const checked = await checkAuthentication(rp, authenticator.authenticate(options) as never, options.challenge, credential, 'required');
    expect(checked).toEqual({ newCounter: 2, isBackedUp: false });
  });

  test('another origin, another RP ID, a replayed challenge or a stale counter: null', async () => {
    const { authenticator, credential } = await registered();
    const options = await authenticationOptions(rp, [credential], 'discouraged');
    expect(options.allowCredentials).toEqual([{ id: credential.credentialId, type: 'public-key', transports: ['internal'] }]);
    const check = (overrides: Parameters<SoftwareAuthenticator['authenticate']>[1], stored = credential) =>
      checkAuthentication(rp, authenticator.authenticate(options, overrides) as never, options.challenge, stored, 'discouraged');
    expect(await check({ origin: 'https://evil.example' })).toBeNull();
    expect(await check({ rpId: 'evil.example' })).toBeNull();
    expect(await check({ challenge: 'AAAA' })).toBeNull();
    expect(await check({}, { ...credential, counter: 99 })).toBeNull();
    expect(await check({ counter: 0 }, { ...credential, counter: 0 })).not.toBeNull();
  });

  test('a response for another credential than the stored one: null', async () => {
    const { authenticator, credential } = await registered();
    const options = await authenticationOptions(rp, null, 'required');
    const response = authenticator.authenticate(options);
    expect(await checkAuthentication(rp, { ...response, id: 'AAAA' } as never, options.challenge, credential, 'required')).toBeNull();
  });
});
