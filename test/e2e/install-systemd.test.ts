/**
 * install.sh's systemd mode, without touching this machine: a private mount namespace gets its
 * own copy of /etc (so the panel user is created there only), empty /usr/local, /var/lib and /run
 * (with /run/systemd/system, so install.sh sees systemd), and a stand-in `systemctl` that runs
 * panel.service the way its unit says: as the panel user, with both environment files. The test
 * reads the namespace's files through /proc/<pid>/root and talks HTTP over the shared network.
 * Skipped where namespaces cannot be made (not root, or no CAP_SYS_ADMIN).
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './panel-api.ts';

const repo = join(import.meta.dir, '..', '..');
const work = mkdtempSync(join(tmpdir(), 'panel-install-systemd-'));
chmodSync(work, 0o755); // the panel user runs the executables kept here
const built = join(work, 'panel');
const port = freePort();
const TIMEOUT = 60_000;

const SYSTEMCTL = `#!/bin/bash
# Stand-in for systemctl: logs each call; runs panel.service as its unit says.
set -u
exec 9>&- # systemd starts services from its own process tree: they inherit nothing from the caller
state=/run/fake-systemd; mkdir -p "$state"; echo "$*" >>"$state/calls"
alive() { local p; p=$(cat "$state/panel.pid" 2>/dev/null) && kill -0 "$p" 2>/dev/null && [ "$(awk '{print $3}' /proc/$p/stat)" != Z ]; }
start() {
  alive && return 0
  install -d -o panel -g panel -m 0700 /run/panel # RuntimeDirectory=panel
  (set -a; . /etc/panel/install.env; . /etc/panel/panel.env; cd "$PANEL_DATA_DIR"; umask 077
   exec setsid setpriv --reuid=panel --regid=panel --init-groups /usr/local/bin/panel serve) </dev/null >>"$state/panel.log" 2>&1 &
  echo $! >"$state/panel.pid"
}
stop() {
  local p; p=$(cat "$state/panel.pid" 2>/dev/null) || return 0
  kill -TERM "$p" 2>/dev/null; for _ in $(seq 100); do alive || break; sleep 0.1; done
  rm -f "$state/panel.pid"; rm -rf /run/panel
}
command=$1; shift
units=(); for a in "$@"; do case "$a" in panel.service) units+=(panel) ;; esac; done
[ "\${#units[@]}" -gt 0 ] || exit 0 # panel-daemon.service: only logged
case "$command" in
  start) start ;; stop) stop ;; restart) stop; start ;; is-active) alive; exit ;;
  is-failed) [ -f "$state/panel.pid" ] && ! alive; exit ;; disable) if [[ " $* " == *" --now "* ]]; then stop; fi ;;
esac
exit 0
`;

let namespace: Bun.Subprocess<'ignore', 'pipe', 'pipe'> | undefined;
let skipped = '';
const inside = (path: string) => `/proc/${namespace!.pid}/root${path}`;

async function install(args: string[]) {
  const cmd = ['nsenter', '-t', String(namespace!.pid), '-m', '--', 'env', `PATH=${work}/bin:/usr/sbin:/usr/bin:/sbin:/bin`, 'bash', join(repo, 'install.sh'), ...args];
  const child = Bun.spawn(cmd, { stdin: 'ignore', stdout: 'pipe', stderr: 'pipe' });
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  return { code, stdout, stderr };
}
const calls = () => readFileSync(inside('/run/fake-systemd/calls'), 'utf8');
const servePid = () => readFileSync(inside('/run/fake-systemd/panel.pid'), 'utf8').trim();
const uidOf = (name: string) => Number(readFileSync(inside('/etc/passwd'), 'utf8').match(new RegExp(`^${name}:x:(\\d+):`, 'm'))?.[1] ?? -1);
const sha = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');
const health = () => fetch(`http://127.0.0.1:${port}/api/health`).then((res) => res.status, () => 0);

beforeAll(async () => {
  const build = Bun.spawnSync([process.execPath, 'scripts/build.ts', built], { cwd: repo, stdout: 'pipe', stderr: 'pipe' });
  if (build.exitCode !== 0) throw new Error(`build failed: ${build.stderr.toString()}`);
  writeFileSync(join(work, 'wrapper'), `#!/bin/sh\nexec '${built}' "$@"\n`, { mode: 0o755 });
  writeFileSync(join(work, 'crashing'), '#!/bin/sh\ncase "$1" in version) echo 9.9.9-crashing ;; *) exit 1 ;; esac\n', { mode: 0o755 });
  mkdirSync(join(work, 'bin'));
  writeFileSync(join(work, 'bin', 'systemctl'), SYSTEMCTL, { mode: 0o755 });
  const setup = [
    'set -e; mount --make-rprivate /',
    `cp -a /etc ${work}/etc && mount --bind ${work}/etc /etc`,
    'for dir in /usr/local /var/lib /run; do mount -t tmpfs -o mode=0755 tmpfs "$dir"; done',
    'mkdir -p /run/systemd/system; echo ready; exec sleep 3600',
  ].join('\n');
  if (!Bun.which('unshare') || !Bun.which('nsenter')) {
    skipped = 'unshare and nsenter (util-linux) are not installed';
    return;
  }
  const started = Bun.spawn(['unshare', '-m', 'bash', '-c', setup], { stdin: 'ignore', stdout: 'pipe', stderr: 'pipe' });
  const first = await started.stdout.getReader().read();
  if (new TextDecoder().decode(first.value).includes('ready')) namespace = started;
  else skipped = `cannot make a mount namespace here: ${(await new Response(started.stderr).text()).trim()}`;
}, 120_000);

afterAll(async () => {
  if (namespace) {
    await install(['--uninstall', '--purge']);
    namespace.kill('SIGKILL');
    await namespace.exited;
  }
  rmSync(work, { recursive: true, force: true });
}, 60_000);

const maybe = (name: string, body: () => Promise<void>) =>
  test(name, async () => (skipped ? console.warn(`skipped: ${skipped}`) : body()), TIMEOUT);

describe('install.sh with systemd (simulated in a mount namespace)', () => {
  maybe('installs as root: panel user, owned data dir, units enabled and started, serve runs as panel', async () => {
    const result = await install(['--binary', built, '--port', String(port)]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('created the system user panel');
    expect(result.stdout).toContain('Install token:  /var/lib/panel/install-token');
    const panelUid = uidOf('panel');
    expect(panelUid).toBeGreaterThan(0);
    expect(statSync(inside('/var/lib/panel')).uid).toBe(panelUid);
    expect(statSync(inside('/var/lib/panel')).mode & 0o777).toBe(0o700);
    expect(statSync(inside('/etc/panel/panel.env')).uid).toBe(0);
    expect(statSync(inside('/etc/panel/panel.env')).mode & 0o777).toBe(0o600);
    expect(statSync(inside('/run/panel/daemon.sock')).uid).toBe(panelUid);
    expect(statSync(inside('/run/panel/daemon.sock')).mode & 0o777).toBe(0o600);
    // The local daemon's credential: made by serve at its first start, for panel and root only.
    expect(statSync(inside('/var/lib/panel/local-daemon.credential')).uid).toBe(panelUid);
    expect(statSync(inside('/var/lib/panel/local-daemon.credential')).mode & 0o777).toBe(0o600);
    expect(readFileSync(`/proc/${servePid()}/status`, 'utf8')).toMatch(new RegExp(`^Uid:\\s+${panelUid}\\s`, 'm'));
    expect(calls()).toContain('daemon-reload');
    expect(calls()).toContain('enable --quiet panel.service panel-daemon.service');
    expect(calls()).toContain('start panel-daemon.service');
    expect(await health()).toBe(200);
  });

  maybe('a second run restarts nothing', async () => {
    const before = { calls: calls().length, pid: servePid(), env: sha(inside('/etc/panel/panel.env')), unit: sha(inside('/etc/systemd/system/panel.service')) };
    const result = await install(['--binary', built]);
    expect(result.code).toBe(0);
    const added = calls().slice(before.calls);
    expect(added).not.toMatch(/restart|stop|daemon-reload/);
    expect(servePid()).toBe(before.pid);
    expect(sha(inside('/etc/panel/panel.env'))).toBe(before.env);
    expect(sha(inside('/etc/systemd/system/panel.service'))).toBe(before.unit);
  });

  maybe('an upgrade backs up as the panel user and restarts both services', async () => {
    const result = await install(['--binary', join(work, 'wrapper')]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const backups = Bun.spawnSync(['ls', inside('/var/lib/panel/backups')]).stdout.toString().trim().split('\n');
    expect(backups).toHaveLength(1);
    expect(statSync(inside(`/var/lib/panel/backups/${backups[0]}`)).uid).toBe(uidOf('panel'));
    expect(calls()).toContain('restart panel-daemon.service');
    expect(await health()).toBe(200);
  });

  maybe('a failed upgrade restores the database as the panel user and Panel answers again', async () => {
    const result = await install(['--binary', join(work, 'crashing')]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('rolled back');
    expect(statSync(inside('/var/lib/panel/panel.db')).uid).toBe(uidOf('panel'));
    expect(sha(inside('/usr/local/bin/panel'))).toBe(sha(join(work, 'wrapper')));
    expect(await health()).toBe(200);
  });

  maybe('--uninstall --purge stops the services and removes the user and the data', async () => {
    const result = await install(['--uninstall', '--purge']);
    expect(result.code).toBe(0);
    expect(calls()).toContain('disable --now panel-daemon.service panel.service');
    expect(await health()).toBe(0);
    expect(uidOf('panel')).toBe(-1);
    expect(existsSync(inside('/var/lib/panel'))).toBe(false);
  });
});
