/**
 * Placement across real servers in the multi-host lab (../shared/tools/fleet-lab.sh): three
 * hosts, each with its own Docker engine, machine id and `panel daemon` (joined with a join
 * token, state in the host's own /var/lib/panel-daemon), connected to a `panel serve` listening
 * on the lab's root address. In order:
 * - an impossible constraint (`node.labels.disk == ssd` while no server has it) answers 422
 *   constraint_unsatisfiable and enqueues nothing;
 * - once h2 is labelled disk=ssd: `replicas: 3` with `max_replicas_per_node: 1` runs one web
 *   container on each host and the constrained db on h2, all `running` in the API, as each
 *   engine confirms; the console shows the plan's servers side by side (when Chromium is here);
 * - relabelling (h3 disk=ssd instead) moves the db to h3;
 * - scaling web to 1 keeps replica 1 on h1, stops h2 (no longer in the plan) and removes h3's
 *   replica; the dropped replicas read `exited` with no container.
 * Skipped with a printed reason when the lab cannot start (it needs root).
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Subprocess } from 'bun';
import { TEST_KEY_RING } from '../harness.ts';
import { chromiumMissing, launchChromium, screenshot } from './browser.ts';
import { type FleetLab, type LabHost, startFleetLab } from './fleet-lab.ts';
import { clientApi, completeInstall, freePort, type Session } from './panel-api.ts';
import { type StartedPanel, startPanel, stopProcess } from './process.ts';

const STEP_TIMEOUT_MS = 180_000;
const WAIT_MS = 120_000;
const MAIN = join(import.meta.dir, '../../src/main.ts');

const composeOf = (webReplicas: number) => `services:
  web:
    image: local/busybox:1
    command: ["sleep", "3600"]
    stop_grace_period: 1s
    deploy:
      replicas: ${webReplicas}
      placement:
        max_replicas_per_node: 1
  db:
    image: local/busybox:1
    command: ["sleep", "3600"]
    stop_grace_period: 1s
    deploy:
      placement:
        constraints: [node.labels.disk == ssd]
`;

const start = await startFleetLab('placement', 3);
if (!start.started) {
  console.warn(`fleet placement e2e skipped: ${start.reason}`);
  test.skip(`placement in the multi-host lab (${start.reason})`, () => {});
}
const lab: FleetLab | undefined = start.started ? start.lab : undefined;
const dataDir = mkdtempSync(join(tmpdir(), 'panel-fleet-placement-'));
const daemons: Subprocess[] = [];
let panel: StartedPanel | undefined;

afterAll(async () => {
  for (const daemon of daemons) await stopProcess(daemon);
  if (panel) await stopProcess(panel.process);
  await lab?.down();
  rmSync(dataDir, { recursive: true, force: true });
}, 120_000);

interface Row {
  serviceId: string;
  serverId: string;
  status: string;
  containerId: string | null;
  ordinal: number;
}

describe.skipIf(!lab)('placement over three real servers', () => {
  let session: Session;
  let url = '';
  let logs: () => string = () => '';
  const serverOf = new Map<string, string>(); // host name -> server id
  let environmentId = '';
  let projectId = '';
  const serviceIds: Record<string, string> = {};

  const api = (method: string, path: string, body?: unknown) => clientApi(session, method, path, body);

  /** Polls every 200 ms until `check` answers a value, for at most WAIT_MS; the error carries the logs. */
  async function until<T>(what: string, check: () => Promise<T | undefined>): Promise<T> {
    const deadline = Date.now() + WAIT_MS;
    for (;;) {
      const value = await check();
      if (value !== undefined) return value;
      if (Date.now() > deadline) throw new Error(`${what} did not happen within ${WAIT_MS} ms\n${logs().slice(-8000)}`);
      await Bun.sleep(200);
    }
  }

  const rows = async (): Promise<Row[]> => {
    const all: Row[] = [];
    for (const serviceId of Object.values(serviceIds)) all.push(...(await api('GET', `/containers?serviceId=${serviceId}&limit=200`)).json.data);
    return all;
  };
  const hostOf = (serverId: string) => [...serverOf].find(([, id]) => id === serverId)![0];
  /** Service key -> the hosts of its rows by ordinal, with their status. */
  const placement = async () => {
    const all = await rows();
    return Object.fromEntries(
      Object.entries(serviceIds).map(([key, id]) => [
        key,
        all
          .filter((row) => row.serviceId === id)
          .sort((a, b) => a.ordinal - b.ordinal)
          .map((row) => `${hostOf(row.serverId)}:${row.status}`),
      ]),
    );
  };
  /** The project's containers on a host's own engine, by Compose service. */
  const onEngine = async (host: LabHost) => {
    const listed = await host.docker('ps', '-a', '--filter', `label=com.docker.compose.project=pn-${environmentId}`, '--format', '{{.Label "dev.panel.compose-service"}} {{.State}}');
    return listed.stdout.split('\n').filter(Boolean).sort();
  };
  const deploy = async () => {
    const res = await api('POST', `/environments/${environmentId}/deploy`, {});
    expect(res.status, res.text).toBe(202);
    await until(`deployment ${res.json.id}`, async () => {
      const current = (await api('GET', `/deployments/${res.json.id}`)).json;
      if (current.status === 'failed') throw new Error(`deploy failed: ${current.error}\n${logs().slice(-8000)}`);
      return current.status === 'succeeded' ? current : undefined;
    });
    return res.json;
  };
  const label = async (host: string, labels: Record<string, string>) => expect((await api('PATCH', `/servers/${serverOf.get(host)}`, { labels })).status).toBe(200);

  test('serve on the lab address, install, and three daemons join from their hosts', async () => {
    const port = freePort();
    url = `http://${lab!.rootIp}:${port}`;
    panel = await startPanel([process.execPath, MAIN, 'serve'], {
      PANEL_DATA_DIR: dataDir,
      PANEL_HOST: lab!.rootIp,
      PANEL_PORT: String(port),
      PANEL_PUBLIC_URL: url,
      PANEL_SECRETS: TEST_KEY_RING,
      PANEL_DAEMON_SOCKET: join(dataDir, 'daemon.sock'),
    });
    session = await completeInstall(url, dataDir);
    const outputs: string[][] = [];
    for (const host of lab!.hosts) {
      const token = await api('POST', '/join-tokens', { organizationId: session.organizationId });
      expect(token.status).toBe(201);
      const joined = await host.exec([process.execPath, MAIN, 'daemon', 'join', url, '--token', token.json.token]);
      expect(joined.exitCode, joined.stderr).toBe(0);
      const daemon = host.spawn([process.execPath, MAIN, 'daemon', 'run'], { PANEL_LOG_LEVEL: 'debug' });
      daemons.push(daemon);
      const output: string[] = [];
      outputs.push(output);
      for (const stream of [daemon.stdout, daemon.stderr]) {
        void (async () => {
          for await (const chunk of stream) output.push(new TextDecoder().decode(chunk));
        })();
      }
    }
    logs = () => [`--- panel\n${panel!.logs()}`, ...outputs.map((output, i) => `--- daemon h${i + 1}\n${output.join('')}`)].join('\n');
    const servers = await until('three connected servers', async () => {
      const listed = (await api('GET', `/servers?organizationId=${session.organizationId}`)).json.data as { id: string; hostname: string; status: string }[];
      return listed.length === 3 && listed.every((server) => server.status === 'connected') ? listed : undefined;
    });
    for (const server of servers) serverOf.set(server.hostname, server.id);
    expect([...serverOf.keys()].sort()).toEqual(['h1', 'h2', 'h3']);

    const workspaces = (await api('GET', `/workspaces?organizationId=${session.organizationId}`)).json.data as { id: string; kind: string }[];
    projectId = (await api('POST', '/projects', { workspaceId: workspaces.find((workspace) => workspace.kind === 'user')!.id, name: 'fleet' })).json.id;
    const saved = await api('PUT', `/projects/${projectId}/compose`, { yaml: composeOf(3) });
    expect(saved.status, saved.text).toBe(200);
    environmentId = (await api('GET', `/environments?projectId=${projectId}`)).json.data[0].id;
    expect((await api('PATCH', `/environments/${environmentId}`, { serverId: serverOf.get('h1') })).status).toBe(200);
    for (const service of (await api('GET', `/services?environmentId=${environmentId}`)).json.data) serviceIds[service.composeServiceName] = service.id;
  }, STEP_TIMEOUT_MS);

  test('an impossible constraint answers 422 constraint_unsatisfiable and enqueues nothing', async () => {
    const refused = await api('POST', `/environments/${environmentId}/deploy`, {});
    expect(refused.status).toBe(422);
    expect(refused.json.error).toMatchObject({ code: 'constraint_unsatisfiable', path: 'services.db.deploy.placement.constraints.0' });
    expect(refused.json.error.message).toContain('no connected server satisfies node.labels.disk == ssd');
    expect((await api('GET', `/deployments?environmentId=${environmentId}`)).json.data).toEqual([]);
    expect((await api('GET', `/environments/${environmentId}`)).json.generation).toBe(0);
    expect(await rows()).toEqual([]);
  }, STEP_TIMEOUT_MS);

  test('replicas 3, at most 1 per server: one web container on each host, the db on the labelled host, all running', async () => {
    await label('h2', { disk: 'ssd' });
    await deploy();
    const placed = await until('every container running', async () => {
      const current = await placement();
      return Object.values(current).flat().every((entry) => entry.endsWith(':running')) ? current : undefined;
    });
    expect(placed).toEqual({ web: ['h1:running', 'h2:running', 'h3:running'], db: ['h2:running'] });
    expect(await onEngine(lab!.host('h1'))).toEqual(['web running']);
    expect(await onEngine(lab!.host('h2'))).toEqual(['db running', 'web running']);
    expect(await onEngine(lab!.host('h3'))).toEqual(['web running']);
    for (const row of await rows()) expect(row.containerId).toMatch(/^[0-9a-f]{64}$/);
  }, STEP_TIMEOUT_MS);

  test.skipIf(chromiumMissing() !== null)('the console shows the plan: one block per server, side by side', async () => {
    const browser = await launchChromium();
    try {
      const context = await browser.newContext({ viewport: { width: 1600, height: 1000 } });
      const split = session.cookie.indexOf('=');
      const [name, value] = [session.cookie.slice(0, split), session.cookie.slice(split + 1)];
      await context.addCookies([{ name, value, url }]);
      const page = await context.newPage();
      await page.goto(`${url}/environments/${environmentId}`);
      const blocks = page.locator('article.server-block');
      await blocks.nth(2).waitFor();
      expect(await blocks.locator('h3').allTextContents()).toEqual(['h1Anchor', 'h2', 'h3']);
      const boxes = await Promise.all([0, 1, 2].map(async (i) => (await blocks.nth(i).boundingBox())!));
      // Side by side: one row, left to right.
      expect(new Set(boxes.map((box) => Math.round(box.y))).size).toBe(1);
      expect(boxes[0]!.x < boxes[1]!.x && boxes[1]!.x < boxes[2]!.x).toBe(true);
      await page.locator('tr[data-container-status="running"]').nth(3).waitFor();
      await screenshot(page, 'environment-placement-three-servers');
    } finally {
      await browser.close();
    }
  }, STEP_TIMEOUT_MS);

  test('relabelling moves the constrained db to the newly labelled host', async () => {
    await label('h2', {});
    await label('h3', { disk: 'ssd' });
    const deployed = await deploy();
    expect(deployed.warnings).toContain('services.db replica 1 moves from server h2 to h3');
    const placed = await until('the db running on h3', async () => {
      const current = await placement();
      return current.db?.[0] === 'h3:running' && current.web!.every((entry) => entry.endsWith(':running')) ? current : undefined;
    });
    expect(placed).toEqual({ web: ['h1:running', 'h2:running', 'h3:running'], db: ['h3:running'] });
    expect(await onEngine(lab!.host('h2'))).toEqual(['web running']);
    expect(await onEngine(lab!.host('h3'))).toEqual(['db running', 'web running']);
  }, STEP_TIMEOUT_MS);

  test('scaling to 1 stops the dropped replicas: h2 leaves the plan and is stopped, h3 keeps only the db', async () => {
    expect((await api('PUT', `/projects/${projectId}/compose`, { yaml: composeOf(1) })).status).toBe(200);
    const preview = (await api('GET', `/environments/${environmentId}/deploy-preview`)).json;
    expect(preview.blocks.map((block: { serverName: string }) => block.serverName)).toEqual(['h1', 'h3']);
    expect(preview.stops.map((server: { name: string }) => server.name)).toEqual(['h2']);
    await deploy();
    const placed = await until('the dropped replicas exited', async () => {
      const current = await placement();
      return current.web!.join() === 'h1:running,h2:exited,h3:exited' && current.db!.join() === 'h3:running' ? current : undefined;
    });
    expect(placed).toEqual({ web: ['h1:running', 'h2:exited', 'h3:exited'], db: ['h3:running'] });
    const web = (await rows()).filter((row) => row.serviceId === serviceIds.web);
    expect(web.map((row) => row.containerId === null)).toEqual([false, true, true]);
    expect(await onEngine(lab!.host('h1'))).toEqual(['web running']);
    expect(await onEngine(lab!.host('h2'))).toEqual([]);
    expect(await onEngine(lab!.host('h3'))).toEqual(['db running']);
  }, STEP_TIMEOUT_MS);

  test('destroy reaches every server the environment runs on', async () => {
    const destroyed = await api('POST', `/environments/${environmentId}/destroy`);
    expect(destroyed.status).toBe(202);
    await until('the destroy', async () => ((await api('GET', `/deployments/${destroyed.json.id}`)).json.status === 'succeeded' ? true : undefined));
    for (const host of lab!.hosts) expect(await onEngine(host)).toEqual([]);
  }, STEP_TIMEOUT_MS);
});
