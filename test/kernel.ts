/**
 * A made-up /proc and /sys (cgroup v2) for the daemon's metric sampler: a host and `count`
 * containers (main process 1000 + i) whose counters `advance` moves on as if that many seconds
 * passed: each container busy half a core and moving 1 MB/s in and out, the host likewise.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

export interface FakeKernel {
  root: string;
  /** Container ids (64 hex) and their main processes. */
  containers: { id: string; pid: number }[];
  advance(seconds: number): void;
  remove(): void;
}

const MB = 1_000_000;

export function fakeKernel(count: number): FakeKernel {
  const root = mkdtempSync(join(tmpdir(), 'panel-kernel-'));
  const write = (path: string, content: string) => {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  };
  const containers = Array.from({ length: count }, (_, i) => ({ id: i.toString(16).padStart(64, 'c'), pid: 1000 + i }));
  let seconds = 0;
  const render = () => {
    // 100 ticks a second per CPU, 2 CPUs: one busy, one idle.
    const busy = 100 * seconds;
    write('/proc/stat', `cpu  ${busy} 0 0 ${100 * seconds} 0 0 0 0 0 0\ncpu0 ${busy} 0 0 0 0 0 0 0 0 0\n`);
    write('/proc/meminfo', 'MemTotal:        4000000 kB\nMemFree:         1000000 kB\nMemAvailable:    3000000 kB\n');
    write('/proc/loadavg', '0.50 0.40 0.30 1/200 4242\n');
    for (const { id, pid } of containers) {
      const scope = `/sys/fs/cgroup/system.slice/docker-${id}.scope`;
      write(`/proc/${pid}/cgroup`, `0::/system.slice/docker-${id}.scope\n`);
      write(
        `/proc/${pid}/net/dev`,
        `Inter-|   Receive                                                |  Transmit\n face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed\n  eth0: ${MB * seconds} 10 0 0 0 0 0 0 ${MB * seconds} 5 0 0 0 0 0 0\n`,
      );
      write(`${scope}/cpu.stat`, `usage_usec ${500_000 * seconds}\nuser_usec ${400_000 * seconds}\n`);
      write(`${scope}/memory.current`, `${100 * MB}\n`);
      write(`${scope}/memory.max`, `${512 * 1024 * 1024}\n`);
      write(`${scope}/memory.stat`, 'anon 90000000\ninactive_file 10000000\n');
      write(`${scope}/io.stat`, `8:0 rbytes=${MB * seconds} wbytes=${2 * MB * seconds} rios=1 wios=1\n`);
    }
  };
  write('/proc/self/mountinfo', '30 23 0:26 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw,nsdelegate\n');
  render();
  return {
    root,
    containers,
    advance: (by: number) => {
      seconds += by;
      render();
    },
    remove: () => rmSync(root, { recursive: true, force: true }),
  };
}
