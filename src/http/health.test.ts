import { Database } from 'bun:sqlite';
import { afterAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Elysia } from 'elysia';
import { createTestApp } from '../../test/harness.ts';
import { openDatabase } from '../db/client.ts';
import { organization, server } from '../db/schema/index.ts';
import { PANEL_VERSION } from '../version.ts';
import { healthRoutes, probeDatabase, probeSocket } from './health.ts';

const work = mkdtempSync(join(tmpdir(), 'panel-health-'));
// A real unix socket listener stands in for the daemon slot of `panel serve`.
const socketPath = join(work, 'daemon.sock');
const listener = Bun.listen({ unix: socketPath, socket: { data() {} } });
afterAll(() => {
  listener.stop(true);
  rmSync(work, { recursive: true, force: true });
});

const ready = (overrides: { daemonSocket?: string } = {}) => createTestApp({ daemonSocket: socketPath, ...overrides });

describe('readiness', () => {
  test('ready: the database takes its write lock and the daemon slot listens', async () => {
    const { request } = ready();
    const res = await request('GET', '/api/health/ready');
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      status: 'ready',
      version: PANEL_VERSION,
      database: { status: 'ok' },
      daemonSlot: { status: 'listening', localDaemon: 'disconnected' },
    });
  });

  test('database down: 503 naming the database, the daemon slot still reported', async () => {
    const { request, sqlite } = ready();
    sqlite.close();
    const res = await request('GET', '/api/health/ready');
    expect(res.status).toBe(503);
    expect(res.json.status).toBe('not_ready');
    expect(res.json.database.status).toBe('unavailable');
    expect(res.json.daemonSlot.status).toBe('listening');
  });

  test('daemon slot down: 503 with the database ok', async () => {
    const { request } = ready({ daemonSocket: join(work, 'nobody-listens.sock') });
    const res = await request('GET', '/api/health/ready');
    expect(res.status).toBe(503);
    expect(res.json.database).toEqual({ status: 'ok' });
    expect(res.json.daemonSlot.status).toBe('down');
  });

  test('the local daemon connection is reported when known, and never gates readiness', async () => {
    let connected = false;
    const app = new Elysia().use(healthRoutes({ sqlite: openDatabase(':memory:'), config: { daemonSocket: socketPath }, localDaemonConnected: () => connected }));
    const ask = async () => {
      const res = await app.handle(new Request('http://localhost/api/health/ready'));
      return { status: res.status, body: await res.json() };
    };
    expect(await ask()).toMatchObject({ status: 200, body: { daemonSlot: { status: 'listening', localDaemon: 'disconnected' } } });
    connected = true;
    expect(await ask()).toMatchObject({ status: 200, body: { daemonSlot: { localDaemon: 'connected' } } });
  });

  test('the local daemon is connected when the hub holds a connection for the local server record', async () => {
    const t = ready();
    const [org] = t.db.insert(organization).values({ name: 'Acme' }).returning().all();
    const [local] = t.db.insert(server).values({ organizationId: org!.id, name: 'this host', isLocal: true }).returning().all();
    const connected = new Set<string>();
    const app = new Elysia().use(healthRoutes({ sqlite: t.sqlite, db: t.db, config: { daemonSocket: socketPath }, hub: { isConnected: (id) => connected.has(id) } }));
    const localDaemon = async () => ((await (await app.handle(new Request('http://localhost/api/health/ready'))).json()) as any).daemonSlot.localDaemon;
    expect(await localDaemon()).toBe('disconnected');
    connected.add(local!.id);
    expect(await localDaemon()).toBe('connected');
    // Without a hub nothing can tell.
    const bare = new Elysia().use(healthRoutes({ sqlite: t.sqlite, config: { daemonSocket: socketPath } }));
    expect(((await (await bare.handle(new Request('http://localhost/api/health/ready'))).json()) as any).daemonSlot.localDaemon).toBe('unknown');
  });

  test('liveness stays 200 while readiness fails', async () => {
    const { request } = ready({ daemonSocket: join(work, 'nobody-listens.sock') });
    expect((await request('GET', '/api/health')).status).toBe(200);
    expect((await request('GET', '/api/health/ready')).status).toBe(503);
  });

  test('is documented in the API description with its response schema', async () => {
    const { paths } = (await ready().request('GET', '/api/openapi.json')).json;
    const operation = paths['/api/health/ready'].get;
    for (const status of ['200', '503']) {
      const schema = operation.responses[status].content['application/json'].schema;
      expect(Object.keys(schema.properties).sort()).toEqual(['daemonSlot', 'database', 'status', 'version']);
      expect(schema.properties.database.properties.status.enum).toEqual(['ok', 'busy', 'unavailable', 'disk_full']);
    }
  });
});

describe('database probe', () => {
  test('a read-only connection is not write-capable', () => {
    const file = join(work, 'readonly.db');
    openDatabase(file).close();
    const readonly = new Database(file, { readonly: true });
    expect(probeDatabase(readonly)).toEqual({ status: 'unavailable', code: 'SQLITE_READONLY' });
    readonly.close();
  });

  test('a write lock held by another connection answers busy, and the busy timeout is restored', () => {
    const file = join(work, 'locked.db');
    const server = openDatabase(file);
    const other = openDatabase(file);
    other.run('BEGIN IMMEDIATE');
    expect(probeDatabase(server)).toEqual({ status: 'busy', code: 'SQLITE_BUSY' });
    other.run('ROLLBACK');
    expect(probeDatabase(server)).toEqual({ status: 'ok' });
    expect(server.query<{ timeout: number }, []>('PRAGMA busy_timeout').get()!.timeout).toBe(5000);
    server.close();
    other.close();
  });

  test('leaves nothing behind and never disturbs an open transaction', () => {
    const sqlite = openDatabase(':memory:');
    sqlite.run('PRAGMA user_version = 7');
    sqlite.run('CREATE TABLE t (x)');
    expect(probeDatabase(sqlite)).toEqual({ status: 'ok' });
    expect(sqlite.inTransaction).toBe(false);
    sqlite.run('BEGIN');
    sqlite.run('INSERT INTO t VALUES (1)');
    expect(probeDatabase(sqlite)).toEqual({ status: 'ok' });
    sqlite.run('COMMIT');
    expect(sqlite.query('SELECT count(*) AS n FROM t').get()).toEqual({ n: 1 });
    expect(sqlite.query('PRAGMA user_version').get()).toEqual({ user_version: 7 });
  });
});

describe('socket probe', () => {
  test('listening, missing, and a stale file nobody answers on', async () => {
    expect(await probeSocket(socketPath)).toBe(true);
    expect(await probeSocket(join(work, 'missing.sock'))).toBe(false);
    const stale = join(work, 'stale.sock');
    Bun.listen({ unix: stale, socket: { data() {} } }).stop(true);
    expect(await probeSocket(stale)).toBe(false);
  });
});
