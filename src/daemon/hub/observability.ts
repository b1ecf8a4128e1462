/**
 * Everything the hub keeps about what runs (issue 19, ARCHITECTURE.md §8), in one place the hub
 * owns: container logs (log-ingest.ts), deploy logs, metrics (metric-ingest.ts) and who watches
 * them, the events feed and its webhook deliveries. Its timers write log chunks, roll up and prune
 * metrics, prune every bounded table, deliver webhooks and announce expiring certificates; tests
 * drive the same work by hand.
 */
import { eq } from 'drizzle-orm';
import type { Config } from '../../config.ts';
import type { KeyRing } from '../../crypto/keyring.ts';
import { type Container, container, daemonCommand, type Deployment, type Event, server, type Server } from '../../db/schema/index.ts';
import { appendDeploymentLog, type DeploymentLogLine, pruneDeploymentLogs } from '../../domain/deployments/logs.ts';
import { certificateChangeEvent, recordCertificateEvent, warnExpiringCertificates } from '../../domain/events/certificates.ts';
import type { CertificateChange } from '../../domain/ingress/state.ts';
import { pruneEvents } from '../../domain/events/queries.ts';
import { EventRecorder } from '../../domain/events/record.ts';
import { containerEvents, deploymentEvent, serverEvent } from '../../domain/events/sources.ts';
import type { RetentionLimits } from '../../domain/logs/store.ts';
import type { Queryable } from '../../domain/shared/database.ts';
import type { Lookup, NetworkPolicy } from '../../domain/webhooks/destination.ts';
import { WebhookDispatcher, type WebhookSender } from '../../domain/webhooks/dispatcher.ts';
import { findCommand, OPEN_COMMAND_STATUSES } from '../../domain/commands/service.ts';
import type { Clock } from '../../lib/clock.ts';
import type { Logger } from '../../lib/logger.ts';
import { HttpTelemetry } from '../../lib/telemetry.ts';
import type { OutputFrame, ReportFrame } from '../../contract/daemon-protocol.ts';
import { Listeners } from './feed.ts';
import { LogIngest } from './log-ingest.ts';
import { MetricIngest } from './metric-ingest.ts';
import type { DaemonOf } from '../../domain/daemons/outcomes.ts';

export const WATCHED_METRICS_INTERVAL_MS = 10_000;
export const IDLE_METRICS_INTERVAL_MS = 60_000;
const FLUSH_INTERVAL_MS = 1_000;
const MAINTENANCE_INTERVAL_MS = 60_000;
const WEBHOOK_INTERVAL_MS = 2_000;
const CERTIFICATE_CHECK_INTERVAL_MS = 3_600_000;

/** Defaults when the operator says nothing: 256 MiB and 14 days of logs per organization. */
export const DEFAULT_LOG_RETENTION: RetentionLimits = { bytes: 256 * 1024 * 1024, days: 14 };

export interface ObservabilityOptions {
  /** Opens webhook secrets; without it no webhook is delivered. */
  keyring?: KeyRing;
  logRetention?: RetentionLimits;
  /** Where webhooks may go; without it none is delivered. */
  webhookPolicy?: NetworkPolicy;
  webhookSender?: WebhookSender;
  webhookLookup?: Lookup;
}

/** What the operator configured (PANEL_LOG_RETENTION_*, PANEL_WEBHOOK_ALLOWED_NETWORKS). */
export const observabilityOptionsOf = (config: Config, keyring: KeyRing): ObservabilityOptions => ({
  keyring,
  logRetention: { bytes: config.logRetentionBytes, days: config.logRetentionDays },
  webhookPolicy: config.webhookNetworks,
});

export interface DeploymentLogEvent {
  deploymentId: string;
  lines: DeploymentLogLine[];
}

const OPEN: ReadonlySet<string> = new Set(OPEN_COMMAND_STATUSES);

export class Observability {
  readonly logs: LogIngest;
  readonly metrics: MetricIngest;
  readonly events: EventRecorder;
  readonly webhooks: WebhookDispatcher | null;
  /** Live deploy log lines, by deployment id. */
  readonly deploymentLogs: Listeners<DeploymentLogEvent>;
  /** Live events, by organization id. */
  readonly eventFeed: Listeners<Event>;
  /** The control plane's own HTTP counters for GET /metrics (both listeners share them). */
  readonly http = new HttpTelemetry();
  private readonly watchers = new Map<string, number>();
  private readonly timers: ReturnType<typeof setInterval>[] = [];
  private webhookRun: Promise<void> | null = null;

  constructor(
    private readonly db: Queryable,
    private readonly clock: Clock,
    private readonly logger: Logger,
    options: ObservabilityOptions,
    /** Tells a server's daemon its metrics interval (the hub sends a `watch` frame if it takes one). */
    private readonly sendWatch: (serverId: string, intervalMs: number) => void,
  ) {
    const now = () => clock.now().getTime();
    const onListenerError = (error: unknown) => logger.error('observability listener failed', { error: String(error) });
    this.logs = new LogIngest({ db, logger, now, retention: options.logRetention ?? DEFAULT_LOG_RETENTION });
    this.metrics = new MetricIngest({ db, logger, now });
    this.deploymentLogs = new Listeners(onListenerError);
    this.eventFeed = new Listeners(onListenerError);
    this.webhooks =
      options.keyring && options.webhookPolicy
        ? new WebhookDispatcher({ db, keyring: options.keyring, now: () => clock.now(), policy: options.webhookPolicy, logger, send: options.webhookSender, lookup: options.webhookLookup })
        : null;
    this.events = new EventRecorder({
      db,
      now: () => clock.now(),
      publish: (row) => this.eventFeed.publish(row.organizationId, row),
      delivered: () => void this.deliverWebhooks(),
    });
  }

  /** Records an event; a failure is logged, never thrown into the hub's handling of a frame. */
  private record(input: Parameters<EventRecorder['record']>[0] | null): void {
    if (!input) return;
    try {
      this.events.record(input);
    } catch (error) {
      this.logger.error('cannot record an event', { kind: input.kind, error: (error as Error).message });
    }
  }

  deploymentFinished(row: Deployment): void {
    this.record(deploymentEvent(this.db, row));
  }

  /** Servers that connected (or disconnected) in one of the hub's batches: their events in one transaction. */
  serversChanged(rows: readonly Server[], connected: boolean): void {
    if (rows.length === 0) return;
    try {
      this.events.recordAll(rows.map((row) => serverEvent(row, connected)));
    } catch (error) {
      this.logger.error('cannot record events', { kind: connected ? 'server.connected' : 'server.disconnected', count: rows.length, error: (error as Error).message });
    }
  }

  /** A report on the daemon's own account changed rows: one event per changed status. */
  containersChanged(environmentId: string, serverId: string, before: ReadonlyMap<string, Container['status']>, changed: readonly Container[], frame: ReportFrame): void {
    const statusText = new Map(frame.containers.filter((item) => item.status).map((item) => [item.containerId, item.status!]));
    for (const input of containerEvents(this.db, environmentId, serverId, before, changed, statusText)) this.record(input);
  }

  certificateChanged(change: CertificateChange): void {
    const input = certificateChangeEvent(change);
    if (!input) return;
    try {
      recordCertificateEvent(this.events, input);
    } catch (error) {
      this.logger.error('cannot record an event', { kind: `certificate.${input.kind}`, error: (error as Error).message });
    }
  }

  /**
   * Output of a deployment's command that is open on this daemon's server; anything else (another
   * server's, a finished one, a fabric command's, which belongs to no deployment) is ignored.
   */
  output(daemon: DaemonOf, frame: OutputFrame): void {
    const command = findCommand(this.db, frame.commandId);
    const deploymentId = command?.deploymentId;
    if (!command || !deploymentId || command.serverId !== daemon.serverId || !OPEN.has(command.status)) return;
    // A deploy placed on several servers has one command (and one output) per server: say whose.
    const prefix = this.serverPrefix(deploymentId, daemon.serverId);
    const given = prefix ? frame.lines.map(([at, stream, text]) => [at, stream, `${prefix}${text}`] as typeof frame.lines[number]) : frame.lines;
    const lines = this.db.transaction((tx) => appendDeploymentLog(tx, deploymentId, given, frame.omitted ?? 0, this.clock.now().getTime()));
    if (lines.length > 0) this.deploymentLogs.publish(deploymentId, { deploymentId, lines });
  }

  /** `[server name] ` when the deployment runs on more than one server, else nothing. */
  private serverPrefix(deploymentId: string, serverId: string): string {
    const servers = this.db
      .selectDistinct({ id: daemonCommand.serverId, name: server.name })
      .from(daemonCommand)
      .innerJoin(server, eq(server.id, daemonCommand.serverId))
      .where(eq(daemonCommand.deploymentId, deploymentId))
      .all();
    return servers.length > 1 ? `[${servers.find((row) => row.id === serverId)?.name ?? serverId}] ` : '';
  }

  /** Counts a watcher of these servers' metrics; the returned function stops watching. */
  watch(serverIds: readonly string[]): () => void {
    const unique = [...new Set(serverIds)];
    for (const serverId of unique) {
      const count = (this.watchers.get(serverId) ?? 0) + 1;
      this.watchers.set(serverId, count);
      if (count === 1) this.sendWatch(serverId, WATCHED_METRICS_INTERVAL_MS);
    }
    let stopped = false;
    return () => {
      if (stopped) return;
      stopped = true;
      for (const serverId of unique) {
        const count = (this.watchers.get(serverId) ?? 1) - 1;
        if (count > 0) this.watchers.set(serverId, count);
        else {
          this.watchers.delete(serverId);
          this.sendWatch(serverId, IDLE_METRICS_INTERVAL_MS);
        }
      }
    };
  }

  isWatched(serverId: string): boolean {
    return this.watchers.has(serverId);
  }

  /** The servers hosting the container rows of these services (whose metrics a page shows). */
  serversOfServices(serviceIds: readonly string[]): string[] {
    const servers = new Set<string>();
    for (const serviceId of serviceIds) {
      for (const row of this.db.select({ serverId: container.serverId }).from(container).where(eq(container.serviceId, serviceId)).all()) servers.add(row.serverId);
    }
    return [...servers];
  }

  /** Delivers due webhooks; one run at a time. */
  deliverWebhooks(): Promise<void> {
    if (!this.webhooks) return Promise.resolve();
    this.webhookRun ??= this.webhooks
      .tick()
      .catch((error) => this.logger.error('webhook delivery failed', { error: (error as Error).message }))
      .finally(() => {
        this.webhookRun = null;
      });
    return this.webhookRun;
  }

  /** Every bound: log age, metric rollup and retention, events, deploy logs, webhook history. */
  maintain(): void {
    const steps: [string, () => void][] = [
      ['logs', () => this.logs.sweep()],
      ['metrics', () => this.metrics.maintain()],
      ['events', () => void pruneEvents(this.db, this.clock.now())],
      ['deployment logs', () => pruneDeploymentLogs(this.db)],
      ['webhook deliveries', () => this.webhooks?.prune()],
    ];
    for (const [what, step] of steps) {
      try {
        step();
      } catch (error) {
        this.logger.error(`cannot keep ${what} within bounds`, { error: (error as Error).message });
      }
    }
  }

  /** Announces the TLS library's certificates nearing their end (once each; hourly and at start). */
  checkCertificates(): void {
    try {
      warnExpiringCertificates(this.db, this.events, this.clock.now());
    } catch (error) {
      this.logger.error('cannot check certificate expiry', { error: (error as Error).message });
    }
  }

  start(): void {
    if (this.timers.length > 0) return;
    const every = (ms: number, work: () => void) => {
      const timer = setInterval(() => {
        try {
          work();
        } catch (error) {
          this.logger.error('observability timer failed', { error: (error as Error).message });
        }
      }, ms);
      timer.unref?.();
      this.timers.push(timer);
    };
    every(FLUSH_INTERVAL_MS, () => this.logs.flush(false));
    every(MAINTENANCE_INTERVAL_MS, () => this.maintain());
    every(CERTIFICATE_CHECK_INTERVAL_MS, () => this.checkCertificates());
    this.checkCertificates();
    if (this.webhooks) every(WEBHOOK_INTERVAL_MS, () => void this.deliverWebhooks());
  }

  /** Stops the timers and writes what is buffered. */
  stop(): void {
    for (const timer of this.timers.splice(0)) clearInterval(timer);
    try {
      this.logs.flush(true);
    } catch (error) {
      this.logger.error('cannot write buffered logs', { error: (error as Error).message });
    }
  }
}
