import { describe, expect, test } from 'bun:test';
import { silentLogger } from '../../lib/logger.ts';
import { type CommandResult, createCommandRunner, DockerCli, parseLabelList, toReportedContainer } from './docker-cli.ts';

describe('createCommandRunner', () => {
  test('children see PATH and the Docker client variables, never the agent environment', async () => {
    const run = createCommandRunner(
      { PATH: process.env.PATH, DOCKER_HOST: 'unix:///tmp/d.sock', DOCKER_CONFIG: '/tmp/cfg', PANEL_SECRETS: 'k1:AAAA', AWS_SECRET_ACCESS_KEY: 'x' },
      silentLogger,
    );
    const result = await run(['env']);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain('DOCKER_HOST=unix:///tmp/d.sock\n');
    expect(result.stdout).toContain('DOCKER_CONFIG=/tmp/cfg\n');
    expect(result.stdout).not.toContain('PANEL_SECRETS');
    expect(result.stdout).not.toContain('AWS_SECRET_ACCESS_KEY');
  });

  test('arguments reach the child verbatim: no shell, no expansion', async () => {
    const run = createCommandRunner({ PATH: process.env.PATH }, silentLogger);
    const result = await run(['printf', '%s|', '$HOME', '`id`', 'a b;c']);
    expect(result.stdout).toBe('$HOME|`id`|a b;c|');
  });

  test('an executable that cannot start is exit 127 with a message, not a throw', async () => {
    const run = createCommandRunner({ PATH: '/nonexistent' }, silentLogger);
    const result = await run(['docker', 'ps']);
    expect(result.exitCode).toBe(127);
    expect(result.stderr).toStartWith('docker:');
  });
});

describe('DockerCli.compose', () => {
  const answering = (answers: Record<string, CommandResult>, calls: string[]) => async (argv: readonly string[]) => {
    calls.push(argv.join(' '));
    return answers[argv.join(' ')] ?? { exitCode: 1, stdout: '', stderr: 'unknown command' };
  };

  test('prefers Compose v2 and detects only once', async () => {
    const calls: string[] = [];
    const docker = new DockerCli(answering({ 'docker compose version --short': { exitCode: 0, stdout: 'v2.26.1\n', stderr: '' } }, calls));
    expect(await docker.compose()).toEqual({ command: ['docker', 'compose'], generation: 2, version: '2.26.1' });
    await docker.compose();
    expect(calls).toEqual(['docker compose version --short']);
  });

  test('falls back to docker-compose v1', async () => {
    const calls: string[] = [];
    const docker = new DockerCli(answering({ 'docker-compose version --short': { exitCode: 0, stdout: '1.29.2\n', stderr: '' } }, calls));
    expect(await docker.compose()).toEqual({ command: ['docker-compose'], generation: 1, version: '1.29.2' });
    expect(calls).toEqual(['docker compose version --short', 'docker-compose version --short']);
  });

  test('without any Compose, says what was tried and tries again next time', async () => {
    const calls: string[] = [];
    const docker = new DockerCli(answering({}, calls));
    await expect(docker.compose()).rejects.toThrow('no Docker Compose found (docker compose: unknown command; docker-compose: unknown command)');
    await expect(docker.compose()).rejects.toThrow();
    expect(calls).toHaveLength(4);
  });
});

describe('docker ps lines', () => {
  test('labels: values holding commas (Compose depends_on) stay whole', () => {
    expect(parseLabelList('com.docker.compose.depends_on=db:service_started:false,cache:service_started:false,com.docker.compose.service=web,empty=')).toEqual({
      'com.docker.compose.depends_on': 'db:service_started:false,cache:service_started:false',
      'com.docker.compose.service': 'web',
      empty: '',
    });
    expect(parseLabelList('')).toEqual({});
  });

  test('a line becomes a reported container with the Compose service and the mapped state', () => {
    const line = {
      ID: 'f'.repeat(64),
      Names: 'shop-web-1',
      State: 'running',
      Status: 'Up 2 seconds',
      Labels: 'com.docker.compose.project=shop,com.docker.compose.service=web',
    };
    expect(toReportedContainer(line)).toEqual({
      containerId: 'f'.repeat(64),
      name: 'shop-web-1',
      service: 'web',
      state: 'running',
      status: 'Up 2 seconds',
      labels: { 'com.docker.compose.project': 'shop', 'com.docker.compose.service': 'web' },
    });
    expect(toReportedContainer({ ...line, State: 'Up', Labels: '' })).toMatchObject({ service: '', state: 'unknown' });
  });
});
