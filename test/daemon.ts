/**
 * Daemon-side helpers for hub and deploy tests: a fake socket the hub writes to, hello frames,
 * enrolled server rows with a real X25519 key pair, and a real WebSocket client that collects
 * frames (for tests against Bun.serve on 127.0.0.1:0 or a unix socket).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../src/app.ts';
import { hashToken, newOpaqueToken } from '../src/auth/token.ts';
import { generateDaemonKeyPair } from '../src/crypto/index.ts';
import type { HubSocket } from '../src/daemon/hub/connection.ts';
import type { Frame, HelloFrame } from '../src/contract/daemon-protocol.ts';
import { server } from '../src/db/schema/index.ts';
import type { TestApp } from './harness.ts';

/** Resolves after the current event-loop turn: the hub writes disconnects then (DaemonHub.flushDisconnects). */
export const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

export class FakeSocket implements HubSocket {
  readonly sent: string[] = [];
  closedWith: { code?: number; reason?: string } | null = null;

  send(text: string): void {
    if (this.closedWith) throw new Error('send on a closed socket');
    this.sent.push(text);
  }

  close(code?: number, reason?: string): void {
    this.closedWith = { code, reason };
  }

  frames(): Frame[] {
    return this.sent.map((text) => JSON.parse(text) as Frame);
  }

  framesOf<T extends Frame['type']>(type: T): Extract<Frame, { type: T }>[] {
    return this.frames().filter((frame): frame is Extract<Frame, { type: T }> => frame.type === type);
  }
}

let machines = 0;

export function helloFrame(fields: Partial<HelloFrame> = {}): HelloFrame {
  return {
    type: 'hello',
    hostname: 'node-a',
    machineId: `machine-${++machines}`,
    version: '0.0.0-test',
    docker: { version: '27.0.0', composeVersion: '2.29.0' },
    ...fields,
  };
}

export interface EnrolledServer {
  id: string;
  organizationId: string;
  credential: string;
  machineId: string;
  keyId: string;
  publicKey: string;
  privateKey: string;
}

/** A server row as enrollment leaves it: machine id, key pair and a hashed credential. */
export function enrolledServer(t: TestApp, organizationId: string, fields: { machineId?: string; name?: string } = {}): EnrolledServer {
  const keys = generateDaemonKeyPair();
  const credential = newOpaqueToken('pnd');
  const machineId = fields.machineId ?? `machine-${++machines}`;
  const keyId = `dk_test${machines}`;
  const row = t.db
    .insert(server)
    .values({
      organizationId,
      name: fields.name ?? `node-${machines}`,
      machineId,
      publicKey: keys.publicKey,
      daemonKeyId: keyId,
      credentialHash: hashToken(credential),
    })
    .returning()
    .get();
  return { id: row.id, organizationId, credential, machineId, keyId, ...keys };
}

/** A real WebSocket that queues every frame and close, for awaiting them without sleeping. */
export class SocketProbe {
  readonly frames: unknown[] = [];
  closed: { code: number; reason: string } | null = null;
  private waiters: (() => void)[] = [];

  constructor(readonly socket: WebSocket) {
    socket.onmessage = (event) => {
      this.frames.push(JSON.parse(String(event.data)));
      this.wake();
    };
    socket.onclose = (event) => {
      this.closed = { code: event.code, reason: event.reason };
      this.wake();
    };
    socket.onerror = () => this.wake();
  }

  static open(url: string, headers: Record<string, string> = {}): Promise<SocketProbe> {
    const BunWebSocket = WebSocket as unknown as new (url: string, options: { headers: Record<string, string> }) => WebSocket;
    const socket = new BunWebSocket(url, { headers });
    const probe = new SocketProbe(socket);
    return new Promise((resolve, reject) => {
      socket.onopen = () => resolve(probe);
      socket.addEventListener('error', (event) => reject(new Error((event as ErrorEvent).message ?? 'socket error')));
      socket.addEventListener('close', (event) => reject(new Error(`closed ${event.code} before open`)));
    });
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }

  /** Resolves with the first frame (from the start) matching, once it has arrived. */
  async next<T = any>(match: (frame: any) => boolean): Promise<T> {
    for (;;) {
      const found = this.frames.find(match);
      if (found !== undefined) return found as T;
      if (this.closed) throw new Error(`socket closed (${this.closed.code} ${this.closed.reason}) before the frame arrived`);
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
  }

  /** Resolves with the first non-undefined answer of `compute` over every frame so far, re-run as frames arrive. */
  async until<T>(compute: (frames: any[]) => T | undefined): Promise<T> {
    for (;;) {
      const answer = compute(this.frames);
      if (answer !== undefined) return answer;
      if (this.closed) throw new Error(`socket closed (${this.closed.code} ${this.closed.reason}) before the condition held`);
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
  }

  async closedWith(): Promise<{ code: number; reason: string }> {
    while (!this.closed) await new Promise<void>((resolve) => this.waiters.push(resolve));
    return this.closed;
  }

  send(frame: object): void {
    this.socket.send(JSON.stringify(frame));
  }
}

/**
 * Serves the test app over real sockets on 127.0.0.1 (a free port) and answers its ws:// base;
 * the server is stopped by the caller's cleanups (run them in afterEach).
 */
export function listenOnLoopback(t: TestApp, cleanups: (() => unknown)[]): string {
  const app = t.app.listen({ hostname: '127.0.0.1', port: 0, reusePort: false });
  cleanups.push(() => app.stop(true));
  return `ws://127.0.0.1:${app.server!.port}`;
}

/**
 * A second app instance on a unix socket, sharing the test app's deps and hub (like panel serve's
 * local slot); answers the socket's path. Stopped and removed by the caller's cleanups.
 */
export function listenOnUnixSocket(t: TestApp, cleanups: (() => unknown)[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'panel-ws-'));
  const socketPath = join(dir, 'daemon.sock');
  const app = buildApp({ ...t.deps, listener: 'unix' }).listen({ unix: socketPath } as never);
  cleanups.push(async () => {
    await app.stop(true);
    rmSync(dir, { recursive: true, force: true });
  });
  return socketPath;
}

/** 101 when a WebSocket upgrade to `url` succeeds (the socket is closed again), else the refusing HTTP status. */
export async function upgradeStatus(url: string, headers: Record<string, string> = {}): Promise<number> {
  try {
    const probe = await SocketProbe.open(url, headers);
    probe.socket.close();
    return 101;
  } catch (error) {
    return Number(/status code: (\d{3})/.exec((error as Error).message)?.[1] ?? 0);
  }
}
