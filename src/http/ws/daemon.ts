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
 * Elysia JSON-parses text messages before its `message` hook runs; the hub must see the exact
 * text (the frame size limit is counted in bytes of the original), so `open` installs the hub's
 * handlers as the socket's raw message/close callbacks (Elysia's Bun adapter dispatches every
 * socket event through `ws.data.<event>`).
 */
import type { ServerWebSocket } from 'bun';
import { Elysia } from 'elysia';
import type { AppDeps } from '../../deps.ts';
import { bearerOf } from '../plugins/guard.ts';
import { DAEMON_WS_PATH } from '../../contract/daemon-protocol.ts';
import type { HubClaim } from '../../daemon/hub/connection.ts';
import { DomainError } from '../../lib/errors.ts';


interface RawHandlers {
  daemonClaim?: HubClaim;
  message?: (socket: ServerWebSocket<unknown>, message: string | Buffer) => void;
  close?: (socket: ServerWebSocket<unknown>, code: number, reason: string) => void;
}

/** The claim of an upgrade, or a 401 before any socket exists. */
export function daemonClaimOf(deps: Pick<AppDeps, 'hub' | 'listener' | 'logger'>, request: Request): HubClaim {
  if (deps.listener === 'unix') {
    if (deps.hub.authenticateLocal(bearerOf(request))) return { listener: 'unix' };
    deps.logger.warn('refused a client on the local daemon socket: it did not present the local daemon credential');
    throw new DomainError('unauthenticated', 'the local daemon credential is required (panel daemon run --local --credential-file <file>)');
  }
  const server = deps.hub.authenticate(bearerOf(request));
  if (!server) throw new DomainError('unauthenticated', 'a daemon credential is required; run panel daemon join');
  return { listener: 'tcp', serverId: server.id };
}

export const daemonSocketRoutes = (deps: AppDeps) =>
  new Elysia({ name: 'ws-daemon' }).ws(DAEMON_WS_PATH, {
    beforeHandle(context) {
      // Elysia spreads the context into the socket's data after this hook.
      (context as unknown as RawHandlers).daemonClaim = daemonClaimOf(deps, context.request);
    },
    open(ws) {
      const raw = ws.raw as ServerWebSocket<RawHandlers>;
      const connection = deps.hub.open(raw, raw.data.daemonClaim!);
      raw.data.message = (_socket, message) => deps.hub.receive(connection, message);
      raw.data.close = (_socket, code, reason) => deps.hub.closed(connection, code, reason);
    },
    message() {
      // Replaced per socket in open().
    },
  });
