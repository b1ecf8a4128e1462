/**
 * Durability: `panel serve` killed with SIGKILL in the middle of a burst of writes loses none it
 * acknowledged, and its database passes the integrity check after the restart.
 */
import { afterAll, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TEST_KEY_RING } from '../harness.ts';
import { completeInstall, createTag, expectDatabaseHoldsTags, freePort, tagStatus } from './panel-api.ts';
import { type StartedPanel, startPanel } from './process.ts';

const main = join(import.meta.dir, '..', '..', 'src', 'main.ts');
const work = mkdtempSync(join(tmpdir(), 'panel-crash-'));
const dataDir = join(work, 'data');
const port = freePort();
const env = { PANEL_DATA_DIR: dataDir, PANEL_PORT: String(port), PANEL_SECRETS: TEST_KEY_RING };
let panel: StartedPanel | undefined;

afterAll(async () => {
  panel?.process.kill('SIGKILL');
  await panel?.process.exited;
  rmSync(work, { recursive: true, force: true });
});

const ACKNOWLEDGED_BEFORE_KILL = 150;
const CONCURRENCY = 8;

test('writes acknowledged before a SIGKILL survive it, and the database stays intact', async () => {
  panel = await startPanel([process.execPath, main, 'serve'], env);
  const url = `http://127.0.0.1:${port}`;
  const session = await completeInstall(url, dataDir);

  // CONCURRENCY writers keep requests in flight; the kill lands once enough were acknowledged.
  const acknowledged: string[] = [];
  let next = 0;
  let killed = false;
  const writer = async () => {
    while (!killed) {
      const name = `burst-${next++}`;
      try {
        acknowledged.push(await createTag(session, name));
      } catch (error) {
        // After the kill the other writers' in-flight requests fail: never acknowledged, so not counted.
        if (!killed) throw error;
      }
      if (acknowledged.length >= ACKNOWLEDGED_BEFORE_KILL && !killed) {
        killed = true;
        panel!.process.kill('SIGKILL');
      }
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, writer));
  expect(await panel.process.exited).not.toBe(0);
  expect(panel.process.signalCode).toBe('SIGKILL');
  expect(acknowledged.length).toBeGreaterThanOrEqual(ACKNOWLEDGED_BEFORE_KILL);

  // The restart finds a stale socket and an unfinished WAL; it recovers both.
  panel = await startPanel([process.execPath, main, 'serve'], env);
  expect((await fetch(`${url}/api/health/ready`)).status).toBe(200);
  for (const id of acknowledged.slice(-20)) expect(await tagStatus(session, id)).toBe(200);
  panel.process.kill('SIGTERM');
  expect(await panel.process.exited).toBe(0);
  panel = undefined;

  expectDatabaseHoldsTags(dataDir, acknowledged);
}, 60_000);
