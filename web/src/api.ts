/**
 * The console's one door to the server: typed calls to the public API surfaces (client and
 * install), nothing else. The session is the HttpOnly cookie the sign-in routes set; the
 * browser adds it and the Origin header the server checks on writes.
 *
 * Every error answer has one body, {error: {code, message, path?, requestId}}; it becomes an
 * ApiError, whose `path` forms map to the field it concerns (forms.tsx).
 */
import type { Page } from '../../src/contract/common.ts';
import type { Environment } from '../../src/contract/environments.ts';
import type { ErrorBody } from '../../src/contract/errors.ts';
import type { InstallRequest, InstallStatus } from '../../src/contract/install.ts';
import type { SessionSummary, SignedUp, SignInResult, User } from '../../src/contract/identity.ts';
import type { Organization } from '../../src/contract/organizations.ts';
import type { Project } from '../../src/contract/projects.ts';
import type { Workspace } from '../../src/contract/workspaces.ts';
import type { ComposeLayer } from '../../src/contract/compose.ts';

export type { Environment, Organization, Page, Project, SessionSummary, SignInResult, User, Workspace };
export type { JsonObject } from '../../src/contract/common.ts';
export type InstallProof = InstallRequest['proof'];

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly path?: string,
    readonly requestId?: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }

  /** A list route that is not on this server (yet): the router's 404, not a missing resource. */
  get isMissingRoute(): boolean {
    return this.status === 404 && this.message === 'no such route';
  }
}

/** What an error answer may carry: the API's error body, or less when something else answered (a proxy). */
type ErrorAnswer = { error?: Partial<ErrorBody['error']> };

/**
 * Dispatched on window when a signed-in call answers 401: the session ended (expired, revoked
 * elsewhere). The console's root (app.tsx) listens and shows the sign-in page.
 */
export const SESSION_ENDED_EVENT = 'panel:session-ended';

/**
 * Dispatched on window when a signed-in call answers 403 forbidden: the caller's role may have
 * changed since the session summary was read (someone demoted them), so the shell reads it again
 * and the pages drop the controls the role no longer allows (role.tsx).
 */
export const ACCESS_REFUSED_EVENT = 'panel:access-refused';

type Query = Record<string, string | undefined>;

export async function call<T>(method: string, path: string, body?: unknown, query: Query = {}): Promise<T> {
  const search = new URLSearchParams(Object.entries(query).filter((entry): entry is [string, string] => entry[1] !== undefined)).toString();
  const url = `/api/${path}${search ? `?${search}` : ''}`;
  let response: Response;
  try {
    response = await fetch(url, {
      method,
      credentials: 'same-origin',
      headers: body === undefined ? { accept: 'application/json' } : { accept: 'application/json', 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new ApiError(0, 'network_error', 'The server cannot be reached. Check the connection and try again.');
  }
  const text = await response.text();
  let json: unknown;
  try {
    json = text === '' ? undefined : JSON.parse(text);
  } catch {
    json = undefined;
  }
  if (response.ok) return json as T;
  const error = (json as ErrorAnswer | undefined)?.error;
  const failure = new ApiError(
    response.status,
    error?.code ?? `http_${response.status}`,
    error?.message ?? `The server answered ${response.status} ${response.statusText}.`,
    error?.path,
    error?.requestId,
  );
  if (failure.code === 'unauthenticated' && path.startsWith('client/') && !path.startsWith('client/v1/auth/sign-in')) {
    window.dispatchEvent(new Event(SESSION_ENDED_EVENT));
  }
  if (failure.code === 'forbidden' && path.startsWith('client/')) window.dispatchEvent(new Event(ACCESS_REFUSED_EVENT));
  throw failure;
}

/** Lists answer 50 items a page; `cursor` is the previous page's nextCursor. */
type PageQuery = { cursor?: string };

export const api = {
  install: {
    status: () => call<InstallStatus>('GET', 'install/v1/status'),
    complete: (input: InstallRequest) => call<SignedUp>('POST', 'install/v1/complete', input),
  },
  auth: {
    session: () => call<SessionSummary>('GET', 'client/v1/auth/session'),
    signIn: (input: { email: string; password: string }) => call<SignInResult>('POST', 'client/v1/auth/sign-in', input),
    signInWithTotp: (input: { challenge: string; code: string }) => call<SignInResult>('POST', 'client/v1/auth/sign-in/totp', input),
    signInWithRecoveryCode: (input: { challenge: string; code: string }) =>
      call<SignInResult>('POST', 'client/v1/auth/sign-in/recovery', input),
    signOut: () => call<void>('POST', 'client/v1/auth/sign-out'),
  },
  organizations: {
    list: (query: PageQuery = {}) => call<Page<Organization>>('GET', 'client/v1/organizations', undefined, query),
    get: (id: string) => call<Organization>('GET', `client/v1/organizations/${id}`),
  },
  workspaces: {
    list: (query: PageQuery & { organizationId: string }) => call<Page<Workspace>>('GET', 'client/v1/workspaces', undefined, query),
    get: (id: string) => call<Workspace>('GET', `client/v1/workspaces/${id}`),
  },
  /** A Compose layer saved as YAML text through its own endpoint: only options.compose changes. */
  compose: {
    save: (layer: 'projects' | 'environments', id: string, body: { yaml: string; editorView: string }) =>
      call<ComposeLayer>('PUT', `client/v1/${layer}/${id}/compose`, body),
  },
  projects: {
    list: (query: PageQuery & { workspaceId: string }) => call<Page<Project>>('GET', 'client/v1/projects', undefined, query),
    get: (id: string) => call<Project>('GET', `client/v1/projects/${id}`),
    update: (id: string, changes: { options?: Project['options'] }) => call<Project>('PATCH', `client/v1/projects/${id}`, changes),
  },
  environments: {
    list: (query: PageQuery & { projectId: string }) => call<Page<Environment>>('GET', 'client/v1/environments', undefined, query),
    update: (id: string, changes: { options?: Environment['options'] }) =>
      call<Environment>('PATCH', `client/v1/environments/${id}`, changes),
  },
};
