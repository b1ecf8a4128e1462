import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { composeConfigCommand } from './cli.ts';

let dir = '';
const file = (name: string, text: string): string => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};

async function run(args: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await composeConfigCommand(args, {
    stdout: (text) => (stdout += text),
    stderr: (text) => (stderr += text),
  });
  return { code, stdout, stderr };
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'panel-compose-cli-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('panel compose config', () => {
  test('prints the merged model as YAML', async () => {
    const base = file('base.yaml', 'services:\n  web:\n    image: nginx\n    ports: ["8080:80"]\n    environment: [A=1]\n');
    const overlay = file('prod.yaml', 'services:\n  web:\n    ports: !override ["80:80"]\n    environment: {B: "2"}\n');
    const result = await run(['config', base, overlay]);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(parse(result.stdout)).toEqual({
      services: { web: { image: 'nginx', ports: ['80:80'], environment: { A: '1', B: '2' } } },
    });
  });

  test('--json prints JSON, and a single file is printed as is', async () => {
    const base = file('single.yaml', 'services: {web: {image: nginx, command: !reset x}}\n');
    const result = await run([base, '--json']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ services: { web: { image: 'nginx' } } });
  });

  test('an overlay may name principals the base declares', async () => {
    const base = file('principal-base.yaml', 'x-panel: {principals: {app: {}}}\nservices: {web: {image: a}}\n');
    const overlay = file('principal-overlay.yaml', 'services: {web: {x-panel: {principal: app}}}\n');
    expect((await run([base, overlay])).code).toBe(0);
  });

  test('prints any document Compose reads: the tenant policy applies only with --policy', async () => {
    const base = file('host.yaml', 'services: {web: {image: a, privileged: true, volumes: ["/srv/data:/data"], network_mode: host}}\n');
    expect(await run([base])).toMatchObject({ code: 0, stderr: '' });
    const refused = await run([base, '--policy']);
    expect(refused).toMatchObject({ code: 1, stdout: '' });
    expect(refused.stderr).toMatch(/\/host\.yaml: services\.web\.privileged: privileged mode .* needs host access/);
    expect((await run([base, '--policy', '--host-access'])).code).toBe(0);
    expect((await run([base, '--host-access'])).code).toBe(2);
  });

  test('an error names the file and the path once', async () => {
    const base = file('placement.yaml', 'x-panel: {placement: {server_id: x}}\nservices: {web: {image: a}}\n');
    expect((await run([base])).code).toBe(0);
    const result = await run([base, '--policy']);
    expect(result.code).toBe(1);
    expect(result.stderr).toStartWith(`${base}: x-panel.placement `);
    expect(result.stderr.split('x-panel.placement').length - 1).toBe(1);
  });

  test('extends is resolved per file before the merge, as Compose does', async () => {
    const base = file('extends-base.yaml', 'services:\n  web: {image: app:1}\n  worker: {extends: web, command: run}\n');
    const overlay = file('extends-prod.yaml', 'services:\n  web: {image: app:2}\n');
    const result = await run([base, overlay, '--json']);
    expect(JSON.parse(result.stdout)).toEqual({ services: { web: { image: 'app:2' }, worker: { image: 'app:1', command: 'run' } } });
  });

  test("an error of a file's extends names the file; one of the merge, the merged model", async () => {
    const cycle = file('cycle.yaml', 'services:\n  a: {image: x, extends: b}\n  b: {image: y, extends: a}\n');
    const result = await run([cycle]);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(`${cycle}: services.b.extends: circular reference a -> b -> a\n`);
    const base = file('mapping.yaml', 'services:\n  web: {image: x, deploy: {replicas: 2}}\n');
    const overlay = file('scalar.yaml', 'services:\n  web: {deploy: two}\n');
    const merged = await run([base, overlay]);
    expect(merged.code).toBe(1);
    expect(merged.stderr).toStartWith('merged: services.web.deploy');
  });

  test('a YAML syntax error names the file, line and column', async () => {
    const base = file('broken.yaml', 'services:\n  web: [nginx\n');
    const result = await run([base]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/\/broken\.yaml: YAML syntax error: .* at line \d+, column \d+/);
  });

  test('usage errors and unreadable files exit 2', async () => {
    expect((await run([])).code).toBe(2);
    expect((await run(['--yaml', 'x.yaml'])).stderr).toContain('unknown option --yaml');
    const missing = await run([join(dir, 'missing.yaml')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('cannot read');
    expect((await run(['--help'])).code).toBe(0);
  });
});
