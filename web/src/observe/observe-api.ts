/**
 * Typed calls for logs, deploy logs, metrics, events and the webhook (client API v1, issue 19).
 * Live updates of the same come over /ws/client/v1 (live-subscription.ts, topics logs,
 * deploymentLog, metrics and events).
 */
import { call, type Page } from '../api.ts';
import type { Deployment } from '../deploy-api.ts';

export type LogTarget = { serviceId: string } | { environmentId: string } | { containerId: string };
export type MetricTarget = LogTarget | { serverId: string };

export interface LogLine {
  at: string;
  stream: 'stdout' | 'stderr' | 'panel';
  text: string;
  serviceId: string;
  containerId: string | null;
  ordinal: number;
  containerName: string;
}

export interface LogFilter {
  since?: string;
  until?: string;
  stream?: 'stdout' | 'stderr';
  q?: string;
}

export interface LogPage {
  data: LogLine[];
  nextCursor: string | null;
  complete: boolean;
}

export interface DeploymentLogLine {
  seq: number;
  at: string;
  stream: 'stdout' | 'stderr' | 'panel';
  text: string;
}

export interface MetricPoint {
  at: string;
  cpu: number | null;
  cpuCount: number | null;
  memory: number | null;
  memoryLimit: number | null;
  netRx: number | null;
  netTx: number | null;
  blockRead: number | null;
  blockWrite: number | null;
  diskUsed: number | null;
  diskTotal: number | null;
  load1: number | null;
  load5: number | null;
  load15: number | null;
}

export interface MetricSeries {
  serverId: string | null;
  containerId: string | null;
  serviceId: string | null;
  ordinal: number | null;
  name: string;
  points: MetricPoint[];
}

export interface PanelEvent {
  id: string;
  organizationId: string;
  kind: string;
  severity: 'info' | 'warning' | 'error';
  message: string;
  serverId: string | null;
  environmentId: string | null;
  serviceId: string | null;
  containerId: string | null;
  deploymentId: string | null;
  data: Record<string, unknown> | null;
  createdAt: string;
}

export interface Webhook {
  id: string;
  organizationId: string;
  url: string;
  isEnabled: boolean;
  eventKinds: string[] | null;
  createdAt: string;
  updatedAt: string;
  /** Only when created and when the secret was replaced: shown once. */
  secret?: string;
}

export interface WebhookDelivery {
  id: string;
  eventId: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  nextAttemptAt: string | null;
  responseStatus: number | null;
  error: string | null;
  createdAt: string;
  updatedAt: string;
}

type Query = Record<string, string | undefined>;
const query = (target: object, extra: object = {}): Query => ({ ...(target as Query), ...(extra as Query) });

/** The download URL of what a log view shows (the browser saves it as a file). */
export const logDownloadUrl = (target: LogTarget, filter: LogFilter) =>
  `/api/client/v1/logs/download?${new URLSearchParams(Object.entries(query(target, filter)).filter((entry): entry is [string, string] => entry[1] !== undefined))}`;

export const observeApi = {
  logs: (target: LogTarget, filter: LogFilter & { limit?: number; cursor?: string }) =>
    call<LogPage>('GET', 'client/v1/logs', undefined, query(target, { ...filter, limit: filter.limit?.toString() })),
  deploymentLog: (deploymentId: string) => call<{ deployment: Deployment; data: DeploymentLogLine[] }>('GET', `client/v1/deployments/${deploymentId}/logs`),
  metrics: (target: MetricTarget, since: string, until: string) =>
    call<{ since: string; until: string; resolution: 0 | 300 | 3600; series: MetricSeries[] }>('GET', 'client/v1/metrics', undefined, query(target, { since, until })),
  events: (organizationId: string, filter: { kind?: string; cursor?: string }) => call<Page<PanelEvent>>('GET', 'client/v1/events', undefined, { organizationId, ...filter }),
  webhook: {
    get: (organizationId: string) => call<Webhook>('GET', `client/v1/organizations/${organizationId}/webhook`),
    save: (organizationId: string, body: { url: string; isEnabled: boolean; eventKinds: string[] | null }) =>
      call<Webhook>('PUT', `client/v1/organizations/${organizationId}/webhook`, body),
    remove: (organizationId: string) => call<void>('DELETE', `client/v1/organizations/${organizationId}/webhook`),
    rotate: (organizationId: string) => call<Webhook>('POST', `client/v1/organizations/${organizationId}/webhook/secret`),
    test: (organizationId: string) => call<PanelEvent>('POST', `client/v1/organizations/${organizationId}/webhook/test`),
    deliveries: (organizationId: string) => call<Page<WebhookDelivery>>('GET', `client/v1/organizations/${organizationId}/webhook/deliveries`),
  },
};
