import { Database } from 'bun:sqlite';
import { afterAll, expect, test } from 'bun:test';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseKeyRing } from '../../src/crypto/keyring.ts';
import { sealSecret } from '../../src/crypto/secret.ts';
import { createDb } from '../../src/db/client.ts';
import { countUnopenableByKeyId } from '../../src/domain/secrets/verify.ts';
import { newId } from '../../src/lib/ids.ts';
import { clientApi, completeInstall } from './panel-api.ts';
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

test('backups made while Panel serves writes cost none of them: panel backup asks the server, and so does the admin API', async () => {
  const dataDir = join(work, 'under-load');
  const panel = await startPanel([process.execPath, main, 'serve'], { PANEL_DATA_DIR: dataDir, PANEL_PORT: '0', PANEL_SECRETS: RING });
  try {
    const session = await completeInstall(panel.url, dataDir);
    const acknowledged: string[] = [];
    const refused: string[] = [];
    let writing = true;
    const writer = async (id: number) => {
      for (let n = 0; writing; n++) {
        const res = await clientApi(session, 'POST', '/tags', { organizationId: session.organizationId, name: `w${id}-${n}` });
        if (res.status === 201) acknowledged.push(res.json.id);
        else refused.push(`${res.status} ${res.text}`);
      }
    };
    const writers = Array.from({ length: 12 }, (_, id) => writer(id));

    const files: string[] = [];
    for (let i = 0; i < 4; i++) {
      const file = join(work, `under-load-${i}.db`);
      const backup = Bun.spawn([process.execPath, main, 'backup', file], { env: { ...process.env, PANEL_DATA_DIR: dataDir, PANEL_SECRETS: RING }, stdout: 'pipe', stderr: 'pipe' });
      const [stdout, stderr, exitCode] = await Promise.all([new Response(backup.stdout).text(), new Response(backup.stderr).text(), backup.exited]);
      expect({ exitCode, stderr }).toEqual({ exitCode: 0, stderr: '' });
      expect(stdout).toContain('made by the running Panel');
      files.push(file);
    }
    // The superadmin's door: the session of the install.
    const byApi = await fetch(`${panel.url}/api/admin/v1/backups`, { method: 'POST', headers: { cookie: session.cookie, origin: session.url } });
    expect(byApi.status).toBe(201);
    const made = (await byApi.json()) as { name: string; bytes: number };
    expect(made.name).toMatch(/^panel-.*\.db$/);
    files.push(join(dataDir, 'backups', made.name));
    writing = false;
    await Promise.all(writers);

    expect(refused).toEqual([]);
    expect(acknowledged.length).toBeGreaterThan(0);
    for (const file of files) {
      expect(statSync(file).mode & 0o077).toBe(0);
      const copy = new Database(file, { readonly: true });
      expect(copy.query('PRAGMA integrity_check').all()).toEqual([{ integrity_check: 'ok' }]);
      copy.close();
    }
    // The server's copies were moved out of its backups folder; only the API's stays there.
    expect(readdirSync(join(dataDir, 'backups'))).toEqual([made.name]);
  } finally {
    panel.process.kill('SIGTERM');
    await panel.process.exited;
  }
}, 60_000);

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
