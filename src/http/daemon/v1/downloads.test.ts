/**
 * What a joining server downloads from the control plane: install.sh and the unit template
 * (public), the executable's checksum (public) and the executable itself, only with a join token
 * that can still enroll; another platform than Panel's own answers 404.
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { clientAs } from '../../../../test/client.ts';
import { createTestApp } from '../../../../test/harness.ts';
import { createOwner } from '../../../../test/identity.ts';

const dir = mkdtempSync(join(tmpdir(), 'panel-downloads-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const EXECUTABLE = join(dir, 'panel');
writeFileSync(EXECUTABLE, 'not really an executable, but bytes all the same');
const SHA256 = createHash('sha256').update(readFileSync(EXECUTABLE)).digest('hex');

function setup() {
  const t = createTestApp();
  t.deps.executable = { platform: 'linux-x64', file: async () => ({ path: EXECUTABLE, sha256: SHA256, size: readFileSync(EXECUTABLE).length }) };
  const owner = createOwner(t);
  const newToken = async () => (await clientAs(t, owner)('POST', '/join-tokens', { organizationId: owner.organizationId })).json.token as string;
  const get = (path: string, token?: string) =>
    t.app.handle(new Request(`http://localhost/api/daemon/v1${path}`, { headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), 'x-forwarded-for': '198.51.100.9' } }));
  return { t, newToken, get };
}

describe('downloads for a joining server', () => {
  test('install.sh (with its daemon mode) and the unit template are public', async () => {
    const { get } = setup();
    const script = await get('/install.sh');
    expect(script.status).toBe(200);
    expect(await script.text()).toBe(readFileSync(join(import.meta.dir, '../../../../install.sh'), 'utf8'));
    const unit = await (await get('/panel-daemon.service')).text();
    expect(unit).toContain('ExecStart=@BIN@ daemon run --state-dir @DAEMON_STATE@');
  });

  test('the checksum is public; the executable needs a join token that can still enroll', async () => {
    const { t, newToken, get } = setup();
    expect(await (await get('/executable/linux-x64.sha256')).text()).toBe(`${SHA256}  panel\n`);
    for (const token of [undefined, 'pnj_unknown']) {
      const refused = await get('/executable/linux-x64', token);
      expect(refused.status).toBe(401);
      expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('invalid_join_token');
    }
    const token = await newToken();
    const download = await get('/executable/linux-x64', token);
    expect(download.status).toBe(200);
    expect(download.headers.get('x-checksum-sha256')).toBe(SHA256);
    expect(Buffer.from(await download.arrayBuffer())).toEqual(readFileSync(EXECUTABLE));
    // Downloading does not spend the token; an expired one is refused.
    expect((await get('/executable/linux-x64', token)).status).toBe(200);
    t.clock.advance(3_600_000);
    expect((await get('/executable/linux-x64', token)).status).toBe(401);
  });

  test('only the platform Panel runs on is served', async () => {
    const { newToken, get } = setup();
    const other = await get('/executable/linux-arm64', await newToken());
    expect(other.status).toBe(404);
    expect(((await other.json()) as { error: { message: string } }).error.message).toContain('serves the executable for linux-x64 only');
    expect((await get('/executable/linux-arm64.sha256')).status).toBe(404);
    expect((await get('/executable/..%2Fetc.sha256')).status).toBe(422);
  });
});
