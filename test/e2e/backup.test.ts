import { Database } from 'bun:sqlite';
import { afterAll, expect, test } from 'bun:test';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseKeyRing } from '../../src/crypto/keyring.ts';
import { sealSecret } from '../../src/crypto/secret.ts';
import { createDb } from '../../src/db/client.ts';
import { countUnopenableByKeyId } from '../../src/domain/secrets/verify.ts';
import { newId } from '../../src/lib/ids.ts';
import { startPanel } from './process.ts';

const root = join(import.meta.dir, '..', '..');
const work = mkdtempSync(join(tmpdir(), 'panel-backup-'));
const RING = `b1:${Buffer.alloc(32, 3).toString('base64')}`;
const ring = parseKeyRing(RING);
afterAll(() => rmSync(work, { recursive: true, force: true }));

const main = join(root, 'src', 'main.ts');
const run = (args: string[], dataDir: string, secrets = RING) =>
  Bun.spawnSync([process.execPath, main, ...args], { env: { ...process.env, PANEL_DATA_DIR: dataDir, PANEL_SECRETS: secrets }, stdout: 'pipe', stderr: 'pipe' });

const counts = (file: string) => {
  const sqlite = new Database(file, { readonly: true });
  const result = Object.fromEntries(['organization', 'variable'].map((table) => [table, sqlite.query<{ n: number }, []>(`SELECT count(*) AS n FROM ${table}`).get()!.n]));
  sqlite.close();
  return result;
};

test('a backup taken under write load restores into a new data dir with the same rows and every secret opening', async () => {
  const dataDir = join(work, 'live');
  const panel = await startPanel([process.execPath, main, 'serve'], { PANEL_DATA_DIR: dataDir, PANEL_PORT: '0', PANEL_SECRETS: RING });
  const writer = new Database(join(dataDir, 'panel.db'));
  writer.run('PRAGMA busy_timeout = 5000');
  const organizationId = newId();
  writer.run("INSERT INTO organization (id, name) VALUES (?, 'Acme')", [organizationId]);
  let written = 0;
  const writeBatch = () =>
    writer.transaction(() => {
      for (let i = 0; i < 50; i++) {
        const id = newId();
        const value = sealSecret(ring, `secret-${written}`, { table: 'variable', column: 'value', id });
        writer.run('INSERT INTO variable (id, organization_id, key, value, is_secret) VALUES (?, ?, ?, ?, 1)', [id, organizationId, `K_${written++}`, value]);
      }
    })();
  for (let i = 0; i < 20; i++) writeBatch();

  // Keep writing while the backup runs in its own process.
  const backupFile = join(work, 'panel.backup');
  const backup = Bun.spawn([process.execPath, main, 'backup', backupFile], { env: { ...process.env, PANEL_DATA_DIR: dataDir, PANEL_SECRETS: RING }, stdout: 'pipe', stderr: 'pipe' });
  let batchesDuringBackup = 0;
  while (backup.exitCode === null) {
    writeBatch();
    batchesDuringBackup += 1;
    await new Promise((resolve) => setImmediate(resolve));
  }
  expect(await backup.exited).toBe(0);
  expect(batchesDuringBackup).toBeGreaterThan(0);
  expect(statSync(backupFile).mode & 0o077).toBe(0);
  writer.close();

  // Restore is refused while a Panel serves the target data dir.
  const refused = run(['restore', backupFile], dataDir);
  expect(refused.exitCode).toBe(1);
  expect(refused.stderr.toString()).toContain('stop it before restoring');
  panel.process.kill('SIGTERM');
  await panel.process.exited;

  const restoredDir = join(work, 'restored');
  const restored = run(['restore', backupFile], restoredDir);
  expect(restored.stderr.toString()).toBe('');
  expect(restored.exitCode).toBe(0);
  const restoredDb = join(restoredDir, 'panel.db');
  expect(counts(restoredDb)).toEqual(counts(backupFile));
  expect(counts(restoredDb).variable).toBeGreaterThanOrEqual(1000);
  const sqlite = new Database(restoredDb, { readonly: true });
  expect(countUnopenableByKeyId(createDb(sqlite), ring)).toEqual({});
  sqlite.close();

  // Another key ring is told it cannot open the restored secrets.
  const otherRing = `b2:${Buffer.alloc(32, 4).toString('base64')}`;
  const wrongRing = run(['restore', backupFile], join(work, 'wrong-ring'), otherRing);
  expect(wrongRing.exitCode).toBe(1);
  expect(wrongRing.stderr.toString()).toMatch(/PANEL_SECRETS cannot open \d+ sealed under "b1"/);

  // The restored data dir serves.
  const again = await startPanel([process.execPath, main, 'serve'], { PANEL_DATA_DIR: restoredDir, PANEL_PORT: '0', PANEL_SECRETS: RING });
  expect((await fetch(`${again.url}/api/health`)).status).toBe(200);
  again.process.kill('SIGTERM');
  await again.process.exited;
}, 60_000); // several processes start from source: slow on a loaded 2-core machine

test('a damaged backup is refused and the current database stays', () => {
  const dataDir = join(work, 'damaged');
  expect(run(['migrate'], dataDir).exitCode).toBe(0);
  const before = Bun.file(join(dataDir, 'panel.db')).size;
  const junk = join(work, 'junk.backup');
  Bun.write(junk, 'SQLite format 3\0' + 'garbage'.repeat(1000));
  const result = run(['restore', junk], dataDir);
  expect(result.exitCode).toBe(1);
  expect(Bun.file(join(dataDir, 'panel.db')).size).toBe(before);
}, 30_000);
