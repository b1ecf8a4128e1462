/**
 * Opening the database of a data dir only when it is what it should be (issue 20):
 *
 * - **Damaged** (truncated, overwritten, not a database, failing SQLite's quick check): refused
 *   with one line naming the file and the restore command, never a stack trace, never served.
 * - **Missing or emptied** while the data dir shows a previous install (the install marker this
 *   module writes, or backups): refused, instead of coming up as a fresh install whose wizard
 *   anyone could reach first.
 * - The full check (`PRAGMA integrity_check` and the foreign keys) on demand: `panel check`.
 */
import { Database } from 'bun:sqlite';
import { closeSync, existsSync, openSync, readdirSync, readSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { appliedMigrationTags } from '../db/migrate.ts';
import { BACKUPS_DIR } from './backups.ts';

/** Written beside the database once Panel has one; its presence says "this data dir was installed". */
export const INSTALL_MARKER = 'installed';

const MARKER_TEXT = `This data directory holds an installed Panel (panel.db). While this file exists, Panel refuses
to start on a missing or empty panel.db instead of opening the install wizard of a new install:
restore a backup with \`panel restore <file>\`. Remove this file only to start over as a new install.
`;

/** A database Panel must not open; `message` is the one line to print. */
export class DatabaseRefusal extends Error {
  override name = 'DatabaseRefusal';
}

/** What to do about a damaged database, said the same way everywhere. */
export const restoreAdvice = (dataDir: string) => `restore a backup with: panel restore <backup file> (Panel stopped; backups usually are in ${join(dataDir, BACKUPS_DIR)})`;

/** SQLite result codes that mean the file's content is not a sound database. */
const DAMAGE_CODES = /^SQLITE_(NOTADB|CORRUPT|IOERR_SHORT_READ|FORMAT)/;

export function isDamageError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && DAMAGE_CODES.test(code);
}

/** The page size and the page count the header claims (0 when the header does not vouch for it). */
function readHeader(file: string): { pageSize: number; headerPages: number } | undefined {
  const header = Buffer.alloc(100);
  const fd = openSync(file, 'r');
  try {
    if (readSync(fd, header, 0, 100, 0) < 100) return undefined;
  } finally {
    closeSync(fd);
  }
  if (header.toString('latin1', 0, 16) !== 'SQLite format 3\0') return undefined;
  const raw = header.readUInt16BE(16);
  const pageSize = raw === 1 ? 65536 : raw;
  // The in-header size is valid only when the change counter matches "version-valid-for".
  const headerPages = header.readUInt32BE(24) === header.readUInt32BE(92) ? header.readUInt32BE(28) : 0;
  return { pageSize, headerPages };
}

const walHasFrames = (file: string) => existsSync(`${file}-wal`) && statSync(`${file}-wal`).size > 32;

/**
 * Why `file` is not a sound database, or undefined when it is. `full` runs integrity_check and
 * foreign_key_check; otherwise quick_check (no index cross-checks: fast enough for every start).
 * Checks the file's length first: a truncated database can pass SQLite's own checks when the
 * pages cut off were free.
 */
export function damageOf(sqlite: Database, file: string, full = false): string | undefined {
  const size = statSync(file).size;
  const header = readHeader(file);
  if (!header) return 'its header is not an SQLite database header';
  if (size % header.pageSize !== 0) return `it is truncated: ${size} bytes is not a whole number of ${header.pageSize}-byte pages`;
  // Without a WAL to replay, the file must hold every page its header counts.
  if (header.headerPages > 0 && !walHasFrames(file) && size < header.headerPages * header.pageSize) {
    return `it is truncated: the header counts ${header.headerPages} pages, the file holds ${size / header.pageSize}`;
  }
  try {
    const rows = sqlite.query<Record<string, string>, []>(full ? 'PRAGMA integrity_check' : 'PRAGMA quick_check').all().map((row) => Object.values(row)[0]!);
    if (rows.length !== 1 || rows[0] !== 'ok') {
      // One line: the check's own lines, without its "*** in database main ***" heading.
      const findings = rows.join('\n').replace(/\*\*\* in database \w+ \*\*\*/g, '').split(/\s*\n\s*/).filter(Boolean);
      return `SQLite's ${full ? 'integrity' : 'quick'} check fails: ${findings.slice(0, 3).join('; ')}`;
    }
    if (full) {
      const dangling = sqlite.query<{ table: string; parent: string }, []>('PRAGMA foreign_key_check').all();
      if (dangling.length > 0) return `${dangling.length} rows point at rows that do not exist (first: ${dangling[0]!.table} -> ${dangling[0]!.parent})`;
    }
  } catch (error) {
    if (!isDamageError(error)) throw error;
    return `SQLite says: ${(error as Error).message}`;
  }
  return undefined;
}

/** What in the data dir says Panel was installed there (the marker, backups), as paths. */
export function previousInstallEvidence(dataDir: string): string[] {
  const evidence: string[] = [];
  const marker = join(dataDir, INSTALL_MARKER);
  if (existsSync(marker)) evidence.push(marker);
  const backups = join(dataDir, BACKUPS_DIR);
  if (existsSync(backups) && readdirSync(backups).some((name) => name.endsWith('.db'))) evidence.push(`${backups}/*.db`);
  return evidence;
}

/** True when the file holds no Panel database: missing, zero bytes, or no migration ever applied. */
export function isEmptyDatabase(file: string, open?: Database): boolean {
  if (!existsSync(file) || statSync(file).size === 0) return true;
  return open !== undefined && appliedMigrationTags(open).length === 0;
}

/** Refuses a missing or empty database in a data dir that shows a previous install. */
export function assertNotALostInstall(file: string, dataDir: string, open?: Database): void {
  if (!isEmptyDatabase(file, open)) return;
  const evidence = previousInstallEvidence(dataDir);
  if (evidence.length === 0) return;
  const state = !existsSync(file) ? 'is missing' : statSync(file).size === 0 ? 'is empty (0 bytes)' : 'holds no Panel tables';
  throw new DatabaseRefusal(
    `${file} ${state}, but ${dataDir} held an installed Panel (${evidence.join(', ')}); Panel will not start as a new install over it. ` +
      `${restoreAdvice(dataDir)}. To start over as a new install, move away ${evidence.join(' and ')} first`,
  );
}

/**
 * `panel check`: the full check of a data dir's database, read-only (safe while Panel serves).
 * Returns the line to print; throws DatabaseRefusal for a damaged or missing database.
 */
export function checkDatabaseFully(file: string, dataDir: string): string {
  if (!existsSync(file)) throw new DatabaseRefusal(`no database at ${file}`);
  let sqlite: Database;
  try {
    sqlite = new Database(file, { readonly: true });
  } catch (error) {
    throw new DatabaseRefusal(`cannot open ${file}: ${(error as Error).message}`);
  }
  try {
    const damage = damageOf(sqlite, file, true);
    if (damage) throw new DatabaseRefusal(`${file} is damaged (${damage}); ${restoreAdvice(dataDir)}`);
  } finally {
    sqlite.close();
  }
  return `${file}: ok (integrity_check, foreign_key_check)`;
}

/** Marks the data dir as installed (once; never rewritten). */
export function writeInstallMarker(dataDir: string): void {
  const marker = join(dataDir, INSTALL_MARKER);
  if (!existsSync(marker)) writeFileSync(marker, MARKER_TEXT, { mode: 0o600 });
}

/**
 * Opens `file` with `open`, refusing (DatabaseRefusal) a lost install or a damaged database; the
 * quick check runs on every open. A fresh install (no file, no evidence) opens as before.
 */
export function openCheckedDatabase(file: string, dataDir: string, open: (file: string) => Database): Database {
  assertNotALostInstall(file, dataDir);
  const isNew = !existsSync(file) || statSync(file).size === 0;
  let sqlite: Database;
  try {
    sqlite = open(file);
  } catch (error) {
    if (isDamageError(error)) throw new DatabaseRefusal(`${file} is damaged (SQLite says: ${(error as Error).message}); ${restoreAdvice(dataDir)}`);
    throw new DatabaseRefusal(`cannot open ${file}: ${(error as Error).message}`);
  }
  try {
    const damage = isNew ? undefined : damageOf(sqlite, file);
    if (damage) throw new DatabaseRefusal(`${file} is damaged (${damage}); ${restoreAdvice(dataDir)}`);
    assertNotALostInstall(file, dataDir, sqlite);
  } catch (error) {
    sqlite.close();
    throw error;
  }
  return sqlite;
}
