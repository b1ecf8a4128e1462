/**
 * The daemon hub (control plane side of /ws/daemon/v1, ARCHITECTURE.md §6). ONE hub per
 * process, shared by the TCP and the unix-socket app instances, so there is one view of which
 * daemon is connected and one change feed.
 *
 * - Remote daemons authenticate with their bearer credential BEFORE the upgrade (the route
 *   answers 401 otherwise); the credential decides the server record. The local daemon comes
 *   over the unix socket with the local credential (src/daemon/local-credential.ts), also
 *   checked before the upgrade, and always maps to the single local record (is_local), created
 *   for the installing organization on its first hello. Its daemon key is pinned on first use:
 *   a hello with another key is refused (4010) and changes nothing; only an operator's reset
 *   (src/domain/servers/local-key.ts) lets the next hello bring a new one.
 * - The first frame must be `hello` within helloTimeoutMs (else close 4008). A hello naming
 *   another server id than the credential's is refused (4003). A newer connection of a server
 *   replaces the older one (closed with 4009): one canonical record, never a second row.
 * - Two machines presenting one identity (a second live connection from another machine or
 *   hostname, a hello whose machine id differs from the record's, or a machine id another record
 *   already holds) flag the records `duplicate_machine_id` and log a warning; nothing is merged.
 * - Frames are parsed with parseFrame: malformed or oversized frames close the connection with
 *   the protocol's close code and reason.
 * - On hello, and whenever a command is queued, the server's open commands are sent oldest
 *   first; one connection never gets a command twice (a reconnect gets the open ones again and
 *   the daemon's journal answers repeats without running them).
 * - tick() (every tickIntervalMs once started; tests call it with a manual clock) closes
 *   connections without hello or silent for idleTimeoutMs, pings every pingIntervalMs, writes
 *   last_seen_at in one batch and runs the command expiry sweep.
 * - `fabric` frames (the server's overlay fabric state) are recorded; fabric commands they cause
 *   (a new key reconciles the mesh, a member behind gets its configuration again) are dispatched.
 * - Connects and disconnects are published through the notifier (src/domain/notify.ts) for
 *   /ws/client/v1; the tick's last_seen_at touches of connected servers are not (a connected
 *   server is seen now).
 * - The hello handshake is src/daemon/hub/hello.ts. A hello is answered (welcome, open commands)
 *   when it is handled; the record it connects and the records disconnects leave, with their
 *   events, are written after that turn in batches (src/daemon/hub/hellos.ts,
 *   src/daemon/hub/disconnects.ts): thousands of daemons reconnecting at once are a few hundred
 *   commits between which requests are served, not one commit each.
 * - Upgrades (the credential check and the upgrade, `admit`), frames and those batches are the
 *   hub's work, which holds an event-loop turn for TURN_BUDGET_MS at most
 *   (src/daemon/hub/slices.ts): beyond it, work waits for later turns, in arrival order, and
 *   requests are served in between.
 * - The hub keeps sockets, timers and framing. What a frame changes in the database, and in which
 *   transaction, is the domain's: src/domain/daemons/outcomes.ts (ack, result, report, expiry,
 *   undeliverable commands), src/domain/daemons/fabric.ts (fabric state) and
 *   src/domain/daemons/connections.ts (the records behind connections).
 */
import type { Db } from '../db/client.ts';
import { safeEqual } from '../crypto/primitives.ts';
import type { Server } from '../db/schema/index.ts';
import { markDelivered, openCommandsOf } from '../domain/commands/service.ts';
import { serverIdForCredential } from '../domain/servers/enroll.ts';
import type { Clock } from '../lib/clock.ts';
import type { Logger } from '../lib/logger.ts';
import { type HubClaim, HubConnection, type HubSocket } from './hub/connection.ts';
import { DisconnectBatches } from './hub/disconnects.ts';
import { ChangeFeed } from './hub/feed.ts';
import { admitHello } from './hub/hello.ts';
import { HelloBatches } from './hub/hellos.ts';
import { WorkSlices } from './hub/slices.ts';
import { Observability, type ObservabilityOptions, WATCHED_METRICS_INTERVAL_MS } from './hub/observability.ts';
import { findLocalServer, firstOrganizationId, markAllDisconnected, touchLastSeen } from '../domain/daemons/connections.ts';
import { expireCommands, failUndeliverableCommand, onAck, onIngress, onReport, onResult, type OutcomeContext } from '../domain/daemons/outcomes.ts';
import { onFabricStatus } from '../domain/daemons/fabric.ts';
import type { Notifier } from '../domain/notify.ts';
import { CLOSE_CODES, type CommandFrame, encodeFrame, type Frame, FrameError, type HelloFrame, MAX_HUB_FRAME_BYTES, type ObservabilityFeature, parseFrame } from '../contract/daemon-protocol.ts';

/** Servers whose last_seen_at one statement of the tick writes. */
export const LAST_SEEN_BATCH = 500;

/** The observability frames this hub takes (announced in the welcome). */
export const HUB_FEATURES: ObservabilityFeature[] = ['output', 'logs', 'metrics'];

export type Listener = 'tcp' | 'unix';

export interface HubOptions {
  db: Db;
  clock: Clock;
  logger: Logger;
  /** What the local daemon must present on the unix socket; without one the local slot refuses everyone. */
  localCredential?: string;
  helloTimeoutMs?: number;
  pingIntervalMs?: number;
  idleTimeoutMs?: number;
  tickIntervalMs?: number;
  expirySweepIntervalMs?: number;
  /**
   * How the hub measures its work in an event-loop turn, in ms (src/daemon/hub/slices.ts):
   * performance.now unless given. Not `clock`, which tests move by minutes within one turn.
   */
  turnClock?: () => number;
  /** Log retention, webhook policy and the key ring for webhook secrets (issue 19). */
  observe?: ObservabilityOptions;
}

export class DaemonHub {
  readonly feed: ChangeFeed;
  /** Logs, deploy logs, metrics, events and webhooks (src/daemon/hub/observability.ts). */
  readonly observe: Observability;
  /** What use cases tell the process after a commit (src/domain/notify.ts): the feed and command delivery. */
  readonly notifier: Notifier;
  private readonly connections = new Set<HubConnection>();
  private readonly byServer = new Map<string, HubConnection>();
  private readonly outcomes: OutcomeContext;
  private readonly helloTimeoutMs: number;
  private readonly pingIntervalMs: number;
  private readonly idleTimeoutMs: number;
  private readonly tickIntervalMs: number;
  private readonly expirySweepIntervalMs: number;
  private readonly hellos: HelloBatches;
  private readonly disconnects: DisconnectBatches;
  private readonly slices: WorkSlices;
  private nextConnectionId = 1;
  private lastSweepAt = Number.NEGATIVE_INFINITY;
  private interval: ReturnType<typeof setInterval> | null = null;

  constructor(private readonly options: HubOptions) {
    this.helloTimeoutMs = options.helloTimeoutMs ?? 10_000;
    this.pingIntervalMs = options.pingIntervalMs ?? 30_000;
    this.idleTimeoutMs = options.idleTimeoutMs ?? 90_000;
    this.tickIntervalMs = options.tickIntervalMs ?? 5_000;
    this.expirySweepIntervalMs = options.expirySweepIntervalMs ?? 60_000;
    this.feed = new ChangeFeed((error) => options.logger.error('change listener failed', { error: String(error) }));
    const feed = this.feed;
    this.notifier = {
      deployment: (row) => feed.deployment(row),
      containers: (environmentId, rows) => feed.containers(environmentId, rows),
      server: (row) => feed.server(row),
      serverDeleted: (row) => feed.serverDeleted(row),
      dispatch: (serverId) => void this.dispatch(serverId),
      credentialRotated: (serverId) => void this.disconnect(serverId, CLOSE_CODES.unauthorized, 'credential rotated by a new enrollment'),
    };
    this.slices = new WorkSlices(
      options.turnClock ?? (() => performance.now()),
      (error) => options.logger.error('daemon hub work failed', { error: (error as Error).message }),
    );
    const later = (work: () => void) => this.slices.later(work);
    this.observe = new Observability(options.db, options.clock, options.logger, options.observe ?? {}, (serverId, intervalMs) => this.sendWatch(serverId, intervalMs));
    this.disconnects = new DisconnectBatches({
      ...options,
      later,
      isConnected: (serverId) => this.byServer.has(serverId),
      disconnected: (rows) => this.serversChanged(rows, false),
    });
    this.hellos = new HelloBatches({
      ...options,
      later,
      isCurrent: ({ connection, row }) => this.byServer.get(row.id) === connection,
      connected: (rows) => this.serversChanged(rows, true),
      // As for a frame that fails: closed (1011); the daemon reconnects and says hello again.
      refused: ({ connection }) => this.terminate(connection, 1011, 'internal error'),
    });
    this.outcomes = { db: options.db, notify: this.notifier, logger: options.logger, now: () => options.clock.now(), observe: this.observe };
  }

  private now(): number {
    return this.options.clock.now().getTime();
  }

  /** The id of the server a bearer credential belongs to (checked before the upgrade), else undefined. */
  authenticate(credential: string | null): string | undefined {
    return credential ? serverIdForCredential(this.options.db, credential) : undefined;
  }

  /**
   * An upgrade (its credential check and the upgrade itself, src/http/ws/daemon.ts), run as the
   * hub's work (src/daemon/hub/slices.ts): now when this turn allows, answering what `upgrade`
   * answers or throws; else in a later turn, answering a promise of it. The credential is checked
   * when the upgrade runs, so one rotated meanwhile is refused.
   */
  admit<T>(upgrade: () => T): T | Promise<T> {
    return this.slices.answer(upgrade);
  }

  /** Whether a unix-socket upgrade presented the local daemon credential (constant time). */
  authenticateLocal(credential: string | null): boolean {
    const expected = this.options.localCredential;
    const matches = safeEqual(credential ?? '', expected ?? '');
    return expected !== undefined && credential !== null && matches;
  }

  /** A socket was upgraded; it must say hello before anything else. */
  open(socket: HubSocket, claim: HubClaim): HubConnection {
    const connection = new HubConnection(this.nextConnectionId++, socket, claim, this.now());
    this.connections.add(connection);
    return connection;
  }

  /**
   * One frame from a daemon, handled as the hub's work (now when this turn allows, else in a later
   * turn, in arrival order); an internal failure closes the connection (1011) rather than escaping.
   */
  receive(connection: HubConnection, message: string | Buffer | ArrayBuffer | Uint8Array): void {
    this.slices.run(() => this.receiveNow(connection, message));
  }

  private receiveNow(connection: HubConnection, message: string | Buffer | ArrayBuffer | Uint8Array): void {
    try {
      this.handle(connection, message);
    } catch (error) {
      this.options.logger.error('daemon frame handling failed', { serverId: connection.serverId, error: (error as Error).message });
      this.terminate(connection, 1011, 'internal error');
    }
  }

  private handle(connection: HubConnection, message: string | Buffer | ArrayBuffer | Uint8Array): void {
    // A frame waits for its turn behind others, and its socket may have closed meanwhile: what an
    // admitted daemon sent before closing (an ack, a result, a report) is still applied.
    if (connection.endedByHub || (connection.closed && !connection.serverId)) return;
    if (typeof message !== 'string') return this.terminate(connection, CLOSE_CODES.malformedFrame, 'binary frames are not accepted');
    let frame: Frame;
    try {
      frame = parseFrame(message);
    } catch (error) {
      if (!(error instanceof FrameError)) throw error;
      this.options.logger.warn('refused a daemon frame', { serverId: connection.serverId, code: error.closeCode, reason: error.closeReason });
      return this.terminate(connection, error.closeCode, error.closeReason);
    }
    connection.lastFrameAt = this.now();
    connection.seenSinceTick = true;
    if (!connection.serverId) {
      if (frame.type !== 'hello') return this.terminate(connection, CLOSE_CODES.unexpectedFrame, `expected hello, got ${frame.type}`);
      return this.onHello(connection, frame);
    }
    const daemon = { serverId: connection.serverId, organizationId: connection.organizationId! };
    switch (frame.type) {
      case 'ack':
        return onAck(this.outcomes, daemon, frame.id);
      case 'result':
        // A finished command is no longer open, so it cannot be sent again: forget the id.
        connection.sent.delete(frame.id);
        return onResult(this.outcomes, daemon, frame);
      case 'report':
        return onReport(this.outcomes, daemon, frame);
      case 'output':
      case 'logs':
      case 'metrics':
        return this.observed(connection, daemon, frame);
      case 'ingress':
        return onIngress(this.outcomes, daemon, frame);
      case 'fabric': {
        const first = !connection.fabricReported;
        connection.fabricReported = true;
        return onFabricStatus(this.outcomes, daemon, frame, first);
      }
      case 'ping':
        return this.send(connection, { type: 'pong', ts: frame.ts });
      case 'pong':
        return;
      default:
        return this.terminate(connection, CLOSE_CODES.unexpectedFrame, `unexpected ${frame.type} frame from a daemon`);
    }
  }

  /** Observability frames: failures are logged, never the end of the daemon's connection. */
  private observed(connection: HubConnection, daemon: { serverId: string; organizationId: string }, frame: Extract<Frame, { type: 'output' | 'logs' | 'metrics' }>): void {
    try {
      if (frame.type === 'output') this.observe.output(daemon, frame);
      else if (frame.type === 'logs') this.observe.logs.ingest(daemon, frame);
      else this.observe.metrics.ingest(daemon, frame);
    } catch (error) {
      this.options.logger.error('cannot keep observability data from a daemon', { serverId: connection.serverId, type: frame.type, error: (error as Error).message });
    }
  }

  /** Sends the daemon its metrics interval, when it is connected and said it takes `watch`. */
  private sendWatch(serverId: string, intervalMs: number): void {
    const connection = this.byServer.get(serverId);
    if (connection?.hello?.features?.includes('watch')) this.send(connection, { type: 'watch', metricsIntervalMs: intervalMs });
  }

  /** The socket closed (either side). */
  closed(connection: HubConnection, code?: number, reason?: string): void {
    if (!connection.closed) this.options.logger.info('daemon disconnected', { serverId: connection.serverId, code, reason });
    connection.closed = true;
    this.forget(connection);
  }

  private onHello(connection: HubConnection, hello: HelloFrame): void {
    const helloContext = { ...this.options, terminate: (closing: HubConnection, code: number, reason: string) => this.terminate(closing, code, reason) };
    const admitted = admitHello(helloContext, connection, hello, (serverId) => this.byServer.get(serverId));
    if (!admitted) return;
    const server = admitted.row;
    const previous = this.byServer.get(server.id);
    connection.serverId = server.id;
    connection.organizationId = server.organizationId;
    connection.hello = hello;
    this.byServer.set(server.id, connection);
    if (previous && previous !== connection) this.terminate(previous, CLOSE_CODES.replaced, 'replaced by a newer connection of this server');
    this.options.logger.info('daemon connected', { serverId: server.id, local: server.isLocal, hostname: hello.hostname, version: hello.version });
    this.hellos.add({ connection, row: server, hello, at: this.options.clock.now(), outcome: admitted.outcome });
    this.send(connection, { type: 'welcome', serverId: server.id, features: HUB_FEATURES });
    if (this.observe.isWatched(server.id)) this.sendWatch(server.id, WATCHED_METRICS_INTERVAL_MS);
    this.deliver(connection);
  }

  /**
   * Sends the server's open commands this connection has not had yet; answers how many. Never
   * throws: the commands are durable, and whatever fails here is retried on the next connect.
   */
  dispatch(serverId: string): number {
    const connection = this.byServer.get(serverId);
    if (!connection) return 0;
    try {
      return this.deliver(connection);
    } catch (error) {
      this.options.logger.error('delivering commands failed', { serverId, error: (error as Error).message });
      return 0;
    }
  }

  private deliver(connection: HubConnection): number {
    const { db } = this.options;
    const now = this.options.clock.now();
    let sent = 0;
    for (const command of openCommandsOf(db, connection.serverId!, now)) {
      if (connection.sent.has(command.id) || connection.closed) continue;
      const frame = { type: 'command', id: command.id, kind: command.kind, payload: command.payload } as CommandFrame;
      let text: string;
      try {
        text = encodeFrame(frame, MAX_HUB_FRAME_BYTES);
      } catch (error) {
        failUndeliverableCommand(this.outcomes, command.id, (error as Error).message);
        continue;
      }
      connection.sent.add(command.id);
      connection.socket.send(text);
      markDelivered(db, command.id, now);
      sent++;
    }
    return sent;
  }

  /** Closes the server's live connection, if any (its credential was rotated or revoked). */
  disconnect(serverId: string, code: number, reason: string): boolean {
    const connection = this.byServer.get(serverId);
    if (!connection) return false;
    this.terminate(connection, code, reason);
    return true;
  }

  isConnected(serverId: string): boolean {
    return this.byServer.has(serverId);
  }

  /** Daemons that said hello and are connected now. */
  get connectedCount(): number {
    return this.byServer.size;
  }

  /** The local slot's server record, and the organization it belongs (or will belong) to. */
  localSlot(): { local: Server | undefined; slotOrganizationId: string | undefined } {
    const local = findLocalServer(this.options.db);
    return { local, slotOrganizationId: local?.organizationId ?? firstOrganizationId(this.options.db) };
  }

  /** Live connections, with or without hello. */
  get connectionCount(): number {
    return this.connections.size;
  }

  /**
   * Timeouts, pings, last_seen_at and the expiry sweep. last_seen_at is written after the tick's
   * turn, LAST_SEEN_BATCH servers a statement (10,000 in one took 21-30 ms of CPU). Hellos and
   * disconnects waiting to be written are left to their batches (a tick writing them all at once
   * held the event loop, in a reconnect storm, for as long as thousands of writes take); only
   * disconnects a failed write left are tried again.
   */
  tick(): void {
    const now = this.now();
    const seen: string[] = [];
    for (const connection of [...this.connections]) {
      if (!connection.serverId) {
        if (now - connection.openedAt >= this.helloTimeoutMs) this.terminate(connection, CLOSE_CODES.helloTimeout, 'no hello in time');
        continue;
      }
      if (connection.seenSinceTick) seen.push(connection.serverId);
      connection.seenSinceTick = false;
      if (now - connection.lastFrameAt >= this.idleTimeoutMs) {
        this.terminate(connection, CLOSE_CODES.goingAway, 'no frame from the daemon in time');
      } else if (now - connection.lastPingAt >= this.pingIntervalMs) {
        connection.lastPingAt = now;
        this.send(connection, { type: 'ping', ts: now });
      }
    }
    const seenAt = new Date(now);
    for (let start = 0; start < seen.length; start += LAST_SEEN_BATCH) {
      const batch = seen.slice(start, start + LAST_SEEN_BATCH);
      this.slices.later(() => touchLastSeen(this.options.db, batch, seenAt));
    }
    this.disconnects.retry();
    if (now - this.lastSweepAt >= this.expirySweepIntervalMs) {
      this.lastSweepAt = now;
      expireCommands(this.outcomes);
    }
  }

  /** Runs tick() on a timer; servers left `connected` by a previous process become disconnected. */
  start(): void {
    if (this.interval) return;
    markAllDisconnected(this.options.db);
    this.observe.start();
    this.interval = setInterval(() => {
      try {
        this.tick();
      } catch (error) {
        this.options.logger.error('daemon hub tick failed', { error: (error as Error).message });
      }
    }, this.tickIntervalMs);
    this.interval.unref?.();
  }

  /** Stops the timer and closes every connection (1001: the daemons reconnect with backoff); what waits is done first. */
  stop(): void {
    if (this.interval) clearInterval(this.interval);
    this.interval = null;
    this.slices.drain();
    this.flushHellos(Number.POSITIVE_INFINITY);
    for (const connection of [...this.connections]) this.terminate(connection, CLOSE_CODES.goingAway, 'control plane stopping');
    this.flushDisconnects(Number.POSITIVE_INFINITY);
    this.observe.stop();
  }

  /** Writes the hellos answered so far (src/daemon/hub/hellos.ts); stop writes them all. */
  flushHellos(limit?: number): void {
    this.hellos.flush(limit);
  }

  /** Writes the disconnects of the closes so far (src/daemon/hub/disconnects.ts); stop writes them all. */
  flushDisconnects(limit?: number): void {
    this.disconnects.flush(limit);
  }

  /** Servers a batch recorded connected or disconnected: the client feed, and their events in one transaction. */
  private serversChanged(rows: Server[], connected: boolean): void {
    for (const row of rows) this.notifier.server(row);
    this.observe.serversChanged(rows, connected);
  }

  private send(connection: HubConnection, frame: Frame): void {
    if (!connection.closed) connection.socket.send(encodeFrame(frame));
  }

  private terminate(connection: HubConnection, code: number, reason: string): void {
    if (connection.closed) return;
    connection.closed = true;
    connection.endedByHub = true;
    try {
      connection.socket.close(code, reason);
    } catch {
      // already closing
    }
    this.forget(connection);
  }

  /** Drops the connection; its server becomes disconnected (flushDisconnects) unless a newer connection took over. */
  private forget(connection: HubConnection): void {
    this.connections.delete(connection);
    const { serverId } = connection;
    if (serverId && this.byServer.get(serverId) === connection) {
      this.byServer.delete(serverId);
      this.disconnects.add(serverId, this.options.clock.now());
    }
  }
}
