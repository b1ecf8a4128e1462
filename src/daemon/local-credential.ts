/**
 * The local daemon's credential: how the daemon on the control plane's own host proves itself on
 * the unix socket (the local slot). A random opaque token in one file, created by `panel serve`
 * at its first start (or whoever starts first and finds none), mode 0600 in the data dir:
 *
 *   <data dir>/local-daemon.credential        `npm start` and install.sh (/var/lib/panel/…)
 *
 * readable by the user Panel runs as and by root, nobody else. The daemon sends it as
 * `Authorization: Bearer …` on the socket's upgrade and reads it again before every connection
 * attempt, so it never holds a stale copy. The file is the whole interface:
 *   server  ensureLocalDaemonCredential(config.localDaemonCredentialFile)
 *   daemon  `panel daemon run --local --credential-file <file>` (or
 *           PANEL_LOCAL_DAEMON_CREDENTIAL_FILE, or <PANEL_DATA_DIR or ./data>/local-daemon.credential
 *           like serve, or install.sh's /var/lib/panel/local-daemon.credential)
 * Bun exposes no peer credentials (SO_PEERCRED) for unix sockets, so the socket's peer uid cannot
 * be checked; the credential, the socket's mode (0600) and the file's mode carry the proof.
 */
import { chmodSync, closeSync, existsSync, fstatSync, mkdirSync, openSync, readFileSync, writeSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { newOpaqueToken } from '../auth/token.ts';

export const LOCAL_CREDENTIAL_FILE = 'local-daemon.credential';
export const LOCAL_CREDENTIAL_ENV = 'PANEL_LOCAL_DAEMON_CREDENTIAL_FILE';
/** install.sh's data dir: where a daemon looks when serve's default has no credential but it does. */
export const DEFAULT_SERVER_DATA_DIR = '/var/lib/panel';
const CREDENTIAL_SHAPE = /^pnl_[A-Za-z0-9_-]{43}$/;

/** A credential file that cannot be used; the message says what to do. */
export class LocalCredentialError extends Error {
  override name = 'LocalCredentialError';
}

export const localCredentialPath = (dataDir: string) => join(dataDir, LOCAL_CREDENTIAL_FILE);

/**
 * The daemon's view, agreeing with `panel serve` run with the same environment: `--credential-file`
 * (relative to the working directory), else PANEL_LOCAL_DAEMON_CREDENTIAL_FILE, else the file in
 * PANEL_DATA_DIR or ./data (serve's default data dir); when that does not exist but install.sh's
 * /var/lib/panel one does, that one.
 */
export function resolveLocalCredentialFile(flag: string | undefined, env: Record<string, string | undefined>): string {
  const given = flag || env[LOCAL_CREDENTIAL_ENV]?.trim();
  if (given) return resolve(given);
  const served = localCredentialPath(resolve(env.PANEL_DATA_DIR?.trim() || './data'));
  const installed = localCredentialPath(DEFAULT_SERVER_DATA_DIR);
  return !env.PANEL_DATA_DIR?.trim() && !existsSync(served) && existsSync(installed) ? installed : served;
}

function parseCredential(file: string, text: string): string {
  const credential = text.trim();
  if (!CREDENTIAL_SHAPE.test(credential)) {
    throw new LocalCredentialError(`${file} does not hold a local daemon credential; remove it and start panel serve to create a new one`);
  }
  return credential;
}

/**
 * `panel serve`: the credential in `file`, created (0600, never over an existing file) when
 * there is none. An existing file readable by group or others is narrowed back to 0600.
 */
export function ensureLocalDaemonCredential(file: string): string {
  let fd: number;
  try {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    fd = openSync(file, 'wx', 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw new LocalCredentialError(`cannot create ${file}: ${(error as Error).message}`);
    return readExisting(file);
  }
  try {
    const credential = newOpaqueToken('pnl');
    writeSync(fd, `${credential}\n`);
    return credential;
  } finally {
    closeSync(fd);
  }
}

function readExisting(file: string): string {
  let text: string;
  try {
    const fd = openSync(file, 'r');
    try {
      const stat = fstatSync(fd);
      if (!stat.isFile()) throw new LocalCredentialError(`${file} is not a regular file`);
      if ((stat.mode & 0o077) !== 0) chmodSync(file, 0o600);
      text = readFileSync(fd, 'utf8');
    } finally {
      closeSync(fd);
    }
  } catch (error) {
    if (error instanceof LocalCredentialError) throw error;
    throw new LocalCredentialError(`cannot read ${file}: ${(error as Error).message}`);
  }
  return parseCredential(file, text);
}

/** The daemon's view: the credential, or null while the file does not exist yet. */
export async function readLocalDaemonCredential(file: string): Promise<string | null> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new LocalCredentialError(`cannot read ${file}: ${(error as Error).message}`);
  }
  return parseCredential(file, text);
}
