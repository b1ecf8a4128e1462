/**
 * Typed calls for the account (password, TOTP, recovery codes, passkeys, sessions, API tokens),
 * the sign-in extras (OAuth providers, passkey sign-in), tags and hostings. Same transport and
 * error shape as api.ts.
 */
import { call, type JsonObject, type Page, type SignInResult } from './api.ts';

type Role = 'owner' | 'admin' | 'member';
type Signed = Extract<SignInResult, { status: 'signed_in' }>;

export interface Ceremony {
  options: JsonObject & { challenge: string };
  challenge: string;
  expiresAt: string;
}

export interface Passkey {
  id: string;
  name: string;
  deviceType: string | null;
  transports: string[];
  lastUsedAt: string | null;
  createdAt: string;
}

export interface AccountSession {
  id: string;
  current: boolean;
  createdAt: string;
  lastSeenAt: string | null;
  expiresAt: string;
  createdIp: string | null;
  userAgent: string | null;
}

export interface ApiToken {
  id: string;
  organizationId: string;
  userId: string;
  name: string;
  role: Role;
  expiresAt: string | null;
  lastUsedAt: string | null;
  createdAt: string;
}

export interface Tag {
  id: string;
  organizationId: string;
  name: string;
  description: string | null;
  color: string | null;
}

export type Taggable = 'servers' | 'workspaces' | 'projects' | 'environments' | 'services';

export interface Service {
  id: string;
  environmentId: string;
  name: string;
  description: string | null;
  composeServiceName: string;
}

/** The routing keys the console edits; the API's other keys (the bind scope, proxy toggles) ride along. */
export interface HostingOptions extends JsonObject {
  hostnames?: string[];
  pathPrefix?: string;
  targetPort?: number;
  protocol?: 'http' | 'tcp' | 'udp';
}

export interface Hosting {
  id: string;
  serviceId: string;
  name: string | null;
  description: string | null;
  protocol: 'http' | 'tcp' | 'udp' | null;
  metadata: JsonObject | null;
  options: HostingOptions | null;
  updatedAt: string;
}

export interface HostingChanges {
  name?: string | null;
  description?: string | null;
  options?: JsonObject | null;
}

const V1 = 'client/v1';
type Cursor = { cursor?: string };

export const accountApi = {
  oauthProviders: () => call<{ data: { id: string; name: string }[] }>('GET', `${V1}/auth/oauth/providers`),
  passkeySignInOptions: (twoFactorChallenge?: string) =>
    call<Ceremony>('POST', `${V1}/auth/passkeys/sign-in/options`, twoFactorChallenge ? { twoFactorChallenge } : {}),
  passkeySignInVerify: (input: { challenge: string; response: JsonObject; twoFactorChallenge?: string }) =>
    call<Signed>('POST', `${V1}/auth/passkeys/sign-in/verify`, input),
  signUp: (input: { email: string; password: string; organizationName: string; displayName?: string }) =>
    call<{ organizationId: string }>('POST', `${V1}/auth/sign-up`, input),

  changePassword: (input: { currentPassword?: string; newPassword: string }) => call<void>('POST', `${V1}/auth/password`, input),
  enrolTotp: () => call<{ secret: string; uri: string }>('POST', `${V1}/auth/totp/enrol`),
  confirmTotp: (code: string) => call<{ recoveryCodes: string[] }>('POST', `${V1}/auth/totp/confirm`, { code }),
  disableTotp: (code: string) => call<void>('POST', `${V1}/auth/totp/disable`, { code }),
  regenerateRecoveryCodes: (code: string) => call<{ recoveryCodes: string[] }>('POST', `${V1}/auth/recovery-codes`, { code }),

  sessions: () => call<Page<AccountSession>>('GET', `${V1}/auth/sessions`),
  revokeSession: (id: string) => call<void>('DELETE', `${V1}/auth/sessions/${id}`),

  passkeys: () => call<Page<Passkey>>('GET', `${V1}/auth/passkeys`),
  passkeyRegisterOptions: () => call<Ceremony>('POST', `${V1}/auth/passkeys/register/options`),
  passkeyRegisterVerify: (input: { challenge: string; response: JsonObject; name?: string }) =>
    call<Passkey>('POST', `${V1}/auth/passkeys/register/verify`, input),
  renamePasskey: (id: string, name: string) => call<Passkey>('PATCH', `${V1}/auth/passkeys/${id}`, { name }),
  deletePasskey: (id: string) => call<void>('DELETE', `${V1}/auth/passkeys/${id}`),

  apiTokens: (query: Cursor & { organizationId: string }) => call<Page<ApiToken>>('GET', `${V1}/api-tokens`, undefined, query),
  createApiToken: (input: { organizationId: string; name: string; role: Role; expiresAt?: string | null }) =>
    call<ApiToken & { token: string }>('POST', `${V1}/api-tokens`, input),
  revokeApiToken: (id: string) => call<void>('DELETE', `${V1}/api-tokens/${id}`),
};

export const tagApi = {
  list: (query: Cursor & { organizationId: string }) => call<Page<Tag>>('GET', `${V1}/tags`, undefined, query),
  create: (input: { organizationId: string; name: string; description?: string | null; color?: string | null }) =>
    call<Tag>('POST', `${V1}/tags`, input),
  update: (id: string, changes: { name?: string; description?: string | null; color?: string | null }) =>
    call<Tag>('PATCH', `${V1}/tags/${id}`, changes),
  remove: (id: string) => call<void>('DELETE', `${V1}/tags/${id}`),
  of: (taggable: Taggable, id: string) => call<Page<Tag>>('GET', `${V1}/${taggable}/${id}/tags`),
  replace: (taggable: Taggable, id: string, tagIds: string[]) => call<Page<Tag>>('PUT', `${V1}/${taggable}/${id}/tags`, { tagIds }),
};

export const hostingApi = {
  services: (query: Cursor & { environmentId: string }) => call<Page<Service>>('GET', `${V1}/services`, undefined, query),
  service: (id: string) => call<Service>('GET', `${V1}/services/${id}`),
  list: (query: Cursor & { serviceId: string }) => call<Page<Hosting>>('GET', `${V1}/hostings`, undefined, query),
  create: (input: { serviceId: string } & HostingChanges) =>
    call<Hosting>('POST', `${V1}/hostings`, input),
  update: (id: string, changes: HostingChanges) =>
    call<Hosting>('PATCH', `${V1}/hostings/${id}`, changes),
  remove: (id: string) => call<void>('DELETE', `${V1}/hostings/${id}`),
};
