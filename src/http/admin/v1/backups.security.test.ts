import { afterAll, describe, expect, test } from 'bun:test';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestApp } from '../../../../test/harness.ts';
import { createOwner, tokenFor } from '../../../../test/identity.ts';
import { buildApp } from '../../../app.ts';
import { openDatabase } from '../../../db/client.ts';

const scratch = mkdtempSync(join(tmpdir(), 'panel-backups-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** An app whose data dir holds a database file for the backup worker to copy. */
function appWithDataDir(name: string) {
  const dataDir = join(scratch, name);
  const t = createTestApp({ dataDir, databaseFile: join(dataDir, 'panel.db') });
  mkdirSync(dataDir, { recursive: true });
  openDatabase(t.config.databaseFile).close();
  return t;
}

describe('POST /api/admin/v1/backups', () => {
  test('anonymous 401, an owner 403, an API token 403; only a superadmin makes a backup', async () => {
    const t = appWithDataDir('tcp');
    const owner = createOwner(t);
    const root = createOwner(t, { isSuperadmin: true });
    expect((await t.request('POST', '/api/admin/v1/backups', undefined, { origin: new URL(t.config.publicUrl).origin })).status).toBe(401);
    expect((await t.request('POST', '/api/admin/v1/backups', undefined, owner.headers)).status).toBe(403);
    expect((await t.request('POST', '/api/admin/v1/backups', undefined, tokenFor(t, root, 'owner'))).status).toBe(403);
    expect(existsSync(join(t.config.dataDir, 'backups'))).toBe(false);

    const made = await t.request('POST', '/api/admin/v1/backups', undefined, root.headers);
    expect(made.status).toBe(201);
    expect(made.json).toEqual({ name: expect.stringMatching(/^panel-.+\.db$/), bytes: expect.any(Number), createdAt: t.clock.now().toISOString() });
    expect(existsSync(join(t.config.dataDir, 'backups', made.json.name))).toBe(true);
  });

  test('on the daemon socket it needs the local daemon credential', async () => {
    const t = appWithDataDir('unix');
    const local = buildApp({ ...t.deps, listener: 'unix' });
    const ask = (headers: Record<string, string>) => local.handle(new Request('http://localhost/api/admin/v1/backups', { method: 'POST', headers }));
    expect((await ask({})).status).toBe(401);
    expect((await ask({ authorization: 'Bearer pnl_wrong' })).status).toBe(401);
    expect(existsSync(join(t.config.dataDir, 'backups'))).toBe(false);
    const made = await ask({ authorization: `Bearer ${t.localCredential}` });
    expect(made.status).toBe(201);
  });
});
