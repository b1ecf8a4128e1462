/**
 * A typed client generated from the live API description works (issue 14 §5): a running Panel
 * (the test app listening on loopback, one enrolled server) serves /api/openapi.json;
 * `openapi-typescript` turns it into types; TypeScript checks test/openapi-client/journey.ts
 * against them; the journey then runs with `openapi-fetch`: create project -> save compose ->
 * deploy (no body) -> read containers. The tools are the workspace test/openapi-client
 * (openapi-typescript needs TypeScript 5; Panel builds with 7).
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { enrolledServer, listenOnLoopback } from './daemon.ts';
import { createTestApp } from './harness.ts';
import { createOwner, tokenFor } from './identity.ts';

const CLIENT_DIR = join(import.meta.dir, 'openapi-client');
const TOOLS = join(CLIENT_DIR, 'node_modules');
const COMPOSE = `services:
  web:
    image: local/busybox:1
    command: ["sleep", "infinity"]
  worker:
    image: local/busybox:1
    command: ["sleep", "infinity"]
`;

/** Runs a tool without blocking: the Panel it reads answers from this very process. */
async function run(command: string[]): Promise<void> {
  const child = Bun.spawn(command, { cwd: CLIENT_DIR, env: { ...process.env, NO_COLOR: '1' }, stdout: 'pipe', stderr: 'pipe' });
  const [exitCode, stdout, stderr] = await Promise.all([child.exited, new Response(child.stdout).text(), new Response(child.stderr).text()]);
  if (exitCode !== 0) throw new Error(`${command.slice(1).join(' ')} exited ${exitCode}:\n${stdout}${stderr}`);
}

/** What journey.ts takes and answers, as far as this test reads it. */
interface JourneyInput {
  baseUrl: string;
  apiToken: string;
  organizationId: string;
  serverId: string;
  compose: string;
}
interface JourneyResult {
  project: { name: string | null };
  saved: { yaml: string };
  environmentId: string;
  deployment: Record<string, unknown>;
  containers: { composeServiceName: string }[];
}

const cleanups: (() => unknown)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

describe('a client generated from the API description', () => {
  test('openapi-typescript + openapi-fetch: create project, save compose, deploy with no body, read containers', async () => {
    const t = createTestApp();
    const owner = createOwner(t);
    const apiToken = tokenFor(t, owner, 'owner').authorization!.slice('Bearer '.length);
    const server = enrolledServer(t, owner.organizationId, { name: 'typed-1' });
    const baseUrl = listenOnLoopback(t, cleanups).replace('ws://', 'http://');

    mkdirSync(join(CLIENT_DIR, 'generated'), { recursive: true });
    await run(['node', join(TOOLS, 'openapi-typescript', 'bin', 'cli.js'), `${baseUrl}/api/openapi.json`, '--output', join(CLIENT_DIR, 'generated', 'panel.d.ts')]);
    await run(['node', join(TOOLS, 'typescript', 'bin', 'tsc'), '--project', join(CLIENT_DIR, 'tsconfig.json')]);

    // Loaded by path: Panel's own type check must not follow it to types generated only here.
    const { journey } = (await import(join(CLIENT_DIR, 'journey.ts'))) as { journey: (input: JourneyInput) => Promise<JourneyResult> };
    const result = await journey({ baseUrl, apiToken, organizationId: owner.organizationId, serverId: server.id, compose: COMPOSE });
    expect(result.project.name).toBe('typed-client');
    expect(result.saved.yaml).toBe(COMPOSE);
    expect(result.deployment).toMatchObject({ environmentId: result.environmentId, serverId: server.id, kind: 'deploy', status: 'queued' });
    expect(result.containers.map((row) => row.composeServiceName).sort()).toEqual(['web', 'worker']);
  }, 120_000);
});
