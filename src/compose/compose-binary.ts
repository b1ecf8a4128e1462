/**
 * Locating and running a Docker Compose v2 binary. Commands are argument arrays, never shell
 * strings. Search order: $PANEL_COMPOSE_BIN, the unpacked Debian package under
 * /tmp/compose-v2 (see /work/shared/tools/get-compose-v2.sh), then `docker compose` on PATH.
 * The plugin binary also runs standalone (`docker-compose -f file config`), and `config` needs
 * no Docker engine.
 */
import { existsSync } from 'node:fs';

export const UNPACKED_COMPOSE_PLUGIN = '/tmp/compose-v2/usr/libexec/docker/cli-plugins/docker-compose';

export interface ComposeBinary {
  /** Argument prefix that runs Compose: `[path]` or `['docker', 'compose']`. */
  command: string[];
  version: string;
}

export type ComposeBinaryLookup = { found: true; binary: ComposeBinary } | { found: false; reason: string };

export interface CommandResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

export async function runCommand(argv: string[], options: { cwd?: string } = {}): Promise<CommandResult> {
  const child = Bun.spawn(argv, { cwd: options.cwd, stdin: 'ignore', stdout: 'pipe', stderr: 'pipe' });
  const [stdout, stderr, exitCode] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  return { exitCode, stdout, stderr };
}

/** The version of a candidate, or why it cannot be used (missing, failing, older than v2). */
async function probe(command: string[]): Promise<ComposeBinaryLookup> {
  let result: CommandResult;
  try {
    result = await runCommand([...command, 'version']);
  } catch (error) {
    return { found: false, reason: `${command.join(' ')}: ${(error as Error).message}` };
  }
  const output = `${result.stdout}${result.stderr}`.trim();
  if (result.exitCode !== 0) return { found: false, reason: `${command.join(' ')} version failed: ${output}` };
  // "Docker Compose version v2.29.1" (v2 and later) or "docker-compose version 1.29.2, build ..." (v1).
  const match = /version v?((\d+)\.\d+\.\d+[^\s,]*)/i.exec(output);
  if (match === null) return { found: false, reason: `${command.join(' ')} printed no version: ${output}` };
  const [, version, major] = match as unknown as [string, string, string];
  if (Number(major) < 2) return { found: false, reason: `${command.join(' ')} is version ${version}, not 2 or later` };
  return { found: true, binary: { command, version } };
}

export async function findComposeBinary(
  env: Record<string, string | undefined> = process.env,
): Promise<ComposeBinaryLookup> {
  const candidates: string[][] = [];
  if (env.PANEL_COMPOSE_BIN) candidates.push([env.PANEL_COMPOSE_BIN]);
  if (existsSync(UNPACKED_COMPOSE_PLUGIN)) candidates.push([UNPACKED_COMPOSE_PLUGIN]);
  if (Bun.which('docker') !== null) candidates.push(['docker', 'compose']);
  const reasons: string[] = [];
  for (const command of candidates) {
    const lookup = await probe(command);
    if (lookup.found) return lookup;
    reasons.push(lookup.reason);
  }
  reasons.push(`no Compose v2 binary: set PANEL_COMPOSE_BIN, run get-compose-v2.sh, or install docker compose`);
  return { found: false, reason: reasons.join('; ') };
}

export interface ComposeConfigOptions {
  cwd: string;
  projectName?: string;
  format?: 'json' | 'yaml';
  /** Extra `config` flags, e.g. ['--no-normalize']. */
  flags?: string[];
}

/** `compose -p <name> -f <file>... config`, in `cwd`. */
export function runComposeConfig(
  binary: ComposeBinary,
  files: string[],
  options: ComposeConfigOptions,
): Promise<CommandResult> {
  const argv = [...binary.command, '-p', options.projectName ?? 'panel'];
  for (const file of files) argv.push('-f', file);
  argv.push('config', '--format', options.format ?? 'yaml', ...(options.flags ?? []));
  return runCommand(argv, { cwd: options.cwd });
}
