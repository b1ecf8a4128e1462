/**
 * /ws/client/v1: live changes of environments and of an organization's servers, for the console
 * and API clients.
 *
 * The upgrade is authenticated like any client request (authenticateUpgrade: a session cookie
 * from PANEL_PUBLIC_URL's origin, or a bearer API token); otherwise 401/403 and no socket.
 *
 * Client -> server (JSON text):
 *   {"type":"subscribe","environmentId":"<uuid>"}     needs read access to the environment
 *   {"type":"subscribe","organizationId":"<uuid>"}    its servers; needs membership of the organization
 *   {"type":"unsubscribe","environmentId"|"organizationId":"<uuid>"}
 * Server -> client:
 *   {"type":"subscribed","environmentId", "deployments":[newest 10...], "containers":[...]}   snapshot
 *   {"type":"deployment","environmentId","deployment":{...}}   every change of a deployment row
 *   {"type":"container","environmentId","container":{...}}     every change of a container row
 *   {"type":"subscribed","organizationId","servers":[...]}     snapshot: every server of it
 *   {"type":"server","organizationId","server":{...}}           a server enrolled, connected,
 *                                                               disconnected or was renamed
 *   {"type":"serverDeleted","organizationId","serverId"}
 *   {"type":"unsubscribed","environmentId"|"organizationId"}
 *   {"type":"error","code","message","environmentId"|"organizationId"?}   e.g. not_found for another
 *                                                               organization's environment or for an
 *                                                               organization the caller is not in: no data
 * Rows are shaped as GET /deployments/:id, GET /containers/:id and GET /servers/:id answer them.
 * A server's last_seen_at, refreshed while it is connected, is pushed only with the disconnect.
 *
 * An open socket does not outlive its credential: before each push the caller is resolved again
 * from the upgrade's credential, so a sign-out, a revoked session or API token closes the socket
 * (code 4401 after an `unauthenticated` error) and a removed membership ends that subscription
 * (a `not_found` error naming it).
 */
import { Elysia } from 'elysia';
import * as v from 'valibot';
import type { AppDeps } from '../../deps.ts';
import type { ChangeEvent, ServerEvent } from '../../daemon/hub/feed.ts';
import { type Actor, authorize, canSee } from '../../domain/actor.ts';
import { containersOfEnvironment, latestDeploymentsOf } from '../../domain/deployments/queries.ts';
import { loadEnvironment } from '../../domain/environments/service.ts';
import { serversOfOrganization } from '../../domain/servers/queries.ts';
import { DomainError } from '../../lib/errors.ts';
import { presentContainer } from '../client/v1/containers.ts';
import { presentDeployment } from '../client/v1/deployments.ts';
import { presentServer } from '../client/v1/servers.ts';
import { optionalActor } from '../plugins/guard.ts';
import { authenticateUpgrade } from '../plugins/ws-auth.ts';
import { CLIENT_WS_PATH, CREDENTIAL_ENDED_CLOSE_CODE, LiveClientMessage, type LiveTopic, MAX_SUBSCRIPTIONS_PER_SOCKET } from '../../contract/live.ts';

const SNAPSHOT_DEPLOYMENTS = 10;

interface SocketState {
  clientActor?: Actor;
  /** The upgrade request: its credential is resolved again before every push. */
  upgradeRequest?: Request;
  /** Keyed by topicKey: one map for both kinds, so the per-socket limit counts both. */
  subscriptions?: Map<string, () => void>;
}

interface Sender {
  send(data: string): unknown;
  close(code?: number, reason?: string): unknown;
}

const send = (socket: Sender, message: object) => socket.send(JSON.stringify(message));

export function presentChange(event: ChangeEvent) {
  return event.type === 'deployment'
    ? { type: 'deployment', environmentId: event.environmentId, deployment: presentDeployment(event.deployment) }
    : { type: 'container', environmentId: event.environmentId, container: presentContainer(event.container) };
}

function presentServerChange(event: ServerEvent) {
  const { organizationId } = event.server;
  return event.type === 'server'
    ? { type: 'server', organizationId, server: presentServer(event.server) }
    : { type: 'serverDeleted', organizationId, serverId: event.server.id };
}

const topicKey = (topic: LiveTopic) => ('environmentId' in topic ? `environment:${topic.environmentId}` : `organization:${topic.organizationId}`);

/**
 * Sends a change to a subscriber that may still see it: the credential is resolved again (it may
 * have been revoked since the upgrade) and must still reach the topic's organization.
 */
function push(deps: AppDeps, socket: Sender, state: SocketState, topic: LiveTopic, organizationId: string, message: object): void {
  const actor = optionalActor(deps, state.upgradeRequest!);
  if (!actor) {
    send(socket, { type: 'error', code: 'unauthenticated', message: 'the session or API token of this socket has ended' });
    return void socket.close(CREDENTIAL_ENDED_CLOSE_CODE, 'credential ended');
  }
  if (canSee(actor, organizationId)) return void send(socket, message);
  stopListening(state, topic);
  send(socket, { type: 'error', code: 'not_found', message: 'no longer a member of its organization', ...topic });
}

function stopListening(state: SocketState, topic: LiveTopic): void {
  state.subscriptions?.get(topicKey(topic))?.();
  state.subscriptions?.delete(topicKey(topic));
}

/** Checks access, starts listening and answers the snapshot; throws DomainError when refused. */
function listen(deps: AppDeps, socket: Sender, state: SocketState, topic: LiveTopic): () => void {
  const { feed } = deps.hub;
  const actor = state.clientActor!;
  if ('organizationId' in topic) {
    const { organizationId } = topic;
    authorize(actor, organizationId, 'read', 'organization');
    const stop = feed.subscribeServers(organizationId, (event) => push(deps, socket, state, topic, organizationId, presentServerChange(event)));
    send(socket, { type: 'subscribed', organizationId, servers: serversOfOrganization(deps.db, organizationId).map(presentServer) });
    return stop;
  }
  const { environmentId } = topic;
  const { organizationId } = loadEnvironment(deps.db, actor, environmentId, 'read');
  const stop = feed.subscribe(environmentId, (event) => push(deps, socket, state, topic, organizationId, presentChange(event)));
  send(socket, {
    type: 'subscribed',
    environmentId,
    deployments: latestDeploymentsOf(deps.db, environmentId, SNAPSHOT_DEPLOYMENTS).map(presentDeployment),
    containers: containersOfEnvironment(deps.db, environmentId).map(presentContainer),
  });
  return stop;
}

function subscribe(deps: AppDeps, socket: Sender, state: SocketState, topic: LiveTopic): void {
  const subscriptions = (state.subscriptions ??= new Map());
  const key = topicKey(topic);
  if (subscriptions.has(key)) {
    const empty = 'environmentId' in topic ? { deployments: [], containers: [] } : { servers: [] };
    return void send(socket, { type: 'subscribed', ...topic, ...empty });
  }
  if (subscriptions.size >= MAX_SUBSCRIPTIONS_PER_SOCKET) {
    throw new DomainError('too_many_subscriptions', `at most ${MAX_SUBSCRIPTIONS_PER_SOCKET} subscriptions per socket`);
  }
  subscriptions.set(key, listen(deps, socket, state, topic));
}

function handleMessage(deps: AppDeps, socket: Sender, state: SocketState, message: unknown): void {
  const parsed = v.safeParse(LiveClientMessage, message);
  if (!parsed.success) {
    return void send(socket, {
      type: 'error',
      code: 'invalid_message',
      message: 'expected {"type":"subscribe"|"unsubscribe"} with one of "environmentId" and "organizationId" (a uuid)',
    });
  }
  const { type, environmentId, organizationId } = parsed.output;
  const topic: LiveTopic = environmentId !== undefined ? { environmentId } : { organizationId: organizationId! };
  try {
    if (type === 'subscribe') return subscribe(deps, socket, state, topic);
    stopListening(state, topic);
    send(socket, { type: 'unsubscribed', ...topic });
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    send(socket, { type: 'error', code: error.code, message: error.message, ...topic });
  }
}

export const clientSocketRoutes = (deps: AppDeps) =>
  new Elysia({ name: 'ws-client' }).ws(CLIENT_WS_PATH, {
    beforeHandle(context) {
      const state = context as unknown as SocketState;
      state.clientActor = authenticateUpgrade(deps, context.request);
      state.upgradeRequest = context.request;
    },
    message(ws, message) {
      handleMessage(deps, ws, ws.data as unknown as SocketState, message);
    },
    close(ws) {
      const state = ws.data as unknown as SocketState;
      for (const stop of state.subscriptions?.values() ?? []) stop();
      state.subscriptions?.clear();
    },
  });
