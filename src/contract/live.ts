/**
 * /ws/client/v1: the messages a client sends and the frames it receives (live changes of an
 * environment's deployments and containers, and of an organization's servers). Rows are shaped
 * as GET /deployments/:id, GET /containers/:id and GET /servers/:id answer them.
 */
import * as v from 'valibot';
import { Uuid } from './common.ts';
import { Container } from './containers.ts';
import { Deployment } from './deployments.ts';
import { Server } from './servers.ts';

export const CLIENT_WS_PATH = '/ws/client/v1';
export const MAX_SUBSCRIPTIONS_PER_SOCKET = 100;
/** Close code of a socket whose credential ended (sign-out, revoked session or token). */
export const CREDENTIAL_ENDED_CLOSE_CODE = 4401;

/** Exactly one of environmentId and organizationId names what the message is about. */
export const LiveClientMessage = v.pipe(
  v.object({ type: v.picklist(['subscribe', 'unsubscribe']), environmentId: v.optional(Uuid), organizationId: v.optional(Uuid) }),
  v.check((message) => (message.environmentId === undefined) !== (message.organizationId === undefined)),
);
export type LiveTopic = { environmentId: string } | { organizationId: string };

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
