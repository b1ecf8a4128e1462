/**
 * The kernel readers against made-up /proc and /sys trees: cgroup v2 (unified), v1 (one hierarchy
 * per controller, as on this machine) and a v1 mount whose root is not / (a cgroup namespace).
 */
import { afterEach, describe, expect, test } from 'bun:test';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parseMountinfo, parseNetDev, parseProcCgroup, readContainerCounters, readHostCounters, readMounts } from './cgroups.ts';

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

function tree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'panel-cgroups-'));
  roots.push(root);
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
  return root;
}

const NET_DEV = `Inter-|   Receive                                                |  Transmit
 face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed
    lo:  999999     10    0    0    0     0          0         0   999999      10    0    0    0     0       0          0
  eth0:    1500     10    0    0    0     0          0         0      700       5    0    0    0     0       0          0
`;

describe('cgroup v2', () => {
  const ID = 'a'.repeat(64);
  const files = {
    '/proc/self/mountinfo': '30 23 0:26 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw,nsdelegate\n',
    '/proc/42/cgroup': `0::/system.slice/docker-${ID}.scope\n`,
    '/proc/42/net/dev': NET_DEV,
    [`/sys/fs/cgroup/system.slice/docker-${ID}.scope/cpu.stat`]: 'usage_usec 2500000\nuser_usec 2000000\n',
    [`/sys/fs/cgroup/system.slice/docker-${ID}.scope/memory.current`]: '104857600\n',
    [`/sys/fs/cgroup/system.slice/docker-${ID}.scope/memory.max`]: '536870912\n',
    [`/sys/fs/cgroup/system.slice/docker-${ID}.scope/memory.stat`]: 'anon 50000000\ninactive_file 4857600\n',
    [`/sys/fs/cgroup/system.slice/docker-${ID}.scope/io.stat`]: '8:0 rbytes=1000 wbytes=2000 rios=1 wios=2\n8:16 rbytes=10 wbytes=20 rios=1 wios=1\n',
  };

  test('CPU in nanoseconds, memory without the page cache it can drop, its limit, I/O summed over devices, network without loopback', async () => {
    const root = tree(files);
    expect(await readContainerCounters(42, await readMounts(root), true, root)).toEqual({
      cpuNs: 2_500_000_000,
      memory: 100_000_000,
      memoryLimit: 536_870_912,
      readBytes: 1010,
      writeBytes: 2020,
      rxBytes: 1500,
      txBytes: 700,
    });
  });

  test('no limit reads as null; a container on the host network has no traffic of its own', async () => {
    const root = tree({ ...files, [`/sys/fs/cgroup/system.slice/docker-${ID}.scope/memory.max`]: 'max\n' });
    const counters = await readContainerCounters(42, await readMounts(root), false, root);
    expect(counters).toMatchObject({ memoryLimit: null, rxBytes: null, txBytes: null });
  });

  test('a process that is gone has no counters', async () => {
    const root = tree(files);
    expect(await readContainerCounters(7, await readMounts(root), true, root)).toBeNull();
  });
});

describe('cgroup v1', () => {
  const ID = 'b'.repeat(64);
  const mountinfo = ['cpuacct', 'memory', 'blkio'].map((c, i) => `3${i} 31 0:2${i} / /sys/fs/cgroup/${c} rw,relatime - cgroup cgroup rw,${c}`).join('\n');

  test('reads each controller from its own hierarchy; an unlimited v1 limit is null', async () => {
    const root = tree({
      '/proc/self/mountinfo': `${mountinfo}\n31 23 0:28 / /sys/fs/cgroup/unified rw - cgroup2 cgroup2 rw\n`,
      '/proc/9/cgroup': `4:memory:/docker/${ID}\n7:blkio:/docker/${ID}\n2:cpuacct:/docker/${ID}\n0::/docker/${ID}\n`,
      [`/sys/fs/cgroup/cpuacct/docker/${ID}/cpuacct.usage`]: '44461394\n',
      [`/sys/fs/cgroup/memory/docker/${ID}/memory.usage_in_bytes`]: '651264\n',
      [`/sys/fs/cgroup/memory/docker/${ID}/memory.limit_in_bytes`]: '9223372036854771712\n',
      [`/sys/fs/cgroup/memory/docker/${ID}/memory.stat`]: 'cache 0\ntotal_inactive_file 51264\n',
      [`/sys/fs/cgroup/blkio/docker/${ID}/blkio.throttle.io_service_bytes`]: '8:0 Read 4096\n8:0 Write 8192\n8:0 Total 12288\nTotal 12288\n',
    });
    expect(await readContainerCounters(9, await readMounts(root), false, root)).toEqual({
      cpuNs: 44_461_394,
      memory: 600_000,
      memoryLimit: null,
      readBytes: 4096,
      writeBytes: 8192,
      rxBytes: null,
      txBytes: null,
    });
  });

  test('a mount whose root is a cgroup path (a cgroup namespace) is read below that root', async () => {
    const root = tree({
      '/proc/self/mountinfo': '35 31 0:32 /outer /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n',
      '/proc/9/cgroup': `4:memory:/outer/docker/${ID}\n`,
      [`/sys/fs/cgroup/memory/docker/${ID}/memory.usage_in_bytes`]: '1000\n',
      [`/sys/fs/cgroup/memory/docker/${ID}/memory.limit_in_bytes`]: '2000\n',
    });
    expect(await readContainerCounters(9, await readMounts(root), false, root)).toMatchObject({ memory: 1000, memoryLimit: 2000, cpuNs: null });
  });
});

describe('parsers', () => {
  test('mountinfo: the first unified mount and every v1 controller', () => {
    const mounts = parseMountinfo('1 0 0:1 / /a rw - cgroup cgroup rw,cpu,cpuacct\n2 0 0:2 / /b rw - cgroup2 cgroup2 rw\n');
    expect(mounts.unified).toEqual({ root: '/', point: '/b' });
    expect(mounts.controllers.get('cpuacct')).toEqual({ root: '/', point: '/a' });
  });

  test('/proc/<pid>/cgroup: joined controllers map to one path', () => {
    const paths = parseProcCgroup('3:cpu,cpuacct:/x\n0::/y\n');
    expect(paths.unified).toBe('/y');
    expect(paths.controllers.get('cpu')).toBe('/x');
  });

  test('net/dev without the file is unknown, not zero', () => {
    expect(parseNetDev(null)).toEqual({ rx: null, tx: null });
  });
});

describe('host', () => {
  test('CPU ticks (idle and iowait are not busy), available memory and the load averages', async () => {
    const root = tree({
      '/proc/stat': 'cpu  100 0 50 800 50 0 0 0 0 0\ncpu0 100 0 50 800 50 0 0 0 0 0\n',
      '/proc/meminfo': 'MemTotal:       1000 kB\nMemFree:         100 kB\nMemAvailable:    400 kB\n',
      '/proc/loadavg': '0.50 0.25 0.10 1/100 123\n',
    });
    expect(await readHostCounters(2, root)).toEqual({ cpuCount: 2, cpuBusy: 150, cpuTotal: 1000, memoryTotal: 1_024_000, memoryAvailable: 409_600, load: [0.5, 0.25, 0.1] });
  });
});
