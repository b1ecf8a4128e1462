/**
 * /ws/client/v1: live changes of environments for the console and API clients.
 *
 * The upgrade is authenticated like any client request (authenticateUpgrade: a session cookie
 * from PANEL_PUBLIC_URL's origin, or a bearer API token); otherwise 401/403 and no socket.
 *
 * Client -> server (JSON text):
 *   {"type":"subscribe","environmentId":"<uuid>"}     needs read access to the environment
 *   {"type":"unsubscribe","environmentId":"<uuid>"}
 * Server -> client:
 *   {"type":"subscribed","environmentId", "deployments":[newest 10...], "containers":[...]}   snapshot
 *   {"type":"deployment","environmentId","deployment":{...}}   every change of a deployment row
 *   {"type":"container","environmentId","container":{...}}     every change of a container row
 *   {"type":"unsubscribed","environmentId"}
 *   {"type":"error","code","message","environmentId"?}          e.g. not_found for another
 *                                                               organization's environment: no data
 * Rows are shaped as GET /deployments/:id and GET /containers/:id answer them.
 */
import { Elysia } from 'elysia';
import * as v from 'valibot';
import type { AppDeps } from '../../app.ts';
import type { ChangeEvent } from '../../daemon/hub/feed.ts';
import type { Actor } from '../../domain/actor.ts';
import { containersOfEnvironment, latestDeploymentsOf } from '../../domain/deployments/queries.ts';
import { loadEnvironment } from '../../domain/environments/service.ts';
import { DomainError } from '../../lib/errors.ts';
import { presentContainer } from '../client/v1/containers.ts';
import { presentDeployment } from '../client/v1/deployments.ts';
import { authenticateUpgrade } from '../plugins/ws-auth.ts';

export const CLIENT_WS_PATH = '/ws/client/v1';
export const MAX_SUBSCRIPTIONS_PER_SOCKET = 100;
const SNAPSHOT_DEPLOYMENTS = 10;

const ClientMessage = v.variant('type', [
  v.object({ type: v.literal('subscribe'), environmentId: v.pipe(v.string(), v.uuid()) }),
  v.object({ type: v.literal('unsubscribe'), environmentId: v.pipe(v.string(), v.uuid()) }),
]);

interface SocketState {
  clientActor?: Actor;
  subscriptions?: Map<string, () => void>;
}

interface Sender {
  send(data: string): unknown;
}

const send = (socket: Sender, message: object) => socket.send(JSON.stringify(message));

export function presentChange(event: ChangeEvent) {
  return event.type === 'deployment'
    ? { type: 'deployment', environmentId: event.environmentId, deployment: presentDeployment(event.deployment) }
    : { type: 'container', environmentId: event.environmentId, container: presentContainer(event.container) };
}

function subscribe(deps: AppDeps, socket: Sender, state: SocketState, environmentId: string): void {
  const subscriptions = (state.subscriptions ??= new Map());
  if (subscriptions.has(environmentId)) return void send(socket, { type: 'subscribed', environmentId, deployments: [], containers: [] });
  if (subscriptions.size >= MAX_SUBSCRIPTIONS_PER_SOCKET) {
    throw new DomainError('too_many_subscriptions', 429, `at most ${MAX_SUBSCRIPTIONS_PER_SOCKET} subscriptions per socket`);
  }
  loadEnvironment(deps.db, state.clientActor!, environmentId, 'read');
  subscriptions.set(environmentId, deps.hub.feed.subscribe(environmentId, (event) => send(socket, presentChange(event))));
  send(socket, {
    type: 'subscribed',
    environmentId,
    deployments: latestDeploymentsOf(deps.db, environmentId, SNAPSHOT_DEPLOYMENTS).map(presentDeployment),
    containers: containersOfEnvironment(deps.db, environmentId).map(presentContainer),
  });
}

function handleMessage(deps: AppDeps, socket: Sender, state: SocketState, message: unknown): void {
  const parsed = v.safeParse(ClientMessage, message);
  if (!parsed.success) {
    return void send(socket, { type: 'error', code: 'invalid_message', message: 'expected {"type":"subscribe"|"unsubscribe","environmentId":"<uuid>"}' });
  }
  const { type, environmentId } = parsed.output;
  try {
    if (type === 'subscribe') return subscribe(deps, socket, state, environmentId);
    state.subscriptions?.get(environmentId)?.();
    state.subscriptions?.delete(environmentId);
    send(socket, { type: 'unsubscribed', environmentId });
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    send(socket, { type: 'error', code: error.code, message: error.message, environmentId });
  }
}

export const clientSocketRoutes = (deps: AppDeps) =>
  new Elysia({ name: 'ws-client' }).ws(CLIENT_WS_PATH, {
    beforeHandle(context) {
      (context as unknown as SocketState).clientActor = authenticateUpgrade(deps, context.request);
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
