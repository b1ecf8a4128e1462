/**
 * Settings that would let a container reach past the platform into its host, refused unless the
 * caller opts in with allowHostAccess (platform-owned projects):
 *
 * - `privileged: true`; `pid`, `ipc` or `userns_mode` set to `host`
 *   (`network_mode: host` stays allowed: the test engine runs everything that way);
 * - `cap_add` with ALL or a capability known to break out (DANGEROUS_CAPABILITIES);
 * - host paths mounted or read: bind volumes (short and long syntax), `devices`, `env_file`,
 *   `build.context`, top-level secret/config `file`, and local volumes with a bind `device`.
 *
 * A host path is refused when it is `/`, lies under or above (would expose) one of
 * PROTECTED_HOST_PATHS, starts with `~` (the daemon user's home), or is relative and climbs
 * out of the project directory with `..`.
 *
 * Compose expands `$VAR` at deploy from variables we do not see here, so these settings may not
 * use interpolation at all (`$$`, a literal dollar, is fine): `privileged: ${P}` or a volume
 * `${ROOT}:/host` would otherwise pass this check and grant the access at deploy.
 */
import { entriesOf, isReset, itemsOf, plain } from './checks.ts';
import { composeInvalid } from './limits.ts';
import { isMapping, type JsonObject, type JsonValue, joinPath } from './values.ts';

export const PROTECTED_HOST_PATHS = [
  '/etc',
  '/proc',
  '/sys',
  '/dev',
  '/boot',
  '/root',
  '/var/run/docker.sock',
  '/run/docker.sock',
] as const;

export const DANGEROUS_CAPABILITIES = ['ALL', 'SYS_ADMIN', 'SYS_MODULE', 'SYS_RAWIO', 'DAC_READ_SEARCH'] as const;

const HOST_NAMESPACE_KEYS = ['pid', 'ipc', 'userns_mode'] as const;

function refuse(path: string, what: string): never {
  throw composeInvalid(`${path}: ${what} gives access to the host and is not allowed`, path);
}

/** Whether Compose would substitute a variable into the value. */
function interpolates(value: string): boolean {
  return value.replaceAll('$$', '').includes('$');
}

function refuseInterpolation(path: string, value: string): never {
  throw composeInvalid(`${path}: ${value} uses variable interpolation, which could give access to the host`, path);
}

/** Compose reads booleans from strings with Go's strconv.ParseBool. */
const FALSE_STRINGS = ['0', 'f', 'F', 'false', 'FALSE', 'False'];

function isFalse(value: JsonValue): boolean {
  return value === false || value === null || (typeof value === 'string' && FALSE_STRINGS.includes(value));
}

/** Lexically normalizes a POSIX path; relative results keep their leading `..` segments. */
function normalizePath(raw: string): string {
  const absolute = raw.startsWith('/');
  const parts: string[] = [];
  for (const segment of raw.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..' && parts.length > 0 && parts.at(-1) !== '..') parts.pop();
    else if (segment !== '..' || !absolute) parts.push(segment);
  }
  return (absolute ? '/' : '') + parts.join('/');
}

function isProtectedHostPath(raw: string): boolean {
  if (raw.startsWith('~')) return true;
  const path = normalizePath(raw);
  if (!raw.startsWith('/')) return path === '..' || path.startsWith('../');
  if (path === '/') return true;
  return PROTECTED_HOST_PATHS.some((protectedPath) => {
    return path === protectedPath || path.startsWith(`${protectedPath}/`) || protectedPath.startsWith(`${path}/`);
  });
}

function checkHostPath(value: JsonValue, path: string): void {
  if (typeof value !== 'string') return;
  if (interpolates(value)) refuseInterpolation(path, value);
  if (isProtectedHostPath(value)) refuse(path, `host path ${value}`);
}

/** Host side of a short-syntax volume (`/src:/dst:ro`); null for named and anonymous volumes. */
function shortVolumeHostPath(volume: string): string | null {
  const parts = volume.split(':');
  if (parts.length < 2) return null;
  const source = parts[0]!;
  return /^[./~]/.test(source) || interpolates(source) ? source : null;
}

function checkVolumes(volumes: JsonValue, path: string): void {
  if (!Array.isArray(volumes)) return;
  for (const [i, volume] of itemsOf(volumes)) {
    const itemPath = joinPath(path, i);
    if (typeof volume === 'string') {
      const source = shortVolumeHostPath(volume);
      if (source !== null) checkHostPath(source, itemPath);
    } else if (isMapping(volume) && plain(volume.type ?? null) === 'bind') {
      checkHostPath(plain(volume.source ?? null), joinPath(itemPath, 'source'));
    }
  }
}

function checkDevices(devices: JsonValue, path: string): void {
  if (!Array.isArray(devices)) return;
  for (const [i, device] of itemsOf(devices)) {
    const itemPath = joinPath(path, i);
    if (typeof device === 'string') checkHostPath(device.split(':')[0]!, itemPath);
    else if (isMapping(device)) checkHostPath(plain(device.source ?? null), joinPath(itemPath, 'source'));
  }
}

function checkCapabilities(capabilities: JsonValue, path: string): void {
  if (!Array.isArray(capabilities)) return;
  for (const [i, capability] of itemsOf(capabilities)) {
    const name = String(capability).toUpperCase().replace(/^CAP_/, '');
    if (interpolates(name)) refuseInterpolation(joinPath(path, i), name);
    if ((DANGEROUS_CAPABILITIES as readonly string[]).includes(name)) refuse(joinPath(path, i), `capability ${name}`);
  }
}

function checkEnvFiles(envFile: JsonValue, path: string): void {
  const files = Array.isArray(envFile) ? itemsOf(envFile) : ([[null, envFile]] as const);
  for (const [i, file] of files) {
    const itemPath = i === null ? path : joinPath(path, i);
    if (isMapping(file)) checkHostPath(plain(file.path ?? null), joinPath(itemPath, 'path'));
    else checkHostPath(file, itemPath);
  }
}

export function checkServiceHostAccess(service: JsonObject, path: string): void {
  for (const [key, value] of entriesOf(service)) {
    const keyPath = joinPath(path, key);
    if (key === 'privileged' && !isFalse(value)) refuse(keyPath, 'privileged mode');
    if ((HOST_NAMESPACE_KEYS as readonly string[]).includes(key) && typeof value === 'string') {
      if (interpolates(value)) refuseInterpolation(keyPath, value);
      if (value.toLowerCase() === 'host') refuse(keyPath, `${key}: host`);
    }
    if (key === 'cap_add') checkCapabilities(value, keyPath);
    if (key === 'volumes') checkVolumes(value, keyPath);
    if (key === 'devices') checkDevices(value, keyPath);
    if (key === 'env_file') checkEnvFiles(value, keyPath);
    if (key === 'build') {
      const context = isMapping(value) ? plain(value.context ?? null) : value;
      checkHostPath(context, isMapping(value) ? joinPath(keyPath, 'context') : keyPath);
    }
  }
}

/** Top-level secrets/configs read host files; local volumes can bind a host `device`. */
export function checkResourceHostAccess(data: JsonObject): void {
  for (const section of ['secrets', 'configs'] as const) {
    const resources = plain(data[section] ?? null);
    if (!isMapping(resources)) continue;
    for (const [name, resource] of entriesOf(resources)) {
      if (isMapping(resource)) checkHostPath(plain(resource.file ?? null), `${section}.${name}.file`);
    }
  }
  const volumes = plain(data.volumes ?? null);
  if (!isMapping(volumes)) return;
  for (const [name, volume] of entriesOf(volumes)) {
    const options = isMapping(volume) ? plain(volume.driver_opts ?? null) : null;
    if (!isMapping(options) || isReset(options.device)) continue;
    checkHostPath(plain(options.device ?? null), `volumes.${name}.driver_opts.device`);
  }
}
