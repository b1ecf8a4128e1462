/**
 * The policy corpus (src/compose/policy/corpus) against the daemon's own check, as a command that
 * bypassed the control plane would bring it: each document (its layers merged) staged like a
 * deploy and checked with the real `docker compose config`. Refused ones fail at their path
 * (in the merged model) before Compose brings anything up; allowed ones pass Compose and the
 * check; x-* keys, which Compose ignores, are inert here. Beyond the corpus: what only the
 * daemon sees (Compose's resolution of interpolation, YAML it would read differently, the disk).
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseComposeText, stringifyComposeModel } from '../../compose/document.ts';
import { mergeCompose } from '../../compose/merge.ts';
import { POLICY_CORPUS, type PolicyCase } from '../../compose/policy/corpus/index.ts';
import type { JsonObject } from '../../compose/values.ts';
import { composeLookup, daemonCheck } from '../../../test/compose-checks.ts';

const root = mkdtempSync(join(tmpdir(), 'panel-daemon-check-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let caseNumber = 0;
const freshRoot = () => join(root, String(++caseNumber));

const data = (layer: string | JsonObject): JsonObject => (typeof layer === 'string' ? parseComposeText(layer).data : layer);
const mergedText = (policyCase: PolicyCase) =>
  stringifyComposeModel(mergeCompose(data(policyCase.base), policyCase.overlay === undefined ? undefined : data(policyCase.overlay)));

async function refusalOf(work: Promise<void>): Promise<unknown> {
  try {
    await work;
    return null;
  } catch (error) {
    return error;
  }
}

const check = (yaml: string, options: { root?: string; hostAccess?: boolean } = {}) =>
  daemonCheck(options.root ?? freshRoot(), { name: 'case', project: 'pn-1', yaml, secretNames: [], policy: { hostAccess: options.hostAccess ?? false, platform: false } });

describe.skipIf(!composeLookup.found)("the policy corpus against the daemon's check", () => {
  for (const [family, cases] of Object.entries(POLICY_CORPUS)) {
    describe(family, () => {
      for (const policyCase of cases) {
        test(policyCase.name, async () => {
          const refusal = await refusalOf(check(mergedText(policyCase)));
          const path = policyCase.daemon ?? policyCase.refused;
          if (path === undefined || path === 'inert') expect(refusal).toBeNull();
          else expect(refusal).toMatchObject({ code: 'compose_invalid', path });
        });
      }
    });
  }
});

describe.skipIf(!composeLookup.found)('what only the daemon sees', () => {
  test("interpolation is resolved by Compose, then checked: host access lets it through, the tenant policy does not", async () => {
    const yaml = 'services:\n  web:\n    image: busybox\n    volumes: ["${HOME:-/root}:/h"]\n';
    expect(await refusalOf(check(yaml))).toMatchObject({ path: 'services.web.volumes.0' });
    expect(await refusalOf(check(yaml, { hostAccess: true }))).toBeNull();
  });

  test('YAML Panel never writes (anchors, merge keys, tags, a second document) is refused before Compose reads it', async () => {
    for (const yaml of [
      'x-a: &a {image: busybox}\nservices:\n  web: *a\n',
      'services:\n  web:\n    <<: {image: busybox, labels: {com.docker.compose.project: other}}\n',
      'services:\n  web:\n    image: busybox\n    network_mode: !override none\n',
      'services:\n  web:\n    image: busybox\n---\nservices:\n  web:\n    privileged: true\n',
    ]) {
      expect(await refusalOf(check(yaml))).toMatchObject({ code: 'compose_invalid', message: expect.stringMatching(/^the compiled document (uses|must be)/) });
    }
  });

  test('a bind source reached through a symbolic link in the project folder is refused', async () => {
    const caseRoot = freshRoot();
    mkdirSync(join(caseRoot, 'projects', 'pn-1'), { recursive: true });
    symlinkSync('/etc', join(caseRoot, 'projects', 'pn-1', 'conf'));
    const refusal = await refusalOf(check('services:\n  web:\n    image: busybox\n    volumes: ["./conf:/conf:ro"]\n', { root: caseRoot }));
    expect(refusal).toMatchObject({ path: 'services.web.volumes.0', message: expect.stringContaining('symbolic link') });
  });

  test('a path inside a folder this deploy mounts read-write is refused (it could be swapped for a link)', async () => {
    const yaml = 'services:\n  web:\n    image: busybox\n    volumes: ["./data:/data"]\n  reader:\n    image: busybox\n    env_file: [{path: ./data/app.env, required: false}]\n';
    expect(await refusalOf(check(yaml))).toMatchObject({ path: 'services.reader.env_file.0.path', message: expect.stringContaining('which a container can write') });
    expect(await refusalOf(check(yaml.replace('./data:/data', './data:/data:ro')))).toBeNull();
  });
});
