/**
 * The connection loop against a real WebSocket peer: a small Bun.serve hub speaking the protocol
 * (on 127.0.0.1, or on a unix socket for the local slot). Backoff waits are injected and resolve
 * at once, so nothing here sleeps.
 */
import { afterEach, describe, expect, test } from 'bun:test';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ServerWebSocket } from 'bun';
import { createLogger, type Logger, silentLogger } from '../../lib/logger.ts';
import { CLOSE_CODES, type CommandFrame, encodeFrame, type Frame, type HelloFrame, MAX_HUB_FRAME_BYTES, parseFrame } from '../../contract/daemon-protocol.ts';
import { CommandJournal } from './command-journal.ts';
import type { CommandOutcome } from './compose-runner.ts';
import {
  type AgentSession,
  backoffDelay,
  HubConnection,
  type HubTarget,
  localHubTarget,
  MAX_BACKOFF_MS,
  MIN_BACKOFF_MS,
  TRY_AGAIN_LATER_MS,
  unixSocketProblem,
} from './connection.ts';

const SERVER_ID = '0196a4f2-8e1c-7b3d-9f00-1234567890ab';
const DEPLOYMENT_ID = '0196a4f2-8e1c-7b3d-9f00-0000000000d1';
const CREDENTIAL = 'pdc_good';
const HELLO: HelloFrame = { type: 'hello', hostname: 'web-1', serverId: SERVER_ID, machineId: 'm-1', version: '0.1.0', docker: { version: '20.10.24', composeVersion: '2.26.1' } };
const STOP: CommandFrame = { type: 'command', id: 'cmd-1', kind: 'stop', payload: { deploymentId: DEPLOYMENT_ID, project: 'shop' } };

/** One accepted connection as the hub sees it: frames in arrival order, awaitable. */
class HubSide {
  readonly frames: Frame[] = [];
  private waiters: (() => void)[] = [];
  closed: { code: number; reason: string } | null = null;
  constructor(
    readonly socket: ServerWebSocket<{ authorization: string | null }>,
    readonly authorization: string | null,
  ) {}
  received(frame: Frame | null) {
    if (frame) this.frames.push(frame);
    for (const wake of this.waiters.splice(0)) wake();
  }
  send(frame: Frame | string) {
    this.socket.send(typeof frame === 'string' ? frame : encodeFrame(frame));
  }
  /** Resolves once `count` frames (or a close) have arrived. */
  async waitFrames(count: number): Promise<Frame[]> {
    while (this.frames.length < count && !this.closed) await new Promise<void>((wake) => this.waiters.push(wake));
    return this.frames;
  }
  async waitClosed() {
    while (!this.closed) await new Promise<void>((wake) => this.waiters.push(wake));
    return this.closed;
  }
}

/** The peer: accepts `Bearer pdc_good` (or anything on the unix socket), refuses the rest with 401. */
function startHub(listen: { unix: string } | { hostname: string; port: number }) {
  const connections: HubSide[] = [];
  const arrivals: (() => void)[] = [];
  const server = Bun.serve<{ authorization: string | null }>({
    ...listen,
    fetch(request, srv) {
      const authorization = request.headers.get('authorization');
      if ('port' in listen && authorization !== `Bearer ${CREDENTIAL}`) return new Response('unauthenticated', { status: 401 });
      return srv.upgrade(request, { data: { authorization } }) ? undefined : new Response('upgrade expected', { status: 400 });
    },
    websocket: {
      open(socket) {
        connections.push(new HubSide(socket, socket.data.authorization));
        for (const wake of arrivals.splice(0)) wake();
      },
      message(socket, message) {
        connections.find((side) => side.socket === socket)?.received(parseFrame(String(message)));
      },
      close(socket, code, reason) {
        const side = connections.find((candidate) => candidate.socket === socket);
        if (side) {
          side.closed = { code, reason };
          side.received(null);
        }
      },
    },
  });
  return {
    server,
    connections,
    async connection(index: number): Promise<HubSide> {
      while (connections.length <= index) await new Promise<void>((wake) => arrivals.push(wake));
      return connections[index]!;
    },
  };
}

type Hub = ReturnType<typeof startHub>;
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** An agent connection with a scripted session; `execute` runs `executor` and counts calls. */
function startAgent(
  target: HubTarget,
  executor: (command: CommandFrame, progress: Parameters<AgentSession['execute']>[1]) => Promise<CommandOutcome> = async (command) => outcomeFor(command),
  logger: Logger = silentLogger,
) {
  const controller = new AbortController();
  const delays: number[] = [];
  const welcomes: string[] = [];
  const executed: string[] = [];
  const idleTimers: { callback: () => void; ms: number; cancelled: boolean }[] = [];
  const session: AgentSession = {
    hello: async () => HELLO,
    onWelcome: async (serverId) => void welcomes.push(serverId),
    execute: async (command, progress) => {
      executed.push(command.id);
      return executor(command, progress);
    },
  };
  const connection = new HubConnection({
    target,
    session,
    journal: CommandJournal.inMemory(),
    logger,
    random: () => 0.5,
    // Resolves at once, but as a new task: a loop of failing attempts must not starve the event loop.
    sleep: async (ms) => {
      delays.push(ms);
      await Bun.sleep(0);
    },
    timer: (callback, ms) => {
      const entry = { callback, ms, cancelled: false };
      idleTimers.push(entry);
      return () => void (entry.cancelled = true);
    },
    signal: controller.signal,
  });
  const ended = connection.run();
  cleanups.push(async () => {
    controller.abort();
    await ended;
  });
  return { ended, delays, welcomes, executed, idleTimers, stop: () => controller.abort() };
}

const outcomeFor = (command: CommandFrame): CommandOutcome => {
  const project = 'project' in command.payload ? command.payload.project : 'none';
  return { report: { project, containers: [] }, result: { ok: true, data: { project } } };
};

async function tcpHub(): Promise<{ hub: Hub; target: HubTarget }> {
  const hub = startHub({ hostname: '127.0.0.1', port: 0 });
  cleanups.push(() => hub.server.stop(true));
  return { hub, target: { url: `ws://127.0.0.1:${hub.server.port}/ws/daemon/v1`, credential: CREDENTIAL } };
}

describe('backoffDelay', () => {
  test('grows exponentially from 1 s and never leaves 1-30 s', () => {
    for (let attempt = 0; attempt < 64; attempt++) {
      for (const random of [0, 0.25, 0.5, 0.999999, 1]) {
        const delay = backoffDelay(attempt, () => random);
        expect(delay).toBeGreaterThanOrEqual(MIN_BACKOFF_MS);
        expect(delay).toBeLessThanOrEqual(MAX_BACKOFF_MS);
      }
    }
    expect([0, 1, 2, 3, 4, 5, 6].map((attempt) => backoffDelay(attempt, () => 1))).toEqual([1000, 2000, 4000, 8000, 16000, 30000, 30000]);
  });

  test('jitter spreads reconnects over the upper half of the ceiling', () => {
    expect(backoffDelay(3, () => 0)).toBe(4000);
    expect(backoffDelay(3, () => 0.5)).toBe(6000);
    expect(backoffDelay(3, () => 1)).toBe(8000);
    expect(backoffDelay(20, () => 0)).toBe(15000);
    const spread = new Set(Array.from({ length: 50 }, (_, index) => backoffDelay(5, () => index / 50)));
    expect(spread.size).toBe(50);
  });
});

describe('HubConnection', () => {
  test('sends hello first with the bearer credential, records the welcome and answers pings', async () => {
    const { hub, target } = await tcpHub();
    const agent = startAgent(target);
    const side = await hub.connection(0);
    expect(side.authorization).toBe(`Bearer ${CREDENTIAL}`);
    expect((await side.waitFrames(1))[0]).toEqual(HELLO);

    side.send({ type: 'welcome', serverId: SERVER_ID });
    side.send({ type: 'ping', ts: 42 });
    expect((await side.waitFrames(2))[1]).toEqual({ type: 'pong', ts: 42 });
    expect(agent.welcomes).toEqual([SERVER_ID]);
  });

  test('command: ack, then report, then result', async () => {
    const { hub, target } = await tcpHub();
    const agent = startAgent(target);
    const side = await hub.connection(0);
    side.send({ type: 'welcome', serverId: SERVER_ID });
    side.send(STOP);
    expect((await side.waitFrames(4)).slice(1)).toEqual([
      { type: 'ack', id: 'cmd-1' },
      { type: 'report', commandId: 'cmd-1', project: 'shop', containers: [] },
      { type: 'result', id: 'cmd-1', ok: true, data: { project: 'shop' } },
    ]);
    expect(agent.executed).toEqual(['cmd-1']);
  });

  test('interim reports while a command runs come before its final report and result', async () => {
    const { hub, target } = await tcpHub();
    const running = { containerId: 'c1', name: 'shop-web-1', service: 'web', state: 'running' as const };
    startAgent(target, async (command, progress) => {
      progress({ project: 'shop', containers: [running] });
      return { ...outcomeFor(command), report: { project: 'shop', containers: [{ ...running, state: 'exited' }] } };
    });
    const side = await hub.connection(0);
    side.send({ type: 'welcome', serverId: SERVER_ID });
    side.send(STOP);
    expect((await side.waitFrames(5)).slice(1)).toEqual([
      { type: 'ack', id: 'cmd-1' },
      { type: 'report', commandId: 'cmd-1', project: 'shop', containers: [running] },
      { type: 'report', commandId: 'cmd-1', project: 'shop', containers: [{ ...running, state: 'exited' }] },
      { type: 'result', id: 'cmd-1', ok: true, data: { project: 'shop' } },
    ]);
  });

  test('a command delivered twice, while running and after finishing, runs once', async () => {
    const { hub, target } = await tcpHub();
    let release!: () => void;
    const running = new Promise<void>((resolve) => (release = resolve));
    const agent = startAgent(target, async (command) => {
      await running;
      return outcomeFor(command);
    });
    const side = await hub.connection(0);
    side.send(STOP);
    side.send(STOP);
    await side.waitFrames(3);
    expect(side.frames.slice(1)).toEqual([{ type: 'ack', id: 'cmd-1' }, { type: 'ack', id: 'cmd-1' }]);
    release();
    await side.waitFrames(5);
    side.send(STOP);
    expect((await side.waitFrames(7)).slice(5)).toEqual([{ type: 'ack', id: 'cmd-1' }, side.frames[4]!]);
    expect(side.frames[4]).toMatchObject({ type: 'result', id: 'cmd-1', ok: true });
    expect(agent.executed).toEqual(['cmd-1']);
  });

  test('a command still running when the link drops is answered on the next connection, not re-run', async () => {
    const { hub, target } = await tcpHub();
    let release!: () => void;
    const running = new Promise<void>((resolve) => (release = resolve));
    const agent = startAgent(target, async (command) => {
      await running;
      return outcomeFor(command);
    });
    const first = await hub.connection(0);
    first.send(STOP);
    await first.waitFrames(2);
    first.socket.close(CLOSE_CODES.goingAway, 'hub restarting');

    const second = await hub.connection(1);
    await second.waitFrames(1);
    second.send(STOP); // the hub redelivers: no result was seen
    await second.waitFrames(2);
    release();
    expect((await second.waitFrames(4)).map((frame) => frame.type)).toEqual(['hello', 'ack', 'report', 'result']);
    expect(agent.executed).toEqual(['cmd-1']);
  });

  test('reconnects with growing backoff after the hub closes, resetting once welcomed', async () => {
    const { hub, target } = await tcpHub();
    const agent = startAgent(target);
    for (let index = 0; index < 3; index++) {
      const side = await hub.connection(index);
      expect((await side.waitFrames(1))[0]).toEqual(HELLO);
      side.socket.close(CLOSE_CODES.goingAway, 'hub restarting');
    }
    const welcomedSide = await hub.connection(3);
    await welcomedSide.waitFrames(1);
    welcomedSide.send({ type: 'welcome', serverId: SERVER_ID });
    welcomedSide.send({ type: 'ping', ts: 1 });
    await welcomedSide.waitFrames(2);
    welcomedSide.socket.close(CLOSE_CODES.normal);
    await hub.connection(4);
    expect(agent.delays).toEqual([backoffDelay(0, () => 0.5), backoffDelay(1, () => 0.5), backoffDelay(2, () => 0.5), backoffDelay(0, () => 0.5)]);
  });

  test('parks on close code 4003 without retrying', async () => {
    const { hub, target } = await tcpHub();
    const agent = startAgent(target);
    (await hub.connection(0)).socket.close(CLOSE_CODES.unauthorized, 'credential revoked');
    expect(await agent.ended).toEqual({ reason: 'parked', detail: 'close 4003 credential revoked' });
    expect(agent.delays).toEqual([]);
    expect(hub.connections).toHaveLength(1);
  });

  test('parks on HTTP 401 at the upgrade', async () => {
    const { target } = await tcpHub();
    const agent = startAgent({ ...target, credential: 'pdc_revoked' });
    expect(await agent.ended).toEqual({ reason: 'parked', detail: 'HTTP 401 on upgrade' });
    expect(agent.delays).toEqual([]);
  });

  test('waits the longest backoff when replaced by another connection (4009)', async () => {
    const { hub, target } = await tcpHub();
    const agent = startAgent(target);
    (await hub.connection(0)).socket.close(CLOSE_CODES.replaced, 'replaced by a newer connection');
    await hub.connection(1);
    expect(agent.delays).toEqual([MAX_BACKOFF_MS]);
  });

  test('a refused local daemon key (4010) is retried after the longest backoff, never parked', async () => {
    const { hub, target } = await tcpHub();
    const agent = startAgent(target);
    (await hub.connection(0)).socket.close(CLOSE_CODES.localKeyRefused, 'key dk_new is not the pinned dk_old');
    (await hub.connection(1)).socket.close(CLOSE_CODES.localKeyRefused, 'key dk_new is not the pinned dk_old');
    await hub.connection(2);
    expect(agent.delays).toEqual([MAX_BACKOFF_MS, MAX_BACKOFF_MS]);
  });

  test('an invalid command is answered as failed and the connection stays up', async () => {
    const { hub, target } = await tcpHub();
    const agent = startAgent(target);
    const side = await hub.connection(0);
    side.send(JSON.stringify({ ...STOP, id: 'cmd-bad', payload: { deploymentId: DEPLOYMENT_ID, project: '../etc' } }));
    const [, ack, result] = await side.waitFrames(3);
    expect(ack).toEqual({ type: 'ack', id: 'cmd-bad' });
    expect(result).toMatchObject({ type: 'result', id: 'cmd-bad', ok: false, error: { code: 'invalid_command' } });
    side.send({ type: 'ping', ts: 7 });
    expect((await side.waitFrames(4))[3]).toEqual({ type: 'pong', ts: 7 });
    expect(agent.executed).toEqual([]);
  });

  test.each([
    ['a malformed frame', '{"type":"welcome"', CLOSE_CODES.malformedFrame],
    ['an oversized frame', `{"type":"ping","ts":1,"pad":"${'x'.repeat(MAX_HUB_FRAME_BYTES)}"}`, CLOSE_CODES.frameTooLarge],
    ['a frame only agents send', encodeFrame(HELLO), CLOSE_CODES.unexpectedFrame],
  ])('closes on %s with its close code, then reconnects', async (_name, text, code) => {
    const { hub, target } = await tcpHub();
    startAgent(target);
    const side = await hub.connection(0);
    await side.waitFrames(1);
    side.send(text);
    expect((await side.waitClosed()).code).toBe(code);
    await hub.connection(1);
  });

  test('a hub silent for the idle timeout is given up on and reconnected to', async () => {
    const { hub, target } = await tcpHub();
    const agent = startAgent(target);
    const side = await hub.connection(0);
    await side.waitFrames(1);
    side.send({ type: 'ping', ts: 1 });
    await side.waitFrames(2);
    // Every frame re-arms the timer: only the latest one is live.
    expect(agent.idleTimers.map(({ ms, cancelled }) => [ms, cancelled])).toEqual([
      [90_000, true],
      [90_000, false],
    ]);
    agent.idleTimers.at(-1)!.callback();
    expect((await side.waitClosed()).code).toBe(CLOSE_CODES.goingAway);
    await hub.connection(1);
    expect(agent.delays).toEqual([backoffDelay(0, () => 0.5)]);
  });

  test('stopping closes the socket normally and ends the loop', async () => {
    const { hub, target } = await tcpHub();
    const agent = startAgent(target);
    const side = await hub.connection(0);
    await side.waitFrames(1);
    agent.stop();
    expect(await agent.ended).toEqual({ reason: 'stopped' });
    expect(await side.waitClosed()).toEqual({ code: CLOSE_CODES.normal, reason: 'daemon stopping' });
  });

  test('the local daemon connects over the unix socket with the credential it reads before each attempt', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'panel-daemon-sock-'));
    const hub = startHub({ unix: join(dir, 'daemon.sock') });
    cleanups.push(() => rm(dir, { recursive: true, force: true }), () => hub.server.stop(true));
    const reads: string[] = [];
    const agent = startAgent(
      localHubTarget(join(dir, 'daemon.sock'), async () => {
        reads.push('read');
        if (reads.length === 1) throw new Error('the credential file does not exist yet');
        return 'pnl_local';
      }),
    );
    const side = await hub.connection(0);
    // The first attempt found no credential and waited one backoff instead of connecting without one.
    expect(agent.delays).toEqual([backoffDelay(0, () => 0.5)]);
    expect(side.authorization).toBe('Bearer pnl_local');
    expect((await side.waitFrames(1))[0]).toEqual(HELLO);
    side.send(STOP);
    expect((await side.waitFrames(4)).at(-1)).toMatchObject({ type: 'result', id: 'cmd-1', ok: true });
  });

  test('a relative socket path is taken from the working directory', () => {
    expect(localHubTarget('data/daemon.sock', 'pnl_test').url).toBe(`ws+unix://${join(process.cwd(), 'data', 'daemon.sock')}:/ws/daemon/v1`);
  });

  test('no socket yet: one clear line, quiet retries, then it connects when panel serve is up', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'panel-agent-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const socketPath = join(dir, 'daemon.sock');
    const lines: { level: string; msg: string }[] = [];
    const agent = startAgent(localHubTarget(socketPath, 'pnl_test'), undefined, createLogger('info', (line) => lines.push(JSON.parse(line))));
    while (agent.delays.length < 3) await Bun.sleep(1);
    const hub = startHub({ unix: socketPath });
    cleanups.push(() => hub.server.stop(true));
    expect((await (await hub.connection(0)).waitFrames(1))[0]).toEqual(HELLO);
    const problems = lines.filter((line) => line.msg.startsWith('no control plane'));
    expect(problems).toEqual([{ ...problems[0]!, level: 'error', msg: `no control plane at ${socketPath} (no such socket): is \`panel serve\` running? set --socket (waiting for it)` }]);
    expect(lines.some((line) => line.msg === 'disconnected from the control plane')).toBe(false);
  });

  test('a stale socket file nobody listens on reads "connection refused", once', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'panel-agent-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const socketPath = join(dir, 'daemon.sock');
    // A process that dies listening leaves its socket file behind.
    Bun.spawnSync([process.execPath, '-e', `require('node:net').createServer().listen(${JSON.stringify(socketPath)}, () => process.kill(process.pid, 'SIGKILL'))`]);
    expect(existsSync(socketPath)).toBe(true);
    expect(await unixSocketProblem(socketPath)).toContain('(connection refused): is `panel serve` running? set --socket');
  });

  test('1013 (Panel not installed yet) is retried every 2 s, said once', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'panel-agent-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const hub = startHub({ unix: join(dir, 'daemon.sock') });
    cleanups.push(() => hub.server.stop(true));
    const lines: { level: string; msg: string }[] = [];
    const agent = startAgent(localHubTarget(join(dir, 'daemon.sock'), 'pnl_test'), undefined, createLogger('info', (line) => lines.push(JSON.parse(line))));
    for (let index = 0; index < 3; index++) {
      const side = await hub.connection(index);
      await side.waitFrames(1);
      side.socket.close(CLOSE_CODES.tryAgainLater, 'not installed');
      await side.waitClosed();
    }
    await hub.connection(3);
    expect(agent.delays.slice(0, 3)).toEqual([TRY_AGAIN_LATER_MS, TRY_AGAIN_LATER_MS, TRY_AGAIN_LATER_MS]);
    expect(lines.filter((line) => line.level === 'warn')).toHaveLength(1);
  });
});
