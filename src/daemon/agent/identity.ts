/**
 * The agent's identity on disk, in its state directory (default /var/lib/panel-daemon):
 *   identity.json        written by `panel daemon join`: control plane url, server id, bearer
 *                        credential and the X25519 key pair `pndaemon` envelopes are sealed to
 *   local-identity.json  the local daemon's key pair (it never enrolls; see protocol `hello.daemonKey`;
 *                        the control plane pins it at the first hello, so losing this file needs
 *                        an operator's `panel local-daemon reset-key`)
 *   machine-id           fallback machine id when /etc/machine-id is missing
 * Every file is written atomically with mode 0600: the private key and credential never become
 * readable to other users, not even for an instant.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { hostname as osHostname } from 'node:os';
import { join } from 'node:path';
import * as v from 'valibot';
import { DAEMON_WS_PATH, ENROLL_PATH, Enrolled, type EnrollRequest } from '../../contract/daemon-protocol.ts';
import { generateDaemonKeyPair } from '../../crypto/index.ts';

export const DEFAULT_STATE_DIR = '/var/lib/panel-daemon';
export const SYSTEM_MACHINE_ID_PATH = '/etc/machine-id';

const IDENTITY_FILE = 'identity.json';
const LOCAL_IDENTITY_FILE = 'local-identity.json';
const MACHINE_ID_FILE = 'machine-id';

/** Raised for every identity problem the operator must act on; the message says what to do. */
export class IdentityError extends Error {
  override name = 'IdentityError';
}

const KeyMaterial = {
  keyId: v.pipe(v.string(), v.regex(/^[A-Za-z0-9_-]{1,32}$/)),
  privateKey: v.pipe(v.string(), v.minLength(1)),
  publicKey: v.pipe(v.string(), v.minLength(1)),
  machineId: v.pipe(v.string(), v.minLength(1), v.maxLength(128)),
};

/** A daemon enrolled with a control plane by `panel daemon join`. */
const AgentIdentity = v.object({
  url: v.pipe(v.string(), v.url()),
  serverId: v.pipe(v.string(), v.uuid()),
  credential: v.pipe(v.string(), v.minLength(1)),
  ...KeyMaterial,
});
export type AgentIdentity = v.InferOutput<typeof AgentIdentity>;

/**
 * The local daemon: no enrolled credential (it presents the control plane's local daemon
 * credential file instead, src/daemon/local-credential.ts); server id once welcomed.
 */
const LocalIdentity = v.object({ serverId: v.optional(v.pipe(v.string(), v.uuid())), ...KeyMaterial });
export type LocalIdentity = v.InferOutput<typeof LocalIdentity>;


/** `--state-dir`, else PANEL_DAEMON_STATE_DIR, else /var/lib/panel-daemon. */
export function resolveStateDir(flag: string | undefined, env: Record<string, string | undefined>): string {
  return flag || env.PANEL_DAEMON_STATE_DIR || DEFAULT_STATE_DIR;
}

/** Key ids name the daemon key inside `pndaemon` envelopes: 25 characters of [A-Za-z0-9_-]. */
export const newDaemonKeyId = (): string => `dk_${randomBytes(16).toString('base64url')}`;

/** The control plane base url without trailing slashes, refusing anything but http(s). */
export function normalizeControlPlaneUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new IdentityError(`"${url}" is not a URL; expected e.g. https://panel.example.com`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new IdentityError(`"${url}" must start with https:// (or http://)`);
  }
  if (parsed.search || parsed.hash || parsed.username) throw new IdentityError(`"${url}" must not carry a query, fragment or user`);
  return parsed.href.replace(/\/+$/, '');
}

/** ws(s)://…/ws/daemon/v1 for a control plane base url. */
export const daemonWebSocketUrl = (baseUrl: string): string => `${baseUrl.replace(/^http/, 'ws')}${DAEMON_WS_PATH}`;

/** /etc/machine-id, else an id generated once and kept in the state directory. */
export async function readMachineId(stateDir: string, systemPath = SYSTEM_MACHINE_ID_PATH): Promise<string> {
  const system = (await readOptional(systemPath))?.trim();
  if (system) return system;
  const fallbackPath = join(stateDir, MACHINE_ID_FILE);
  const persisted = (await readOptional(fallbackPath))?.trim();
  if (persisted) return persisted;
  const generated = randomUUID().replaceAll('-', '');
  await writePrivateFile(fallbackPath, `${generated}\n`);
  return generated;
}

export interface JoinOptions {
  url: string;
  token: string;
  stateDir: string;
  /** Replace an existing identity (the old server record stays on the control plane). */
  force?: boolean;
  hostname?: string;
  /** The server's name on the control plane (default there: the hostname). */
  name?: string;
  machineIdPath?: string;
  fetch?: typeof fetch;
}

/** Enrolls this machine with the control plane and stores the identity it answers with. */
export async function joinControlPlane(options: JoinOptions): Promise<AgentIdentity> {
  const url = normalizeControlPlaneUrl(options.url);
  const identityPath = join(options.stateDir, IDENTITY_FILE);
  if (!options.force && (await readOptional(identityPath)) !== null) {
    throw new IdentityError(`already joined (${identityPath} exists); to join again, create a join token that replaces this server and pass --force`);
  }
  const machineId = await readMachineId(options.stateDir, options.machineIdPath);
  const keyPair = generateDaemonKeyPair();
  const keyId = newDaemonKeyId();
  const body = {
    token: options.token,
    hostname: options.hostname ?? osHostname(),
    machineId,
    publicKey: keyPair.publicKey,
    keyId,
    ...(options.name ? { name: options.name } : {}),
  };

  const enrolled = await postEnroll(url, body, options.fetch ?? fetch);
  const identity: AgentIdentity = { url, serverId: enrolled.serverId, credential: enrolled.credential, keyId, ...keyPair, machineId };
  await writePrivateFile(identityPath, `${JSON.stringify(identity, null, 2)}\n`);
  return identity;
}

async function postEnroll(url: string, body: EnrollRequest, fetchImpl: typeof fetch): Promise<Enrolled> {
  const endpoint = `${url}${ENROLL_PATH}`;
  let response: Response;
  try {
    response = await fetchImpl(endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(body),
      redirect: 'error',
    });
  } catch (error) {
    throw new IdentityError(`cannot reach ${endpoint}: ${(error as Error).message}`);
  }
  const text = await response.text();
  if (!response.ok) {
    throw new IdentityError(`enrollment refused by ${endpoint}: HTTP ${response.status}${describeErrorBody(text)}`);
  }
  const parsed = v.safeParse(Enrolled, parseJson(text));
  if (!parsed.success) throw new IdentityError(`unexpected enrollment answer from ${endpoint}: expected {serverId, credential}`);
  return parsed.output;
}

/** The `{"error": {code, message}}` body every Panel error has, when there is one. */
function describeErrorBody(text: string): string {
  const error = (parseJson(text) as { error?: { code?: unknown; message?: unknown } } | undefined)?.error;
  if (typeof error?.message !== 'string') return '';
  return ` ${typeof error.code === 'string' ? `${error.code}: ` : ''}${error.message.slice(0, 300)}`;
}

/** The enrolled identity, or an IdentityError telling the operator to join first. */
export async function loadIdentity(stateDir: string): Promise<AgentIdentity> {
  const path = join(stateDir, IDENTITY_FILE);
  const text = await readOptional(path);
  if (text === null) throw new IdentityError(`not joined: ${path} is missing; run panel daemon join <url> --token <token>`);
  const parsed = v.safeParse(AgentIdentity, parseJson(text));
  if (!parsed.success) throw new IdentityError(`${path} is damaged; run panel daemon join again with --force`);
  return parsed.output;
}

/** The local daemon's key pair, created on first use. */
export async function loadOrCreateLocalIdentity(stateDir: string, machineIdPath?: string): Promise<LocalIdentity> {
  const path = join(stateDir, LOCAL_IDENTITY_FILE);
  const text = await readOptional(path);
  if (text !== null) {
    const parsed = v.safeParse(LocalIdentity, parseJson(text));
    if (!parsed.success) throw new IdentityError(`${path} is damaged; remove it to create a new local key pair`);
    return parsed.output;
  }
  const identity: LocalIdentity = { keyId: newDaemonKeyId(), ...generateDaemonKeyPair(), machineId: await readMachineId(stateDir, machineIdPath) };
  await writePrivateFile(path, `${JSON.stringify(identity, null, 2)}\n`);
  return identity;
}

/** Keeps the server id a `welcome` named (the hub's canonical record) for the next hello. */
export async function rememberServerId(stateDir: string, local: boolean, serverId: string): Promise<void> {
  const identity = local ? await loadOrCreateLocalIdentity(stateDir) : await loadIdentity(stateDir);
  if (identity.serverId === serverId) return;
  await writePrivateFile(join(stateDir, local ? LOCAL_IDENTITY_FILE : IDENTITY_FILE), `${JSON.stringify({ ...identity, serverId }, null, 2)}\n`);
}

/** Writes through a fresh 0600 temporary file and renames it over `path`. */
export async function writePrivateFile(path: string, content: string): Promise<void> {
  await mkdir(join(path, '..'), { recursive: true, mode: 0o700 });
  const temporary = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    await writeFile(temporary, content, { mode: 0o600, flag: 'wx' });
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}

async function readOptional(path: string): Promise<string | null> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
