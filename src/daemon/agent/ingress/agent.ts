/**
 * The server's ingress on the daemon's side (docs/DECISIONS.md "Ingress"). An ingress deploy
 * (a deploy command carrying `ingress`) brings up the Caddy project and applies; afterwards the
 * agent applies again on its own whenever what it observes changes: after every deploy, stop or
 * destroy it runs, on container events (start, die, health), and at reconnect. Each apply:
 *
 *   1. writes the files Caddy reads: library certificates and keys (opened from `pndaemon`),
 *      the ACME directory's roots, and the server's CA into Caddy's storage (0600, root only);
 *   2. observes the routed services' containers (observe.ts) and generates the configuration
 *      (src/ingress/caddy-config.ts, pure);
 *   3. when it differs from the one serving: loads it through the admin socket (Caddy provisions
 *      it whole before swapping: a refused one leaves the previous one serving), and keeps it as
 *      caddy.json, what Caddy starts with after a restart;
 *   4. tells the hub what changed in the routes and certificates (`ingress` frames).
 *
 * Applies run one at a time. A failed one is the ingress deploy's error (the hub shows it on the
 * hostings); on its own the agent logs it and tries again at the next change.
 */
import { X509Certificate } from 'node:crypto';
import { chmod, mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PANEL_LABELS } from '../../../compose/naming.ts';
import { type DaemonIdentity, openAsDaemon } from '../../../crypto/index.ts';
import { adminConfig, generateCaddyConfig, type GeneratedIngress, type IngressLayout } from '../../../ingress/caddy-config.ts';
import { INGRESS_PATHS, INGRESS_STATE_FOLDER } from '../../../ingress/compose.ts';
import { type CertificateState, type IngressPayload, IngressPayload as IngressPayloadSchema, type IngressState, MAX_STATE_ENTRIES, type RouteState } from '../../../contract/ingress.ts';
import type { Logger } from '../../../lib/logger.ts';
import type { CommandFrame } from '../../../contract/daemon-protocol.ts';
import type { CommandOutcome, ComposeRunner } from '../compose-runner.ts';
import type { CommandOutput } from '../command-output.ts';
import { type DockerCli, dockerEnvironment, lastLine } from '../docker-cli.ts';
import { CaddyAdmin } from './caddy-admin.ts';
import { certificateStates } from './certificate-states.ts';
import { observe } from './observe.ts';
import * as v from 'valibot';

type DeployCommand = Extract<CommandFrame, { kind: 'deploy' }>;

export interface IngressAgentOptions {
  /** The daemon's state folder; the ingress keeps its files in its project folder's `state` (kept across deploys). */
  stateDir: string;
  docker: DockerCli;
  runner: ComposeRunner;
  identity: () => DaemonIdentity | null;
  logger: Logger;
  /** Sends one `ingress` frame now; false when there is no connection (it is sent again later). */
  send: (state: IngressState) => boolean;
  /** The agent's environment (the Docker client's variables reach `docker events`). */
  env: Record<string, string | undefined>;
  adminTimeoutMs?: number;
}

/** What the last ingress deploy asked for; kept on disk so a restarted daemon goes on applying it. */
interface Desired {
  project: string;
  payload: IngressPayload;
}

const DESIRED_FILE = 'ingress.json';
/** How soon after a burst of container events the agent applies again. */
const SETTLE_MS = 300;
/** How often certificates are looked at: while some are pending or failed, and otherwise. */
const PENDING_CHECK_MS = 5_000;
const SETTLED_CHECK_MS = 60_000;
const EVENTS_RESTART_MS = 5_000;

class ApplyError extends Error {}

export class IngressAgent {
  private desired: Desired | null = null;
  private chain: Promise<unknown> = Promise.resolve();
  /** The JSON of every entry the hub has, by key: only changes are sent. */
  private readonly sent = new Map<string, string>();
  private applied: string | null = null;
  private generated: GeneratedIngress | null = null;
  private stopped = false;
  private events: { kill(): void; organizationId: string } | null = null;
  private settleTimer: ReturnType<typeof setTimeout> | null = null;
  private checkTimer: ReturnType<typeof setTimeout> | null = null;

  constructor(private readonly options: IngressAgentOptions) {}

  /** Where the ingress of `project` keeps its files: its project folder's `state`, bound into Caddy. */
  private dirOf(project: string): string {
    return join(this.options.stateDir, 'projects', project, INGRESS_STATE_FOLDER);
  }

  private get dir(): string {
    return this.dirOf(this.desired!.project);
  }

  /** Picks up what a previous run of the daemon was asked to apply. */
  async restore(): Promise<void> {
    try {
      const stored = JSON.parse(await readFile(join(this.options.stateDir, DESIRED_FILE), 'utf8')) as { project?: unknown; payload?: unknown };
      const payload = v.safeParse(IngressPayloadSchema, stored.payload);
      if (typeof stored.project === 'string' && payload.success) this.desired = { project: stored.project, payload: payload.output };
      this.applied = await readFile(join(this.dir, 'etc', 'caddy.json'), 'utf8');
    } catch {
      // nothing applied yet
    }
  }

  get organizationId(): string | null {
    return this.desired?.payload.organizationId ?? null;
  }

  private serial<T>(work: () => Promise<T>): Promise<T> {
    const run = this.chain.then(work);
    this.chain = run.catch(() => undefined);
    return run;
  }

  /** An ingress deploy: the Caddy project up (with its folders), then the configuration applied; `output` is its deploy log. */
  deploy(command: DeployCommand, output: CommandOutput): Promise<CommandOutcome> {
    return this.serial(async () => {
      const { project, ingress: payload } = command.payload;
      if (this.desired?.project !== project) this.applied = null;
      await this.prepareFolders(this.dirOf(project));
      const outcome = await this.options.runner.execute(command, undefined, output);
      if (!outcome.result.ok) return outcome;
      this.desired = { project, payload: payload! };
      await writeFile(join(this.options.stateDir, DESIRED_FILE), JSON.stringify(this.desired), { mode: 0o600 });
      output.step(`Applying ${payload!.routes.length} route(s) to Caddy`);
      try {
        const applied = await this.apply();
        return { ...outcome, result: { ok: true, data: { ...outcome.result.data, ...applied } } };
      } catch (error) {
        const message = error instanceof ApplyError ? error.message : `applying the ingress failed: ${(error as Error).message}`;
        output.step(`Failed: ingress_not_applied: ${lastLine(message)}`);
        return { ...outcome, result: { ok: false, error: { code: 'ingress_not_applied', message } } };
      }
    });
  }

  /** Applies again if what the routes point at changed (a deploy ran, a container moved). */
  refresh(reason: string): Promise<void> {
    return this.serial(async () => {
      if (!this.desired) return;
      try {
        await this.apply();
      } catch (error) {
        this.options.logger.warn('the ingress could not be applied; the previous configuration keeps serving', { reason, error: (error as Error).message });
      }
    });
  }

  /** A new connection: the hub may have missed changes, so everything is sent again. */
  reconnected(): Promise<void> {
    this.sent.clear();
    return this.refresh('reconnected');
  }

  private async prepareFolders(dir: string): Promise<void> {
    for (const folder of ['etc/files', 'run', 'data', 'log']) await mkdir(join(dir, folder), { recursive: true, mode: 0o700 });
    await chmod(dir, 0o700);
    // Caddy starts with caddy.json: until the first apply, one that only opens the admin socket.
    if (this.applied === null) {
      const bootstrap = JSON.stringify({ admin: adminConfig(INGRESS_PATHS.adminSocket) });
      await writeFile(join(dir, 'etc', 'caddy.json'), bootstrap, { mode: 0o600 });
    }
  }

  private async apply(): Promise<{ routes: number; configurationChanged: boolean }> {
    const { payload, project } = this.desired!;
    const layout = await this.writeFiles(payload);
    const serviceIds = new Set(payload.routes.map((route) => route.serviceId));
    const observed = await observe(this.options.docker, payload.organizationId, serviceIds);
    const generated = generateCaddyConfig(payload, observed, layout);
    const text = JSON.stringify(generated.config);
    const changed = text !== this.applied;
    if (changed) await this.swapIn(project, text);
    this.generated = generated;
    await this.publish(generated, payload);
    this.follow(payload.organizationId);
    return { routes: payload.routes.length, configurationChanged: changed };
  }

  /** Follows the organization's container events (start, die, health) to apply again after them. */
  private follow(organizationId: string): void {
    if (this.stopped || this.events?.organizationId === organizationId) return;
    this.events?.kill();
    const filters = ['type=container', `label=${PANEL_LABELS.organizationId}=${organizationId}`, 'event=start', 'event=die', 'event=health_status'];
    const child = Bun.spawn(['docker', 'events', ...filters.flatMap((filter) => ['--filter', filter]), '--format', '{{.Action}}'], {
      env: dockerEnvironment(this.options.env),
      stdin: 'ignore',
      stdout: 'pipe',
      stderr: 'ignore',
    });
    const events = { organizationId, kill: () => child.kill() };
    this.events = events;
    void (async () => {
      for await (const _chunk of child.stdout) this.settle();
      await child.exited;
      if (this.events !== events || this.stopped) return;
      this.events = null;
      this.options.logger.warn('docker events ended; following them again shortly', { exitCode: child.exitCode });
      setTimeout(() => this.desired && this.follow(this.desired.payload.organizationId), EVENTS_RESTART_MS).unref?.();
    })();
  }

  /** Applies once container events stop arriving for a moment. */
  private settle(): void {
    if (this.settleTimer) clearTimeout(this.settleTimer);
    this.settleTimer = setTimeout(() => void this.refresh('container event'), SETTLE_MS);
    this.settleTimer.unref?.();
  }

  /** Looks at the certificates again: soon while some are pending or failed (ACME), rarely otherwise. */
  private scheduleCheck(unsettled: boolean): void {
    if (this.stopped) return;
    if (this.checkTimer) clearTimeout(this.checkTimer);
    this.checkTimer = setTimeout(
      () =>
        void this.serial(async () => {
          if (this.desired && this.generated) await this.publish(this.generated, this.desired.payload);
        }).catch((error) => this.options.logger.warn('cannot read certificate states', { error: (error as Error).message })),
      unsettled ? PENDING_CHECK_MS : SETTLED_CHECK_MS,
    );
    this.checkTimer.unref?.();
  }

  /** Stops following events and timers (the daemon is stopping). */
  stop(): void {
    this.stopped = true;
    this.events?.kill();
    this.events = null;
    for (const timer of [this.settleTimer, this.checkTimer]) if (timer) clearTimeout(timer);
  }

  /**
   * Loads a configuration through the admin socket. Caddy provisions the whole new configuration
   * before it swaps, and keeps the previous one serving when it refuses it or cannot start it: that
   * is the validation. (A `caddy validate` through `docker exec` first checked the same thing
   * again, in a new Caddy process, and was most of the time from a deploy's report to its route.)
   */
  private async swapIn(project: string, text: string): Promise<void> {
    const admin = new CaddyAdmin(join(this.dir, 'run', 'admin.sock'));
    if (!(await admin.isUp())) {
      const [caddy] = await this.options.docker.runningContainerIds([`com.docker.compose.project=${project}`]);
      if (!caddy) throw new ApplyError(`the ingress container of ${project} is not running`);
      if (!(await admin.waitUntilUp(this.options.adminTimeoutMs ?? 30_000))) throw new ApplyError("Caddy's admin socket does not answer");
    }
    try {
      await admin.load(text);
    } catch (error) {
      throw new ApplyError(`Caddy refused the new configuration (the previous one keeps serving): ${(error as Error).message}`);
    }
    await writeIfChanged(join(this.dir, 'etc', 'caddy.json'), text);
    this.applied = text;
    this.options.logger.info('ingress configuration applied', { project, bytes: text.length });
  }

  /** Writes what Caddy reads from files; answers where it finds them. Files no longer named are removed. */
  private async writeFiles(payload: IngressPayload): Promise<IngressLayout> {
    const identity = this.options.identity();
    if (!identity) throw new ApplyError('the server id is not known yet (no welcome received)');
    const open = (envelope: string, what: string) => {
      try {
        return openAsDaemon(identity, envelope);
      } catch {
        throw new ApplyError(`${what} is not sealed to this daemon`);
      }
    };
    const files = join(this.dir, 'etc', 'files');
    const wanted = new Map<string, string>();
    const libraryFiles = new Map<string, { certificate: string; key: string }>();
    for (const certificate of payload.certificates) {
      const tag = `${certificate.id}-${new X509Certificate(certificate.certificate).fingerprint256.replaceAll(':', '').slice(0, 16).toLowerCase()}`;
      wanted.set(`${tag}.crt`, certificate.certificate);
      wanted.set(`${tag}.key`, open(certificate.key, `the key of certificate ${certificate.id}`));
      libraryFiles.set(certificate.id, { certificate: `${INGRESS_PATHS.files}/${tag}.crt`, key: `${INGRESS_PATHS.files}/${tag}.key` });
    }
    if (payload.acme?.directoryRoots) wanted.set('acme-directory-roots.pem', payload.acme.directoryRoots);
    for (const [name, content] of wanted) await writeIfChanged(join(files, name), content);
    for (const name of await readdir(files)) if (!wanted.has(name)) await rm(join(files, name), { force: true });

    // The server's CA, where Caddy's pki app looks for the root of CA `panel` (see caddy-config.ts).
    const authorityDir = join(this.dir, 'data', 'caddy', 'pki', 'authorities', 'panel');
    await mkdir(authorityDir, { recursive: true, mode: 0o700 });
    await writeIfChanged(join(authorityDir, 'root.crt'), payload.authority.certificate);
    await writeIfChanged(join(authorityDir, 'root.key'), open(payload.authority.key, "the server's CA key"));
    const authority = new X509Certificate(payload.authority.certificate);
    return {
      adminSocket: INGRESS_PATHS.adminSocket,
      storage: INGRESS_PATHS.storage,
      certificatesLog: INGRESS_PATHS.certificatesLog,
      libraryFiles,
      directoryRootsFile: payload.acme?.directoryRoots ? `${INGRESS_PATHS.files}/acme-directory-roots.pem` : null,
      authorityName: `${authority.subject.replace(/^[\s\S]*CN=/, '')} ${authority.serialNumber.slice(0, 16)}`,
    };
  }

  /** Sends the routes and certificates that changed since the hub last heard. */
  private async publish(generated: GeneratedIngress, payload: IngressPayload): Promise<void> {
    const routeCertificate = new Map(payload.routes.flatMap((route) => (route.tls.kind === 'library' ? [[route.hostingId, route.tls.certificateId] as const] : [])));
    let logText = '';
    try {
      logText = await readFile(join(this.dir, 'log', 'certificates.log'), 'utf8');
    } catch {
      // no certificate activity yet
    }
    const certificates = await certificateStates(generated.certificates, payload.certificates, routeCertificate, join(this.dir, 'data', 'caddy'), logText);
    this.sendChanges(generated.routes, certificates);
    this.scheduleCheck(certificates.some((entry) => entry.status === 'pending' || entry.status === 'failed'));
  }

  private sendChanges(routes: readonly RouteState[], certificates: readonly CertificateState[]): void {
    const changedRoutes = routes.filter((entry) => this.sent.get(`route ${entry.hostingId}`) !== JSON.stringify(entry));
    const changedCertificates = certificates.filter((entry) => this.sent.get(`certificate ${entry.hostname.toLowerCase()}`) !== JSON.stringify(entry));
    for (let start = 0; start < Math.max(changedRoutes.length, changedCertificates.length); start += MAX_STATE_ENTRIES) {
      const chunk = { routes: changedRoutes.slice(start, start + MAX_STATE_ENTRIES), certificates: changedCertificates.slice(start, start + MAX_STATE_ENTRIES) };
      if (!this.options.send(chunk)) return;
      for (const entry of chunk.routes) this.sent.set(`route ${entry.hostingId}`, JSON.stringify(entry));
      for (const entry of chunk.certificates) this.sent.set(`certificate ${entry.hostname.toLowerCase()}`, JSON.stringify(entry));
    }
  }
}

/** Writes atomically (temporary file, then rename), 0600, only when the content differs. */
async function writeIfChanged(path: string, content: string): Promise<void> {
  try {
    if ((await readFile(path, 'utf8')) === content) return;
  } catch {
    // new file
  }
  const temporary = `${path}.tmp`;
  await writeFile(temporary, content, { mode: 0o600 });
  await rename(temporary, path);
}

