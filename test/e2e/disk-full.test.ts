/**
 * A full disk under the data directory (a small tmpfs mounted for the test): writes answer 507
 * `insufficient_storage` (never a 500), readiness is false and says `disk_full`, the log says so
 * once per interval instead of a stack trace per request, and once space is freed Panel accepts
 * writes again by itself with every acknowledged write still there.
 *
 * Mounting needs root (the machines here run tests as root); elsewhere the test is skipped with
 * the reason printed.
 */
import { afterAll, expect, test } from 'bun:test';
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TEST_KEY_RING } from '../harness.ts';
import { clientApi, completeInstall, expectDatabaseHoldsTags } from './panel-api.ts';
import { type StartedPanel, startPanel } from './process.ts';

const main = join(import.meta.dir, '..', '..', 'src', 'main.ts');
const work = mkdtempSync(join(tmpdir(), 'panel-disk-full-'));
const dataDir = join(work, 'data');

function mountSmallDisk(): string | undefined {
  Bun.spawnSync(['mkdir', '-p', dataDir]);
  const mounted = Bun.spawnSync(['mount', '-t', 'tmpfs', '-o', 'size=8m,mode=0700', 'tmpfs', dataDir], { stderr: 'pipe' });
  return mounted.exitCode === 0 ? undefined : `cannot mount a tmpfs (${mounted.stderr.toString().trim() || `exit ${mounted.exitCode}`}); needs root`;
}
const skipReason = mountSmallDisk();
if (skipReason) console.log(`skipping the disk-full test: ${skipReason}`);

let panel: StartedPanel | undefined;
afterAll(async () => {
  panel?.process.kill('SIGKILL');
  await panel?.process.exited;
  if (!skipReason) Bun.spawnSync(['umount', dataDir]);
  rmSync(work, { recursive: true, force: true });
});

/** Fills the file system with one file until ENOSPC; returns its path. */
function fillDisk(): string {
  const filler = join(dataDir, 'filler');
  const fd = openSync(filler, 'w');
  const chunk = Buffer.alloc(64 * 1024, 1);
  try {
    for (;;) writeSync(fd, chunk);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
  } finally {
    closeSync(fd);
  }
  return filler;
}

test.skipIf(Boolean(skipReason))('a full disk answers 507, turns readiness false, logs once, and recovers by itself losing nothing', async () => {
  panel = await startPanel([process.execPath, main, 'serve'], { PANEL_DATA_DIR: dataDir, PANEL_PORT: '0', PANEL_SECRETS: TEST_KEY_RING });
  const session = await completeInstall(panel.url, dataDir);
  const acknowledged: string[] = [];
  const createTag = async (name: string) => {
    const res = await clientApi(session, 'POST', '/tags', { organizationId: session.organizationId, name, description: 'x'.repeat(2000) });
    if (res.status === 201) acknowledged.push(res.json.id);
    return res;
  };
  for (let i = 0; i < 5; i++) expect((await createTag(`before-${i}`)).status).toBe(201);
  // Never used yet: its first use records lastUsedAt, a write that must not cost the read.
  const token = await clientApi(session, 'POST', '/api-tokens', { organizationId: session.organizationId, name: 'reader', role: 'member' });
  expect(token.status).toBe(201);

  const filler = fillDisk();
  const statuses = new Map<number, number>();
  let refusal: { code: string; message: string; requestId: string } | undefined;
  for (let i = 0; i < 200; i++) {
    const res = await createTag(`during-${i}`);
    statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
    if (res.status === 507) refusal = res.json.error;
  }
  // SQLite may still fit a write into WAL space it already has; none may fail any other way.
  expect([...statuses.keys()].every((status) => status === 201 || status === 507)).toBe(true);
  expect(statuses.get(507)).toBeGreaterThan(10);
  expect(refusal).toEqual({ code: 'insufficient_storage', message: expect.stringContaining('disk'), requestId: expect.any(String) });

  // Reads are answered: the token's bookkeeping write waits for space.
  const read = await fetch(`${panel.url}/api/client/v1/tags?organizationId=${session.organizationId}`, { headers: { authorization: `Bearer ${token.json.token}` } });
  expect(read.status).toBe(200);

  const notReady = await fetch(`${panel.url}/api/health/ready`);
  expect(notReady.status).toBe(503);
  expect(((await notReady.json()) as { database: unknown }).database).toEqual({ status: 'disk_full', code: 'SQLITE_FULL' });
  expect((await fetch(`${panel.url}/api/health`)).status).toBe(200); // alive: a restart would not help

  const lines = panel.logs().split('\n');
  expect(lines.filter((line) => line.includes('"level":"error"')).length).toBe(1);
  expect(lines.filter((line) => line.includes('disk holding the data directory is full')).length).toBe(1);
  expect(panel.logs()).not.toContain('unhandled error');

  rmSync(filler);
  const ready = await fetch(`${panel.url}/api/health/ready`);
  expect(ready.status).toBe(200);
  await panel.waitForLog('the data directory has space again');
  for (let i = 0; i < 5; i++) expect((await createTag(`after-${i}`)).status).toBe(201);

  panel.process.kill('SIGTERM');
  expect(await panel.process.exited).toBe(0);
  panel = undefined;
  expectDatabaseHoldsTags(dataDir, acknowledged);
}, 60_000);
