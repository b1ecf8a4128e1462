/**
 * The agent's Compose runner on a real Docker engine (../shared/tools/real-docker.sh, in a private
 * network namespace): deploy a two-service project with a secret delivered as a `pndaemon`
 * envelope, redeploy, stop (containers kept, exited) and destroy, once with Compose v2 (`docker compose`) and once with the
 * v1 fallback (`docker-compose`). Skipped with a printed reason only when the engine cannot start.
 *
 * The engine of real-docker.sh has no bridge networking, so the two services share the engine's
 * network with `network_mode: host`: the deploy command opts in to host access explicitly, as a
 * control plane does for an organization that allows it.
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { secretFileReference } from '../../src/compose/naming.ts';
import { generateDaemonKeyPair, sealForDaemon } from '../../src/crypto/index.ts';
import { ComposeRunner, type ProjectCommand } from '../../src/daemon/agent/compose-runner.ts';
import { createCommandRunner, DockerCli } from '../../src/daemon/agent/docker-cli.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { e2eStateDir, startRealDocker } from './real-docker.ts';

const engine = await startRealDocker(e2eStateDir('panel-e2e-docker-agent'));
if (!engine.started) {
  console.warn(`agent-docker e2e skipped: ${engine.reason}`);
  test.skip(`agent on a real engine (the engine could not start: ${engine.reason})`, () => {});
}
afterAll(async () => {
  if (engine.started) await engine.docker.stop();
});

const SERVER_ID = randomUUID();
const KEY_ID = 'dk_e2e';
const keyPair = generateDaemonKeyPair();
const SECRET_VALUE = `api-key-${randomUUID()}`;
const ROTATED_SECRET_VALUE = `api-key-${randomUUID()}`;
const WEB_PORT = 18080;
/** Steps on a real engine take seconds; bun's default test timeout is 5 s. */
const STEP_TIMEOUT_MS = 60_000;

const compose = (project: string, withWorker: boolean) => `services:
  web:
    image: local/busybox:1
    network_mode: host
    command: ["sh", "-c", "httpd -f -p ${WEB_PORT} -h /var/www"]
    stop_grace_period: 1s
    secrets: [api_key]
${
  withWorker
    ? `  worker:
    image: local/busybox:1
    network_mode: host
    command: ["sleep", "3600"]
    stop_grace_period: 1s
`
    : ''
}secrets:
  api_key:
    file: ${secretFileReference(project, 'api_key')}
`;

const generations = engine.started
  ? [
      { name: 'Compose v2', env: engine.docker.env, expected: 'v2' },
      { name: 'Compose v1 fallback', env: { DOCKER_HOST: engine.docker.env.DOCKER_HOST! }, expected: 'v1' },
    ].filter((generation) => generation.expected === 'v1' || generation.env.DOCKER_CONFIG !== undefined)
  : [];
if (engine.started && generations.length === 1) console.warn('agent-docker e2e: Compose v2 could not be fetched; testing only the v1 fallback');

describe.each(generations)('agent on a real engine: $name', ({ env, expected }) => {
  const project = `e2e-${expected}`;
  const deploymentId = Bun.randomUUIDv7();
  const logLines: string[] = [];
  let stateDir = '';
  let runner: ComposeRunner;
  const run = createCommandRunner({ PATH: process.env.PATH, ...env }, createLogger('debug', (line) => logLines.push(line)));
  const docker = (...args: string[]) => run(['docker', ...args]);

  const command = (kind: 'deploy' | 'stop' | 'destroy', withWorker = true, secretValue = SECRET_VALUE): ProjectCommand =>
    kind === 'deploy'
      ? {
          type: 'command',
          id: randomUUID(),
          kind,
          payload: {
            deploymentId,
            project,
            compose: compose(project, withWorker),
            policy: { hostAccess: true, platform: false },
            secrets: [{ name: 'api_key', envelope: sealForDaemon({ serverId: SERVER_ID, daemonKeyId: KEY_ID, publicKey: keyPair.publicKey }, secretValue) }],
          },
        }
      : { type: 'command', id: randomUUID(), kind, payload: { deploymentId, project } };

  afterAll(async () => {
    await docker('rm', '-f', ...(await docker('ps', '-aq', '--filter', `label=com.docker.compose.project=${project}`)).stdout.split('\n').filter(Boolean));
    if (stateDir) await rm(stateDir, { recursive: true, force: true });
  });

  test('deploy: both services run, the secret is readable inside, the web service answers', async () => {
    stateDir = await mkdtemp(join(tmpdir(), 'panel-agent-e2e-'));
    runner = new ComposeRunner({
      stateDir,
      docker: new DockerCli(run),
      identity: () => ({ serverId: SERVER_ID, daemonKeyId: KEY_ID, privateKey: keyPair.privateKey }),
      logger: createLogger('debug', (line) => logLines.push(line)),
    });

    const outcome = await runner.execute(command('deploy'));
    expect(outcome.result).toEqual({ ok: true, data: { deploymentId, project, compose: expected, recreated: true, containers: 2 } });
    const containers = [...outcome.report!.containers].sort((a, b) => a.service.localeCompare(b.service));
    expect(containers.map(({ service, state }) => [service, state])).toEqual([
      ['web', 'running'],
      ['worker', 'running'],
    ]);
    for (const container of containers) expect(container.containerId).toMatch(/^[0-9a-f]{64}$/);

    const web = containers[0]!;
    const secret = await docker('exec', web.containerId, 'cat', '/run/secrets/api_key');
    expect(secret).toMatchObject({ exitCode: 0, stdout: SECRET_VALUE });
    expect((await stat(join(stateDir, 'projects', `${project}.panel`, 'secrets', 'api_key'))).mode & 0o777).toBe(0o600);

    // Both containers share the engine's network namespace: the worker reaches the web server.
    let page = '';
    for (let attempt = 0; attempt < 50 && page !== 'ok\n'; attempt++) {
      page = (await docker('exec', containers[1]!.containerId, 'wget', '-qO-', `http://127.0.0.1:${WEB_PORT}/`)).stdout;
      if (page !== 'ok\n') await Bun.sleep(100);
    }
    expect(page).toBe('ok\n');
  }, STEP_TIMEOUT_MS);

  test('redeploy without the worker removes it as an orphan; a rotated secret reaches the container', async () => {
    const outcome = await runner.execute(command('deploy', false, ROTATED_SECRET_VALUE));
    expect(outcome.result).toMatchObject({ ok: true, data: { recreated: true } });
    const containers = outcome.report!.containers;
    expect(containers.map(({ service, state }) => [service, state])).toEqual([['web', 'running']]);
    expect((await docker('exec', containers[0]!.containerId, 'cat', '/run/secrets/api_key')).stdout).toBe(ROTATED_SECRET_VALUE);
  }, STEP_TIMEOUT_MS);

  test('stop: the containers are kept, exited, and reported so with their ids; the folder stays', async () => {
    const before = (await docker('ps', '-aq', '--no-trunc', '--filter', `label=com.docker.compose.project=${project}`)).stdout.trim();
    const outcome = await runner.execute(command('stop'));
    expect(outcome.result).toEqual({ ok: true, data: { deploymentId, project, containers: 1 } });
    expect(outcome.report!.containers.map(({ containerId, state }) => [containerId, state])).toEqual([[before, 'exited']]);
    expect((await docker('inspect', '-f', '{{.State.Status}}', before)).stdout.trim()).toBe('exited');
    expect(existsSync(join(stateDir, 'projects', `${project}.panel`, 'compose.yaml'))).toBe(true);
  }, STEP_TIMEOUT_MS);

  test('destroy: the report is empty and the project folder is gone', async () => {
    await runner.execute(command('deploy'));
    const outcome = await runner.execute(command('destroy'));
    expect(outcome).toEqual({ report: { project, containers: [] }, result: { ok: true, data: { deploymentId, project, containers: 0 } } });
    expect(existsSync(join(stateDir, 'projects', project))).toBe(false);
    expect(existsSync(join(stateDir, 'projects', `${project}.panel`))).toBe(false);
  }, STEP_TIMEOUT_MS);

  test('the plaintext secret never reached a log line', () => {
    expect(logLines.length).toBeGreaterThan(0);
    expect(logLines.join('')).not.toContain(SECRET_VALUE);
    expect(logLines.join('')).not.toContain(ROTATED_SECRET_VALUE);
  });
});
