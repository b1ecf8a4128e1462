/**
 * The console's one-line join command, run by bash exactly as shown, against this app listening
 * on loopback: it installs only a script it downloaded whole and whose SHA-256 is the one Panel
 * serves, and otherwise fails loudly with a non-zero exit (a `curl … | bash` pipeline exits 0 when
 * the download fails: bash runs the empty script). `sudo` is replaced by a recorder on PATH, so
 * what would run as root is seen, never run (join-lab.test.ts runs the whole install).
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import installScript from '../../../../install.sh' with { type: 'text' };
import { clientAs } from '../../../../test/client.ts';
import { createTestApp } from '../../../../test/harness.ts';
import { createOwner } from '../../../../test/identity.ts';

const work = mkdtempSync(join(tmpdir(), 'panel-join-command-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

// Whatever the path, the listener answers from `answer` (the app, or a stand-in for a broken server).
let answer: (request: Request) => Response | Promise<Response> = () => new Response('not yet', { status: 503 });
const listener = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: (request) => answer(request) });
afterAll(() => listener.stop(true));
const url = `http://127.0.0.1:${listener.port}`;

const sudoLog = join(work, 'sudo.log');
const bin = join(work, 'bin');
Bun.spawnSync(['mkdir', '-p', bin]);
writeFileSync(join(bin, 'sudo'), `#!/bin/sh\nprintf '[%s]' "$@" >> '${sudoLog}'\n`);
chmodSync(join(bin, 'sudo'), 0o755);

async function joinCommand(name?: string): Promise<string> {
  const t = createTestApp({ publicUrl: url });
  answer = (request) => t.app.handle(request);
  const owner = createOwner(t);
  const created = await clientAs(t, owner)('POST', '/join-tokens', { organizationId: owner.organizationId, ...(name ? { name } : {}) });
  expect(created.status).toBe(201);
  return created.json.command as string;
}

/** Asynchronous: the listener answering the command runs in this process. */
async function run(command: string) {
  const cwd = mkdtempSync(join(work, 'cwd-'));
  rmSync(sudoLog, { force: true });
  const ran = Bun.spawn(['bash', '-c', command], { cwd, env: { PATH: `${bin}:${process.env.PATH}` }, stdout: 'pipe', stderr: 'pipe' });
  const [exitCode, stdout, stderr] = await Promise.all([ran.exited, new Response(ran.stdout).text(), new Response(ran.stderr).text()]);
  return { cwd, exitCode, output: `${stdout}${stderr}`, asRoot: existsSync(sudoLog) ? readFileSync(sudoLog, 'utf8') : null };
}

describe('the one-line join command', () => {
  test("downloads install.sh whole, checks it against Panel's SHA-256, then runs it as root with the options chosen", async () => {
    const command = await joinCommand("edge one's");
    const token = /--token (\S+)/.exec(command)![1];
    const ran = await run(command);
    expect(ran.exitCode, ran.output).toBe(0);
    expect(ran.output).toContain('panel-install.sh: OK');
    expect(readFileSync(join(ran.cwd, 'panel-install.sh'), 'utf8')).toBe(installScript);
    expect(ran.asRoot).toBe(`[bash][panel-install.sh][--daemon][${url}][--token][${token}][--name][edge one's]`);
  });

  test('a download that fails (404, nothing listening) exits non-zero with the reason and runs nothing as root', async () => {
    const command = await joinCommand();
    answer = () => new Response('no such page', { status: 404 });
    const missing = await run(command);
    expect(missing.exitCode).not.toBe(0);
    expect(missing.output).toContain('404');
    expect(missing.asRoot).toBeNull();

    const unreachable = await run(command.replaceAll(url, 'http://127.0.0.1:9'));
    expect(unreachable.exitCode).not.toBe(0);
    expect(unreachable.output).toContain('Failed to connect');
    expect(unreachable.asRoot).toBeNull();
  });

  test('a script that is not the one Panel serves (cut short, altered) is refused before it runs', async () => {
    const command = await joinCommand();
    for (const body of [installScript.slice(0, 1000), installScript.replace('set -euo pipefail', 'set -eu')]) {
      answer = () => new Response(body);
      const ran = await run(command);
      expect(ran.exitCode).not.toBe(0);
      expect(ran.output).toContain('FAILED');
      expect(ran.asRoot).toBeNull();
    }
  });
});
