/**
 * The local daemon's supervisor with a scripted engine probe, child processes and waits: it
 * starts the daemon once an engine answers, rechecks while none does, restarts a daemon that
 * exits with a growing delay, leaves a refused one alone, and stops its child.
 */
import { expect, test } from 'bun:test';
import { silentLogger } from '../lib/logger.ts';
import { type ChildProcess, ENGINE_RECHECK_MS, type EngineProbe, LocalDaemonSupervisor, probeDockerEngine } from './local-supervisor.ts';

class FakeChild implements ChildProcess {
  readonly signals: string[] = [];
  private finish!: (code: number) => void;
  readonly exited = new Promise<number>((resolve) => (this.finish = resolve));
  kill(signal: NodeJS.Signals = 'SIGTERM') {
    this.signals.push(signal);
    this.finish(143);
  }
  exit(code: number) {
    this.finish(code);
  }
}

function setup(probes: EngineProbe[]) {
  const children: FakeChild[] = [];
  const spawned: string[][] = [];
  const waits: number[] = [];
  let wake = () => {};
  let clock = 0;
  const supervisor = new LocalDaemonSupervisor({
    argv: ['panel', 'daemon', 'run', '--local', '--socket', '/data/daemon.sock'],
    env: {},
    logger: silentLogger,
    passLine: () => {},
    probeEngine: async () => probes.shift() ?? { ok: true, version: '27.0.0' },
    spawn: (argv, _env, onLine) => {
      spawned.push(argv);
      onLine('{"msg":"panel daemon starting"}');
      const child = new FakeChild();
      children.push(child);
      return child;
    },
    // Each wait is recorded and ends when the test calls proceed().
    sleep: (ms, stopped) =>
      new Promise<void>((resolve) => {
        waits.push(ms);
        wake = resolve;
        stopped.addEventListener('abort', () => resolve(), { once: true });
      }),
    now: () => clock,
  });
  const settle = () => new Promise<void>((resolve) => setTimeout(resolve, 0));
  return {
    supervisor,
    children,
    spawned,
    waits,
    proceed: async () => {
      wake();
      await settle();
    },
    advance: (ms: number) => void (clock += ms),
    settle,
  };
}

const noEngine: EngineProbe = { ok: false, problem: 'The Docker engine is not running on this machine (x).', fix: 'sudo systemctl start docker' };

test('no engine: says so with the fix and rechecks; once one answers, the daemon starts', async () => {
  const s = setup([noEngine, noEngine]);
  s.supervisor.start();
  await s.settle();
  expect(s.supervisor.status()).toEqual({ state: 'no_engine', problem: noEngine.problem, fix: noEngine.fix });
  expect(s.spawned).toEqual([]);
  await s.proceed();
  await s.proceed();
  expect(s.waits).toEqual([ENGINE_RECHECK_MS, ENGINE_RECHECK_MS]);
  expect(s.spawned).toEqual([['panel', 'daemon', 'run', '--local', '--socket', '/data/daemon.sock']]);
  expect(s.supervisor.status().state).toBe('running');
  await s.supervisor.stop();
  expect(s.children[0]!.signals).toEqual(['SIGTERM']);
});

test('a daemon that exits is started again, 1 s then doubling; after a long run the delay starts over', async () => {
  const s = setup([]);
  s.supervisor.start();
  await s.settle();
  s.children[0]!.exit(1);
  await s.settle();
  expect(s.supervisor.status()).toMatchObject({ state: 'restarting' });
  expect(s.supervisor.status().problem).toContain('panel daemon starting');
  await s.proceed();
  s.children[1]!.exit(1);
  await s.settle();
  await s.proceed();
  s.advance(60_000);
  s.children[2]!.exit(1);
  await s.settle();
  expect(s.waits).toEqual([1_000, 2_000, 1_000]);
  expect(s.children).toHaveLength(3);
  await s.supervisor.stop();
});

test('exit status 3 (credential refused) is not restarted', async () => {
  const s = setup([]);
  s.supervisor.start();
  await s.settle();
  s.children[0]!.exit(3);
  await s.settle();
  expect(s.supervisor.status().state).toBe('refused');
  expect(s.waits).toEqual([]);
  await s.supervisor.stop();
  expect(s.children).toHaveLength(1);
});

test('the engine probe says in words what is missing, with the command that fixes it', async () => {
  const notInstalled = await probeDockerEngine({ PATH: '/nonexistent' }, silentLogger);
  // Saved, then run: piped into a shell, a failed download would run nothing and exit 0.
  expect(notInstalled).toMatchObject({ ok: false, fix: 'curl -fsSL https://get.docker.com -o get-docker.sh && sudo sh get-docker.sh' });
  expect(!notInstalled.ok && notInstalled.fix).not.toMatch(/\|\s*(sudo\s+)?(ba)?sh\b/);
  if (Bun.which('docker')) {
    const deadHost = await probeDockerEngine({ PATH: process.env.PATH, DOCKER_HOST: 'unix:///nonexistent/docker.sock' }, silentLogger);
    expect(deadHost).toMatchObject({ ok: false, fix: 'unset DOCKER_HOST' });
    expect(!deadHost.ok && deadHost.problem).toContain('DOCKER_HOST=unix:///nonexistent/docker.sock does not answer');
  }
});
