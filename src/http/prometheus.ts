/**
 * GET /metrics: the control plane's own figures in Prometheus text format, for operators who run
 * Prometheus (issue 19). Nothing in it names a tenant: labels are route patterns, statuses,
 * command states and event families, never ids, names or paths.
 *
 * Who may read it: with PANEL_METRICS_TOKEN set, any caller presenting `Authorization: Bearer
 * <token>`; without it only a caller on this host (a loopback peer) whose request came through no
 * proxy (no X-Forwarded-For, Forwarded or X-Real-IP: a reverse proxy on the same host would
 * otherwise make every visitor look local). Everyone else gets 401/403.
 */
import { timingSafeEqual } from 'node:crypto';
import { Elysia } from 'elysia';
import * as v from 'valibot';
import { count, inArray, sql } from 'drizzle-orm';
import type { AppDeps } from '../deps.ts';
import { daemonCommand, logChunk } from '../db/schema/index.ts';
import { OPEN_COMMAND_STATUSES } from '../domain/commands/service.ts';
import { DomainError } from '../lib/errors.ts';
import { escapeLabel } from '../lib/telemetry.ts';
import { PANEL_VERSION } from '../version.ts';
import { bearerOf } from './plugins/guard.ts';
import { errorResponses } from './schemas.ts';

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|::ffff:127\.\d+\.\d+\.\d+)$/;
const PROXY_HEADERS = ['x-forwarded-for', 'forwarded', 'x-real-ip'];
const startedAt = Date.now() / 1000;

function assertMayRead(deps: AppDeps, request: Request, peer: string | null): void {
  const token = deps.config.metricsToken;
  if (token !== null) {
    const given = Buffer.from(bearerOf(request) ?? '');
    const wanted = Buffer.from(token);
    if (given.length !== wanted.length || !timingSafeEqual(given, wanted)) throw new DomainError('unauthenticated', 'GET /metrics needs Authorization: Bearer <PANEL_METRICS_TOKEN>');
    return;
  }
  // No peer: app.handle() in tests or the unix socket, both on this host.
  const local = peer === null || LOOPBACK.test(peer);
  if (!local || PROXY_HEADERS.some((header) => request.headers.has(header))) {
    throw new DomainError('forbidden', 'GET /metrics answers only on this host without a proxy; set PANEL_METRICS_TOKEN to read it from elsewhere');
  }
}

type Sample = [name: string, help: string, type: 'gauge' | 'counter', values: [labels: string, value: number][]];

function render(deps: AppDeps): string {
  const { hub } = deps;
  const observe = hub.observe;
  const commands = deps.db
    .select({ status: daemonCommand.status, n: count() })
    .from(daemonCommand)
    .where(inArray(daemonCommand.status, [...OPEN_COMMAND_STATUSES]))
    .groupBy(daemonCommand.status)
    .all();
  const retainedBytes = deps.db.select({ bytes: sql<number>`coalesce(sum(${logChunk.bytes}), 0)` }).from(logChunk).get()!.bytes;
  const memory = process.memoryUsage();
  const cpu = process.cpuUsage();
  const samples: Sample[] = [
    ['panel_build_info', 'The running version.', 'gauge', [[`version="${escapeLabel(PANEL_VERSION)}"`, 1]]],
    ['process_resident_memory_bytes', 'Resident memory.', 'gauge', [['', memory.rss]]],
    ['process_heap_bytes', 'JavaScript heap in use.', 'gauge', [['', memory.heapUsed]]],
    ['process_cpu_seconds_total', 'CPU time used (user and system).', 'counter', [['', (cpu.user + cpu.system) / 1e6]]],
    ['process_start_time_seconds', 'When the process started (Unix time).', 'gauge', [['', startedAt]]],
    ['panel_daemons_connected', 'Daemons connected (said hello).', 'gauge', [['', hub.connectedCount]]],
    ['panel_daemon_connections', 'Daemon sockets open, with or without hello.', 'gauge', [['', hub.connectionCount]]],
    ['panel_commands_open', 'Daemon commands not finished yet, by state (the command queue).', 'gauge', OPEN_COMMAND_STATUSES.map((status) => [`status="${status}"`, commands.find((row) => row.status === status)?.n ?? 0])],
    ['panel_live_subscriptions', 'Live subscriptions of /ws/client/v1.', 'gauge', [['', hub.feed.size + observe.logs.live.size + observe.metrics.live.size + observe.deploymentLogs.size + observe.eventFeed.size]]],
    ['panel_log_lines_received_total', 'Container log lines received from daemons.', 'counter', [['', observe.logs.stats.lines]]],
    ['panel_log_lines_dropped_total', 'Log lines daemons dropped (rate or queue bound) and marked.', 'counter', [['', observe.logs.stats.dropped]]],
    ['panel_log_lines_refused_total', 'Log lines refused (a container of no service the daemon may write to).', 'counter', [['', observe.logs.stats.refused]]],
    ['panel_log_buffered_bytes', 'Log lines received and not written yet.', 'gauge', [['', observe.logs.buffered]]],
    ['panel_log_retained_bytes', 'Retained log history, all organizations.', 'gauge', [['', retainedBytes]]],
    ['panel_metric_samples_total', 'Resource samples stored.', 'counter', [['', observe.metrics.stats.samples]]],
    ['panel_events_total', 'Events recorded, by family.', 'counter', [...observe.events.counts].map(([family, n]) => [`family="${escapeLabel(family)}"`, n])],
    [
      'panel_webhook_deliveries_total',
      'Webhook delivery attempts, by outcome.',
      'counter',
      observe.webhooks
        ? [
            ['outcome="delivered"', observe.webhooks.stats.delivered],
            ['outcome="failed_attempt"', observe.webhooks.stats.failedAttempts],
            ['outcome="given_up"', observe.webhooks.stats.givenUp],
          ]
        : [],
    ],
  ];
  const lines: string[] = [];
  for (const [name, help, type, values] of samples) {
    lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`);
    for (const [labels, value] of values) lines.push(`${name}${labels ? `{${labels}}` : ''} ${value}`);
  }
  return `${lines.join('\n')}\n${observe.http.render()}`;
}

export const prometheusRoutes = (deps: AppDeps) =>
  new Elysia().get(
    '/metrics',
    ({ request, server }) => {
      assertMayRead(deps, request, server?.requestIP(request)?.address ?? null);
      return new Response(render(deps), { headers: { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' } });
    },
    {
      response: { 200: v.string(), ...errorResponses('unauthenticated', 'forbidden') },
      detail: {
        summary: "The control plane's own metrics (Prometheus text format)",
        description:
          'Requests and latencies by route pattern, daemons connected, the command queue, live subscriptions, log, metric, event and webhook counters, ' +
          'process memory and CPU. No tenant data. Readable with `Authorization: Bearer <PANEL_METRICS_TOKEN>`, or without a token from this host only (loopback, no proxy headers).',
        tags: ['meta'],
      },
    },
  );
