import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findComposeBinary, runComposeConfig } from './compose-binary.ts';

let dir = '';

/** A stand-in for the Compose binary: answers `version`, echoes any other arguments. */
function fakeCompose(name: string, versionLine: string): string {
  const path = join(dir, name);
  writeFileSync(path, `#!/bin/sh\nif [ "$1" = version ]; then echo "${versionLine}"; exit 0; fi\nfor a in "$@"; do echo "$a"; done\n`);
  chmodSync(path, 0o755);
  return path;
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'panel-compose-binary-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('findComposeBinary', () => {
  test('PANEL_COMPOSE_BIN comes first', async () => {
    const path = fakeCompose('compose-v2', 'Docker Compose version v2.99.0');
    expect(await findComposeBinary({ PANEL_COMPOSE_BIN: path })).toEqual({
      found: true,
      binary: { command: [path], version: '2.99.0' },
    });
  });

  test('a Compose v1 is passed over, with the reason kept', async () => {
    const path = fakeCompose('compose-v1', 'docker-compose version 1.29.2, build 5becea4c');
    const lookup = await findComposeBinary({ PANEL_COMPOSE_BIN: path });
    if (lookup.found) expect(lookup.binary.command).not.toEqual([path]);
    else expect(lookup.reason).toContain('1.29.2, not 2 or later');
  });
});

describe('runComposeConfig', () => {
  test('passes the project, the files and the flags as separate arguments', async () => {
    const path = fakeCompose('echo-compose', 'Docker Compose version v2.99.0');
    const result = await runComposeConfig({ command: [path], version: '2.99.0' }, ['base.yaml', 'with space.yaml'], {
      cwd: dir,
      projectName: 'demo',
      format: 'json',
      flags: ['--no-interpolate'],
    });
    expect(result.exitCode).toBe(0);
    expect(result.stdout.trim().split('\n')).toEqual([
      '-p', 'demo', '-f', 'base.yaml', '-f', 'with space.yaml', 'config', '--format', 'json', '--no-interpolate',
    ]);
  });
});
