/**
 * /ws/daemon/v1: the transport of the daemon hub (src/daemon/hub.ts).
 *
 * - TCP listener: `Authorization: Bearer <daemon credential>` is checked BEFORE the upgrade; an
 *   unknown, rotated or missing credential answers 401 and no socket is opened.
 * - Unix-socket listener (the local slot, mode 0600): `Authorization: Bearer <local daemon
 *   credential>` (src/daemon/local-credential.ts), checked before the upgrade like the TCP one;
 *   the hub maps the connection to the local server record. Which listener an app instance
 *   serves comes from its deps (`listener`), never from anything the request says.
 *
 * The route is Elysia's kind of WebSocket route ("WS", what `.ws()` registers) without `.ws()`'s
 * wrapper around every socket (an Elysia context copied into it, a wrapper object per event, the
 * upgrade hook run twice): the hub needs the exact text of each frame (Elysia JSON-parses messages;
 * the frame size limit is counted in bytes of the original), and the upgrade itself is the hub's
 * work, checked and done when the hub's turn allows (DaemonHub.admit): in a reconnect storm,
 * hundreds of upgrades arrive in one event-loop turn. The socket's callbacks are handed to Bun in
 * its data, where Elysia's Bun adapter calls them (`ws.data.<event>`).
 */
import type { ServerWebSocket } from 'bun';
import { Elysia, status } from 'elysia';
import type { AppDeps } from '../../deps.ts';
import { bearerOf } from '../plugins/guard.ts';
import { DAEMON_WS_PATH } from '../../contract/daemon-protocol.ts';
import type { DaemonHub } from '../../daemon/hub.ts';
import type { HubClaim, HubConnection } from '../../daemon/hub/connection.ts';
import { DomainError } from '../../lib/errors.ts';

/** The claim of an upgrade, or a 401 before any socket exists. */
function daemonClaimOf(deps: Pick<AppDeps, 'hub' | 'listener' | 'logger'>, request: Request): HubClaim {
  if (deps.listener === 'unix') {
    if (deps.hub.authenticateLocal(bearerOf(request))) return { listener: 'unix' };
    deps.logger.warn('refused a client on the local daemon socket: it did not present the local daemon credential');
    throw new DomainError('unauthenticated', 'the local daemon credential is required (panel daemon run --local --credential-file <file>)');
  }
  const serverId = deps.hub.authenticate(bearerOf(request));
  if (!serverId) throw new DomainError('unauthenticated', 'a daemon credential is required; run panel daemon join');
  return { listener: 'tcp', serverId };
}

/** What Bun calls for the socket's events (through Elysia's adapter). */
function socketEvents(hub: DaemonHub, claim: HubClaim) {
  let connection: HubConnection;
  return {
    open: (socket: ServerWebSocket<unknown>) => void (connection = hub.open(socket, claim)),
    message: (_socket: ServerWebSocket<unknown>, message: string | Buffer) => hub.receive(connection, message),
    close: (_socket: ServerWebSocket<unknown>, code: number, reason: string) => hub.closed(connection, code, reason),
  };
}

export const daemonSocketRoutes = (deps: AppDeps) =>
  new Elysia({ name: 'ws-daemon' }).route('WS', DAEMON_WS_PATH, ({ request, server }) =>
    deps.hub.admit(() => {
      const claim = daemonClaimOf(deps, request);
      // As `.ws()` answers a request Bun cannot upgrade.
      return server?.upgrade(request, { data: socketEvents(deps.hub, claim) }) ? undefined : status(400, 'Expected a websocket connection');
    }),
  );
