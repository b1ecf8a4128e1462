/**
 * Database helpers for tests: a fresh, fully migrated in-memory SQLite per call, raw-SQL row
 * inserts (to prove the database itself refuses bad data, bypassing drizzle and the API), and a
 * small tree of valid rows to hang test data on.
 */
import type { Database } from 'bun:sqlite';
import { openDatabase } from '../src/db/client.ts';
import { migrate } from '../src/db/migrate.ts';
import { MIGRATIONS } from '../src/db/migrations.ts';
import { newId } from '../src/lib/ids.ts';

/** A new in-memory database with every embedded migration applied (foreign keys on). */
export function openMigratedDatabase(): Database {
  const sqlite = openDatabase(':memory:');
  migrate(sqlite, MIGRATIONS);
  return sqlite;
}

type SqlValue = string | number | bigint | boolean | null | Uint8Array;

/**
 * `INSERT INTO <table>` with raw SQL. Adds a fresh UUID v7 `id` unless one is given.
 * Returns the row's id.
 */
export function insertRow(sqlite: Database, table: string, values: Record<string, SqlValue>): string {
  const row = { id: newId(), ...values };
  const columns = Object.keys(row);
  const sql = `INSERT INTO "${table}" (${columns.map((c) => `"${c}"`).join(', ')}) VALUES (${columns
    .map(() => '?')
    .join(', ')})`;
  sqlite.prepare(sql).run(...(Object.values(row) as SqlValue[]));
  return row.id as string;
}

/** `UPDATE <table> SET ... WHERE id = ?` with raw SQL. */
export function updateRow(sqlite: Database, table: string, id: string, values: Record<string, SqlValue>): void {
  const columns = Object.keys(values);
  const sql = `UPDATE "${table}" SET ${columns.map((c) => `"${c}" = ?`).join(', ')} WHERE id = ?`;
  sqlite.prepare(sql).run(...(Object.values(values) as SqlValue[]), id);
}

/** Ids of a minimal valid tree: organization > workspace > project > environment > service, plus a server. */
export interface SeededTree {
  organizationId: string;
  serverId: string;
  workspaceId: string;
  projectId: string;
  environmentId: string;
  serviceId: string;
}

/** Inserts one valid organization tree (each call makes a new organization). */
export function seedTree(sqlite: Database): SeededTree {
  const organizationId = insertRow(sqlite, 'organization', { name: 'Acme' });
  const serverId = insertRow(sqlite, 'server', { organization_id: organizationId, name: 'node-1' });
  const workspaceId = insertRow(sqlite, 'workspace', { organization_id: organizationId, name: 'Default' });
  const projectId = insertRow(sqlite, 'project', {
    organization_id: organizationId,
    workspace_id: workspaceId,
    name: 'Shop',
  });
  const environmentId = insertRow(sqlite, 'environment', { project_id: projectId, name: 'production' });
  const serviceId = insertRow(sqlite, 'service', { environment_id: environmentId, compose_service_name: 'web' });
  return { organizationId, serverId, workspaceId, projectId, environmentId, serviceId };
}

/** Inserts a hosting on the service. */
export function insertHosting(sqlite: Database, serviceId: string, values: Record<string, SqlValue> = {}): string {
  return insertRow(sqlite, 'hosting', { service_id: serviceId, ...values });
}

/** Inserts a managed postgres cluster and a database principal on it; returns the principal id. */
export function insertDatabasePrincipal(sqlite: Database, organizationId: string): string {
  const managedId = insertRow(sqlite, 'managed', {
    organization_id: organizationId,
    name: 'pg',
    engine: 'postgres',
    options: JSON.stringify({ databases: ['app'] }),
  });
  return insertRow(sqlite, 'principal', {
    organization_id: organizationId,
    managed_id: managedId,
    kind: 'database',
    provider: 'postgres',
    username: 'app',
    applied_username: 'app',
  });
}

/** Number of rows in a table. */
export function countRows(sqlite: Database, table: string): number {
  return sqlite.query<{ n: number }, []>(`SELECT count(*) AS n FROM "${table}"`).get()!.n;
}
