/**
 * openDatabase / createDb, and the timestamp conventions as seen through raw SQL and drizzle.
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { insertRow, openMigratedDatabase, updateRow } from '../../test/db.ts';
import { isUuid } from '../lib/ids.ts';
import { createDb, openDatabase } from './client.ts';
import { migrate } from './migrate.ts';
import { MIGRATIONS } from './migrations.ts';
import { organization, project, workspace } from './schema/index.ts';

const scratch = mkdtempSync(join(tmpdir(), 'panel-db-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const pragma = (sqlite: ReturnType<typeof openDatabase>, name: string) =>
  Object.values(sqlite.query(`PRAGMA ${name}`).get() as Record<string, unknown>)[0];

describe('openDatabase', () => {
  test('a file database uses WAL, NORMAL sync, foreign keys and a busy timeout', () => {
    const sqlite = openDatabase(join(scratch, 'panel.db'));
    expect(pragma(sqlite, 'journal_mode')).toBe('wal');
    expect(pragma(sqlite, 'synchronous')).toBe(1); // NORMAL
    expect(pragma(sqlite, 'foreign_keys')).toBe(1);
    expect(pragma(sqlite, 'busy_timeout')).toBe(5000);
    sqlite.close();
  });

  test('an in-memory database enforces foreign keys too', () => {
    const sqlite = openDatabase(':memory:');
    expect(pragma(sqlite, 'foreign_keys')).toBe(1);
    expect(pragma(sqlite, 'busy_timeout')).toBe(5000);
    sqlite.close();
  });
});

/** Another connection (a worker thread, as another process would) holding the write lock for `ms`. */
async function holdWriteLock(file: string, ms: number): Promise<Worker> {
  const source = `
    import { Database } from 'bun:sqlite';
    const sqlite = new Database(${JSON.stringify(file)});
    sqlite.run('BEGIN IMMEDIATE');
    sqlite.run("INSERT INTO organization (id, name) VALUES ('01a21000-0000-7000-8000-000000000001', 'Other')");
    postMessage('locked');
    setTimeout(() => { sqlite.run('COMMIT'); sqlite.close(); postMessage('released'); }, ${ms});
  `;
  const worker = new Worker(URL.createObjectURL(new Blob([source], { type: 'application/typescript' })));
  await new Promise((resolve) => (worker.onmessage = resolve));
  return worker;
}

describe('createDb', () => {
  test('a transaction that reads before it writes waits for another connection\'s write lock instead of failing', async () => {
    const file = join(scratch, 'locked.db');
    const sqlite = openDatabase(file);
    migrate(sqlite, MIGRATIONS);
    const db = createDb(sqlite);
    const worker = await holdWriteLock(file, 300);
    // Deferred, the read would start a snapshot and the write would fail at once with SQLITE_BUSY:
    // SQLite never calls the busy handler to upgrade a read transaction.
    const created = db.transaction((tx) => {
      tx.select().from(organization).all();
      return tx.insert(organization).values({ name: 'Acme' }).returning().get();
    });
    expect(created.name).toBe('Acme');
    expect(sqlite.query('SELECT count(*) AS n FROM organization').get()).toEqual({ n: 2 });
    worker.terminate();
    sqlite.close();
  });
});

describe('timestamps', () => {
  test('created_at and updated_at default to now in milliseconds on a raw insert', () => {
    const sqlite = openMigratedDatabase();
    const before = Date.now();
    const id = insertRow(sqlite, 'organization', { name: 'Acme' });
    const row = sqlite.query('SELECT created_at, updated_at FROM organization WHERE id = ?').get(id) as {
      created_at: number;
      updated_at: number;
    };
    expect(Number.isInteger(row.created_at)).toBe(true);
    expect(row.created_at).toBeGreaterThanOrEqual(before - 1);
    expect(row.updated_at).toBe(row.created_at);
  });

  test('updated_at is set to now on a raw update that does not set it', () => {
    const sqlite = openMigratedDatabase();
    const id = insertRow(sqlite, 'organization', { name: 'Acme', created_at: 1000, updated_at: 1000 });
    updateRow(sqlite, 'organization', id, { name: 'Acme Inc' });
    const row = sqlite.query('SELECT created_at, updated_at FROM organization WHERE id = ?').get(id) as {
      created_at: number;
      updated_at: number;
    };
    expect(row.created_at).toBe(1000);
    expect(row.updated_at).toBeGreaterThan(1000);
  });

  test('an update that sets updated_at itself keeps the value it set', () => {
    const sqlite = openMigratedDatabase();
    const id = insertRow(sqlite, 'organization', { name: 'Acme', created_at: 1000, updated_at: 1000 });
    updateRow(sqlite, 'organization', id, { name: 'Acme Inc', updated_at: 5000 });
    expect(sqlite.query('SELECT updated_at FROM organization WHERE id = ?').get(id)).toEqual({ updated_at: 5000 });
  });

  test('every table with updated_at has a trigger keeping it current', () => {
    const sqlite = openMigratedDatabase();
    const tables = sqlite
      .query<{ name: string }, []>(
        "SELECT m.name FROM sqlite_master m WHERE m.type = 'table' AND EXISTS (SELECT 1 FROM pragma_table_info(m.name) c WHERE c.name = 'updated_at')",
      )
      .all()
      .map((row) => row.name);
    const triggers = new Set(
      sqlite
        .query<{ name: string }, []>("SELECT name FROM sqlite_master WHERE type = 'trigger'")
        .all()
        .map((row) => row.name),
    );
    expect(tables.length).toBe(42);
    expect(tables.filter((table) => !triggers.has(`${table}_touch_updated_at`))).toEqual([]);
  });
});

describe('createDb', () => {
  test('drizzle inserts get a UUID v7 id and Date timestamps; updates refresh updated_at', async () => {
    const sqlite = openMigratedDatabase();
    const db = createDb(sqlite);
    const [acme] = await db
      .insert(organization)
      .values({ name: 'Acme', createdAt: new Date(1000), updatedAt: new Date(1000) })
      .returning();
    expect(isUuid(acme!.id)).toBe(true);
    expect(acme!.id[14]).toBe('7');
    expect(acme!.createdAt).toEqual(new Date(1000));
    expect(acme!.defaultEnvironmentName).toBe('production');
    expect(acme!.isHostAccessAllowed).toBe(false);

    const [renamed] = await db.update(organization).set({ name: 'Acme Inc' }).where(eq(organization.id, acme!.id)).returning();
    expect(renamed!.updatedAt.getTime()).toBeGreaterThan(1000);
    expect(renamed!.createdAt).toEqual(new Date(1000));
  });

  test('JSON columns round-trip objects', async () => {
    const sqlite = openMigratedDatabase();
    const db = createDb(sqlite);
    const [org] = await db.insert(organization).values({ name: 'Acme' }).returning();
    const [ws] = await db.insert(workspace).values({ organizationId: org!.id, name: 'Default' }).returning();
    await db.insert(project).values({
      organizationId: org!.id,
      workspaceId: ws!.id,
      name: 'Shop',
      metadata: { type: 'docker-compose' },
      options: { compose: { version: 1, data: {}, presentation: {} } },
    });
    const found = db.select().from(project).where(eq(project.name, 'Shop')).get();
    expect(found?.metadata).toEqual({ type: 'docker-compose' });
    expect(found?.options).toEqual({ compose: { version: 1, data: {}, presentation: {} } });
    expect(found?.component).toBeNull();
  });
});
