/**
 * The value checks of `checked` rules: which values of a setting stay inside the container's
 * own confinement and which reach the host (host access) or belong to the platform (refused).
 */
import { plain } from '../checks.ts';
import { isMapping, type JsonObject, type JsonValue, joinPath } from '../values.ts';
import { isFalse, literal, type PolicyContext, refused, requireHostAccess } from './context.ts';
import { checkHostPath, isFilePath, joinPaths, normalizePath } from './paths.ts';
import type { ValueCheck } from './rule.ts';

/** Capabilities Docker grants every container (moby's oci.DefaultCapabilities). */
export const DOCKER_DEFAULT_CAPABILITIES = [
  'AUDIT_WRITE',
  'CHOWN',
  'DAC_OVERRIDE',
  'FOWNER',
  'FSETID',
  'KILL',
  'MKNOD',
  'NET_BIND_SERVICE',
  'NET_RAW',
  'SETFCAP',
  'SETGID',
  'SETPCAP',
  'SETUID',
  'SYS_CHROOT',
] as const;

/** Sysctls the kernel keeps per container (Docker's own list of namespaced ones). */
const NAMESPACED_SYSCTLS = ['kernel.msgmax', 'kernel.msgmnb', 'kernel.msgmni', 'kernel.sem', 'kernel.shmall', 'kernel.shmmax', 'kernel.shmmni', 'kernel.shm_rmid_forced'];
const NAMESPACED_SYSCTL_PREFIXES = ['fs.mqueue.', 'net.'];

/** Logging drivers that keep logs in the engine's own per-container files (or nowhere). */
export const CONTAINED_LOGGING_DRIVERS = ['json-file', 'local', 'none'];

/** Platform projects only (PolicyOptions.platform): the ingress proxy reaches upstreams on the host's ports. */
export const PLATFORM_NETWORK_MODES = ['host'];

const RESERVED_LABEL_PREFIX = 'com.docker.compose.';

/** A boolean setting whose `true` needs host access. */
export const trueNeedsHostAccess =
  (what: string): ValueCheck =>
  (value, path, ctx) => {
    literal(ctx, value, path);
    if (!isFalse(value)) requireHostAccess(ctx, path, what);
  };

/** Entries of a `KEY=VALUE` list or a mapping: [key, path of the entry]. */
function keyValueEntries(value: JsonValue, path: string, ctx: PolicyContext): [string, string][] {
  if (isMapping(value)) return Object.keys(value).map((key) => [key, joinPath(path, key)]);
  if (!Array.isArray(value)) return [];
  return value.map((item, i) => {
    const text = String(plain(item));
    const key = text.split('=')[0]!;
    literal(ctx, key, joinPath(path, i));
    return [key, joinPath(path, i)];
  });
}

export const checkLabels: ValueCheck = (value, path, ctx) => {
  for (const [key, keyPath] of keyValueEntries(value, path, ctx)) {
    if (key.startsWith(RESERVED_LABEL_PREFIX)) throw refused(keyPath, `labels ${RESERVED_LABEL_PREFIX}* are Compose's own bookkeeping`);
  }
};

export const checkSysctls: ValueCheck = (value, path, ctx) => {
  for (const [key, keyPath] of keyValueEntries(value, path, ctx)) {
    const namespaced = NAMESPACED_SYSCTLS.includes(key) || NAMESPACED_SYSCTL_PREFIXES.some((prefix) => key.startsWith(prefix));
    if (!namespaced) requireHostAccess(ctx, keyPath, `sysctl ${key} is not namespaced, so it would change the host`);
  }
};

export const checkCapabilities: ValueCheck = (value, path, ctx) => {
  if (!Array.isArray(value)) return;
  value.forEach((item, i) => {
    const itemPath = joinPath(path, i);
    const name = String(literal(ctx, plain(item), itemPath)).toUpperCase().replace(/^CAP_/, '');
    if (!(DOCKER_DEFAULT_CAPABILITIES as readonly string[]).includes(name)) {
      requireHostAccess(ctx, itemPath, `capability ${name} is not one Docker grants by default`);
    }
  });
};

export const checkSecurityOptions: ValueCheck = (value, path, ctx) => {
  if (!Array.isArray(value)) return;
  value.forEach((item, i) => {
    const option = String(literal(ctx, plain(item), joinPath(path, i)));
    if (!/^no-new-privileges([:=]true)?$/.test(option)) {
      requireHostAccess(ctx, joinPath(path, i), `security option ${option} changes the container's confinement`);
    }
  });
};

/**
 * Namespace modes (network_mode, pid, ipc, cgroup): `service:<name>` joins a service of the
 * same project (Compose refuses any other name) and `contained` values stay in the container;
 * `host`, `container:<id>` (any container on the engine) and other network names do not.
 */
export const namespaceMode =
  (contained: readonly string[], platformAllowed: readonly string[] = []): ValueCheck =>
  (value, path, ctx) => {
    const mode = String(literal(ctx, value, path));
    if (contained.includes(mode) || mode.startsWith('service:')) return;
    if (ctx.platform && platformAllowed.includes(mode)) return;
    requireHostAccess(ctx, path, `${mode} shares a namespace outside the project`);
  };

export const checkOomScoreAdjust: ValueCheck = (value, path, ctx) => {
  if (Number(literal(ctx, value, path)) < 0) {
    requireHostAccess(ctx, path, 'a negative oom_score_adj has the kernel kill host processes before this container');
  }
};

export const checkLoggingDriver: ValueCheck = (value, path, ctx) => {
  const driver = String(literal(ctx, value, path));
  if (!CONTAINED_LOGGING_DRIVERS.includes(driver)) {
    requireHostAccess(ctx, path, `the ${driver} logging driver sends logs outside the engine's own files`);
  }
};

/** `external: true` (or the legacy `external: {name}`) uses a resource another project or the host owns. */
export const checkExternal: ValueCheck = (value, path, ctx) => {
  literal(ctx, value, path);
  if (!isFalse(value)) requireHostAccess(ctx, path, 'an external resource belongs to another project or the host');
};

/**
 * A fixed `name` for a network or volume can join or reuse another project's. Compose's own
 * resolved model names them `<project>_<key>`, which is the project's own.
 */
export const checkResourceName =
  (section: 'networks' | 'volumes'): ValueCheck =>
  (value, path, ctx) => {
    const key = path.slice(section.length + 1, -'.name'.length);
    if (ctx.form === 'resolved' && ctx.options.project !== undefined && value === `${ctx.options.project}_${key}`) return;
    requireHostAccess(ctx, path, `a fixed name (${String(value)}) can join or reuse another project's ${section}`);
  };

export const oneOfOrHostAccess =
  (values: readonly string[], what: (value: string) => string): ValueCheck =>
  (value, path, ctx) => {
    const text = String(literal(ctx, value, path));
    if (!values.includes(text)) requireHostAccess(ctx, path, what(text));
  };

/** A `subpath` inside a volume or image never climbs out of it. */
export const checkSubpath: ValueCheck = (value, path, ctx) => {
  const subpath = String(literal(ctx, value, path));
  if (subpath.startsWith('/') || normalizePath(subpath).split('/').includes('..')) {
    requireHostAccess(ctx, path, `subpath ${subpath} climbs out of its volume`);
  }
};

/** Local volume options that make a tmpfs; every other use mounts host devices, paths or network shares. */
export const checkVolumeDriverOptions: ValueCheck = (value, path, ctx) => {
  if (!isMapping(value)) return;
  const tmpfs =
    Object.keys(value).every((key) => ['type', 'device', 'o'].includes(key)) &&
    plain(value.type ?? null) === 'tmpfs' &&
    plain(value.device ?? null) === 'tmpfs' &&
    typeof literal(ctx, plain(value.o ?? ''), joinPath(path, 'o')) === 'string';
  if (!tmpfs) requireHostAccess(ctx, path, 'volume driver options other than a tmpfs mount host devices, paths or network shares');
};

/**
 * Driver options that only tune the network itself. `encrypted` is a swarm overlay's: an overlay
 * network becomes a bridge that drops it, and the fabric between servers is WireGuard anyway.
 */
const CONTAINED_NETWORK_DRIVER_OPTIONS = ['com.docker.network.driver.mtu', 'com.docker.network.bridge.enable_icc', 'encrypted'];

/** The network key of a path inside `networks.<key>.…`. */
const networkKeyOf = (path: string, suffix: string) => path.slice('networks.'.length, path.length - suffix.length);

/**
 * The fabric network Panel compiled under this key (compiled and resolved forms only): its bridge
 * and subnet, or undefined for every other network.
 */
function fabricNetworkAt(ctx: PolicyContext, path: string, suffix: string) {
  return ctx.form === 'stored' ? undefined : ctx.options.fabricNetworks?.get(networkKeyOf(path, suffix));
}

/** What the fabric sets on the bridges it compiles (compose/overlay-networks.ts), besides their name. */
const FABRIC_DRIVER_OPTIONS: Readonly<Record<string, string>> = {
  'com.docker.network.bridge.enable_ip_masquerade': 'false',
  'com.docker.network.bridge.gateway_mode_ipv4': 'routed',
};

export const checkNetworkDriverOptions: ValueCheck = (value, path, ctx) => {
  if (!isMapping(value)) return;
  const fabric = fabricNetworkAt(ctx, path, '.driver_opts');
  for (const [key, option] of Object.entries(value)) {
    if (CONTAINED_NETWORK_DRIVER_OPTIONS.includes(key)) continue;
    if (fabric !== undefined && (key === 'com.docker.network.bridge.name' ? plain(option) === fabric.bridge : FABRIC_DRIVER_OPTIONS[key] === plain(option))) continue;
    requireHostAccess(ctx, joinPath(path, key), `network driver option ${key} changes the host's network setup`);
  }
};

/** Fixed subnets: the fabric's own on the networks it compiled; any other needs host access. */
export const checkIpamConfig: ValueCheck = (value, path, ctx) => {
  const fabric = fabricNetworkAt(ctx, path, '.ipam.config');
  const only = Array.isArray(value) && value.length === 1 && isMapping(value[0]) ? value[0] : undefined;
  const isFabricSubnet = fabric !== undefined && only !== undefined && Object.keys(only).every((key) => key === 'subnet') && plain(only.subnet ?? null) === fabric.subnet;
  if (!isFabricSubnet && !(Array.isArray(value) && value.length === 0)) requireHostAccess(ctx, path, "fixed subnets can shadow the host's own routes");
};

/** Short volume syntax as compose-go parses it: `source:target[:options]`, `target`, Windows drives. */
export function parseShortVolume(spec: string): { source: string | null; options: string[] } {
  const fields: string[] = [];
  let buffer = '';
  for (let i = 0; i < spec.length; i++) {
    const char = spec[i]!;
    const windowsDrive = char === ':' && buffer.length === 1 && /[A-Za-z]/.test(buffer) && fields.length === 0;
    if (char === ':' && !windowsDrive) {
      fields.push(buffer);
      buffer = '';
    } else {
      buffer += char;
    }
  }
  fields.push(buffer);
  if (spec.length <= 2 || fields.length === 1) return { source: null, options: [] };
  return { source: fields[0]!, options: (fields[2] ?? '').split(',') };
}

const SHARED_PROPAGATION = ['shared', 'rshared'];

/** One service volume, short or long syntax. */
export const checkServiceVolume: ValueCheck = (value, path, ctx) => {
  if (typeof value === 'string') {
    literal(ctx, value, path);
    const { source, options } = parseShortVolume(value);
    if (options.some((option) => SHARED_PROPAGATION.includes(option))) {
      requireHostAccess(ctx, path, 'shared mount propagation reaches the host');
    }
    if (source !== null && isFilePath(source)) checkHostPath(ctx, source, path, { kind: 'bind', writable: !options.includes('ro') });
    return;
  }
  if (!isMapping(value)) return;
  const type = plain(value.type ?? null);
  if (type === 'bind') {
    const readOnly = !isFalse(plain(value.read_only ?? false));
    checkHostPath(ctx, plain(value.source ?? null), joinPath(path, 'source'), { kind: 'bind', writable: !readOnly });
  }
};

export const checkPropagation: ValueCheck = (value, path, ctx) => {
  if (SHARED_PROPAGATION.includes(String(literal(ctx, value, path)))) requireHostAccess(ctx, path, 'shared mount propagation reaches the host');
};

/** File sources read by Compose (env files, secret and config files). */
export const checkFileSource: ValueCheck = (value, path, ctx) => {
  checkHostPath(ctx, value, path, { kind: 'file', writable: false });
};

/** A top-level secret's file: the project's own, or exactly the one the daemon wrote for this key. */
export const checkSecretFile: ValueCheck = (value, path, ctx) => {
  const key = path.slice('secrets.'.length, -'.file'.length);
  if (ctx.form !== 'stored' && ctx.options.secretFiles?.get(key) === value) return;
  checkFileSource(value, path, ctx);
};

/** Remote build contexts fetched without the server's credentials (Git over http(s), tarballs). */
const PUBLIC_CONTEXT = /^(https?:\/\/|git:\/\/|github\.com\/)/;
/** What compose-go takes for a remote or builder-specific context rather than a folder (paths/context.go). */
const REMOTE_CONTEXT = /^(ssh:\/\/|git@)|:\/\//;

/** A build context: a folder inside the project, or a public Git or tarball URL. */
export const checkBuildContext: ValueCheck = (value, path, ctx) => {
  if (typeof value !== 'string') return;
  literal(ctx, value, path);
  if (PUBLIC_CONTEXT.test(value)) return;
  if (REMOTE_CONTEXT.test(value)) requireHostAccess(ctx, path, `the build context ${value} uses the server's credentials or files`);
  else checkHostPath(ctx, value, path, { kind: 'context', writable: false });
};

/** A Dockerfile relative to its (local) context, so inside the project folder too. */
export const checkDockerfile: ValueCheck = (value, path, ctx, parent) => {
  const dockerfile = String(literal(ctx, value, path));
  if (dockerfile.startsWith('/')) requireHostAccess(ctx, path, `the absolute Dockerfile path ${dockerfile} is read from the host`);
  const context = plain(parent?.context ?? '.');
  if (typeof context !== 'string' || PUBLIC_CONTEXT.test(context) || REMOTE_CONTEXT.test(context) || ctx.hostAccess) return;
  checkHostPath(ctx, joinPaths(context, dockerfile), path, { kind: 'file', writable: false });
};

/** Build cache import/export: registries and inline caches only; `type=local` reads or writes host folders. */
export const checkBuildCache: ValueCheck = (value, path, ctx) => {
  if (!Array.isArray(value)) return;
  value.forEach((item, i) => {
    const spec = String(literal(ctx, plain(item), joinPath(path, i)));
    const type = /(?:^|,)type=([^,]*)/.exec(spec)?.[1];
    if (type !== undefined && type !== 'registry' && type !== 'inline') {
      requireHostAccess(ctx, joinPath(path, i), `a ${type} build cache uses the host's files or credentials`);
    }
  });
};

/** The long form of items that may also be written as a string: strings are checked by the item's own check. */
export const longFormOnly = (value: JsonValue): JsonValue => (isMapping(value) ? value : {});

/** `KEY` lists as mappings (depends_on, a service's networks): each name gets null. */
export const namesAsMapping = (value: JsonValue): JsonValue => {
  if (!Array.isArray(value)) return value;
  const result: JsonObject = {};
  for (const name of value) result[String(plain(name))] = null;
  return result;
};
