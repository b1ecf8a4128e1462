/**
 * Test support: compiled runtime documents staged as the daemon stages them
 * (projects/<project>/ and projects/<project>.panel/ with empty 0600 secret files) and run
 * through the daemon's own check (src/daemon/agent/project-check.ts) with the real
 * `docker compose config` (Compose v2, found or fetched by test/compose-v2.ts): Compose accepts them
 * and the Compose policy passes them again. Tests skip the check, printing why, when no binary
 * can be had.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { composeV2ForTests } from './compose-v2.ts';
import { runCommand } from '../src/compose/compose-binary.ts';
import { panelFolderOf } from '../src/compose/naming.ts';
import type { JsonValue } from '../src/compose/values.ts';
import { checkProject } from '../src/daemon/agent/project-check.ts';
import { DomainError } from '../src/lib/errors.ts';

export interface CompiledDocument {
  name: string;
  /** The Compose project name (`pn-<environment id>`). */
  project: string;
  yaml: string;
  secretNames: readonly string[];
  /** The policy the deploy command carries; the tenant policy without host access when absent. */
  policy?: { hostAccess: boolean; platform: boolean };
  /** The networks spanning servers the deploy command names (its `fabric`). */
  fabric?: readonly { network: string; bridge: string; subnet: string }[];
}

export const composeLookup = await composeV2ForTests();
if (!composeLookup.found) console.log(`docker compose config checks skipped: ${composeLookup.reason}`);

/**
 * Stages `document` under `root` and runs the daemon's check on it; throws the check's
 * DomainError (compose_invalid, with the path) when the policy refuses it, an Error when Compose
 * does. Needs composeLookup.found.
 */
export async function daemonCheck(root: string, document: CompiledDocument): Promise<void> {
  if (!composeLookup.found) throw new Error(`no Compose v2: ${composeLookup.reason}`);
  const binary = composeLookup.binary;
  const projectDir = join(root, 'projects', document.project);
  const panel = join(root, 'projects', panelFolderOf(document.project));
  mkdirSync(join(panel, 'secrets'), { recursive: true, mode: 0o700 });
  mkdirSync(projectDir, { recursive: true });
  writeFileSync(join(panel, 'compose.yaml'), document.yaml);
  writeFileSync(join(panel, 'compose.env'), '');
  for (const name of document.secretNames) writeFileSync(join(panel, 'secrets', name), '', { mode: 0o600 });
  await checkProject({
    compose: document.yaml,
    project: document.project,
    projectDir,
    secretFiles: new Map(document.secretNames.map((name) => [name, join(panel, 'secrets', name)])),
    policy: document.policy ?? { hostAccess: false, platform: false },
    fabricNetworks: document.fabric ?? [],
    resolve: async () => {
      const files = ['-f', join(panel, 'compose.yaml'), '--project-directory', projectDir, '--env-file', join(panel, 'compose.env')];
      const output = await runCommand([...binary.command, '-p', document.project, ...files, 'config', '--format', 'json'], { cwd: panel });
      if (output.exitCode !== 0) throw new Error(`${document.name}: docker compose config refused it: ${output.stderr}`);
      return JSON.parse(output.stdout) as JsonValue;
    },
    writableMounts: async () => [],
  });
}

/** Throws, naming the document and the complaint, unless Compose and the daemon's check accept every document. */
export async function assertComposeAccepts(documents: readonly CompiledDocument[]): Promise<void> {
  if (!composeLookup.found) return;
  const root = mkdtempSync(join(tmpdir(), 'panel-deploy-'));
  try {
    for (const [index, document] of documents.entries()) {
      try {
        await daemonCheck(join(root, String(index)), document);
      } catch (error) {
        if (error instanceof DomainError) throw new Error(`${document.name}: the daemon's check refused it: ${error.message}`);
        throw error;
      }
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
