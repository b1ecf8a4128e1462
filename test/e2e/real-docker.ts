/**
 * A real Docker engine for end-to-end tests through ../shared/tools/real-docker.sh: `start`
 * prints `export K=V` lines (DOCKER_HOST, DOCKER_CONFIG when Compose v2 could be had), parsed
 * here into an environment for Docker commands. Each caller names its own state directory so
 * concurrently running test files never stop each other's engine.
 */
import { join } from 'node:path';

export const REAL_DOCKER_SCRIPT = join(import.meta.dir, '../../../shared/tools/real-docker.sh');

export interface RealDocker {
  /** DOCKER_HOST, PANEL_E2E_DOCKER_PID and, with Compose v2, DOCKER_CONFIG. */
  env: Record<string, string>;
  /** `docker <args>` against this engine (an argument array, no shell). */
  docker(...args: string[]): Promise<{ exitCode: number; stdout: string; stderr: string }>;
  /** Removes every container Panel deployed on this engine (a test's afterAll). */
  removePanelContainers(): Promise<void>;
  stop(): Promise<void>;
}

export type RealDockerStart = { started: true; docker: RealDocker } | { started: false; reason: string };

/**
 * Where an end-to-end test keeps the state of an engine or lab it starts: under
 * PANEL_E2E_STATE_ROOT (default /tmp), so two checkouts running the same test file at once
 * (worktrees, a CI next to a developer) never share an engine.
 */
export function e2eStateDir(name: string): string {
  return join(process.env.PANEL_E2E_STATE_ROOT ?? '/tmp', name);
}

async function runScript(args: string[], stateDir: string): Promise<{ exitCode: number; stdout: string; stderr: string }> {
  const child = Bun.spawn([REAL_DOCKER_SCRIPT, ...args], {
    env: { ...process.env, PANEL_E2E_DOCKER: stateDir },
    stdin: 'ignore',
    stdout: 'pipe',
    stderr: 'pipe',
  });
  const [stdout, stderr, exitCode] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  return { exitCode, stdout, stderr };
}

/** Parses the `export K=V` lines the script prints for `eval`. */
export function parseExports(text: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const match of text.matchAll(/^export ([A-Z_][A-Z0-9_]*)=(.*)$/gm)) env[match[1]!] = match[2]!;
  return env;
}

/** Starts (or reuses) the engine of `stateDir`; a failure to start is a reason, not a throw. */
export async function startRealDocker(stateDir: string): Promise<RealDockerStart> {
  let result;
  try {
    result = await runScript(['start'], stateDir);
  } catch (error) {
    return { started: false, reason: `cannot run ${REAL_DOCKER_SCRIPT}: ${(error as Error).message}` };
  }
  const env = parseExports(result.stdout);
  if (result.exitCode !== 0 || !env.DOCKER_HOST) {
    return { started: false, reason: `real-docker.sh start exited ${result.exitCode}: ${result.stderr.trim().split('\n').slice(-5).join(' | ')}` };
  }
  const docker = async (...args: string[]) => {
    const child = Bun.spawn(['docker', ...args], { env: { ...process.env, ...env }, stdin: 'ignore', stdout: 'pipe', stderr: 'pipe' });
    const [stdout, stderr, exitCode] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
    return { stdout: stdout.trim(), stderr, exitCode };
  };
  return {
    started: true,
    docker: {
      env,
      docker,
      async removePanelContainers() {
        const leftovers = (await docker('ps', '-aq', '--filter', 'label=dev.panel.environment-id')).stdout.split('\n').filter(Boolean);
        if (leftovers.length > 0) await docker('rm', '-f', ...leftovers);
      },
      stop: async () => {
        await runScript(['stop'], stateDir);
      },
    },
  };
}
