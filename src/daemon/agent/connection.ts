/**
 * The agent's connection to the hub: one WebSocket at a time to /ws/daemon/v1 (TCP with the
 * enrolled bearer credential, or the local unix socket with the local daemon credential),
 * `hello` as the first frame, then command -> ack -> run (interim reports while it runs) ->
 * report -> result, and pong for every ping. When the socket ends the agent reconnects after a
 * jittered exponential backoff of 1-30 s (a missing or refused unix socket is said once, then
 * waited for quietly); it parks (stops for good, logging why) when the hub refuses the
 * credential: close code 4003 or HTTP 401/403 on upgrade. A local daemon whose key is refused
 * (4010) keeps retrying every 30 s.
 * Randomness and waiting are injected so tests never sleep.
 */
import { connect } from 'node:net';
import { resolve } from 'node:path';
import { sleepUnlessAborted } from '../../lib/clock.ts';
import type { Logger } from '../../lib/logger.ts';
import {
  CLOSE_CODES,
  type CommandFrame,
  encodeFrame,
  type Frame,
  FrameError,
  type HelloFrame,
  MAX_HUB_FRAME_BYTES,
  parseFrame,
  type ResultFrame,
} from '../../contract/daemon-protocol.ts';
import type { CommandJournal } from './command-journal.ts';
import type { CommandOutcome, ProjectReport } from './compose-runner.ts';

/** Bun's client takes upgrade headers (and ws+unix:// urls); the DOM typings of `WebSocket` do not say so. */
const BunWebSocket = WebSocket as unknown as new (url: string, options: Bun.WebSocketOptions) => WebSocket;

export const MIN_BACKOFF_MS = 1_000;
export const MAX_BACKOFF_MS = 30_000;
/** After 1013 (the local daemon before the install): soon, so the install connects this machine at once. */
export const TRY_AGAIN_LATER_MS = 2_000;
/** The hub pings more often than this; silence this long means a dead link. */
export const DEFAULT_IDLE_TIMEOUT_MS = 90_000;

/**
 * Delay before reconnect attempt `attempt` (0-based): "equal jitter" over an exponential
 * ceiling, min(30 s, 1 s * 2^attempt), so the delay lies in [ceiling/2, ceiling], never below 1 s.
 */
export function backoffDelay(attempt: number, random: () => number): number {
  const ceiling = Math.min(MAX_BACKOFF_MS, MIN_BACKOFF_MS * 2 ** attempt);
  return Math.max(MIN_BACKOFF_MS, Math.round(ceiling / 2 + (random() * ceiling) / 2));
}

/**
 * Where to connect: `ws(s)://host/ws/daemon/v1` or `ws+unix:///path.sock:/ws/daemon/v1`, with
 * the bearer credential, or a function that reads it before every attempt (the local daemon's
 * file; throwing means "not available yet", and the attempt is retried with backoff).
 */
export interface HubTarget {
  url: string;
  credential?: string | (() => Promise<string>);
  /** Checked before each attempt: why the hub cannot be reached now, or null. */
  unreachable?: () => Promise<string | null>;
}

/** The control plane's unix socket (a relative path is taken from the working directory) and the local credential. */
export function localHubTarget(socketPath: string, credential: HubTarget['credential']): HubTarget {
  const path = resolve(socketPath);
  return { url: `ws+unix://${path}:/ws/daemon/v1`, credential, unreachable: () => unixSocketProblem(path) };
}

/**
 * Why nothing listens at `path`, or null when something does: a missing file or a refused
 * connection means no `panel serve` there (said in one line, then waited for quietly).
 */
export function unixSocketProblem(path: string): Promise<string | null> {
  return new Promise((settle) => {
    const probe = connect(path);
    probe.once('connect', () => {
      probe.destroy();
      settle(null);
    });
    probe.once('error', (error: NodeJS.ErrnoException) => {
      const why = error.code === 'ENOENT' ? 'no such socket' : error.code === 'ECONNREFUSED' ? 'connection refused' : (error.code ?? error.message);
      settle(
        error.code === 'EACCES'
          ? `cannot open the control plane socket ${path}: permission denied; run the daemon as root or as the user panel serve runs as`
          : `no control plane at ${path} (${why}): is \`panel serve\` running? set --socket (waiting for it)`,
      );
    });
  });
}

/** What the connection needs from the rest of the agent. */
export interface AgentSession {
  /** Built before each connection attempt, so it carries current Docker versions. */
  hello(): Promise<HelloFrame>;
  onWelcome(serverId: string): Promise<void>;
  /** Runs the command; `progress` sends interim container reports while it runs. */
  execute(command: CommandFrame, progress: (report: ProjectReport) => void): Promise<CommandOutcome>;
}

export interface ConnectionOptions {
  target: HubTarget;
  session: AgentSession;
  journal: CommandJournal;
  logger: Logger;
  random?: () => number;
  /** Waits `ms`, or less when `signal` aborts. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** Calls `callback` after `ms` unless the returned cancel function runs first. */
  timer?: (callback: () => void, ms: number) => () => void;
  /** Aborting closes the socket (1000) and ends the loop. */
  signal?: AbortSignal;
  idleTimeoutMs?: number;
}

export type LoopEnd = { reason: 'stopped' } | { reason: 'parked'; detail: string };

/** How one connection ended. `upgradeStatus` is the HTTP status when the upgrade was refused. */
interface ConnectionEnd {
  code: number;
  reason: string;
  welcomed: boolean;
  upgradeStatus?: number;
}

const defaultTimer = (callback: () => void, ms: number) => {
  const handle = setTimeout(callback, ms);
  return () => clearTimeout(handle);
};

export class HubConnection {
  private socket: WebSocket | null = null;
  /** The socket the hub has welcomed: frames of the agent's own may go there. */
  private welcomedSocket: WebSocket | null = null;
  private readonly signal: AbortSignal;

  constructor(private readonly options: ConnectionOptions) {
    this.signal = options.signal ?? new AbortController().signal;
  }

  /** Connects and reconnects until stopped or parked. */
  async run(): Promise<LoopEnd> {
    const { logger, target, random = Math.random, sleep = sleepUnlessAborted } = this.options;
    let attempt = 0;
    // A failure said once is not repeated until something else happens (a welcome, another failure).
    let lastSaid = '';
    const say = (level: 'warn' | 'error', message: string, fields: Record<string, unknown>) => {
      const key = `${message}|${fields.code ?? ''}|${fields.reason ?? ''}|${fields.upgradeStatus ?? ''}`;
      logger[key === lastSaid ? 'debug' : level](message, fields);
      lastSaid = key;
    };
    while (!this.signal.aborted) {
      const problem = await target.unreachable?.();
      if (problem) {
        say('error', problem, {});
        await sleep(backoffDelay(attempt++, random), this.signal);
        continue;
      }
      const end = await this.connectOnce();
      if (this.signal.aborted) break;
      if (end.code === CLOSE_CODES.unauthorized || end.upgradeStatus === 401 || end.upgradeStatus === 403) {
        const detail = end.upgradeStatus ? `HTTP ${end.upgradeStatus} on upgrade` : `close ${end.code} ${end.reason}`.trim();
        logger.error('the control plane refused this daemon\'s credential; not reconnecting', { detail });
        return { reason: 'parked', detail };
      }
      if (end.welcomed) {
        attempt = 0;
        lastSaid = '';
      }
      const longest = end.code === CLOSE_CODES.replaced || end.code === CLOSE_CODES.localKeyRefused;
      const delay = longest ? MAX_BACKOFF_MS : end.code === CLOSE_CODES.tryAgainLater ? TRY_AGAIN_LATER_MS : backoffDelay(attempt++, random);
      const context = { code: end.code, reason: end.reason, upgradeStatus: end.upgradeStatus };
      if (end.code === CLOSE_CODES.localKeyRefused) {
        say('error', 'the control plane refused this local daemon\'s key: another key is pinned for the local server. If this daemon replaced the old one on purpose, run "panel local-daemon reset-key" where Panel runs', context);
      } else {
        const message =
          end.code === CLOSE_CODES.replaced
            ? 'replaced by another connection of this server; is a second daemon running with this identity?'
            : end.code === CLOSE_CODES.tryAgainLater
              ? 'the control plane is not ready for this daemon yet; trying again every 2 s'
              : 'disconnected from the control plane';
        say('warn', message, context);
      }
      await sleep(delay, this.signal);
    }
    logger.info('daemon connection stopped');
    return { reason: 'stopped' };
  }

  private async connectOnce(): Promise<ConnectionEnd> {
    const { target, session, logger, idleTimeoutMs = DEFAULT_IDLE_TIMEOUT_MS, timer = defaultTimer } = this.options;
    let hello: HelloFrame;
    let credential: string | undefined;
    try {
      hello = await session.hello();
    } catch (error) {
      return { code: 0, reason: `cannot prepare hello: ${(error as Error).message}`, welcomed: false };
    }
    try {
      credential = typeof target.credential === 'function' ? await target.credential() : target.credential;
    } catch (error) {
      return { code: 0, reason: `no credential: ${(error as Error).message}`, welcomed: false };
    }
    logger.debug('connecting', { url: target.url });
    return new Promise<ConnectionEnd>((resolve) => {
      const headers: Record<string, string> = credential ? { authorization: `Bearer ${credential}` } : {};
      let socket: WebSocket;
      try {
        socket = new BunWebSocket(target.url, { headers });
      } catch (error) {
        resolve({ code: 0, reason: `cannot open ${target.url}: ${(error as Error).message}`, welcomed: false });
        return;
      }
      this.socket = socket;
      let welcomed = false;
      let finished = false;
      let upgradeStatus: number | undefined;
      let cancelIdleTimer = () => {};

      // Ends this connection once: on close, or at once when the hub fell silent (a dead link
      // may never deliver the close); a finished socket's late frames are ignored.
      const finish = (code: number, reason: string) => {
        if (finished) return;
        finished = true;
        cancelIdleTimer();
        this.signal.removeEventListener('abort', onAbort);
        if (this.socket === socket) this.socket = null;
        resolve({ code, reason, welcomed, upgradeStatus });
      };
      const armIdleTimer = () => {
        cancelIdleTimer();
        cancelIdleTimer = timer(() => {
          socket.close(CLOSE_CODES.goingAway, 'no frame from the hub');
          finish(0, `no frame for ${idleTimeoutMs} ms`);
        }, idleTimeoutMs);
      };
      const onAbort = () => socket.close(CLOSE_CODES.normal, 'daemon stopping');
      this.signal.addEventListener('abort', onAbort, { once: true });

      socket.onopen = () => {
        logger.info('connected to the control plane', { url: target.url });
        this.send(socket, hello);
        armIdleTimer();
      };
      socket.onmessage = (event) => {
        if (finished) return;
        armIdleTimer();
        if (typeof event.data !== 'string') {
          socket.close(CLOSE_CODES.malformedFrame, 'binary frames are not accepted');
          return;
        }
        this.receive(socket, event.data, () => (welcomed = true));
      };
      socket.onerror = (event) => {
        // Bun reports a refused upgrade as "... Expected 101 status code: 401".
        const status = /status code: (\d{3})/.exec((event as ErrorEvent).message ?? '')?.[1];
        if (status) upgradeStatus = Number(status);
      };
      socket.onclose = (event) => finish(event.code, event.reason);
    });
  }

  private receive(socket: WebSocket, text: string, markWelcomed: () => void): void {
    let frame: Frame;
    try {
      frame = parseFrame(text, MAX_HUB_FRAME_BYTES);
    } catch (error) {
      if (!(error instanceof FrameError)) throw error;
      if (error.commandId) {
        void this.refuseCommand(socket, error.commandId, error.closeReason);
        return;
      }
      this.options.logger.warn('refused a frame from the hub', { code: error.closeCode, reason: error.closeReason });
      socket.close(error.closeCode, error.closeReason);
      return;
    }
    switch (frame.type) {
      case 'welcome':
        markWelcomed();
        this.welcomedSocket = socket;
        this.options.logger.info('welcomed by the control plane', { serverId: frame.serverId });
        void this.options.session.onWelcome(frame.serverId).catch((error) => {
          this.options.logger.error('cannot record the server id', { error: (error as Error).message });
        });
        return;
      case 'ping':
        this.send(socket, { type: 'pong', ts: frame.ts });
        return;
      case 'pong':
        return;
      case 'command':
        void this.handleCommand(socket, frame);
        return;
      default:
        socket.close(CLOSE_CODES.unexpectedFrame, `unexpected ${frame.type} frame from the hub`);
    }
  }

  /** Acks every delivery; runs an id only the first time (see command-journal.ts). */
  private async handleCommand(socket: WebSocket, command: CommandFrame): Promise<void> {
    const { journal, session } = this.options;
    if (this.answerKnownCommand(socket, command.id)) return;
    await journal.begin(command.id);
    this.send(socket, { type: 'ack', id: command.id });
    // Interim reports go on whatever socket is current; without one they are simply not sent.
    const progress = (report: ProjectReport) => {
      if (this.socket) this.send(this.socket, { type: 'report', commandId: command.id, ...report });
    };
    let outcome: CommandOutcome;
    try {
      outcome = await session.execute(command, progress);
    } catch (error) {
      outcome = { report: null, result: { ok: false, error: { code: 'internal_error', message: (error as Error).message } } };
    }
    const result: ResultFrame = { type: 'result', id: command.id, ...outcome.result };
    await journal.finish(result);
    // The socket the command came on may be gone: answer on the current one. Without one, the
    // hub redelivers the command after reconnecting and gets the recorded result.
    const current = this.socket;
    if (!current) return;
    if (outcome.report) this.send(current, { type: 'report', commandId: command.id, ...outcome.report });
    this.send(current, result);
  }

  /** A command whose payload is invalid is answered (and remembered) as failed, never run. */
  private async refuseCommand(socket: WebSocket, id: string, reason: string): Promise<void> {
    if (this.answerKnownCommand(socket, id)) return;
    this.options.logger.warn('refused an invalid command', { commandId: id, reason });
    await this.options.journal.begin(id);
    await this.options.journal.finish({ type: 'result', id, ok: false, error: { code: 'invalid_command', message: reason } });
    this.answerKnownCommand(socket, id);
  }

  /** Acks a redelivered id, with its recorded result when it has finished; false for a new id. */
  private answerKnownCommand(socket: WebSocket, id: string): boolean {
    const known = this.options.journal.get(id);
    if (!known) return false;
    this.send(socket, { type: 'ack', id });
    if (known.state === 'done') this.send(socket, known.result);
    this.options.logger.debug('command already known; not running it again', { commandId: id, state: known.state });
    return true;
  }

  /** Sends a frame of the agent's own on the welcomed connection; false when there is none. */
  notify(frame: Frame): boolean {
    const socket = this.socket;
    if (!socket || socket !== this.welcomedSocket || socket.readyState !== WebSocket.OPEN) return false;
    this.send(socket, frame);
    return true;
  }

  private send(socket: WebSocket, frame: Frame): void {
    if (socket.readyState !== WebSocket.OPEN) return;
    try {
      socket.send(encodeFrame(frame));
    } catch (error) {
      // Only a report can outgrow the frame limit (thousands of containers or huge labels).
      this.options.logger.error('cannot send a frame', { type: frame.type, error: (error as Error).message });
    }
  }
}
