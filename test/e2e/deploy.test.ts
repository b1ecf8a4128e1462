/**
 * The whole path on a real Docker engine (../shared/tools/real-docker.sh): `panel serve`, the
 * install, a join token, `panel daemon join` + `panel daemon run` for a remote server and
 * `panel daemon run --local` over the unix socket with the local daemon credential; an impostor
 * on that socket (no credential; a leaked credential with another key pair) refused while the
 * pinned key stays; a two-service project with a secret and an
 * inherited organization variable deployed to each of them, followed live on /ws/client/v1
 * until both containers run with real ids; the secret read inside with `docker exec`; stop ->
 * exited with the same ids (the containers kept); destroy -> gone, rows removed with
 * container_id null. Skipped with a printed reason only when the engine cannot start.
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Subprocess } from 'bun';
import { SocketProbe, upgradeStatus } from '../daemon.ts';
import { TEST_KEY_RING } from '../harness.ts';
import { clientApi, completeInstall, freePort, type Session } from './panel-api.ts';
import { type StartedPanel, startPanel } from './process.ts';
import { e2eStateDir, startRealDocker } from './real-docker.ts';

const STEP_TIMEOUT_MS = 120_000;
const WAIT_MS = 90_000;
const MAIN = join(import.meta.dir, '../../src/main.ts');
const SECRET = `db-password-${crypto.randomUUID()}`;
const GREETING = 'hello-from-the-organization';
const COMPOSE = `services:
  web:
    image: local/busybox:1
    network_mode: none # the single-engine test tool has no bridge networks
    command: ["sleep", "3600"]
    stop_grace_period: 1s
  worker:
    image: local/busybox:1
    network_mode: none # the single-engine test tool has no bridge networks
    command: ["sleep", "3600"]
    stop_grace_period: 1s
`;

const engine = await startRealDocker(e2eStateDir('panel-e2e-docker-deploy'));
if (!engine.started) {
  console.warn(`deploy e2e skipped: ${engine.reason}`);
  test.skip(`deploy on a real engine (the engine could not start: ${engine.reason})`, () => {});
}

const dataDir = mkdtempSync(join(tmpdir(), 'panel-deploy-e2e-'));
const port = freePort();
const url = `http://127.0.0.1:${port}`;
const dockerEnv = engine.started ? engine.docker.env : {};
const children: Subprocess[] = [];
let panel: StartedPanel | undefined;
const socketPath = join(dataDir, 'daemon.sock');
const credentialFile = join(dataDir, 'local-daemon.credential');

afterAll(async () => {
  for (const child of children.reverse()) {
    child.kill('SIGTERM');
    await child.exited;
  }
  if (panel) {
    panel.process.kill('SIGTERM');
    await panel.process.exited;
  }
  if (engine.started) {
    const leftovers = (await docker('ps', '-aq', '--filter', 'label=dev.panel.environment-id')).stdout.split('\n').filter(Boolean);
    if (leftovers.length > 0) await docker('rm', '-f', ...leftovers);
    await engine.docker.stop();
  }
  rmSync(dataDir, { recursive: true, force: true });
}, 60_000);

async function run(cmd: string[], env: Record<string, string> = {}) {
  const child = Bun.spawn(cmd, { env: { ...process.env, ...env }, stdin: 'ignore', stdout: 'pipe', stderr: 'pipe' });
  const [stdout, stderr, exitCode] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  return { stdout: stdout.trim(), stderr, exitCode };
}
const docker = (...args: string[]) => run(['docker', ...args], dockerEnv);

/** A long-running child whose output is kept for failure messages. */
function spawnDaemon(args: string[]): { logs: () => string; child: Subprocess } {
  const output: string[] = [];
  const child = Bun.spawn([process.execPath, MAIN, 'daemon', ...args], {
    env: { ...process.env, ...dockerEnv, PANEL_LOG_LEVEL: 'debug' },
    stdin: 'ignore',
    stdout: 'pipe',
    stderr: 'pipe',
  });
  children.push(child);
  for (const stream of [child.stdout, child.stderr]) {
    void (async () => {
      for await (const chunk of stream) output.push(new TextDecoder().decode(chunk));
    })();
  }
  return { logs: () => output.join(''), child };
}

const api = clientApi;

/** Rejects after `ms` with what the processes logged, so a stuck step explains itself. */
function within<T>(work: Promise<T>, what: string, logs: () => string): Promise<T> {
  let timer: ReturnType<typeof setTimeout>;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not happen within ${WAIT_MS} ms\n${logs().slice(-6000)}`)), WAIT_MS);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

interface Row {
  id: string;
  status: string;
  containerId: string | null;
  isRemoved: boolean;
  serviceId: string;
}

/** The environment's container rows and deployments as the subscription has told them so far. */
function stateOf(frames: any[], environmentId: string) {
  const containers = new Map<string, Row>();
  const deployments = new Map<string, { id: string; status: string; error: string | null }>();
  for (const frame of frames) {
    if (frame.environmentId !== environmentId) continue;
    if (frame.type === 'subscribed') {
      for (const row of frame.containers) containers.set(row.id, row);
      for (const row of frame.deployments) deployments.set(row.id, row);
    } else if (frame.type === 'container') containers.set(frame.container.id, frame.container);
    else if (frame.type === 'deployment') deployments.set(frame.deployment.id, frame.deployment);
  }
  return { containers: [...containers.values()], deployments };
}

describe.skipIf(!engine.started)('deploy on a real engine through panel serve and two daemons', () => {
  let session: Session;
  let feed: SocketProbe;
  let logs: () => string = () => '';
  const environments: { id: string; serverId: string; name: string }[] = [];

  test('serve, install, join a remote daemon and start the local one', async () => {
    panel = await startPanel([process.execPath, MAIN, 'serve'], {
      PANEL_DATA_DIR: dataDir,
      PANEL_PORT: String(port),
      PANEL_PUBLIC_URL: url,
      PANEL_SECRETS: TEST_KEY_RING,
      PANEL_DAEMON_SOCKET: join(dataDir, 'daemon.sock'),
      // This test starts the local daemon itself.
      PANEL_LOCAL_DAEMON: 'off',
    });
    session = await completeInstall(url, dataDir);
    const joinToken = await api(session, 'POST', '/join-tokens', { organizationId: session.organizationId });
    expect(joinToken.status).toBe(201);
    expect(joinToken.json.joinCommand).toBe(`panel daemon join ${url} --token ${joinToken.json.token}`);

    const remoteState = join(dataDir, 'remote-daemon');
    const joined = await run([process.execPath, MAIN, 'daemon', 'join', url, '--token', joinToken.json.token, '--state-dir', remoteState], dockerEnv);
    expect(joined.exitCode, joined.stderr).toBe(0);
    const remote = spawnDaemon(['run', '--state-dir', remoteState]);
    // The remote enrolls first: it shares this host's machine id with the local daemon, and the
    // local server's machine may not enroll (409 machine_is_local).
    const local = spawnDaemon(['run', '--local', '--socket', socketPath, '--credential-file', credentialFile, '--state-dir', join(dataDir, 'local-daemon')]);
    logs = () => `--- panel\n${panel!.logs()}\n--- remote daemon\n${remote.logs()}\n--- local daemon\n${local.logs()}`;

    const connected = async () => {
      for (let attempt = 0; attempt < 300; attempt++) {
        const servers = (await api(session, 'GET', `/servers?organizationId=${session.organizationId}`)).json.data as { id: string; isLocal: boolean; status: string }[];
        if (servers.length === 2 && servers.every((server) => server.status === 'connected')) return servers;
        await Bun.sleep(100);
      }
      throw new Error('both daemons did not connect');
    };
    const servers = await within(connected(), 'both daemons connecting', logs);
    const remoteServer = servers.find((server) => !server.isLocal)!;
    const localServer = servers.find((server) => server.isLocal)!;

    const workspaces = (await api(session, 'GET', `/workspaces?organizationId=${session.organizationId}`)).json.data as { id: string; kind: string }[];
    const workspaceId = workspaces.find((workspace) => workspace.kind === 'user')!.id;
    const project = await api(session, 'POST', '/projects', { workspaceId, name: 'e2e-shop' });
    expect(project.status).toBe(201);
    expect((await api(session, 'PUT', `/projects/${project.json.id}/compose`, { yaml: COMPOSE })).status).toBe(200);
    expect((await api(session, 'POST', '/variables', { projectId: project.json.id, key: 'DB_PASSWORD', value: SECRET, isSecret: true })).status).toBe(201);
    expect((await api(session, 'POST', '/variables', { organizationId: session.organizationId, key: 'ORG_GREETING', value: GREETING })).status).toBe(201);
    const production = (await api(session, 'GET', `/environments?projectId=${project.json.id}`)).json.data[0].id as string;
    const staging = await api(session, 'POST', '/environments', { projectId: project.json.id, name: 'staging' });
    expect(staging.status).toBe(201);
    expect((await api(session, 'PATCH', `/environments/${production}`, { serverId: remoteServer.id })).status).toBe(200);
    expect((await api(session, 'PATCH', `/environments/${staging.json.id}`, { serverId: localServer.id })).status).toBe(200);
    environments.push({ id: production, serverId: remoteServer.id, name: 'remote' }, { id: staging.json.id, serverId: localServer.id, name: 'local' });

    feed = await SocketProbe.open(`${url.replace('http', 'ws')}/ws/client/v1`, { cookie: session.cookie, origin: url });
    for (const environment of environments) {
      feed.send({ type: 'subscribe', environmentId: environment.id });
      await feed.next((frame) => frame.type === 'subscribed' && frame.environmentId === environment.id);
    }
  }, STEP_TIMEOUT_MS);

  test('an impostor on the local socket is refused and the key is unchanged', async () => {
    const localOf = async () => {
      const servers = (await api(session, 'GET', `/servers?organizationId=${session.organizationId}`)).json.data as { id: string; isLocal: boolean; status: string; daemonKeyId: string | null }[];
      return servers.find((server) => server.isLocal)!;
    };
    const pinned = await localOf();
    expect(pinned.daemonKeyId).toMatch(/^dk_/);
    // Without the local daemon credential: refused before any socket opens.
    expect(await upgradeStatus(`ws+unix://${socketPath}:/ws/daemon/v1`)).toBe(401);
    // With a leaked credential: a second, real local daemon with its own key pair is refused
    // (4010) and keeps retrying; the real one stays connected and the pinned key stays.
    const impostor = spawnDaemon(['run', '--local', '--socket', socketPath, '--credential-file', credentialFile, '--state-dir', join(dataDir, 'impostor-daemon')]);
    const refusedKey = async () => {
      while (!impostor.logs().includes("refused this local daemon's key")) await Bun.sleep(100);
    };
    await within(refusedKey(), 'the impostor being refused', () => `${logs()}\n--- impostor\n${impostor.logs()}`);
    impostor.child.kill('SIGTERM');
    await impostor.child.exited;
    expect(panel!.logs()).toContain('refused a local daemon whose key is not the pinned one');
    const after = await localOf();
    expect(after).toMatchObject({ id: pinned.id, daemonKeyId: pinned.daemonKeyId, status: 'connected' });
    // The deploy below proves the secrets still reach the real daemon, sealed to the pinned key.
  }, STEP_TIMEOUT_MS);

  test('deploy to the remote and the local server: both containers run with real ids, the secret and the inherited variable are inside', async () => {
    for (const environment of environments) {
      const deployed = await api(session, 'POST', `/environments/${environment.id}/deploy`, {});
      expect(deployed.status, deployed.text).toBe(202);
      expect(deployed.json.serverId).toBe(environment.serverId);
      const rows = await within(
        feed.until((frames) => {
          const { containers, deployments } = stateOf(frames, environment.id);
          const failed = deployments.get(deployed.json.id)?.status === 'failed';
          if (failed) throw new Error(`deploy failed: ${deployments.get(deployed.json.id)!.error}`);
          const done = deployments.get(deployed.json.id)?.status === 'succeeded';
          const running = containers.filter((row) => row.status === 'running' && /^[0-9a-f]{64}$/.test(row.containerId ?? ''));
          return done && running.length === 2 ? running : undefined;
        }),
        `${environment.name} deploy running`,
        logs,
      );
      for (const row of rows) {
        expect((await docker('inspect', '-f', '{{.State.Running}}', row.containerId!)).stdout).toBe('true');
        const secret = await docker('exec', row.containerId!, 'cat', '/run/secrets/DB_PASSWORD');
        expect(secret.stdout).toBe(SECRET);
        expect((await docker('exec', row.containerId!, 'sh', '-c', 'echo "$ORG_GREETING"')).stdout).toBe(GREETING);
      }
    }
    expect(panel!.logs()).not.toContain(SECRET);
  }, STEP_TIMEOUT_MS);

  test('stop: the containers are kept, exited, with their ids; destroy: they are gone and the rows say removed', async () => {
    for (const environment of environments) {
      const before = stateOf(feed.frames, environment.id).containers.map((row) => row.containerId).sort();
      const finished = async (action: 'stop' | 'destroy', done: (rows: Row[]) => boolean) => {
        const started = await api(session, 'POST', `/environments/${environment.id}/${action}`);
        expect(started.status, started.text).toBe(202);
        return within(
          feed.until((frames) => {
            const { containers, deployments } = stateOf(frames, environment.id);
            if (deployments.get(started.json.id)?.status !== 'succeeded') return undefined;
            return done(containers) ? containers : undefined;
          }),
          `${environment.name} ${action}`,
          logs,
        );
      };
      const stopped = await finished('stop', (rows) => rows.every((row) => row.status === 'exited'));
      expect(stopped.map((row) => row.containerId).sort()).toEqual(before);
      for (const row of stopped) expect((await docker('inspect', '-f', '{{.State.Status}}', row.containerId!)).stdout).toBe('exited');

      const destroyed = await finished('destroy', (rows) => rows.every((row) => row.containerId === null));
      expect(destroyed).toHaveLength(2);
      for (const row of destroyed) expect(row).toMatchObject({ containerId: null, isRemoved: true });
      const left = await docker('ps', '-aq', '--filter', `label=com.docker.compose.project=pn-${environment.id}`);
      expect(left.stdout).toBe('');
    }
    feed.socket.close();
  }, STEP_TIMEOUT_MS);
});
