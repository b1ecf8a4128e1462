/**
 * A remote server that installs itself (issue 14 §2), in the multi-host lab (fleet-lab.ts): the
 * compiled `panel serve` listens on the lab's root address; inside host h1 (its own machine id,
 * /etc, /var/lib and Docker engine) the console's one-line join command runs as the console
 * shows it (in the prefix directory), with `sudo` dropped (the lab runs as root) and `--prefix` added, because lab hosts
 * share this machine's /usr and have no systemd. What this proves: install.sh is fetched from
 * PANEL_PUBLIC_URL, the executable is downloaded with the join token and its SHA-256 checked, the
 * server joins with the name chosen in the console, and the daemon started by the no-systemd path
 * connects and runs a deploy on h1's own engine; `--uninstall` stops that daemon. What it does not: the systemd unit itself
 * (install-systemd.test.ts covers install.sh's systemd mode with a stand-in systemctl).
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TEST_KEY_RING } from '../harness.ts';
import { type FleetLab, startFleetLab } from './fleet-lab.ts';
import { clientApi, completeInstall, eventually, freePort, type Session } from './panel-api.ts';
import { type StartedPanel, startPanel } from './process.ts';

const TIMEOUT = 240_000;
const repo = join(import.meta.dir, '..', '..');
const work = mkdtempSync(join(tmpdir(), 'panel-join-lab-'));
const COMPOSE = `services:
  web:
    image: local/busybox:1
    command: ["sleep", "3600"]
    stop_grace_period: 1s
`;

const started = await startFleetLab('join', 1);
if (!started.started) console.warn(`join lab e2e skipped: ${started.reason}`);
const lab: FleetLab | undefined = started.started ? started.lab : undefined;
let panel: StartedPanel | undefined;
let session: Session;

beforeAll(async () => {
  if (!lab) return;
  const build = Bun.spawnSync([process.execPath, 'scripts/build.ts', join(work, 'panel')], { cwd: repo, stdout: 'pipe', stderr: 'pipe' });
  if (build.exitCode !== 0) throw new Error(`build failed: ${build.stderr.toString()}`);
  const port = freePort();
  const url = `http://${lab.rootIp}:${port}`;
  panel = await startPanel([join(work, 'panel'), 'serve'], {
    PANEL_DATA_DIR: join(work, 'data'),
    PANEL_HOST: lab.rootIp,
    PANEL_PORT: String(port),
    PANEL_PUBLIC_URL: url,
    PANEL_SECRETS: TEST_KEY_RING,
    PANEL_LOCAL_DAEMON: 'off',
  });
  session = await completeInstall(url, join(work, 'data'));
}, TIMEOUT);

afterAll(async () => {
  await lab?.down();
  if (panel) {
    panel.process.kill('SIGTERM');
    await panel.process.exited;
  }
  rmSync(work, { recursive: true, force: true });
}, TIMEOUT);



describe.skipIf(!lab)('a server joins with the one-line command from the console', () => {
  test('h1 fetches install.sh, downloads and verifies the executable, joins as "edge one" and deploys', async () => {
    const created = await clientApi(session, 'POST', '/join-tokens', { organizationId: session.organizationId, name: 'edge one' });
    expect(created.status, created.text).toBe(201);
    const { command, token } = created.json as { command: string; token: string };
    expect(command).toEndWith(` && sudo bash panel-install.sh --daemon ${session.url} --token ${token} --name 'edge one'`);
    expect(created.json.warnings).toEqual([]);

    const root = join(work, 'h1-root');
    const h1 = lab!.host('h1');
    const ran = await h1.exec(['bash', '-c', `mkdir -p ${root} && cd ${root} && ${command.replace('&& sudo bash', '&& bash')} --prefix ${root}`]);
    expect(ran.exitCode, `${ran.stdout}\n${ran.stderr}`).toBe(0);
    expect(ran.stdout).toContain('checksum verified: sha256 ');
    const expected = (await (await fetch(`${session.url}/api/daemon/v1/executable/linux-x64.sha256`)).text()).split(' ')[0];
    expect(ran.stdout).toContain(`sha256 ${expected}`);
    expect(Bun.hash(readFileSync(join(root, 'usr/local/bin/panel')))).toBe(Bun.hash(readFileSync(join(work, 'panel'))));

    const servers = await eventually(
      () => clientApi(session, 'GET', `/servers?organizationId=${session.organizationId}`),
      (res) => res.json.data.some((server: { status: string }) => server.status === 'connected'),
      'the joined server connecting',
      () => panel?.logs() ?? '',
    );
    const server = servers.json.data[0] as { id: string; name: string; hostname: string; machineId: string };
    expect(server).toMatchObject({ name: 'edge one', hostname: 'h1' });
    expect(server.machineId).toBe((await h1.exec(['cat', '/etc/machine-id'])).stdout.trim());
    // The token is spent: the same command cannot download or join again.
    expect((await fetch(`${session.url}/api/daemon/v1/executable/linux-x64`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(401);

    const workspaceId = (await clientApi(session, 'GET', `/workspaces?organizationId=${session.organizationId}`)).json.data.find((item: { kind: string }) => item.kind === 'user').id;
    const project = await clientApi(session, 'POST', '/projects', { workspaceId, name: 'edge-app', options: { defaultServerId: server.id } });
    expect((await clientApi(session, 'PUT', `/projects/${project.json.id}/compose`, { yaml: COMPOSE })).status).toBe(200);
    const environmentId = (await clientApi(session, 'GET', `/environments?projectId=${project.json.id}`)).json.data[0].id as string;
    const deployed = await clientApi(session, 'POST', `/environments/${environmentId}/deploy`, {});
    expect(deployed.status, deployed.text).toBe(202);
    await eventually(() => clientApi(session, 'GET', `/deployments/${deployed.json.id}`), (res) => res.json.status === 'succeeded' || res.json.status === 'failed', 'the deploy');
    expect((await clientApi(session, 'GET', `/deployments/${deployed.json.id}`)).json.error).toBeNull();
    const running = await h1.docker('ps', '--filter', `label=dev.panel.environment-id=${environmentId}`, '--format', '{{.State}}');
    expect(running.stdout.trim()).toBe('running');

    // Uninstalling stops the daemon it started in the background (the server disconnects) and says
    // what it kept; --purge removes the daemon's identity too.
    const uninstall = (...flags: string[]) => h1.exec(['bash', join(root, 'panel-install.sh'), '--uninstall', ...flags, '--prefix', root]);
    const removed = await uninstall();
    expect(removed.exitCode, `${removed.stdout}\n${removed.stderr}`).toBe(0);
    expect(removed.stdout).toContain('stopped the daemon');
    expect(removed.stdout).toContain(`${root}/var/lib/panel-daemon (the daemon's identity`);
    expect(removed.stdout).toContain('destroy their deployments in Panel, then delete the server on the Servers page');
    await eventually(() => clientApi(session, 'GET', `/servers/${server.id}`), (res) => res.json.status === 'disconnected', 'the server disconnecting');
    expect(existsSync(join(root, 'usr/local/bin/panel'))).toBe(false);
    expect((await uninstall('--purge')).exitCode).toBe(0);
    expect(existsSync(join(root, 'var/lib/panel-daemon'))).toBe(false);
  }, TIMEOUT);
});
