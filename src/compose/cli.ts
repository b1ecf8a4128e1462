/**
 * `panel compose config <base.yaml> [overlay.yaml ...] [--json] [--policy [--host-access]]`:
 * merges the files in order (each file's own `extends` first, then its `include`; files they
 * name are read from disk from the first file's folder, as Compose does: extends-file.ts,
 * include-file.ts) and prints the merged model, like `docker compose config` without Compose's
 * own normalization or interpolation. It reads any
 * document Compose reads; Panel's tenant policy applies only with --policy, as a save would
 * (each file, then the merged model). Exit codes: 0 printed, 1 invalid document, 2 usage or
 * unreadable file.
 */
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { DomainError } from '../lib/errors.ts';
import { parseComposeText, stringifyComposeModel } from './document.ts';
import { extendsFileLoader, type ReadFile } from './extends-file.ts';
import { resolveIncludes } from './include-file.ts';
import { mergeCompose, resolveLayerExtends } from './merge.ts';
import type { StoredPolicy } from './validate.ts';
import type { JsonObject } from './values.ts';

export interface CommandOutput {
  stdout(text: string): void;
  stderr(text: string): void;
}

export const COMPOSE_CONFIG_USAGE = `usage: panel compose config <base.yaml> [overlay.yaml ...] [--json] [--policy [--host-access]]

Prints the model Panel deploys for a project base and environment overlays, merged with the
Compose merge rules (extends, include, !reset and !override included; files that extends and
include name are read from the first file's folder, as Compose does). --json prints JSON instead of YAML.
--policy checks every file and the merged model against Panel's Compose policy, as a save does
for an organization without host access; --host-access as for one with it.
`;

interface ParsedArgs {
  files: string[];
  json: boolean;
  policy: StoredPolicy | null;
}

function parseArgs(args: string[]): ParsedArgs | string {
  const files: string[] = [];
  let json = false;
  let policy = false;
  let hostAccess = false;
  for (const arg of args) {
    if (arg === '--json') json = true;
    else if (arg === '--policy') policy = true;
    else if (arg === '--host-access') hostAccess = true;
    else if (arg.startsWith('-')) return `unknown option ${arg}`;
    else files.push(arg);
  }
  if (files.length === 0) return 'at least one Compose file is required';
  if (hostAccess && !policy) return '--host-access applies to --policy';
  return { files, json, policy: policy ? { hostAccess } : null };
}

/** `path: message`, without the path twice when the message already starts with it. */
export function describeComposeError(error: DomainError): string {
  if (error.path === undefined || error.message.startsWith(`${error.path}:`) || error.message.startsWith(`${error.path} `)) return error.message;
  return `${error.path}: ${error.message}`;
}

export async function composeConfigCommand(args: string[], out: CommandOutput): Promise<number> {
  if (args[0] === 'config') args = args.slice(1);
  if (args.includes('--help') || args.includes('-h')) {
    out.stdout(COMPOSE_CONFIG_USAGE);
    return 0;
  }
  const parsed = parseArgs(args);
  if (typeof parsed === 'string') {
    out.stderr(`${parsed}\n${COMPOSE_CONFIG_USAGE}`);
    return 2;
  }

  // The policy (its rules, the contract's schemas, valibot) loads only when asked for: without
  // --policy it would be most of what this process evaluates at start (docs/PERFORMANCE.md).
  const policy = parsed.policy === null ? null : { stored: parsed.policy, validate: (await import('./validate.ts')).validateCompose };
  const models: JsonObject[] = [];
  const projectDir = dirname(resolve(parsed.files[0]!));
  const readText: ReadFile = (path) => readFileSync(path, 'utf8');
  const fromFile = extendsFileLoader(projectDir, readText);
  let principals = new Set<string>();
  for (const file of parsed.files) {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      out.stderr(`${file}: cannot read: ${(error as Error).message}\n`);
      return 2;
    }
    try {
      const { data } = parseComposeText(text);
      // Overlays may name principals the base declares, as environment overlays do.
      if (policy) ({ principals } = policy.validate(data, { policy: policy.stored, knownPrincipals: principals }));
      models.push(resolveIncludes(resolveLayerExtends(data, fromFile), projectDir, readText, [resolve(file)]));
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      out.stderr(`${file}: ${describeComposeError(error)}\n`);
      return 1;
    }
  }

  const [base, ...overlays] = models;
  let merged: JsonObject;
  try {
    merged = mergeCompose(base!, ...overlays);
    if (policy) policy.validate(merged, { policy: policy.stored });
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    out.stderr(`merged: ${describeComposeError(error)}\n`);
    return 1;
  }
  out.stdout(parsed.json ? `${JSON.stringify(merged, null, 2)}\n` : stringifyComposeModel(merged));
  return 0;
}
