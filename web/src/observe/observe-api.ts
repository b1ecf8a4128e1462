/**
 * Typed calls for logs, deploy logs, metrics, events and the webhook (client API v1, issue 19).
 * Live updates of the same come over /ws/client/v1 (live-subscription.ts, topics logs,
 * deploymentLog, metrics and events).
 */
import { call, type Page } from '../api.ts';
import type { Choice } from '../forms.tsx';
import type { Container, Deployment } from '../deploy-api.ts';
import type { DeploymentLogLine, LogPage } from '../../../src/contract/logs.ts';
import type { MetricsAnswer } from '../../../src/contract/metrics.ts';
import type { Event as PanelEvent, Webhook, WebhookDelivery } from '../../../src/contract/events.ts';

export type LogTarget = { serviceId: string } | { environmentId: string } | { containerId: string };
export type MetricTarget = LogTarget | { serverId: string };

export type { DeploymentLogLine, LogLine, LogPage } from '../../../src/contract/logs.ts';
export type { MetricPoint, MetricSeries } from '../../../src/contract/metrics.ts';
export type { Event as PanelEvent, Webhook, WebhookDelivery } from '../../../src/contract/events.ts';

/** The families of event kinds, as the events page and the webhook's choice name them. */
export const EVENT_FAMILIES = [
  ['deployment', 'Deploys'],
  ['container', 'Containers'],
  ['server', 'Servers'],
  ['certificate', 'Certificates'],
  ['webhook', 'Webhook tests'],
] as const;

/** What a log view asks the server to filter by (a time range, a stream, a text). */
export interface LogFilter {
  since?: string;
  until?: string;
  stream?: 'stdout' | 'stderr';
  q?: string;
}

type Query = Record<string, string | undefined>;
const query = (target: object, extra: object = {}): Query => ({ ...(target as Query), ...(extra as Query) });

/**
 * How a log line or a chart names its container: its replica (`#2`), or with `serviceNames` (a view
 * spanning an environment's services) the service too (`web#2`); `fallback` when the service is unknown.
 */
export const replicaLabel = (serviceId: string, ordinal: number, fallback: string, serviceNames?: Record<string, string>) =>
  serviceNames ? `${serviceNames[serviceId] ?? fallback}#${ordinal}` : `#${ordinal}`;

/**
 * The replicas a service's log view offers: its container rows that still exist, by ordinal, each
 * named by its replica (`#2`) and, when it is not running, its state (`#2 (exited)`).
 */
export function replicaChoices(rows: readonly Container[]): Choice[] {
  return rows
    .filter((row) => !row.isRemoved && row.role === 'service')
    .sort((a, b) => a.ordinal - b.ordinal)
    .map((row) => ({ value: row.id, label: row.status === 'running' ? `#${row.ordinal}` : `#${row.ordinal} (${row.status})` }));
}

/** What the view reads: the chosen replica while it is still offered, else the whole target. */
export const narrowedTarget = (whole: LogTarget, replica: string, choices: readonly Choice[]): LogTarget =>
  replica && choices.some((choice) => choice.value === replica) ? { containerId: replica } : whole;

/** The download URL of what a log view shows (the browser saves it as a file). */
export const logDownloadUrl = (target: LogTarget, filter: LogFilter) =>
  `/api/client/v1/logs/download?${new URLSearchParams(Object.entries(query(target, filter)).filter((entry): entry is [string, string] => entry[1] !== undefined))}`;

export const observeApi = {
  logs: (target: LogTarget, filter: LogFilter & { limit?: number; cursor?: string }) =>
    call<LogPage>('GET', 'client/v1/logs', undefined, query(target, { ...filter, limit: filter.limit?.toString() })),
  /** A service's container rows (its replicas, on every server it runs on). */
  containers: (serviceId: string) => call<Page<Container>>('GET', 'client/v1/containers', undefined, { serviceId }),
  deploymentLog: (deploymentId: string) => call<{ deployment: Deployment; data: DeploymentLogLine[] }>('GET', `client/v1/deployments/${deploymentId}/logs`),
  metrics: (target: MetricTarget, since: string, until: string) =>
    call<MetricsAnswer>('GET', 'client/v1/metrics', undefined, query(target, { since, until })),
  events: (organizationId: string, filter: { kind?: string; cursor?: string }) => call<Page<PanelEvent>>('GET', 'client/v1/events', undefined, { organizationId, ...filter }),
  webhook: {
    get: (organizationId: string) => call<Webhook>('GET', `client/v1/organizations/${organizationId}/webhook`),
    /** Created: the answer carries the signing secret, shown once. */
    save: (organizationId: string, body: { url: string; isEnabled: boolean; eventKinds: string[] | null }) =>
      call<Webhook & { secret?: string }>('PUT', `client/v1/organizations/${organizationId}/webhook`, body),
    remove: (organizationId: string) => call<void>('DELETE', `client/v1/organizations/${organizationId}/webhook`),
    rotate: (organizationId: string) => call<Webhook & { secret: string }>('POST', `client/v1/organizations/${organizationId}/webhook/secret`),
    test: (organizationId: string) => call<PanelEvent>('POST', `client/v1/organizations/${organizationId}/webhook/test`),
    deliveries: (organizationId: string) => call<Page<WebhookDelivery>>('GET', `client/v1/organizations/${organizationId}/webhook/deliveries`),
  },
};
