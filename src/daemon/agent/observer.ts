/**
 * The agent's observability (ARCHITECTURE.md §8), wired together: container logs followed
 * through the Engine API (log-collector.ts), host and container metrics from /proc and cgroups
 * (metrics-sampler.ts), and container state changes from the engine's events (reported to the hub
 * as `report` frames on the daemon's own account). Everything sends through the connection's
 * FrameLink, which says when the hub is there and not backed up.
 */
import { join } from 'node:path';
import type { Logger } from '../../lib/logger.ts';
import { encodeFrame, type ObservabilityFeature, PROJECT_NAME_PATTERN } from '../../contract/daemon-protocol.ts';
import { watchContainerEvents } from './container-events.ts';
import { ContainerDirectory } from './containers.ts';
import type { DockerCli } from './docker-cli.ts';
import { DockerEngine, engineEndpoint } from './engine.ts';
import { type FrameLink, LogCollector } from './log-collector.ts';
import { MetricsSampler } from './metrics-sampler.ts';

/** Changes of one project within this long are reported once. */
const REPORT_DEBOUNCE_MS = 1_000;
/** Missed events are caught up by listing the containers this often. */
const RESYNC_INTERVAL_MS = 60_000;

export interface AgentObserverOptions {
  env: Record<string, string | undefined>;
  docker: DockerCli;
  /** Whether a command of the project is running: its own report follows, none is sent meanwhile. */
  isBusy: (project: string) => boolean;
  link: FrameLink;
  logger: Logger;
  stateDir: string;
}

export class AgentObserver {
  readonly features: ObservabilityFeature[];
  private readonly engine: DockerEngine | null;
  private readonly directory: ContainerDirectory | null;
  private readonly logs: LogCollector | null;
  readonly metrics: MetricsSampler;
  private readonly pendingReports = new Map<string, ReturnType<typeof setTimeout>>();

  constructor(private readonly options: AgentObserverOptions) {
    const endpoint = engineEndpoint(options.env);
    if ('unsupported' in endpoint) {
      options.logger.warn('container logs and container metrics are off', { reason: endpoint.unsupported });
      this.engine = null;
    } else {
      this.engine = new DockerEngine(endpoint);
    }
    this.directory = this.engine ? new ContainerDirectory(this.engine) : null;
    this.logs = this.engine
      ? new LogCollector({ engine: this.engine, directory: this.directory!, link: options.link, logger: options.logger, cursorFile: join(options.stateDir, 'log-cursors.json') })
      : null;
    const engine = this.engine;
    this.metrics = new MetricsSampler({
      directory: this.directory,
      link: options.link,
      logger: options.logger,
      diskPath: async () => (await engine?.dataRoot()) ?? '/',
    });
    this.features = ['output', 'metrics', 'watch', ...(this.logs ? (['logs'] as const) : [])];
  }

  /** Runs until `signal` aborts. */
  async start(signal: AbortSignal): Promise<void> {
    this.metrics.start(signal);
    if (!this.engine || !this.logs || !this.directory) return;
    const logs = this.logs;
    await logs.loadCursors();
    if (signal.aborted) return;
    logs.start(signal);
    const resync = () => void logs.sync(signal).catch((error) => this.options.logger.warn('cannot list containers', { error: (error as Error).message }));
    const timer = setInterval(resync, RESYNC_INTERVAL_MS);
    signal.addEventListener(
      'abort',
      () => {
        clearInterval(timer);
        for (const pending of this.pendingReports.values()) clearTimeout(pending);
        this.pendingReports.clear();
      },
      { once: true },
    );
    void watchContainerEvents(
      {
        engine: this.engine,
        directory: this.directory,
        logger: this.options.logger,
        handlers: {
          started: (container) => logs.follow(container, signal),
          removed: (id) => logs.forget(id),
          changed: (project) => this.scheduleReport(project),
          resync,
        },
      },
      signal,
    );
  }

  setMetricsInterval(ms: number): void {
    this.metrics.setInterval(ms);
  }

  private scheduleReport(project: string): void {
    if (!PROJECT_NAME_PATTERN.test(project) || this.pendingReports.has(project)) return;
    this.pendingReports.set(
      project,
      setTimeout(() => {
        this.pendingReports.delete(project);
        void this.report(project);
      }, REPORT_DEBOUNCE_MS),
    );
  }

  private async report(project: string): Promise<void> {
    if (this.options.isBusy(project) || !this.options.link.ready('report')) return;
    try {
      const containers = await this.options.docker.listProjectContainers(project);
      if (!this.options.isBusy(project) && this.options.link.ready('report')) this.options.link.send(encodeFrame({ type: 'report', project, containers }));
    } catch (error) {
      this.options.logger.warn('cannot list containers for a report', { project, error: (error as Error).message });
    }
  }
}
