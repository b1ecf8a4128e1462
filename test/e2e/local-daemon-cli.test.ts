/**
 * `panel local-daemon reset-key`, the operator's way to let the local daemon bring a new key
 * (docs/SECURITY.md, "The local slot"): it opens the database with Panel's own environment, marks
 * the local server's key replaceable by the next local hello and changes nothing else.
 */
import { Database } from 'bun:sqlite';
import { afterAll, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TEST_KEY_RING } from '../harness.ts';
import { newId } from '../../src/lib/ids.ts';

const MAIN = join(import.meta.dir, '..', '..', 'src', 'main.ts');
const dataDir = mkdtempSync(join(tmpdir(), 'panel-local-daemon-cli-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

function panel(args: string[]) {
  const result = Bun.spawnSync([process.execPath, MAIN, ...args], {
    env: { ...process.env, PANEL_DATA_DIR: dataDir, PANEL_SECRETS: TEST_KEY_RING },
    stdout: 'pipe',
    stderr: 'pipe',
  });
  return { code: result.exitCode, stdout: result.stdout.toString(), stderr: result.stderr.toString() };
}

test('reset-key: refused before there is a local server; afterwards it marks the pinned key replaceable', () => {
  expect(panel(['local-daemon']).code).toBe(2);
  const none = panel(['local-daemon', 'reset-key']);
  expect(none.code).toBe(1);
  expect(none.stderr).toContain('there is no local server yet');

  const sqlite = new Database(join(dataDir, 'panel.db'));
  const organizationId = newId();
  const serverId = newId();
  sqlite.run("INSERT INTO organization (id, name) VALUES (?, 'Acme')", [organizationId]);
  sqlite.run("INSERT INTO server (id, organization_id, name, is_local, public_key, daemon_key_id) VALUES (?, ?, 'host', 1, 'A', 'dk_pinned')", [serverId, organizationId]);
  const reset = panel(['local-daemon', 'reset-key']);
  expect(reset.code, reset.stderr).toBe(0);
  expect(reset.stdout).toContain('pinned now: dk_pinned');
  const row = sqlite.query<{ key_reset_at: number | null; daemon_key_id: string }, []>('SELECT key_reset_at, daemon_key_id FROM server').get()!;
  expect(row.key_reset_at).toBeGreaterThan(0);
  expect(row.daemon_key_id).toBe('dk_pinned');
  sqlite.close();
});
