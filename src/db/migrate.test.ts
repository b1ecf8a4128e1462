/**
 * The migration runner (one transaction, own bookkeeping, refuses newer databases) and the
 * build-time embedding of migrations/ by the Bun macro.
 */
import type { Database } from 'bun:sqlite';
import { describe, expect, test } from 'bun:test';
import { insertRow, openMigratedDatabase, seedTree } from '../../test/db.ts';
import { openDatabase } from './client.ts';
import { appliedMigrationTags, migrate, MIGRATIONS_TABLE, type Migration } from './migrate.ts';
import { embeddedMigrations } from './migrations.macro.ts' with { type: 'macro' };
import { readMigrations, STATEMENT_BREAKPOINT } from './migrations.macro.ts';

const EMBEDDED = embeddedMigrations();

/** Everything that describes the database: schema objects and the bookkeeping rows. */
function snapshot(sqlite: Database) {
  const schema = sqlite.query('SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name').all();
  const bookkeeping = appliedMigrationTags(sqlite);
  return { schema, bookkeeping };
}

const failing = (tag: string): Migration => ({
  tag,
  statements: ['CREATE TABLE widget (id TEXT PRIMARY KEY)', 'INSERT INTO no_such_table VALUES (1)'],
});

describe('embedded migrations', () => {
  test('the macro embeds every journal entry, in order, split into statements', () => {
    expect(EMBEDDED.map((migration) => migration.tag)).toEqual(['0000_create_tables', '0001_add_triggers', '0002_add_api_tokens', '0003_add_identity_tables', '0004_add_list_indexes', '0005_add_daemon_tables', '0006_add_certificate_authority', '0007_add_server_labels', '0008_add_local_key_reset', '0009_add_join_token_replaces', '0010_add_fabric', '0011_add_local_host_access', '0012_add_ingress', '0013_add_server_private_address', '0014_add_observability_tables', '0015_index_log_chunks_by_time', '0016_add_table_change', '0017_add_table_change_triggers']);
    // What was inlined at transpile time is what is on disk now.
    expect(EMBEDDED).toEqual(readMigrations());
    for (const { statements } of EMBEDDED) {
      expect(statements.length).toBeGreaterThan(0);
      expect(statements.some((statement) => statement.includes(STATEMENT_BREAKPOINT) || statement.trim() === '')).toBe(false);
    }
  });
});

describe('migrate', () => {
  test('a fresh database gets every migration', () => {
    const sqlite = openDatabase(':memory:');
    expect(migrate(sqlite, EMBEDDED)).toBe(EMBEDDED.length);
    expect(appliedMigrationTags(sqlite)).toEqual(EMBEDDED.map((migration) => migration.tag));
    expect(sqlite.query("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'project'").get()).toEqual({
      name: 'project',
    });
  });

  test('a second run applies nothing', () => {
    const sqlite = openMigratedDatabase();
    const before = snapshot(sqlite);
    expect(migrate(sqlite, EMBEDDED)).toBe(0);
    expect(snapshot(sqlite)).toEqual(before);
  });

  test('only pending migrations are applied, in list order', () => {
    const sqlite = openDatabase(':memory:');
    expect(migrate(sqlite, EMBEDDED.slice(0, 1))).toBe(1);
    const next: Migration = { tag: '0002_create_widget', statements: ['CREATE TABLE widget (id TEXT PRIMARY KEY)'] };
    expect(migrate(sqlite, [...EMBEDDED, next])).toBe(EMBEDDED.length);
    expect(appliedMigrationTags(sqlite)).toEqual([...EMBEDDED.map((migration) => migration.tag), next.tag]);
  });

  test('a database written by a newer Panel is refused and left untouched', () => {
    const sqlite = openMigratedDatabase();
    sqlite.prepare(`INSERT INTO ${MIGRATIONS_TABLE} (tag, applied_at) VALUES (?, ?)`).run('0007_add_widgets', 1);
    const before = snapshot(sqlite);
    const pending: Migration = { tag: '0002_create_widget', statements: ['CREATE TABLE widget (id TEXT PRIMARY KEY)'] };
    expect(() => migrate(sqlite, [...EMBEDDED, pending])).toThrow(
      'database was written by a newer Panel (unknown migration 0007_add_widgets); refusing to start',
    );
    expect(snapshot(sqlite)).toEqual(before);
  });

  test('a failing migration leaves the database exactly as it was', () => {
    const sqlite = openMigratedDatabase();
    seedTree(sqlite);
    const before = snapshot(sqlite);
    const next: Migration = { tag: '0002_add_column', statements: ['ALTER TABLE project ADD COLUMN archived_at INTEGER'] };
    expect(() => migrate(sqlite, [...EMBEDDED, next, failing('0003_broken')])).toThrow(
      /migration 0003_broken failed at statement 2: no such table: no_such_table; nothing was applied/,
    );
    expect(snapshot(sqlite)).toEqual(before);
    expect(sqlite.query('SELECT count(*) AS n FROM project').get()).toEqual({ n: 1 });
  });

  test('a failing first run leaves a fresh database empty, without a bookkeeping table', () => {
    const sqlite = openDatabase(':memory:');
    expect(() => migrate(sqlite, [...EMBEDDED, failing('0002_broken')])).toThrow(/0002_broken failed/);
    expect(sqlite.query('SELECT count(*) AS n FROM sqlite_master').get()).toEqual({ n: 0 });
  });

  test('a migration leaving a dangling foreign key is rolled back', () => {
    const sqlite = openMigratedDatabase();
    const before = snapshot(sqlite);
    const dangling: Migration = {
      tag: '0002_bad_data',
      statements: [
        `INSERT INTO workspace (id, organization_id, name)
         VALUES ('01936b2e-7c4a-7b3e-8f00-0123456789ab', '01936b2e-7c4a-7b3e-8f00-000000000000', 'orphan')`,
      ],
    };
    expect(() => migrate(sqlite, [...EMBEDDED, dangling])).toThrow(
      /1 foreign key violation\(s\) \(workspace row .* -> organization\); nothing was applied/,
    );
    expect(snapshot(sqlite)).toEqual(before);
    expect(sqlite.query('SELECT count(*) AS n FROM workspace').get()).toEqual({ n: 0 });
  });

  test('a table rebuild inside a migration does not fire ON DELETE CASCADE, and foreign keys stay on afterwards', () => {
    const sqlite = openMigratedDatabase();
    const tree = seedTree(sqlite);
    const datacenterId = insertRow(sqlite, 'datacenter', { organization_id: tree.organizationId, name: 'fra1' });
    const tagId = insertRow(sqlite, 'tag', { organization_id: tree.organizationId, name: 'eu' });
    insertRow(sqlite, 'marker', { tag_id: tagId, datacenter_id: datacenterId });
    // drizzle-kit's rebuild pattern for changes ALTER TABLE cannot make.
    const rebuild: Migration = {
      tag: '0002_rebuild_datacenter',
      statements: [
        'PRAGMA foreign_keys=OFF',
        `CREATE TABLE __new_datacenter (
           id text PRIMARY KEY NOT NULL,
           organization_id text NOT NULL REFERENCES organization(id) ON DELETE cascade,
           name text NOT NULL, region text, created_at integer NOT NULL, updated_at integer NOT NULL)`,
        `INSERT INTO __new_datacenter (id, organization_id, name, created_at, updated_at)
         SELECT id, organization_id, name, created_at, updated_at FROM datacenter`,
        'DROP TABLE datacenter',
        'ALTER TABLE __new_datacenter RENAME TO datacenter',
        'PRAGMA foreign_keys=ON',
      ],
    };
    expect(migrate(sqlite, [...EMBEDDED, rebuild])).toBe(1);
    expect(sqlite.query('SELECT count(*) AS n FROM marker').get()).toEqual({ n: 1 });
    expect(sqlite.query('PRAGMA foreign_keys').get()).toEqual({ foreign_keys: 1 });
  });

  test('refuses to run inside an open transaction and refuses duplicate tags', () => {
    const sqlite = openDatabase(':memory:');
    sqlite.run('BEGIN');
    expect(() => migrate(sqlite, EMBEDDED)).toThrow(/inside an open transaction/);
    sqlite.run('ROLLBACK');
    expect(() => migrate(sqlite, [...EMBEDDED, EMBEDDED[0]!])).toThrow(/0000_create_tables is listed twice/);
  });
});
