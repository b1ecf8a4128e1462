/**
 * Samples the host and every running Panel container (cgroups.ts) and sends one `metrics` frame
 * per sample: every 60 s, or every 10 s while someone watches this server (the hub says so with a
 * `watch` frame). CPU and I/O are rates over the time since the previous sample of the same
 * counter; the first sample of a container has none (null). Nothing is kept while the hub is
 * unreachable: a gap in the charts is the truth.
 */
import { statfs } from 'node:fs/promises';
import { cpus } from 'node:os';
import type { Logger } from '../../lib/logger.ts';
import { type ContainerSample, encodeFrame, type HostSample, type MetricsFrame } from '../../contract/daemon-protocol.ts';
import { type CgroupMounts, type ContainerCounters, readContainerCounters, readHostCounters, readMounts } from './cgroups.ts';
import type { ContainerDirectory } from './containers.ts';
import type { FrameLink } from './log-collector.ts';

export const IDLE_INTERVAL_MS = 60_000;
export const WATCHED_INTERVAL_MS = 10_000;

export interface MetricsSamplerOptions {
  /** The running Panel containers (null: the host alone, when the Engine API is out of reach). */
  directory: Pick<ContainerDirectory, 'running'> | null;
  link: FrameLink;
  logger: Logger;
  /** The file system whose usage is the server's disk figure (Docker's data root, else /). */
  diskPath: () => Promise<string>;
  /** Prefix of /proc and /sys (tests). */
  root?: string;
  now?: () => number;
}

interface Previous {
  at: number;
  counters: ContainerCounters;
}

const rate = (now: number | null, before: number | null | undefined, seconds: number): number | null =>
  now === null || before === null || before === undefined || seconds <= 0 || now < before ? null : (now - before) / seconds;

export class MetricsSampler {
  private intervalMs = IDLE_INTERVAL_MS;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private signal: AbortSignal | null = null;
  private mounts: CgroupMounts | null = null;
  private readonly previous = new Map<string, Previous>();
  private previousHost: { busy: number; total: number } | null = null;
  private readonly cpuCount = Math.max(1, cpus().length);
  private readonly now: () => number;

  constructor(private readonly options: MetricsSamplerOptions) {
    this.now = options.now ?? Date.now;
  }

  get interval(): number {
    return this.intervalMs;
  }

  /** The hub asked for another interval: a shorter one takes a sample now. */
  setInterval(ms: number): void {
    const sooner = ms < this.intervalMs;
    this.intervalMs = ms;
    if (this.signal && sooner) this.schedule(0);
  }

  start(signal: AbortSignal): void {
    this.signal = signal;
    signal.addEventListener('abort', () => this.timer && clearTimeout(this.timer), { once: true });
    this.schedule(0);
  }

  private schedule(delay: number): void {
    if (this.timer) clearTimeout(this.timer);
    if (this.signal?.aborted) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      // A shorter interval asked for while sampling has scheduled the next sample already.
      void this.tick().finally(() => this.timer === null && this.schedule(this.intervalMs));
    }, delay);
  }

  private async tick(): Promise<void> {
    if (!this.options.link.ready('metrics')) return;
    try {
      const frame = await this.sample();
      if (this.options.link.ready('metrics')) this.options.link.send(encodeFrame(frame));
    } catch (error) {
      this.options.logger.warn('cannot sample metrics', { error: (error as Error).message });
    }
  }

  async sample(): Promise<MetricsFrame> {
    const at = this.now();
    const root = this.options.root ?? '/';
    this.mounts ??= await readMounts(root);
    const [host, containers] = await Promise.all([this.sampleHost(root), this.sampleContainers(at, root)]);
    return { type: 'metrics', at, host, containers };
  }

  private async sampleHost(root: string): Promise<HostSample> {
    const counters = await readHostCounters(this.cpuCount, root);
    let cpu: number | null = null;
    if (counters.cpuBusy !== null && counters.cpuTotal !== null) {
      const before = this.previousHost;
      if (before && counters.cpuTotal > before.total) cpu = ((counters.cpuBusy - before.busy) / (counters.cpuTotal - before.total)) * this.cpuCount;
      this.previousHost = { busy: counters.cpuBusy, total: counters.cpuTotal };
    }
    let disk: { used: number; total: number } | null = null;
    try {
      const stats = await statfs(await this.options.diskPath());
      disk = { total: stats.blocks * stats.bsize, used: (stats.blocks - stats.bfree) * stats.bsize };
    } catch {
      // not a path this process can stat
    }
    const memoryUsed = counters.memoryTotal !== null && counters.memoryAvailable !== null ? counters.memoryTotal - counters.memoryAvailable : null;
    return {
      cpuCount: this.cpuCount,
      cpu: cpu === null ? null : Math.max(0, cpu),
      memoryUsed,
      memoryTotal: counters.memoryTotal,
      diskUsed: disk?.used ?? null,
      diskTotal: disk?.total ?? null,
      load1: counters.load?.[0] ?? null,
      load5: counters.load?.[1] ?? null,
      load15: counters.load?.[2] ?? null,
    };
  }

  private async sampleContainers(at: number, root: string): Promise<ContainerSample[]> {
    if (!this.options.directory) return [];
    const running = await this.options.directory.running();
    const seen = new Set<string>();
    const samples = await Promise.all(
      running.map(async (container): Promise<ContainerSample | null> => {
        const id = container.slot.containerId;
        seen.add(id);
        const ownNetwork = container.networkMode !== 'host' && container.networkMode !== 'none' && !container.networkMode.startsWith('container:');
        const counters = await readContainerCounters(container.pid, this.mounts!, ownNetwork, root);
        if (!counters) return null;
        const before = this.previous.get(id);
        this.previous.set(id, { at, counters });
        const seconds = before ? (at - before.at) / 1000 : 0;
        const previous = before?.counters;
        const cpuNsPerSecond = rate(counters.cpuNs, previous?.cpuNs, seconds);
        return {
          ...container.slot,
          cpu: cpuNsPerSecond === null ? null : cpuNsPerSecond / 1e9,
          memory: counters.memory,
          memoryLimit: counters.memoryLimit,
          netRx: rate(counters.rxBytes, previous?.rxBytes, seconds),
          netTx: rate(counters.txBytes, previous?.txBytes, seconds),
          blockRead: rate(counters.readBytes, previous?.readBytes, seconds),
          blockWrite: rate(counters.writeBytes, previous?.writeBytes, seconds),
        };
      }),
    );
    for (const id of this.previous.keys()) if (!seen.has(id)) this.previous.delete(id);
    return samples.filter((sample): sample is ContainerSample => sample !== null);
  }
}
