/**
 * Damaged databases are refused at start with one line naming the file and the restore command
 * (never a stack trace, never served), and a missing or emptied database in a data dir that was
 * installed does not come up as a new install with its wizard open.
 */
import { Database } from 'bun:sqlite';
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { closeSync, cpSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TEST_KEY_RING } from '../harness.ts';

const main = join(import.meta.dir, '..', '..', 'src', 'main.ts');
const work = mkdtempSync(join(tmpdir(), 'panel-damaged-'));
const pristine = join(work, 'pristine');
afterAll(() => rmSync(work, { recursive: true, force: true }));

const panel = (args: string[], dataDir: string) => {
  const result = Bun.spawnSync([process.execPath, main, ...args], {
    env: { ...process.env, PANEL_DATA_DIR: dataDir, PANEL_PORT: '0', PANEL_SECRETS: TEST_KEY_RING, PANEL_LOG_LEVEL: 'error' },
    stdout: 'pipe',
    stderr: 'pipe',
    timeout: 30_000, // a damaged database that is served anyway would never exit
  });
  return { exitCode: result.exitCode, stdout: result.stdout.toString(), stderr: result.stderr.toString() };
};

const PAGE = 4096;
/** Overwrites `length` bytes at `offset` with `fill` (a byte) or random bytes. */
function overwrite(file: string, offset: number, length: number, fill?: number) {
  const fd = openSync(file, 'r+');
  try {
    writeSync(fd, fill === undefined ? crypto.getRandomValues(Buffer.alloc(length)) : Buffer.alloc(length, fill), 0, length, offset);
  } finally {
    closeSync(fd);
  }
}

beforeAll(() => {
  // A migrated database with enough rows to span many pages, closed cleanly (no WAL left).
  expect(panel(['migrate'], pristine).exitCode).toBe(0);
  const sqlite = new Database(join(pristine, 'panel.db'));
  const organizationId = Bun.randomUUIDv7();
  sqlite.run("INSERT INTO organization (id, name) VALUES (?, 'Acme')", [organizationId]);
  const insert = sqlite.prepare('INSERT INTO tag (id, organization_id, name, description) VALUES (?, ?, ?, ?)');
  sqlite.transaction(() => {
    for (let i = 0; i < 3000; i++) insert.run(Bun.randomUUIDv7(), organizationId, `tag-${i}`, 'd'.repeat(100));
  })();
  insert.finalize(); // a live statement would keep the connection (and its WAL) open past close()
  sqlite.close();
  expect(existsSync(join(pristine, 'panel.db-wal'))).toBe(false);
});

/** A copy of the pristine data dir, its database damaged by `damage`. */
function damaged(name: string, damage: (file: string, size: number) => void): string {
  const dataDir = join(work, name);
  cpSync(pristine, dataDir, { recursive: true });
  const file = join(dataDir, 'panel.db');
  damage(file, statSync(file).size);
  return dataDir;
}

const DAMAGE: [string, (file: string, size: number) => void][] = [
  ['truncated by 1,000 bytes', (file, size) => truncateSync(file, size - 1000)],
  ['truncated to half its pages', (file, size) => truncateSync(file, Math.floor(size / PAGE / 2) * PAGE)],
  ['its header zeroed', (file) => overwrite(file, 0, 100, 0)],
  ['the schema page overwritten with random bytes', (file) => overwrite(file, 100, PAGE - 100)],
  ['a page in the middle overwritten with random bytes', (file, size) => overwrite(file, Math.floor(size / PAGE / 2) * PAGE, PAGE)],
  ['ten pages in the middle zeroed', (file, size) => overwrite(file, Math.floor(size / PAGE / 3) * PAGE, 10 * PAGE, 0)],
  ['replaced by random bytes', (file, size) => writeFileSync(file, crypto.getRandomValues(Buffer.alloc(size)))],
  ['replaced by text', (file) => writeFileSync(file, 'this is not a database\n'.repeat(500))],
];

describe('a damaged database is refused at start', () => {
  for (const [kind, damage] of DAMAGE) {
    test(`${kind}: one line naming the file and panel restore, nothing served`, () => {
      const dataDir = damaged(kind.replace(/\W+/g, '-'), damage);
      const file = join(dataDir, 'panel.db');
      const before = readFileSync(file);
      const result = panel(['serve'], dataDir);
      expect(result.exitCode).toBe(1);
      const lines = result.stderr.trimEnd().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toStartWith(`panel: ${file} is damaged (`);
      expect(lines[0]).toContain('restore a backup with: panel restore <backup file>');
      expect(result.stderr).not.toContain('panel serving');
      expect(existsSync(join(dataDir, 'install-token'))).toBe(false);
      expect(readFileSync(file).equals(before)).toBe(true);
    }, 30_000);
  }

  test('panel check runs the full check on demand: ok on a sound database, the damage on a damaged one', () => {
    const sound = panel(['check'], pristine);
    expect(sound).toMatchObject({ exitCode: 0, stdout: `${join(pristine, 'panel.db')}: ok (integrity_check, foreign_key_check)\n` });
    const dataDir = damaged('checked', DAMAGE[4]![1]);
    const result = panel(['check'], dataDir);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toStartWith(`panel: ${join(dataDir, 'panel.db')} is damaged (`);
  }, 30_000);
});

describe('a missing or emptied database where Panel was installed', () => {
  const refusedAsLostInstall = (dataDir: string, state: string) => {
    const result = panel(['serve'], dataDir);
    expect(result.exitCode).toBe(1);
    const lines = result.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toStartWith(`panel: ${join(dataDir, 'panel.db')} ${state}, but ${dataDir} held an installed Panel (`);
    expect(lines[0]).toContain('panel restore');
    expect(existsSync(join(dataDir, 'install-token'))).toBe(false);
  };

  test('emptied to 0 bytes: refused, the install wizard stays closed', () => {
    const dataDir = damaged('emptied', (file) => truncateSync(file, 0));
    expect(existsSync(join(dataDir, 'installed'))).toBe(true);
    refusedAsLostInstall(dataDir, 'is empty (0 bytes)');
    expect(statSync(join(dataDir, 'panel.db')).size).toBe(0);
  }, 30_000);

  test('vanished: refused, and no new database is created', () => {
    const dataDir = damaged('vanished', (file) => rmSync(file));
    refusedAsLostInstall(dataDir, 'is missing');
    expect(existsSync(join(dataDir, 'panel.db'))).toBe(false);
  }, 30_000);

  test('vanished from a data dir with backups but no marker (an install older than the marker): refused', () => {
    const dataDir = damaged('backups-only', (file) => {
      mkdirSync(join(file, '..', 'backups'));
      cpSync(file, join(file, '..', 'backups', 'pre-upgrade-1.db'));
      rmSync(file);
      rmSync(join(file, '..', 'installed'));
    });
    refusedAsLostInstall(dataDir, 'is missing');
  }, 30_000);
});

test('panel restore of a damaged backup says so in words and keeps the current database', () => {
  const dataDir = damaged('restore-target', () => {});
  const before = readFileSync(join(dataDir, 'panel.db'));
  for (const [kind, damage] of [DAMAGE[0]!, DAMAGE[2]!, DAMAGE[4]!]) {
    const backup = join(work, `backup-${kind.replace(/\W+/g, '-')}.db`);
    cpSync(join(pristine, 'panel.db'), backup);
    damage(backup, statSync(backup).size);
    const result = panel(['restore', backup], dataDir);
    expect(result.exitCode).toBe(1);
    const lines = result.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toStartWith(`panel: ${backup} is damaged (`);
    expect(lines[0]).toContain('cannot be restored');
  }
  expect(readFileSync(join(dataDir, 'panel.db')).equals(before)).toBe(true);
}, 60_000);
