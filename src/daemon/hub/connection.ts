/** One daemon's WebSocket as the hub (src/daemon/hub.ts) keeps it. */
import type { HelloFrame } from '../../contract/daemon-protocol.ts';

/** What the hub needs of a socket: Bun's ServerWebSocket, or a fake in tests. */
export interface HubSocket {
  send(text: string): unknown;
  close(code?: number, reason?: string): void;
}

/** Who the upgrade said is connecting: a credential's server (tcp) or the local slot (unix). */
export type HubClaim = { listener: 'tcp'; serverId: string } | { listener: 'unix' };

export class HubConnection {
  serverId: string | null = null;
  organizationId: string | null = null;
  hello: HelloFrame | null = null;
  lastFrameAt: number;
  lastPingAt: number;
  seenSinceTick = false;
  /** The socket is closed, by either side: nothing more is sent on it, and no hello is taken. */
  closed = false;
  /**
   * The hub closed it (a refused frame, a replaced connection, stopping): frames still waiting for
   * their turn are dropped. Frames a daemon sent before closing its socket itself still count.
   */
  endedByHub = false;
  /** Whether a `fabric` frame came on this connection yet (the first one retries a failed configuration). */
  fabricReported = false;
  /** Command ids sent on this connection: never twice on one connection. */
  readonly sent = new Set<string>();

  constructor(
    readonly id: number,
    readonly socket: HubSocket,
    readonly claim: HubClaim,
    readonly openedAt: number,
  ) {
    this.lastFrameAt = openedAt;
    this.lastPingAt = openedAt;
  }
}
