import { describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eq } from 'drizzle-orm';
import { changesOf, COUNTED_TABLES, type CountedTable } from '../domain/shared/cacheable-list.ts';
import { openMigratedDatabase } from '../../test/db.ts';
import { createDb, openDatabase } from './client.ts';
import { migrate } from './migrate.ts';
import { MIGRATIONS } from './migrations.ts';
import { environment, organization, project, service, workspace } from './schema/index.ts';

const counter = (db: ReturnType<typeof createDb>, table: CountedTable) => Number(changesOf(db, [table])!.split(':')[1]!.slice(0, -1));

function tree(db: ReturnType<typeof createDb>) {
  const organizationId = db.insert(organization).values({ name: 'Acme' }).returning().get().id;
  const workspaceId = db.insert(workspace).values({ organizationId, name: 'Apps' }).returning().get().id;
  const projectId = db.insert(project).values({ organizationId, workspaceId, name: 'Shop' }).returning().get().id;
  const environmentId = db.insert(environment).values({ projectId, name: 'production' }).returning().get().id;
  const serviceId = db.insert(service).values({ environmentId, composeServiceName: 'web' }).returning().get().id;
  return { organizationId, workspaceId, projectId, environmentId, serviceId };
}

describe('change counters of the tables whose list answers are cached', () => {
  test('every counted table has a counter and an insert, update and delete trigger', () => {
    const sqlite = openMigratedDatabase();
    const triggers = sqlite.query<{ tbl_name: string; sql: string }, []>("SELECT tbl_name, sql FROM sqlite_master WHERE type = 'trigger'").all();
    for (const table of COUNTED_TABLES) {
      expect(sqlite.query('SELECT changes FROM table_change WHERE table_name = ?').get(table)).toEqual({ changes: 0 });
      for (const event of ['INSERT', 'UPDATE', 'DELETE']) {
        const raising = triggers.filter((trigger) => trigger.tbl_name === table && trigger.sql.includes(`AFTER ${event} ON \`${table}\``) && trigger.sql.includes('table_change'));
        expect({ table, event, triggers: raising.length }).toEqual({ table, event, triggers: 1 });
      }
    }
  });

  test("each table's insert, update and delete raise that table's counter and no other, through drizzle and raw SQL", () => {
    const db = createDb(openMigratedDatabase());
    const ids = tree(db);
    const counters = () => Object.fromEntries(COUNTED_TABLES.map((table) => [table, counter(db, table)])) as Record<CountedTable, number>;
    /** A fresh row of each counted table, under the seeded tree. */
    const insert: Record<CountedTable, () => string> = {
      workspace: () => db.insert(workspace).values({ organizationId: ids.organizationId, name: `ws ${Math.random()}` }).returning().get().id,
      project: () => db.insert(project).values({ organizationId: ids.organizationId, workspaceId: ids.workspaceId, name: `p ${Math.random()}` }).returning().get().id,
      environment: () => db.insert(environment).values({ projectId: ids.projectId, name: 'staging' }).returning().get().id,
      service: () => db.insert(service).values({ environmentId: ids.environmentId, composeServiceName: `svc${Math.floor(Math.random() * 1e9)}` }).returning().get().id,
    };
    const writes: [string, (table: CountedTable, id: string) => void][] = [
      ['update by drizzle', (table, id) => db.update({ workspace, project, environment, service }[table]).set({ description: 'changed' }).where(eq({ workspace, project, environment, service }[table].id, id)).run()],
      ['update by raw SQL', (table, id) => db.$client.run(`UPDATE "${table}" SET description = 'raw' WHERE id = ?`, [id])],
      ['delete', (table, id) => db.$client.run(`DELETE FROM "${table}" WHERE id = ?`, [id])],
    ];
    for (const table of COUNTED_TABLES) {
      let before = counters();
      const id = insert[table]();
      const expectOnly = (what: string) => {
        const after = counters();
        for (const other of COUNTED_TABLES) {
          const rose = after[other] > before[other];
          expect({ table, what, other, rose }).toEqual({ table, what, other, rose: other === table });
        }
        before = after;
      };
      expectOnly('insert');
      for (const [what, write] of writes) {
        write(table, id);
        expectOnly(what);
      }
    }
  });

  test('a rolled-back write leaves the counter where it was, and inside a transaction nothing is counted for keeping', () => {
    const db = createDb(openMigratedDatabase());
    const ids = tree(db);
    const before = counter(db, 'service');
    expect(() =>
      db.transaction((tx) => {
        tx.update(service).set({ description: 'front' }).where(eq(service.id, ids.serviceId)).run();
        expect(changesOf(tx, ['service'])).toBeNull();
        expect(changesOf(db, ['service'])).toBeNull();
        throw new Error('roll back');
      }),
    ).toThrow('roll back');
    expect(counter(db, 'service')).toBe(before);
  });

  test("another connection's commit raises the counter this one reads", () => {
    const dir = mkdtempSync(join(tmpdir(), 'panel-table-change-'));
    try {
      const file = join(dir, 'panel.db');
      const mine = openDatabase(file);
      migrate(mine, MIGRATIONS);
      const db = createDb(mine);
      const ids = tree(db);
      const before = counter(db, 'service');
      const other = openDatabase(file);
      other.run("UPDATE service SET description = 'from elsewhere' WHERE id = ?", [ids.serviceId]);
      other.close();
      expect(counter(db, 'service')).toBeGreaterThan(before);
      mine.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a table without its counter row keeps nothing', () => {
    const db = createDb(openMigratedDatabase());
    db.$client.run("DELETE FROM table_change WHERE table_name = 'service'");
    expect(changesOf(db, ['service'])).toBeNull();
    expect(changesOf(db, ['project', 'service'])).toBeNull();
    expect(changesOf(db, ['project'])).toBe('project:0;');
  });
});
