/**
 * The daemon's part of the overlay fabric (ARCHITECTURE.md §8, Fabric). It keeps, in
 * <stateDir>/fabric/ (0700):
 *   private.key         the WireGuard private key (keys.ts), never sent anywhere
 *   applied.json        the configuration last applied and its hash, restored at start, so a
 *                       rebooted server is back in the mesh before (and without) reaching the
 *                       control plane
 *   networks/<p>.json   the spanning networks of project <p>, as its last deploy gave them
 *   wg.conf             the `wg syncconf` file made from both (0600: it holds the private key)
 *
 * `fabric` commands apply a member configuration (`up`), remove everything (`down`) or replace
 * the key pair (`rotate-key`: the new private key goes on the interface at once; the peers learn
 * the new public key from the control plane once this daemon reports it); deploys
 * attach their spanning networks before `up`, stops and destroys detach them. Every change is
 * applied whole (rules.ts, host-network.ts), one at a time. After connecting, after every
 * change and every minute, the daemon reports its key, addresses, the hash of what is in place
 * and each peer's last handshake; a minute's check also applies the configuration again when
 * the interface is gone (someone deleted it, the host rebooted under a running daemon).
 */
import { mkdir, readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import * as v from 'valibot';
import { FabricCommandPayload, FabricConfig, FabricNetwork, type FabricStatus } from '../../../contract/fabric.ts';
import type { Logger } from '../../../lib/logger.ts';
import type { CommandFrame } from '../../../contract/daemon-protocol.ts';
import type { CommandOutcome } from '../compose-runner.ts';
import { writePrivateFile } from '../identity.ts';
import { type HostNetwork, HostNetworkError } from './host-network.ts';
import { createWireguardKeys, loadOrCreateWireguardKeys, type WireguardKeys } from './keys.ts';
import { iptablesRules, type ProjectNetworks, wireguardConfig } from './rules.ts';

export const STATUS_INTERVAL_MS = 60_000;

const Applied = v.object({ config: FabricConfig, hash: v.string() });
type Applied = v.InferOutput<typeof Applied>;
const StoredNetworks = v.object({ writtenAt: v.number(), networks: v.array(FabricNetwork) });

type FabricCommand = Extract<CommandFrame, { kind: 'fabric' }>;

export interface FabricAgentOptions {
  stateDir: string;
  host: HostNetwork;
  logger: Logger;
  /** Sends a `fabric` frame on the welcomed connection; false when there is none. */
  send: (status: FabricStatus) => boolean;
  now?: () => number;
  statusIntervalMs?: number;
}

const failureOf = (error: unknown) =>
  error instanceof HostNetworkError ? { code: error.code, message: error.message.slice(0, 2000) } : { code: 'fabric_apply_failed', message: String((error as Error).message ?? error).slice(0, 2000) };

export class FabricAgent {
  private applied: Applied | null = null;
  private lastError: { code: string; message: string } | null = null;
  private queue: Promise<unknown> = Promise.resolve();
  private interval: ReturnType<typeof setInterval> | null = null;
  private readonly dir: string;
  private readonly now: () => number;

  private constructor(
    private readonly options: FabricAgentOptions,
    private keys: WireguardKeys,
  ) {
    this.dir = join(options.stateDir, 'fabric');
    this.now = options.now ?? Date.now;
  }

  /** Loads (or makes) the key pair and the configuration last applied. */
  static async open(options: FabricAgentOptions): Promise<FabricAgent> {
    const dir = join(options.stateDir, 'fabric');
    await mkdir(join(dir, 'networks'), { recursive: true, mode: 0o700 });
    const agent = new FabricAgent(options, await loadOrCreateWireguardKeys(dir));
    try {
      agent.applied = v.parse(Applied, JSON.parse(await readFile(join(dir, 'applied.json'), 'utf8')));
    } catch {
      agent.applied = null;
    }
    return agent;
  }

  get publicKey(): string {
    return this.keys.publicKey;
  }

  /** Runs `task` after every earlier change has finished. */
  private serial<T>(task: () => Promise<T>): Promise<T> {
    const run = this.queue.then(task, task);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** At start: the configuration last applied is put in place again (after a reboot nothing is). */
  restore(): Promise<void> {
    return this.serial(async () => {
      if (this.applied === null) return;
      try {
        await this.apply(this.applied);
        this.options.logger.info('fabric restored', { hash: this.applied.hash });
      } catch (error) {
        this.lastError = failureOf(error);
        this.options.logger.error('cannot restore the fabric', { error: this.lastError.message });
      }
    });
  }

  /** The minute's check and report, until stop(). */
  start(): void {
    if (this.interval) return;
    this.interval = setInterval(() => void this.check(), this.options.statusIntervalMs ?? STATUS_INTERVAL_MS);
    this.interval.unref?.();
  }

  stop(): void {
    if (this.interval) clearInterval(this.interval);
    this.interval = null;
  }

  /** Applies the configuration again when its interface is gone, then reports. */
  async check(): Promise<void> {
    await this.serial(async () => {
      if (this.applied !== null && (await this.options.host.backend()) === null) {
        this.options.logger.warn('the fabric interface is gone; applying the configuration again');
        try {
          await this.apply(this.applied);
        } catch (error) {
          this.lastError = failureOf(error);
        }
      }
    });
    await this.report();
  }

  /** Sends the current state (after connecting, after changes); false when not connected. */
  async report(): Promise<boolean> {
    return this.options.send(await this.status());
  }

  async status(): Promise<FabricStatus> {
    const { host } = this.options;
    const [state, candidates] = await Promise.all([host.state().catch(() => null), host.candidates().catch(() => [])]);
    const inPlace = this.applied !== null && state !== null && state.publicKey === this.keys.publicKey && state.listenPort === this.applied.config.listenPort;
    return {
      publicKey: this.keys.publicKey,
      candidates,
      backend: state?.backend ?? null,
      appliedHash: inPlace ? this.applied!.hash : null,
      error: this.lastError,
      peers: (state?.peers ?? []).map(({ publicKey, lastHandshakeAt, endpoint }) => ({ publicKey, lastHandshakeAt, endpoint })),
    };
  }

  /** A `fabric` command: `up` applies the configuration, `down` removes everything, `rotate-key` replaces the key pair. */
  async execute(command: FabricCommand): Promise<CommandOutcome> {
    const payload = v.parse(FabricCommandPayload, command.payload);
    const outcome = await this.serial(async (): Promise<CommandOutcome['result']> => {
      try {
        if (payload.state === 'rotate-key') {
          this.keys = await createWireguardKeys(this.dir);
          this.options.logger.info('fabric key rotated', { publicKey: this.keys.publicKey });
          if (this.applied !== null) await this.apply(this.applied);
          return { ok: true, data: { publicKey: this.keys.publicKey } };
        }
        if (payload.state === 'down') {
          await this.options.host.remove();
          await rm(join(this.dir, 'applied.json'), { force: true });
          await rm(join(this.dir, 'wg.conf'), { force: true });
          this.applied = null;
          this.lastError = null;
          this.options.logger.info('fabric removed');
          return { ok: true, data: { appliedHash: null } };
        }
        await this.apply({ config: payload.config, hash: payload.hash });
        this.options.logger.info('fabric applied', { hash: payload.hash, peers: payload.config.peers.length });
        return { ok: true, data: { appliedHash: payload.hash } };
      } catch (error) {
        this.lastError = failureOf(error);
        this.options.logger.warn('fabric apply failed', { error: this.lastError.message });
        return { ok: false, error: this.lastError };
      }
    });
    void this.report();
    return { report: null, result: outcome };
  }

  /**
   * A deploy's spanning networks for `project`, before its `up`: routed and admitted from the
   * other servers. None detaches the project. Refused while this server has no fabric.
   */
  attach(project: string, networks: readonly FabricNetwork[]): Promise<void> {
    if (networks.length === 0) return this.detach(project);
    return this.serial(async () => {
      if (this.applied === null) {
        throw new HostNetworkError('fabric_not_ready', 'this server has no fabric configuration yet: it must be converged in the fabric view before a network can span it');
      }
      await writePrivateFile(this.networksFile(project), JSON.stringify({ writtenAt: this.now(), networks }));
      await this.apply(this.applied);
    }).finally(() => void this.report());
  }

  /** After a stop or destroy (or a deploy without spanning networks): the project's routes and rules go. */
  detach(project: string): Promise<void> {
    return this.serial(async () => {
      const file = this.networksFile(project);
      if (!(await readFile(file).then(() => true, () => false))) return;
      await rm(file, { force: true });
      if (this.applied !== null) await this.apply(this.applied);
    });
  }

  private networksFile(project: string): string {
    return join(this.dir, 'networks', `${project}.json`);
  }

  private async projects(): Promise<ProjectNetworks[]> {
    const projects: ProjectNetworks[] = [];
    for (const name of await readdir(join(this.dir, 'networks')).catch(() => [] as string[])) {
      if (!name.endsWith('.json')) continue;
      try {
        const stored = v.parse(StoredNetworks, JSON.parse(await readFile(join(this.dir, 'networks', name), 'utf8')));
        projects.push({ project: name.slice(0, -'.json'.length), ...stored });
      } catch {
        this.options.logger.warn('ignoring an unreadable fabric networks file', { file: name });
      }
    }
    return projects;
  }

  /** Interface, peers, address, route and rules to `applied`, with the projects' networks. */
  private async apply(applied: Applied): Promise<void> {
    const { host } = this.options;
    const projects = await this.projects();
    await host.ensureInterface();
    const configFile = join(this.dir, 'wg.conf');
    await writePrivateFile(configFile, wireguardConfig(this.keys.privateKey, applied.config, projects));
    await host.syncPeers(configFile);
    await host.configureLink(applied.config.address, applied.config.mtu, applied.config.containerRange);
    await host.applyRules(iptablesRules(applied.config.containerRange, projects));
    await writePrivateFile(join(this.dir, 'applied.json'), JSON.stringify(applied));
    this.applied = applied;
    this.lastError = null;
  }
}
