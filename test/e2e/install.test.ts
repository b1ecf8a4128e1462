/**
 * install.sh in prefix mode (its test and staging mode): files under a temporary root, and
 * `panel serve` run directly with a pid file, so install, re-run, upgrade and rollback really
 * start, stop and health-check the server. Built once from this checkout.
 */
import { Database } from 'bun:sqlite';
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseKeyRing } from '../../src/crypto/keyring.ts';
import { completeInstall, createTag, freePort, type Session, tagStatus } from './panel-api.ts';

const repo = join(import.meta.dir, '..', '..');
const work = mkdtempSync(join(tmpdir(), 'panel-install-'));
const prefix = join(work, 'root');
const built = join(work, 'panel');
const at = (path: string) => join(prefix, path);
const port = freePort();
const url = `http://127.0.0.1:${port}`;
/** Builds and server starts share two cores with other test files. */
const TIMEOUT = 60_000;

/** An executable that works but differs from the built one: a real upgrade target. */
const wrapper = script('wrapper', `exec '${built}' "$@"`);
/** Starts, scribbles over the database and exits: the rollback must restore the database too. */
const crashing = script('crashing', `case "$1" in version) echo 9.9.9-crashing ;; serve) printf garbage > "$PANEL_DATA_DIR/panel.db"; rm -f "$PANEL_DATA_DIR/panel.db-wal"; echo 'broken build' >&2; exit 1 ;; *) exit 1 ;; esac`);
/** Starts but never answers. */
const hanging = script('hanging', `case "$1" in version) echo 9.9.9-hanging ;; serve) exec sleep 600 ;; *) exit 1 ;; esac`);

function script(name: string, body: string): string {
  const file = join(work, name);
  writeFileSync(file, `#!/bin/sh\n${body}\n`);
  chmodSync(file, 0o755);
  return file;
}

async function install(args: string[], env: Record<string, string> = {}) {
  const child = Bun.spawn(['bash', join(repo, 'install.sh'), '--prefix', prefix, ...args], { env: { ...process.env, ...env }, stdin: 'ignore', stdout: 'pipe', stderr: 'pipe' });
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  return { code, stdout, stderr };
}

const sha = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');
const pid = () => readFileSync(at('run/panel/panel.pid'), 'utf8').trim();
const health = () => fetch(`${url}/api/health`).then((res) => res.status, () => 0);

/** Every regular file under the prefix and its hash (sockets and directories have no content). */
function snapshot(dir = prefix, into: Record<string, string> = {}): Record<string, string> {
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    const stat = lstatSync(path);
    if (stat.isDirectory()) snapshot(path, into);
    else if (stat.isFile()) into[path.slice(prefix.length)] = sha(path);
  }
  return into;
}

beforeAll(() => {
  const build = Bun.spawnSync([process.execPath, 'scripts/build.ts', built], { cwd: repo, stdout: 'pipe', stderr: 'pipe' });
  if (build.exitCode !== 0) throw new Error(`build failed: ${build.stderr.toString()}`);
}, 120_000);

afterAll(async () => {
  await install(['--uninstall', '--purge']);
  rmSync(work, { recursive: true, force: true });
}, 60_000);

describe('install.sh --prefix', () => {
  let session: Session;
  let envFile: { hash: string; mtime: number };
  const envFileNow = () => ({ hash: sha(at('etc/panel/panel.env')), mtime: statSync(at('etc/panel/panel.env')).mtimeMs });

  test('a first install lays out the files, generates the key ring once, starts Panel and prints the wizard', async () => {
    const result = await install(['--binary', built, '--port', String(port)]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`Install wizard: ${url}/install`);
    expect(result.stdout).toContain(`Install token:  ${at('var/lib/panel/install-token')}`);

    const env = readFileSync(at('etc/panel/panel.env'), 'utf8');
    const ring = env.match(/^PANEL_SECRETS=(k\d{8}-[0-9a-f]{6}:[A-Za-z0-9+/]{43}=)$/m)?.[1];
    expect(ring).toBeDefined();
    expect(parseKeyRing(ring!).keyIds).toHaveLength(1);
    expect(result.stdout).not.toContain(ring!.split(':')[1]!);
    expect(statSync(at('etc/panel/panel.env')).mode & 0o777).toBe(0o600);
    expect(statSync(at('var/lib/panel')).mode & 0o777).toBe(0o700);
    expect(statSync(at('var/lib/panel/install-token')).mode & 0o777).toBe(0o600);
    expect(statSync(at('var/log/panel/panel.log')).mode & 0o077).toBe(0);
    expect(sha(at('usr/local/bin/panel'))).toBe(sha(built));
    expect(readFileSync(at('etc/panel/install.env'), 'utf8')).toContain(`PANEL_PORT=${port}\nPANEL_DAEMON_SOCKET=/run/panel/daemon.sock\n# The local daemon is panel-daemon.service (root, it drives Docker), not a child of panel serve.\nPANEL_LOCAL_DAEMON=off\n`);

    const serve = readFileSync(at('etc/systemd/system/panel.service'), 'utf8');
    for (const line of ['User=panel', 'EnvironmentFile=/etc/panel/panel.env', 'ExecStart=/usr/local/bin/panel serve', 'RuntimeDirectory=panel', 'NoNewPrivileges=yes', 'ProtectSystem=strict', 'ReadWritePaths=/var/lib/panel', 'PrivateTmp=yes', 'CapabilityBoundingSet=\n']) {
      expect(serve).toContain(line);
    }
    const daemon = readFileSync(at('etc/systemd/system/panel-daemon.service'), 'utf8');
    expect(daemon).toContain(
      'ExecStart=/usr/local/bin/panel daemon run --local --socket /run/panel/daemon.sock --credential-file /var/lib/panel/local-daemon.credential --state-dir /var/lib/panel-daemon',
    );
    expect(daemon).not.toMatch(/^User=/m);
    expect(serve + daemon).not.toMatch(/@[A-Z_]+@/);

    expect(await health()).toBe(200);
    const ready = await fetch(`${url}/api/health/ready`);
    expect(ready.status).toBe(200);
    expect(statSync(at('run/panel/daemon.sock')).mode & 0o777).toBe(0o600);
    expect(statSync(at('var/lib/panel/local-daemon.credential')).mode & 0o777).toBe(0o600);
    envFile = envFileNow();
  }, TIMEOUT);

  test('a second run changes nothing: same files, same key ring, no restart', async () => {
    const before = snapshot();
    const running = pid();
    const result = await install(['--binary', built]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('nothing changed');
    expect(snapshot()).toEqual(before);
    expect(envFileNow()).toEqual(envFile);
    expect(pid()).toBe(running);
  }, TIMEOUT);

  test('the units pass systemd-analyze verify', () => {
    const analyze = Bun.which('systemd-analyze');
    if (!analyze) return console.warn('skipped: systemd-analyze is not installed');
    const units = join(work, 'units');
    mkdirSync(units, { recursive: true });
    const files = ['panel.service', 'panel-daemon.service'].map((name) => {
      // The units name the target system's paths; point ExecStart at the staged executable.
      const text = readFileSync(at(`etc/systemd/system/${name}`), 'utf8').replaceAll('/usr/local/bin/panel', at('usr/local/bin/panel'));
      writeFileSync(join(units, name), text);
      return join(units, name);
    });
    const verify = Bun.spawnSync([analyze, 'verify', '--man=no', ...files], { stdout: 'pipe', stderr: 'pipe' });
    expect(verify.stderr.toString()).toBe('');
    expect(verify.exitCode).toBe(0);
  }, TIMEOUT);

  test('an upgrade backs up the database, replaces the executable and keeps the previous one', async () => {
    session = await completeInstall(url, at('var/lib/panel'));
    const tagId = await createTag(session, 'before-upgrade');
    const running = pid();
    const result = await install(['--binary', wrapper]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('is healthy');
    expect(pid()).not.toBe(running);
    expect(sha(at('usr/local/bin/panel'))).toBe(sha(wrapper));
    expect(sha(at('usr/local/bin/panel.previous'))).toBe(sha(built));
    expect(readdirSync(at('var/lib/panel/backups'))).toHaveLength(1);
    expect(await tagStatus(session, tagId)).toBe(200);
    expect(result.stdout).toContain(`Panel is installed: sign in at ${url}`);
    expect(envFileNow()).toEqual(envFile);
  }, TIMEOUT);

  test('an executable that dies is rolled back: the previous executable and the database come back', async () => {
    const tagId = await createTag(session, 'before-crashing-upgrade');
    const result = await install(['--binary', crashing]);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('rolling back');
    expect(result.stderr).toContain('failed and was rolled back');
    expect(readFileSync(at('var/log/panel/panel.log'), 'utf8')).toContain('broken build');
    expect(sha(at('usr/local/bin/panel'))).toBe(sha(wrapper));
    expect(sha(at('usr/local/bin/panel.failed'))).toBe(sha(crashing));
    expect(await health()).toBe(200);
    expect(await tagStatus(session, tagId)).toBe(200);
    const sqlite = new Database(at('var/lib/panel/panel.db'), { readonly: true });
    expect(sqlite.query('PRAGMA integrity_check').all()).toEqual([{ integrity_check: 'ok' }]);
    sqlite.close();
    expect(envFileNow()).toEqual(envFile);
  }, TIMEOUT);

  test('an executable that never becomes healthy is rolled back after the health timeout', async () => {
    const tagId = await createTag(session, 'before-hanging-upgrade');
    const started = performance.now();
    const result = await install(['--binary', hanging], { PANEL_INSTALL_HEALTH_TIMEOUT: '2' });
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('within 2s');
    expect(performance.now() - started).toBeGreaterThan(2000);
    expect(sha(at('usr/local/bin/panel'))).toBe(sha(wrapper));
    expect(await health()).toBe(200);
    expect(await tagStatus(session, tagId)).toBe(200);
    expect(readdirSync(at('var/lib/panel/backups'))).toHaveLength(3);
  }, TIMEOUT);

  test('--uninstall stops Panel and keeps the data and the key ring; --purge removes them', async () => {
    const result = await install(['--uninstall']);
    expect(result.code).toBe(0);
    expect(await health()).toBe(0);
    for (const gone of ['usr/local/bin/panel', 'usr/local/bin/panel.previous', 'etc/systemd/system/panel.service', 'etc/systemd/system/panel-daemon.service', 'run/panel']) {
      expect(existsSync(at(gone))).toBe(false);
    }
    expect(existsSync(at('var/lib/panel/panel.db'))).toBe(true);
    expect(envFileNow()).toEqual(envFile);

    expect((await install(['--uninstall', '--purge'])).code).toBe(0);
    for (const gone of ['var/lib/panel', 'etc/panel', 'var/lib/panel-daemon', 'var/log/panel']) expect(existsSync(at(gone))).toBe(false);
  }, TIMEOUT);
});

describe('install.sh arguments', () => {
  test('--help, and usage errors exit 2 without touching anything', async () => {
    const help = await install(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('--uninstall');
    for (const args of [['--bogus'], ['--purge'], ['--port', 'x'], ['--port', '70000'], ['--data-dir', 'relative'], ['--binary']]) {
      const result = await install(args);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr).toContain('see --help');
    }
    expect(existsSync(at('etc/panel'))).toBe(false);
  }, TIMEOUT);

  test('a file that is not a panel executable is refused before anything is installed', async () => {
    const result = await install(['--binary', script('not-panel', 'exit 1')]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('does not run');
    expect(existsSync(at('usr/local/bin/panel'))).toBe(false);
  }, TIMEOUT);
});
