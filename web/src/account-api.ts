/**
 * Typed calls for the account (password, TOTP, recovery codes, passkeys, sessions, API tokens),
 * the sign-in extras (OAuth providers, passkey sign-in), tags and hostings. Same transport and
 * error shape as api.ts.
 */
import { call, type JsonObject, type Page } from './api.ts';
import type { AccountSession, Ceremony, OAuthProviders, Passkey, PasswordChange, RecoveryCodes, SignedIn as Signed, SignedUp, TotpEnrolment } from '../../src/contract/identity.ts';
import type { Hosting, HostingCreate, HostingOptions, HostingUpdate } from '../../src/contract/hostings.ts';
import type { Service } from '../../src/contract/services.ts';
import type { Tag, TagCreate, TagUpdate, TaggableCollection } from '../../src/contract/tags.ts';
import type { ApiToken, ApiTokenCreate } from '../../src/contract/tokens.ts';

export type { AccountSession, ApiToken, Ceremony, Hosting, HostingOptions, Passkey, Service, Tag };
/** The entities the console tags. */
export type Taggable = Extract<TaggableCollection, 'servers' | 'workspaces' | 'projects' | 'environments' | 'services'>;

export type HostingChanges = HostingUpdate;

const V1 = 'client/v1';
type Cursor = { cursor?: string };

export const accountApi = {
  oauthProviders: () => call<OAuthProviders>('GET', `${V1}/auth/oauth/providers`),
  passkeySignInOptions: (twoFactorChallenge?: string) =>
    call<Ceremony>('POST', `${V1}/auth/passkeys/sign-in/options`, twoFactorChallenge ? { twoFactorChallenge } : {}),
  passkeySignInVerify: (input: { challenge: string; response: JsonObject; twoFactorChallenge?: string }) =>
    call<Signed>('POST', `${V1}/auth/passkeys/sign-in/verify`, input),
  signUp: (input: { email: string; password: string; organizationName: string; displayName?: string }) =>
    call<SignedUp>('POST', `${V1}/auth/sign-up`, input),

  changePassword: (input: PasswordChange) => call<void>('POST', `${V1}/auth/password`, input),
  enrolTotp: () => call<TotpEnrolment>('POST', `${V1}/auth/totp/enrol`),
  confirmTotp: (code: string) => call<RecoveryCodes>('POST', `${V1}/auth/totp/confirm`, { code }),
  disableTotp: (code: string) => call<void>('POST', `${V1}/auth/totp/disable`, { code }),
  regenerateRecoveryCodes: (code: string) => call<RecoveryCodes>('POST', `${V1}/auth/recovery-codes`, { code }),

  sessions: () => call<Page<AccountSession>>('GET', `${V1}/auth/sessions`),
  revokeSession: (id: string) => call<void>('DELETE', `${V1}/auth/sessions/${id}`),

  passkeys: () => call<Page<Passkey>>('GET', `${V1}/auth/passkeys`),
  passkeyRegisterOptions: () => call<Ceremony>('POST', `${V1}/auth/passkeys/register/options`),
  passkeyRegisterVerify: (input: { challenge: string; response: JsonObject; name?: string }) =>
    call<Passkey>('POST', `${V1}/auth/passkeys/register/verify`, input),
  renamePasskey: (id: string, name: string) => call<Passkey>('PATCH', `${V1}/auth/passkeys/${id}`, { name }),
  deletePasskey: (id: string) => call<void>('DELETE', `${V1}/auth/passkeys/${id}`),

  apiTokens: (query: Cursor & { organizationId: string }) => call<Page<ApiToken>>('GET', `${V1}/api-tokens`, undefined, query),
  createApiToken: (input: ApiTokenCreate) =>
    call<ApiToken & { token: string }>('POST', `${V1}/api-tokens`, input),
  revokeApiToken: (id: string) => call<void>('DELETE', `${V1}/api-tokens/${id}`),
};

export const tagApi = {
  list: (query: Cursor & { organizationId: string }) => call<Page<Tag>>('GET', `${V1}/tags`, undefined, query),
  create: (input: TagCreate) => call<Tag>('POST', `${V1}/tags`, input),
  update: (id: string, changes: TagUpdate) => call<Tag>('PATCH', `${V1}/tags/${id}`, changes),
  remove: (id: string) => call<void>('DELETE', `${V1}/tags/${id}`),
  of: (taggable: Taggable, id: string) => call<Page<Tag>>('GET', `${V1}/${taggable}/${id}/tags`),
  replace: (taggable: Taggable, id: string, tagIds: string[]) => call<Page<Tag>>('PUT', `${V1}/${taggable}/${id}/tags`, { tagIds }),
};

export const hostingApi = {
  services: (query: Cursor & { environmentId: string }) => call<Page<Service>>('GET', `${V1}/services`, undefined, query),
  service: (id: string) => call<Service>('GET', `${V1}/services/${id}`),
  list: (query: Cursor & { serviceId: string }) => call<Page<Hosting>>('GET', `${V1}/hostings`, undefined, query),
  create: (input: HostingCreate) => call<Hosting>('POST', `${V1}/hostings`, input),
  update: (id: string, changes: HostingUpdate) => call<Hosting>('PATCH', `${V1}/hostings/${id}`, changes),
  remove: (id: string) => call<void>('DELETE', `${V1}/hostings/${id}`),
};
