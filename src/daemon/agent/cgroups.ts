/**
 * Resource counters read straight from the kernel, as `docker stats` reads them but without a
 * process per container (and without cAdvisor): the host from /proc, each container from its
 * cgroup (v2 unified, or v1 per controller) found through /proc/<pid>/cgroup and
 * /proc/self/mountinfo, and its network from /proc/<pid>/net/dev. `root` prefixes every path so
 * tests read a made-up tree. Every figure is null when its file is missing or unreadable.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

export interface CgroupMount {
  /** Where the hierarchy is mounted. */
  point: string;
  /** The cgroup path the mount shows as its root (a cgroup namespace or a bind mount). */
  root: string;
}

export interface CgroupMounts {
  unified: CgroupMount | null;
  /** v1 controllers (cpuacct, memory, blkio) by name. */
  controllers: Map<string, CgroupMount>;
}

/** Cumulative counters of one container; rates are computed between two readings. */
export interface ContainerCounters {
  cpuNs: number | null;
  memory: number | null;
  memoryLimit: number | null;
  rxBytes: number | null;
  txBytes: number | null;
  readBytes: number | null;
  writeBytes: number | null;
}

export interface HostCounters {
  cpuCount: number;
  /** Busy and total CPU time in clock ticks since boot (all CPUs). */
  cpuBusy: number | null;
  cpuTotal: number | null;
  memoryTotal: number | null;
  memoryAvailable: number | null;
  load: [number, number, number] | null;
}

/** A v1 limit at or above this means "no limit" (the kernel's page-rounded maximum). */
const V1_UNLIMITED = 2 ** 60;

async function read(root: string, path: string): Promise<string | null> {
  try {
    return await readFile(join(root, path), 'utf8');
  } catch {
    return null;
  }
}

const numberOr = (text: string | null | undefined): number | null => {
  if (text === null || text === undefined) return null;
  const value = Number(text.trim());
  return Number.isFinite(value) ? value : null;
};

/** `key value` lines (memory.stat, cpu.stat) as a map. */
function keyValues(text: string | null): Map<string, number> {
  const values = new Map<string, number>();
  for (const line of text?.split('\n') ?? []) {
    const [key, value] = line.trim().split(/\s+/);
    if (key && value !== undefined && Number.isFinite(Number(value))) values.set(key, Number(value));
  }
  return values;
}

export function parseMountinfo(text: string): CgroupMounts {
  const mounts: CgroupMounts = { unified: null, controllers: new Map() };
  for (const line of text.split('\n')) {
    const [before, after] = line.split(' - ');
    if (!before || !after) continue;
    const fields = before.split(' ');
    const [fsType, , superOptions] = after.split(' ');
    const mount = { root: fields[3] ?? '/', point: fields[4] ?? '' };
    if (fsType === 'cgroup2') mounts.unified ??= mount;
    else if (fsType === 'cgroup') for (const option of superOptions?.split(',') ?? []) if (!mounts.controllers.has(option)) mounts.controllers.set(option, mount);
  }
  return mounts;
}

/** /proc/<pid>/cgroup: the unified path (`0::/…`) and each v1 controller's path. */
export function parseProcCgroup(text: string): { unified: string | null; controllers: Map<string, string> } {
  let unified: string | null = null;
  const controllers = new Map<string, string>();
  for (const line of text.split('\n')) {
    const match = /^(\d+):([^:]*):(.*)$/.exec(line.trim());
    if (!match) continue;
    if (match[1] === '0' && match[2] === '') unified = match[3]!;
    else for (const controller of match[2]!.split(',')) controllers.set(controller, match[3]!);
  }
  return { unified, controllers };
}

function directoryOf(mount: CgroupMount, path: string): string {
  const relative = mount.root !== '/' && path.startsWith(mount.root) ? path.slice(mount.root.length) : path;
  return join(mount.point, relative);
}

export async function readMounts(root = '/'): Promise<CgroupMounts> {
  return parseMountinfo((await read(root, '/proc/self/mountinfo')) ?? '');
}

/** Sums the `rbytes=`/`wbytes=` (v2 io.stat) of every device. */
function ioStatBytes(text: string | null): { read: number | null; write: number | null } {
  if (text === null) return { read: null, write: null };
  let read = 0;
  let write = 0;
  for (const match of text.matchAll(/\b(rbytes|wbytes)=(\d+)/g)) {
    if (match[1] === 'rbytes') read += Number(match[2]);
    else write += Number(match[2]);
  }
  return { read, write };
}

/** Sums the `<device> Read|Write <bytes>` lines of a v1 blkio file. */
function blkioBytes(text: string | null): { read: number | null; write: number | null } {
  if (text === null) return { read: null, write: null };
  let read = 0;
  let write = 0;
  for (const match of text.matchAll(/^\d+:\d+ (Read|Write) (\d+)$/gm)) {
    if (match[1] === 'Read') read += Number(match[2]);
    else write += Number(match[2]);
  }
  return { read, write };
}

/** Received and sent bytes of every interface but loopback, as /proc/<pid>/net/dev shows them. */
export function parseNetDev(text: string | null): { rx: number | null; tx: number | null } {
  if (text === null) return { rx: null, tx: null };
  let rx = 0;
  let tx = 0;
  for (const line of text.split('\n').slice(2)) {
    const [name, rest] = line.split(':');
    if (!rest || name!.trim() === 'lo') continue;
    const fields = rest.trim().split(/\s+/).map(Number);
    rx += fields[0] ?? 0;
    tx += fields[8] ?? 0;
  }
  return { rx, tx };
}

/** The counters of the container whose main process is `pid`; network only when it has its own. */
export async function readContainerCounters(pid: number, mounts: CgroupMounts, ownNetwork: boolean, root = '/'): Promise<ContainerCounters | null> {
  const cgroup = await read(root, `/proc/${pid}/cgroup`);
  if (cgroup === null) return null;
  const paths = parseProcCgroup(cgroup);
  const network = ownNetwork ? parseNetDev(await read(root, `/proc/${pid}/net/dev`)) : { rx: null, tx: null };
  const counters = { rxBytes: network.rx, txBytes: network.tx };

  const v1Memory = mounts.controllers.get('memory');
  if (mounts.unified && paths.unified !== null && !(v1Memory && paths.controllers.has('memory'))) {
    const dir = directoryOf(mounts.unified, paths.unified);
    const [cpu = null, current = null, max = null, stat = null, io = null] = await Promise.all(
      ['cpu.stat', 'memory.current', 'memory.max', 'memory.stat', 'io.stat'].map((file) => read(root, join(dir, file))),
    );
    const usage = numberOr(current);
    const inactive = keyValues(stat).get('inactive_file') ?? 0;
    const usec = keyValues(cpu).get('usage_usec');
    const bytes = ioStatBytes(io);
    return {
      ...counters,
      cpuNs: usec === undefined ? null : usec * 1000,
      memory: usage === null ? null : Math.max(0, usage - inactive),
      memoryLimit: max === null || max.trim() === 'max' ? null : numberOr(max),
      readBytes: bytes.read,
      writeBytes: bytes.write,
    };
  }

  const inController = (controller: string, file: string) => {
    const mount = mounts.controllers.get(controller);
    const path = paths.controllers.get(controller);
    return mount && path !== undefined ? read(root, join(directoryOf(mount, path), file)) : Promise.resolve(null);
  };
  const [cpu, usage, limit, stat, throttled, scheduled] = await Promise.all([
    inController('cpuacct', 'cpuacct.usage'),
    inController('memory', 'memory.usage_in_bytes'),
    inController('memory', 'memory.limit_in_bytes'),
    inController('memory', 'memory.stat'),
    inController('blkio', 'blkio.throttle.io_service_bytes'),
    inController('blkio', 'blkio.io_service_bytes'),
  ]);
  const used = numberOr(usage);
  const inactive = keyValues(stat).get('total_inactive_file') ?? 0;
  const limitBytes = numberOr(limit);
  const throttledBytes = blkioBytes(throttled);
  const bytes = throttledBytes.read || throttledBytes.write ? throttledBytes : scheduled !== null ? blkioBytes(scheduled) : throttledBytes;
  return {
    ...counters,
    cpuNs: numberOr(cpu),
    memory: used === null ? null : Math.max(0, used - inactive),
    memoryLimit: limitBytes === null || limitBytes >= V1_UNLIMITED ? null : limitBytes,
    readBytes: bytes.read,
    writeBytes: bytes.write,
  };
}

export async function readHostCounters(cpuCount: number, root = '/'): Promise<HostCounters> {
  const [stat, meminfo, loadavg] = await Promise.all(['/proc/stat', '/proc/meminfo', '/proc/loadavg'].map((path) => read(root, path)));
  // cpu  user nice system idle iowait irq softirq steal guest guest_nice (guest is inside user)
  const ticks = /^cpu\s+(.+)$/m.exec(stat ?? '')?.[1]?.trim().split(/\s+/).map(Number).slice(0, 8);
  const total = ticks?.reduce((sum, value) => sum + value, 0);
  const idle = ticks ? (ticks[3] ?? 0) + (ticks[4] ?? 0) : undefined;
  const memory = (key: string) => {
    const kb = new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(meminfo ?? '')?.[1];
    return kb === undefined ? null : Number(kb) * 1024;
  };
  const load = loadavg?.trim().split(/\s+/).slice(0, 3).map(Number);
  return {
    cpuCount,
    cpuBusy: total === undefined || idle === undefined ? null : total - idle,
    cpuTotal: total ?? null,
    memoryTotal: memory('MemTotal'),
    memoryAvailable: memory('MemAvailable'),
    load: load && load.length === 3 && load.every(Number.isFinite) ? (load as [number, number, number]) : null,
  };
}
