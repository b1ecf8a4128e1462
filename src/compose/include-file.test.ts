/**
 * `include` in `panel compose config` against the real Compose v2: in one folder, Compose's
 * model of the original files equals its model of the file our command printed (paths resolved
 * by Compose in both, so a path rebased wrongly shows). The errors are ours alone. The
 * comparison is skipped, with the reason printed, when no Compose binary exists.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { composeV2ForTests } from '../../test/compose-v2.ts';
import { composeConfigCommand } from './cli.ts';
import { runComposeConfig } from './compose-binary.ts';

const lookup = await composeV2ForTests();
if (!lookup.found) console.warn(`include-file.test.ts: the comparison with Compose is skipped: ${lookup.reason}`);

let root = '';
let caseNumber = 0;

function folder(files: Record<string, string>): string {
  const dir = join(root, String(++caseNumber));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return dir;
}

async function panelConfig(args: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await composeConfigCommand(args, { stdout: (text) => (stdout += text), stderr: (text) => (stderr += text) });
  return { code, stdout, stderr };
}

async function composeModel(dir: string, files: string[]): Promise<unknown> {
  if (!lookup.found) throw new Error('no Compose');
  const result = await runComposeConfig(lookup.binary, files, { cwd: dir, projectName: 'include-file', format: 'json', flags: ['--no-consistency'] });
  if (result.exitCode !== 0) throw new Error(`compose config failed: ${result.stderr}`);
  return JSON.parse(result.stdout);
}

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'panel-include-file-'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('panel compose config: include as Compose applies it', () => {
  test.skipIf(!lookup.found)('short and long entries, a list of files, project_directory, includes and extends inside: the model Compose makes', async () => {
    const dir = folder({
      'compose.yaml': `include:
  - ./db/compose.yaml
  - path: [./cache/base.yaml, ./cache/prod.yaml]
  - path: ./tools/tool.yaml
    project_directory: ./tools/work
services:
  web: {image: web, depends_on: [db, cache], volumes: ["./site:/site"]}
volumes: {dbdata: {}}
`,
      'db/compose.yaml': `include: [../shared/metrics.yaml]
services:
  db: {image: db, build: ./ctx, volumes: ["dbdata:/var/lib/db", "./init:/init"], secrets: [dbpass]}
  backup: {extends: db, command: backup}
volumes: {dbdata: {}}
secrets: {dbpass: {file: ./dbpass.txt}}
`,
      'shared/metrics.yaml': 'services:\n  metrics: {image: metrics, configs: [scrape]}\nconfigs: {scrape: {file: ./scrape.yaml}}\n',
      'cache/base.yaml': 'services:\n  cache: {image: cache:1, env_file: ./cache.env}\n',
      'cache/prod.yaml': 'services:\n  cache: {image: cache:2, volumes: ["./cdata:/data"]}\n',
      'cache/cache.env': 'C=1\n',
      'tools/tool.yaml': 'services:\n  tool: {extends: {file: ./common.yaml, service: base}, volumes: ["./out:/out"], networks: [tools]}\nnetworks: {tools: {}}\n',
      // project_directory: where the entry's relative paths and the files it names are found.
      'tools/work/common.yaml': 'services:\n  base: {image: tool, env_file: ./tool.env}\n',
      'tools/work/tool.env': 'T=1\n',
      'db/dbpass.txt': 'x\n',
      'shared/scrape.yaml': 'x: 1\n',
    });
    const printed = await panelConfig([join(dir, 'compose.yaml')]);
    expect(printed).toMatchObject({ code: 0, stderr: '' });
    expect(printed.stdout).not.toContain('include');
    writeFileSync(join(dir, 'ours.yaml'), printed.stdout);
    expect(await composeModel(dir, ['ours.yaml'])).toEqual(await composeModel(dir, ['compose.yaml']));
  });

  test('a name defined differently, a cycle and a missing file are errors naming the file and the entry', async () => {
    const dir = folder({
      'conflict.yaml': 'include: [./other.yaml]\nservices: {db: {image: mine}}\n',
      'same.yaml': 'include: [./other.yaml]\nservices: {db: {image: db}}\n',
      'other.yaml': 'services: {db: {image: db}}\n',
      'ping.yaml': 'include: [./pong.yaml]\nservices: {a: {image: a}}\n',
      'pong.yaml': 'include: [./ping.yaml]\nservices: {b: {image: b}}\n',
      'missing.yaml': 'include: [{path: ./nope.yaml}]\nservices: {a: {image: a}}\n',
    });
    const conflict = await panelConfig([join(dir, 'conflict.yaml')]);
    expect(conflict).toMatchObject({ code: 1, stderr: `${join(dir, 'conflict.yaml')}: include.0: services.db conflicts with imported resource\n` });
    expect((await panelConfig([join(dir, 'same.yaml')])).code).toBe(0);
    const cycle = await panelConfig([join(dir, 'ping.yaml')]);
    expect(cycle.code).toBe(1);
    expect(cycle.stderr).toContain(`circular include ${join(dir, 'ping.yaml')} -> ${join(dir, 'pong.yaml')} -> ${join(dir, 'ping.yaml')}`);
    const missing = await panelConfig([join(dir, 'missing.yaml')]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toStartWith(`${join(dir, 'missing.yaml')}: include.0.path: cannot read ${join(dir, 'nope.yaml')}`);
  });

  test('--policy refuses include without host access; with it, what was included is checked in the merged model', async () => {
    const dir = folder({ 'compose.yaml': 'include: [./other.yaml]\nservices: {web: {image: x}}\n', 'other.yaml': 'services: {db: {image: db, privileged: true}}\n' });
    expect((await panelConfig([join(dir, 'compose.yaml'), '--policy'])).stderr).toMatch(/compose\.yaml: include: .*needs host access/);
    expect((await panelConfig([join(dir, 'compose.yaml'), '--policy', '--host-access'])).code).toBe(0);
    expect((await panelConfig([join(dir, 'compose.yaml')])).stdout).toContain('privileged: true');
  });
});
