/**
 * `extends.file` and `include` in `panel compose config` (extends-file.ts, include-file.ts)
 * against the real Compose v2: in one folder, Compose's model of the original files equals its
 * model of the file our command printed (paths resolved by Compose in both, so a path rebased
 * wrongly shows). The errors are ours alone. The comparisons are skipped, with the reason
 * printed, when no Compose binary exists.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { composeV2ForTests } from '../../test/compose-v2.ts';
import { composeConfigCommand } from './cli.ts';
import { runComposeConfig } from './compose-binary.ts';

const lookup = await composeV2ForTests();
if (!lookup.found) console.warn(`cli-files.test.ts: the comparisons with Compose are skipped: ${lookup.reason}`);

let root = '';
let caseNumber = 0;

/** A fresh folder holding `files` (paths relative to it). */
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
  const result = await runComposeConfig(lookup.binary, files, { cwd: dir, projectName: 'cli-files', format: 'json', flags: ['--no-consistency'] });
  if (result.exitCode !== 0) throw new Error(`compose config failed: ${result.stderr}`);
  return JSON.parse(result.stdout);
}

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'panel-cli-files-'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const COMMON = `services:
  base:
    image: app:1
    build: {context: ./ctx, dockerfile: Dockerfile.app}
    env_file: [./app.env]
    label_file: ./app.labels
    environment: {A: "1"}
    volumes: ["./data:/data", "cache:/cache", "/srv/shared:/shared", {type: bind, source: ./long, target: /long}, "../up:/up"]
    develop: {watch: [{action: sync, path: ./src, target: /app}]}
  chained:
    extends: {file: ../more/other.yaml, service: other}
    environment: {C: "3"}
  local:
    extends: base
    command: ["local"]
`;

describe('panel compose config: extends.file as Compose resolves it', () => {
  test.skipIf(!lookup.found)('a file in a subfolder, a file it names in turn, a same-document extends there, an overlay extending too: the model Compose makes', async () => {
    const dir = folder({
      'compose.yaml': `services:
  web:
    extends: {file: ./shared/common.yaml, service: base}
    command: ["serve"]
    environment: {B: "2"}
  worker:
    extends: {file: shared/common.yaml, service: chained}
  job:
    extends: {file: shared/common.yaml, service: local}
volumes: {cache: {}}
`,
      'overlay.yaml': 'services:\n  web:\n    extends: {file: shared/common.yaml, service: local}\n',
      'shared/common.yaml': COMMON,
      'shared/app.env': 'E=1\n',
      'shared/app.labels': 'L=1\n',
      'more/other.yaml': 'services:\n  other:\n    image: other:1\n    volumes: ["./odata:/o"]\n',
    });
    const printed = await panelConfig([join(dir, 'compose.yaml'), join(dir, 'overlay.yaml')]);
    expect(printed).toMatchObject({ code: 0, stderr: '' });
    expect(printed.stdout).not.toContain('extends');
    writeFileSync(join(dir, 'ours.yaml'), printed.stdout);
    expect(await composeModel(dir, ['ours.yaml'])).toEqual(await composeModel(dir, ['compose.yaml', 'overlay.yaml']));
  });

  test('a missing file, a missing service and a cycle through files are errors naming the file and the path', async () => {
    const dir = folder({
      'missing-file.yaml': 'services: {web: {extends: {file: ./nope.yaml, service: a}}}\n',
      'missing-service.yaml': 'services: {web: {extends: {file: ./other.yaml, service: b}}}\n',
      'other.yaml': 'services: {a: {image: x}}\n',
      'cycle.yaml': 'services: {web: {extends: {file: ./ping.yaml, service: p}}}\n',
      'ping.yaml': 'services: {p: {extends: {file: ./pong.yaml, service: q}}}\n',
      'pong.yaml': 'services: {q: {extends: {file: ./ping.yaml, service: p}}}\n',
    });
    const missingFile = await panelConfig([join(dir, 'missing-file.yaml')]);
    expect(missingFile.code).toBe(1);
    expect(missingFile.stderr).toStartWith(`${join(dir, 'missing-file.yaml')}: services.web.extends.file: cannot read ${join(dir, 'nope.yaml')}`);
    const missingService = await panelConfig([join(dir, 'missing-service.yaml')]);
    expect(missingService.stderr).toBe(`${join(dir, 'missing-service.yaml')}: services.web.extends: service "b" is not in ${join(dir, 'other.yaml')}\n`);
    const cycle = await panelConfig([join(dir, 'cycle.yaml')]);
    expect(cycle.code).toBe(1);
    expect(cycle.stderr).toContain('circular reference');
  });

  test('--policy refuses extends.file without host access; with it, the merged model is checked', async () => {
    const dir = folder({
      'compose.yaml': 'services: {web: {extends: {file: ./common.yaml, service: base}}}\n',
      'common.yaml': 'services: {base: {image: x, privileged: true}}\n',
    });
    const refused = await panelConfig([join(dir, 'compose.yaml'), '--policy']);
    expect(refused.stderr).toMatch(/compose\.yaml: services\.web\.extends\.file: .*needs host access/);
    expect((await panelConfig([join(dir, 'compose.yaml'), '--policy', '--host-access'])).code).toBe(0);
    expect((await panelConfig([join(dir, 'compose.yaml')])).stdout).toContain('privileged: true');
  });
});

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
