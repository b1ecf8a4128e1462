/**
 * /ws/client/v1: the messages a client sends and the frames it receives (live changes of an
 * environment's deployments and containers, and of an organization's servers; and the
 * observability topics: logs, deploy logs, metrics, events). Rows are shaped as the REST routes
 * answer them.
 */
import * as v from 'valibot';
import { Uuid } from './common.ts';
import { Container } from './containers.ts';
import { Deployment } from './deployments.ts';
import { Event } from './events.ts';
import { DeploymentLogLine, LogLine } from './logs.ts';
import { MetricPoint } from './metrics.ts';
import { Server } from './servers.ts';

export const CLIENT_WS_PATH = '/ws/client/v1';
export const MAX_SUBSCRIPTIONS_PER_SOCKET = 100;
/** Close code of a socket whose credential ended (sign-out, revoked session or token). */
export const CREDENTIAL_ENDED_CLOSE_CODE = 4401;

/** Topics of observability; without `topic` a message is about an environment or an organization's servers. */
export const OBSERVE_TOPICS = ['logs', 'deploymentLog', 'metrics', 'events'] as const;
export type ObserveTopicName = (typeof OBSERVE_TOPICS)[number];
/** How many of the newest lines a logs subscription starts with, unless it says (0-1000). */
export const DEFAULT_LOG_TAIL = 200;

/** Exactly one id names what the message is about; which ids a topic takes is TOPIC_SUBJECTS. */
export const LiveClientMessage = v.object({
  type: v.picklist(['subscribe', 'unsubscribe']),
  topic: v.optional(v.picklist(OBSERVE_TOPICS)),
  environmentId: v.optional(Uuid),
  organizationId: v.optional(Uuid),
  serviceId: v.optional(Uuid),
  containerId: v.optional(Uuid),
  serverId: v.optional(Uuid),
  deploymentId: v.optional(Uuid),
  /** logs: the newest lines the snapshot carries. */
  tail: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(1000))),
});
export type LiveClientMessage = v.InferOutput<typeof LiveClientMessage>;

export const TOPIC_SUBJECTS = {
  live: ['environmentId', 'organizationId'],
  logs: ['containerId', 'serviceId', 'environmentId'],
  deploymentLog: ['deploymentId'],
  metrics: ['serverId', 'containerId', 'serviceId', 'environmentId'],
  events: ['organizationId'],
} as const;
const ID_FIELDS = ['environmentId', 'organizationId', 'serviceId', 'containerId', 'serverId', 'deploymentId'] as const;

export type LiveTopic = { environmentId: string } | { organizationId: string };
export type ObserveTopic =
  | { topic: 'logs'; tail: number; containerId?: string; serviceId?: string; environmentId?: string }
  | { topic: 'deploymentLog'; deploymentId: string }
  | { topic: 'metrics'; serverId?: string; containerId?: string; serviceId?: string; environmentId?: string }
  | { topic: 'events'; organizationId: string };

/** The subscription a message names, or null when its ids do not fit its topic. */
export function topicOf(message: LiveClientMessage): LiveTopic | ObserveTopic | null {
  const allowed: readonly string[] = TOPIC_SUBJECTS[message.topic ?? 'live'];
  const given = ID_FIELDS.filter((field) => message[field] !== undefined);
  if (given.length !== 1 || !allowed.includes(given[0]!)) return null;
  const subject = { [given[0]!]: message[given[0]!]! };
  if (!message.topic) return subject as LiveTopic;
  if (message.topic === 'logs') return { topic: 'logs', ...subject, tail: message.tail ?? DEFAULT_LOG_TAIL };
  return { topic: message.topic, ...subject } as ObserveTopic;
}

export const EnvironmentFrame = v.variant('type', [
  /** The snapshot: the newest deployments and every container row. */
  v.object({ type: v.literal('subscribed'), environmentId: v.string(), deployments: v.array(Deployment), containers: v.array(Container) }),
  v.object({ type: v.literal('deployment'), environmentId: v.string(), deployment: Deployment }),
  v.object({ type: v.literal('container'), environmentId: v.string(), container: Container }),
]);
export type EnvironmentFrame = v.InferOutput<typeof EnvironmentFrame>;

export const ServersFrame = v.variant('type', [
  /** The snapshot: every server of the organization. */
  v.object({ type: v.literal('subscribed'), organizationId: v.string(), servers: v.array(Server) }),
  /** A server enrolled, connected, disconnected or was renamed. */
  v.object({ type: v.literal('server'), organizationId: v.string(), server: Server }),
  v.object({ type: v.literal('serverDeleted'), organizationId: v.string(), serverId: v.string() }),
]);
export type ServersFrame = v.InferOutput<typeof ServersFrame>;

/** Also `{"type":"unsubscribed", ...topic}` and `{"type":"error", code, message, ...topic?}`. */
export interface LiveError {
  type: 'error';
  code: string;
  message: string;
  environmentId?: string;
  organizationId?: string;
}

/** Topic frames echo the topic and its id (`serviceId`, `deploymentId`...). */
const topicEcho = { topic: v.picklist(OBSERVE_TOPICS), serverId: v.optional(v.string()), containerId: v.optional(v.string()), serviceId: v.optional(v.string()), environmentId: v.optional(v.string()), deploymentId: v.optional(v.string()), organizationId: v.optional(v.string()) };

export const LogsFrame = v.variant('type', [
  /** The newest `tail` lines, oldest first. */
  v.object({ type: v.literal('subscribed'), ...topicEcho, lines: v.array(LogLine) }),
  /** New lines of one container; `dropped` lines were not sent because this socket fell behind (the history has them). */
  v.object({ type: v.literal('logs'), ...topicEcho, lines: v.array(LogLine), dropped: v.optional(v.number()) }),
]);
export type LogsFrame = v.InferOutput<typeof LogsFrame>;

export const DeploymentLogFrame = v.variant('type', [
  v.object({ type: v.literal('subscribed'), ...topicEcho, deployment: Deployment, lines: v.array(DeploymentLogLine) }),
  v.object({ type: v.literal('deploymentLog'), ...topicEcho, lines: v.array(DeploymentLogLine) }),
  v.object({ type: v.literal('deployment'), ...topicEcho, deployment: Deployment }),
]);
export type DeploymentLogFrame = v.InferOutput<typeof DeploymentLogFrame>;

export const LivePoint = v.object({ serverId: v.nullable(v.string()), containerId: v.nullable(v.string()), serviceId: v.nullable(v.string()), ...MetricPoint.entries });
export type LivePoint = v.InferOutput<typeof LivePoint>;
export const MetricsFrame = v.variant('type', [
  v.object({ type: v.literal('subscribed'), ...topicEcho }),
  /** New samples; while subscribed, the servers concerned sample every 10 s instead of 60 s. */
  v.object({ type: v.literal('metrics'), ...topicEcho, points: v.array(LivePoint) }),
]);
export type MetricsFrame = v.InferOutput<typeof MetricsFrame>;

export const EventsFrame = v.variant('type', [
  /** The newest 20 events, newest first. */
  v.object({ type: v.literal('subscribed'), ...topicEcho, events: v.array(Event) }),
  v.object({ type: v.literal('event'), ...topicEcho, event: Event }),
]);
export type EventsFrame = v.InferOutput<typeof EventsFrame>;
