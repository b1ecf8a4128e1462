/**
 * The multi-host lab (../shared/tools/fleet-lab.sh) for end-to-end tests: N simulated hosts, each
 * with its own Docker engine (normal bridge networking), machine id and daemon state, on a private
 * LAN 198.18.K.0/24 that reaches nothing outside this machine. Each test file starts its own lab
 * (its own state directory and K), so labs of concurrently running files or worktrees never meet.
 * A lab that cannot start is a reason to skip, never a throw.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Subprocess } from 'bun';
import { e2eStateDir } from './real-docker.ts';

export const FLEET_LAB_SCRIPT = join(import.meta.dir, '../../../shared/tools/fleet-lab.sh');

export interface RunResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

export interface LabHost {
  /** h1, h2, ... */
  name: string;
  /** The host's address on the lab LAN. */
  ip: string;
  /** DOCKER_HOST and DOCKER_CONFIG that reach this host's engine from the root namespace. */
  env: Record<string, string>;
  /** Runs CMD inside the host (its network, mount and UTS namespaces). */
  exec(cmd: string[], env?: Record<string, string>): Promise<RunResult>;
  /** Starts a long-running CMD inside the host; the child's pid is CMD's own (nsenter execs). */
  spawn(cmd: string[], env?: Record<string, string>): Subprocess<'ignore', 'pipe', 'pipe'>;
  /** `docker ...` against this host's engine. */
  docker(...args: string[]): Promise<RunResult>;
  /** Stops the host's Docker engine (its containers stop with it); `FleetLab.startEngines()` starts it again. */
  stopEngine(): Promise<void>;
}

export interface FleetLab {
  /** This machine's own address on the lab LAN: a control plane listening here is reachable from every host. */
  rootIp: string;
  hosts: LabHost[];
  host(name: string): LabHost;
  /** Starts every host's engine that is not running (fleet-lab.sh up keeps the others). */
  startEngines(): Promise<void>;
  /** Imports a minimal image made from a binary of this machine into every host (fleet-lab.sh image-from-binary). */
  imageFromBinary(name: string, binary: string, ...files: string[]): Promise<void>;
  down(): Promise<void>;
}

export type FleetLabStart = { started: true; lab: FleetLab } | { started: false; reason: string };

async function run(cmd: string[], env: Record<string, string> = {}): Promise<RunResult> {
  const child = Bun.spawn(cmd, { env: { ...process.env, ...env }, stdin: 'ignore', stdout: 'pipe', stderr: 'pipe' });
  const [stdout, stderr, exitCode] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  return { exitCode, stdout, stderr };
}

/** A K for the LAN: the one an existing lab at `stateDir` was made with, else one derived from its path. */
function candidateNets(stateDir: string): number[] {
  const netFile = join(stateDir, 'net');
  if (existsSync(netFile)) return [Number(readFileSync(netFile, 'utf8').trim())];
  const start = createHash('sha256').update(stateDir).digest().readUInt16BE(0) % 240;
  // 1..250 (0 stays free for a developer's own lab); a taken K fails fast, so try the next ones.
  return Array.from({ length: 8 }, (_, i) => ((start + i * 29) % 250) + 1);
}

/**
 * Starts `count` hosts for the test file `name`. Every file passes its own name; the state lives in
 * e2eStateDir(`fleet-lab-${name}`).
 */
export async function startFleetLab(name: string, count: number): Promise<FleetLabStart> {
  if (process.getuid?.() !== 0) return { started: false, reason: 'the multi-host lab needs root (network namespaces)' };
  if (!existsSync(FLEET_LAB_SCRIPT)) return { started: false, reason: `${FLEET_LAB_SCRIPT} not found` };
  const stateDir = e2eStateDir(`fleet-lab-${name}`);
  let failure = '';
  for (const net of candidateNets(stateDir)) {
    const labEnv = { FLEET_LAB: stateDir, FLEET_LAB_NET: String(net) };
    const up = await run(['bash', FLEET_LAB_SCRIPT, 'up', String(count)], labEnv);
    if (up.exitCode === 0) return { started: true, lab: await describeLab(labEnv, count) };
    failure = up.stderr.trim().split('\n').slice(-4).join(' | ');
    if (!/another lab uses|exists but is not this lab/.test(up.stderr)) break;
  }
  return { started: false, reason: `fleet-lab.sh up ${count} failed: ${failure}` };
}

async function describeLab(labEnv: Record<string, string>, count: number): Promise<FleetLab> {
  const lab = (...args: string[]) => run(['bash', FLEET_LAB_SCRIPT, ...args], labEnv);
  const output = async (...args: string[]) => {
    const result = await lab(...args);
    if (result.exitCode !== 0) throw new Error(`fleet-lab.sh ${args.join(' ')} exited ${result.exitCode}: ${result.stderr}`);
    return result.stdout.trim();
  };
  const hosts: LabHost[] = [];
  for (let i = 1; i <= count; i++) {
    const name = `h${i}`;
    const env: Record<string, string> = {};
    for (const match of (await output('env', name)).matchAll(/^export ([A-Z_][A-Z0-9_]*)=(.*)$/gm)) {
      env[match[1]!] = match[2]!.replace(/^'(.*)'$/, '$1').replace(/^"(.*)"$/, '$1');
    }
    hosts.push({
      name,
      ip: await output('ip', name),
      env,
      exec: (cmd, extra = {}) => run(['bash', FLEET_LAB_SCRIPT, 'exec', name, ...cmd], { ...labEnv, ...extra }),
      spawn: (cmd, extra = {}) =>
        Bun.spawn(['bash', FLEET_LAB_SCRIPT, 'exec', name, ...cmd], {
          env: { ...process.env, ...labEnv, ...extra },
          stdin: 'ignore',
          stdout: 'pipe',
          stderr: 'pipe',
        }),
      docker: (...args) => run(['docker', ...args], env),
      async stopEngine() {
        const pid = Number(readFileSync(join(labEnv.FLEET_LAB!, name, 'dockerd.pid'), 'utf8').trim());
        process.kill(pid, 'SIGTERM');
        // dockerd stops its containers (up to its 3 s shutdown timeout), then exits.
        for (let waited = 0; waited < 30_000; waited += 100) {
          try {
            process.kill(pid, 0);
          } catch {
            return;
          }
          await Bun.sleep(100);
        }
        throw new Error(`${name}: dockerd ${pid} did not stop within 30 s`);
      },
    });
  }
  return {
    rootIp: await output('ip', 'root'),
    hosts,
    host(name) {
      const found = hosts.find((host) => host.name === name);
      if (!found) throw new Error(`no lab host ${name}`);
      return found;
    },
    async startEngines() {
      await output('up', String(count));
    },
    async imageFromBinary(image, binary, ...files) {
      await output('image-from-binary', image, binary, ...files);
    },
    async down() {
      await lab('down');
    },
  };
}
