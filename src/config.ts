import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { LOCAL_CREDENTIAL_ENV, localCredentialPath } from './daemon/local-credential.ts';

export type Runtime = 'self-hosted' | 'development';
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
export type LocalDaemonMode = 'auto' | 'off';

export interface Config {
  dataDir: string;
  databaseFile: string;
  host: string;
  port: number;
  publicUrl: string;
  /** The root key ring text (design §5); parsed by src/crypto/keyring.ts. */
  secrets: string;
  runtime: Runtime;
  isSignupEnabled: boolean;
  daemonSocket: string;
  /**
   * `auto`: `panel serve` starts and supervises the local daemon itself whenever a Docker engine
   * answers (the trial and development setup). `off`: something else runs it (install.sh's
   * panel-daemon unit).
   */
  localDaemon: LocalDaemonMode;
  /** The local daemon's credential (src/daemon/local-credential.ts); created at first start. */
  localDaemonCredentialFile: string;
  logLevel: LogLevel;
  maxBodyBytes: number;
  /** Proxies (IP addresses or CIDR ranges) whose X-Forwarded-For is believed; none by default. */
  trustedProxies: readonly string[];
  /** External identity providers; each is present only when configured. */
  oauth: OAuthConfig;
  /** The Caddy image every server's ingress runs (the official one unless set). */
  ingressImage: string;
}

export interface GitHubOAuthConfig {
  clientId: string;
  clientSecret: string;
  /** Where /login/oauth/* lives (GitHub Enterprise, or a fake provider in tests). */
  baseUrl: string;
  /** The REST API root (/user, /user/emails). */
  apiUrl: string;
}

export interface OidcOAuthConfig {
  /** The issuer identifier; discovery is read from <issuer>/.well-known/openid-configuration. */
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Shown on the sign-in page. */
  name: string;
}

export interface OAuthConfig {
  github?: GitHubOAuthConfig;
  oidc?: OidcOAuthConfig;
}

/** Thrown when the environment holds bad values; main prints every problem and exits non-zero. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

/** Where a development key ring is kept when PANEL_SECRETS is unset. */
export const DEV_SECRETS_FILE = 'secrets.key';
/** The official Caddy image, pinned to a minor version whose JSON configuration Panel writes. */
export const DEFAULT_INGRESS_IMAGE = 'caddy:2.10';
/** An image reference: [registry[:port]/]path[:tag][@sha256:digest], no spaces or shell characters. */
const IMAGE_REFERENCE = /^[a-z0-9]+(?:[._-][a-z0-9]+)*(?::[0-9]+)?(?:\/[a-z0-9]+(?:[._-][a-z0-9]+)*)*(?::[A-Za-z0-9_][A-Za-z0-9_.-]{0,127})?(?:@sha256:[a-f0-9]{64})?$/;
/** Unix socket paths are limited to 107 bytes by the kernel (sun_path). */
const MAX_SOCKET_PATH = 107;

/**
 * Reads the configuration from the environment. Every problem is collected so one start shows
 * them all. `generateKeyRing` is injected to keep this module free of the crypto dependency.
 */
export function loadConfig(env: Env, generateKeyRing: () => string): Config {
  const problems: string[] = [];
  const text = (name: string) => {
    const value = env[name]?.trim();
    return value === undefined || value === '' ? undefined : value;
  };

  const runtimeText = text('PANEL_RUNTIME') ?? 'self-hosted';
  if (runtimeText !== 'self-hosted' && runtimeText !== 'development') {
    problems.push(`PANEL_RUNTIME must be "self-hosted" or "development", got "${runtimeText}"`);
  }
  const runtime = runtimeText === 'development' ? 'development' : 'self-hosted';

  const dataDir = resolve(text('PANEL_DATA_DIR') ?? './data');
  const host = text('PANEL_HOST') ?? '127.0.0.1';
  const port = parsePort(text('PANEL_PORT') ?? '3000', problems);
  const publicUrl = parsePublicUrl(text('PANEL_PUBLIC_URL'), host, port, problems);
  const isSignupEnabled = parseBoolean('PANEL_IS_SIGNUP_ENABLED', text('PANEL_IS_SIGNUP_ENABLED'), problems);
  const logLevel = parseLogLevel(text('PANEL_LOG_LEVEL') ?? 'info', problems);
  const maxBodyBytes = parsePositiveInt('PANEL_MAX_BODY_BYTES', text('PANEL_MAX_BODY_BYTES') ?? String(1024 * 1024), problems);
  const oauth = parseOAuth(text, problems);
  const trustedProxies = parseTrustedProxies(text('PANEL_TRUSTED_PROXIES'), problems);
  const ingressImage = text('PANEL_INGRESS_IMAGE') ?? DEFAULT_INGRESS_IMAGE;
  if (!IMAGE_REFERENCE.test(ingressImage)) problems.push(`PANEL_INGRESS_IMAGE must be an image reference such as ${DEFAULT_INGRESS_IMAGE}, got "${ingressImage}"`);

  const daemonSocket = defaultDaemonSocket(env);
  if (Buffer.byteLength(daemonSocket) > MAX_SOCKET_PATH) {
    problems.push(`PANEL_DAEMON_SOCKET is longer than ${MAX_SOCKET_PATH} bytes: ${daemonSocket}`);
  }

  const localDaemonText = text('PANEL_LOCAL_DAEMON') ?? 'auto';
  if (localDaemonText !== 'auto' && localDaemonText !== 'off') problems.push(`PANEL_LOCAL_DAEMON must be "auto" or "off", got "${localDaemonText}"`);
  const localDaemon: LocalDaemonMode = localDaemonText === 'off' ? 'off' : 'auto';
  const localDaemonCredentialFile = resolve(text(LOCAL_CREDENTIAL_ENV) ?? localCredentialPath(dataDir));

  let secrets = text('PANEL_SECRETS');
  const secretsFile = text('PANEL_SECRETS_FILE');
  if (secrets === undefined && secretsFile !== undefined) {
    secrets = readKeyRingFile(resolve(secretsFile), problems);
  } else if (secrets === undefined && runtime === 'development') {
    secrets = problems.length === 0 ? ensureKeyRingFile(join(dataDir, DEV_SECRETS_FILE), generateKeyRing) : '';
  } else if (secrets === undefined) {
    problems.push('PANEL_SECRETS (or PANEL_SECRETS_FILE) is required in the self-hosted runtime');
  }

  if (problems.length > 0) throw new ConfigError(problems);
  return {
    dataDir,
    databaseFile: join(dataDir, 'panel.db'),
    host,
    port,
    publicUrl,
    secrets: secrets ?? '',
    runtime,
    isSignupEnabled,
    daemonSocket,
    localDaemon,
    localDaemonCredentialFile,
    logLevel,
    maxBodyBytes,
    trustedProxies,
    oauth,
    ingressImage,
  };
}

/**
 * The local daemon slot's socket: PANEL_DAEMON_SOCKET, else <PANEL_DATA_DIR or ./data>/daemon.sock,
 * as an absolute path. `panel serve` listens there and `panel daemon run --local` looks there
 * first, so the two agree without being told.
 */
export function defaultDaemonSocket(env: Env): string {
  const given = env.PANEL_DAEMON_SOCKET?.trim();
  return resolve(given ? given : join(resolve(env.PANEL_DATA_DIR?.trim() || './data'), 'daemon.sock'));
}

/**
 * OAuth providers: GitHub when its client id and secret are set, OpenID Connect when its issuer,
 * client id and secret are set; half a configuration is an error. Provider URLs must be https
 * (plain http only to loopback addresses, for a provider on the same host or in tests).
 */
function parseOAuth(text: (name: string) => string | undefined, problems: string[]): OAuthConfig {
  const oauth: OAuthConfig = {};
  const all = (names: string[]) => {
    const values = names.map(text);
    const given = values.filter((value) => value !== undefined).length;
    if (given > 0 && given < names.length) problems.push(`${names.join(', ')} must be set together (missing ${names.filter((_, i) => values[i] === undefined).join(', ')})`);
    return given === names.length ? (values as string[]) : null;
  };
  const github = all(['PANEL_OAUTH_GITHUB_CLIENT_ID', 'PANEL_OAUTH_GITHUB_CLIENT_SECRET']);
  if (github) {
    oauth.github = {
      clientId: github[0]!,
      clientSecret: github[1]!,
      baseUrl: parseProviderUrl('PANEL_OAUTH_GITHUB_BASE_URL', text('PANEL_OAUTH_GITHUB_BASE_URL') ?? 'https://github.com', problems).replace(/\/+$/, ''),
      apiUrl: parseProviderUrl('PANEL_OAUTH_GITHUB_API_URL', text('PANEL_OAUTH_GITHUB_API_URL') ?? 'https://api.github.com', problems).replace(/\/+$/, ''),
    };
  }
  const oidc = all(['PANEL_OAUTH_OIDC_ISSUER', 'PANEL_OAUTH_OIDC_CLIENT_ID', 'PANEL_OAUTH_OIDC_CLIENT_SECRET']);
  if (oidc) {
    oauth.oidc = {
      issuer: parseProviderUrl('PANEL_OAUTH_OIDC_ISSUER', oidc[0]!, problems),
      clientId: oidc[1]!,
      clientSecret: oidc[2]!,
      name: text('PANEL_OAUTH_OIDC_NAME') ?? 'OpenID Connect',
    };
  }
  return oauth;
}

const LOOPBACK_HOST = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/;

function parseProviderUrl(name: string, value: string, problems: string[]): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    problems.push(`${name} must be an absolute https URL, got "${value}"`);
    return value;
  }
  const plainHttpAllowed = url.protocol === 'http:' && LOOPBACK_HOST.test(url.hostname);
  if (url.protocol !== 'https:' && !plainHttpAllowed) problems.push(`${name} must use https (http only for loopback addresses), got "${value}"`);
  if (url.search || url.hash || url.username || url.password) problems.push(`${name} must not carry a query, fragment or credentials`);
  // Kept as written: an OpenID issuer is compared character for character.
  return value;
}

/** `10.0.0.5, 192.168.0.0/16, fd00::/8`: addresses or CIDR ranges, comma or space separated. */
function parseTrustedProxies(value: string | undefined, problems: string[]): string[] {
  if (value === undefined) return [];
  const entries = value.split(/[\s,]+/).filter(Boolean);
  for (const entry of entries) {
    const [address = '', prefix, extra] = entry.split('/');
    const family = isIP(address);
    const bits = family === 6 ? 128 : 32;
    const prefixValid = prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= bits);
    if (family === 0 || !prefixValid || extra !== undefined) {
      problems.push(`PANEL_TRUSTED_PROXIES: "${entry}" is not an IP address or CIDR range`);
    }
  }
  return entries;
}

function parsePort(value: string, problems: string[]): number {
  const port = Number(value);
  // 0 asks the kernel for a free port (used by tests and benchmarks).
  if (!/^\d+$/.test(value) || port > 65535) {
    problems.push(`PANEL_PORT must be an integer from 0 to 65535, got "${value}"`);
    return 0;
  }
  return port;
}

function parsePositiveInt(name: string, value: string, problems: string[]): number {
  const number = Number(value);
  if (!/^\d+$/.test(value) || number < 1) {
    problems.push(`${name} must be a positive integer, got "${value}"`);
    return 1;
  }
  return number;
}

function parseBoolean(name: string, value: string | undefined, problems: string[]): boolean {
  if (value === undefined) return false;
  const lower = value.toLowerCase();
  if (['true', '1', 'yes'].includes(lower)) return true;
  if (['false', '0', 'no'].includes(lower)) return false;
  problems.push(`${name} must be true or false, got "${value}"`);
  return false;
}

function parseLogLevel(value: string, problems: string[]): LogLevel {
  const levels: LogLevel[] = ['debug', 'info', 'warn', 'error'];
  if (levels.includes(value as LogLevel)) return value as LogLevel;
  problems.push(`PANEL_LOG_LEVEL must be one of ${levels.join(', ')}, got "${value}"`);
  return 'info';
}

function parsePublicUrl(value: string | undefined, host: string, port: number, problems: string[]): string {
  if (value === undefined) {
    const shownHost = host === '0.0.0.0' || host === '::' ? 'localhost' : host.includes(':') ? `[${host}]` : host;
    return `http://${shownHost}:${port}`;
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    problems.push(`PANEL_PUBLIC_URL must be an absolute http(s) URL, got "${value}"`);
    return value;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    problems.push(`PANEL_PUBLIC_URL must use http or https, got "${url.protocol}"`);
  }
  if (url.pathname !== '/' || url.search || url.hash || url.username || url.password) {
    problems.push('PANEL_PUBLIC_URL must be an origin only (scheme, host and port), without path, query or credentials');
  }
  return url.origin;
}

function readKeyRingFile(file: string, problems: string[]): string | undefined {
  try {
    const ring = readFileSync(file, 'utf8').trim();
    if (ring === '') problems.push(`PANEL_SECRETS_FILE ${file} is empty`);
    return ring;
  } catch (error) {
    problems.push(`PANEL_SECRETS_FILE ${file} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
    return undefined;
  }
}

/**
 * Returns the key ring kept in `file`, generating it once (mode 0600) when it does not exist.
 * Used for the development runtime and the `npm start` trial; production keeps the ring in
 * /etc/panel/panel.env, away from the data it protects.
 */
export function ensureKeyRingFile(file: string, generateKeyRing: () => string): string {
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  writeFileSync(file, `${generateKeyRing()}\n`, { mode: 0o600, flag: 'wx' });
  chmodSync(file, 0o600);
  return readFileSync(file, 'utf8').trim();
}
