import { Database } from 'bun:sqlite';
import { expect, test } from 'bun:test';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseKeyRing } from '../../src/crypto/keyring.ts';
import { sealSecret } from '../../src/crypto/secret.ts';
import { newId } from '../../src/lib/ids.ts';

const root = join(import.meta.dir, '..', '..');
const ring = (n: number) => `k${n}:${Buffer.alloc(32, n).toString('base64')}`;

function panel(args: string[], env: Record<string, string>) {
  const result = Bun.spawnSync([process.execPath, join(root, 'src', 'main.ts'), ...args], { env: { ...process.env, ...env }, stdout: 'pipe', stderr: 'pipe' });
  return { code: result.exitCode, stdout: result.stdout.toString(), stderr: result.stderr.toString() };
}

test('a key ring that lacks a key still sealing rows is refused at start; secrets status shows the counts', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'panel-secrets-cli-'));
  expect(panel(['migrate'], { PANEL_DATA_DIR: dataDir, PANEL_SECRETS: ring(1) }).code).toBe(0);
  const sqlite = new Database(join(dataDir, 'panel.db'));
  const organizationId = newId();
  sqlite.run("INSERT INTO organization (id, name) VALUES (?, 'Acme')", [organizationId]);
  for (const key of ['A', 'B']) {
    const id = newId();
    const value = sealSecret(parseKeyRing(ring(1)), 's3cret', { table: 'variable', column: 'value', id });
    sqlite.run('INSERT INTO variable (id, organization_id, key, value, is_secret) VALUES (?, ?, ?, ?, 1)', [id, organizationId, key, value]);
  }
  sqlite.close();

  const refused = panel(['serve'], { PANEL_DATA_DIR: dataDir, PANEL_SECRETS: ring(2), PANEL_PORT: '0' });
  expect(refused.code).toBe(1);
  expect(refused.stderr).toContain('key "k1" still seals 2 stored secret(s)');
  expect(refused.stderr).not.toContain(Buffer.alloc(32, 1).toString('base64'));

  const rotated = panel(['secrets', 'status'], { PANEL_DATA_DIR: dataDir, PANEL_SECRETS: `${ring(2)},${ring(1)}` });
  expect(rotated.code).toBe(0);
  expect(rotated.stdout).toMatch(/k2\s+0\s+current/);
  expect(rotated.stdout).toMatch(/k1\s+2\s+in ring/);

  const missing = panel(['secrets', 'status'], { PANEL_DATA_DIR: dataDir, PANEL_SECRETS: ring(2) });
  expect(missing.code).toBe(1);
  expect(missing.stdout).toMatch(/k1\s+2\s+MISSING/);
});
