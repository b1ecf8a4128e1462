/**
 * Test support: compiled runtime documents checked by the real `docker compose config` (Compose
 * v2, see src/compose/compose-binary.ts), each in its own folder with empty 0600 files for its
 * secrets, as the daemon would write them. Tests skip the check, printing why, when no binary
 * can be had.
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findComposeBinary, runComposeConfig } from '../../compose/compose-binary.ts';

export interface CompiledDocument {
  name: string;
  /** The Compose project name (`pn-<environment id>`). */
  project: string;
  yaml: string;
  secretNames: readonly string[];
}

export const composeLookup = await findComposeBinary();
if (!composeLookup.found) console.log(`docker compose config checks skipped: ${composeLookup.reason}`);

/** Throws, naming the document and Compose's complaint, unless Compose accepts every document. */
export async function assertComposeAccepts(documents: readonly CompiledDocument[]): Promise<void> {
  if (!composeLookup.found) return;
  const root = mkdtempSync(join(tmpdir(), 'panel-deploy-'));
  try {
    for (const [index, document] of documents.entries()) {
      const dir = join(root, String(index));
      mkdirSync(join(dir, 'secrets'), { recursive: true });
      writeFileSync(join(dir, 'compose.yaml'), document.yaml);
      for (const name of document.secretNames) {
        writeFileSync(join(dir, 'secrets', name), '');
        chmodSync(join(dir, 'secrets', name), 0o600);
      }
      const output = await runComposeConfig(composeLookup.binary, ['compose.yaml'], { cwd: dir, projectName: document.project, format: 'json' });
      if (output.exitCode !== 0) throw new Error(`${document.name}: docker compose config refused it: ${output.stderr}`);
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
