/**
 * `panel compose config <base.yaml> [overlay.yaml ...] [--json]`: validates each file as a save
 * would, merges them in order and prints the merged model, like `docker compose config`
 * without Compose's own normalization. Exit codes: 0 printed, 1 invalid document, 2 usage or
 * unreadable file.
 */
import { readFile } from 'node:fs/promises';
import { DomainError } from '../lib/errors.ts';
import { parseComposeText, stringifyComposeModel } from './document.ts';
import { mergeCompose } from './merge.ts';
import { validateCompose } from './validate.ts';
import type { JsonObject } from './values.ts';

export interface CommandOutput {
  stdout(text: string): void;
  stderr(text: string): void;
}

export const COMPOSE_CONFIG_USAGE = `usage: panel compose config <base.yaml> [overlay.yaml ...] [--json]
                                                 [--allow-host-access]

Prints the model Panel deploys for a project base and environment overlays, merged with the
Compose merge rules (including !reset and !override). --json prints JSON instead of YAML.
--allow-host-access accepts settings reserved to platform projects (privileged, host paths...).
`;

interface ParsedArgs {
  files: string[];
  json: boolean;
  allowHostAccess: boolean;
}

function parseArgs(args: string[]): ParsedArgs | string {
  const parsed: ParsedArgs = { files: [], json: false, allowHostAccess: false };
  for (const arg of args) {
    if (arg === '--json') parsed.json = true;
    else if (arg === '--allow-host-access') parsed.allowHostAccess = true;
    else if (arg.startsWith('-')) return `unknown option ${arg}`;
    else parsed.files.push(arg);
  }
  return parsed.files.length === 0 ? 'at least one Compose file is required' : parsed;
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

  const models: JsonObject[] = [];
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
      const options = { allowHostAccess: parsed.allowHostAccess, knownPrincipals: principals };
      ({ principals } = validateCompose(data, options));
      models.push(data);
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      out.stderr(`${file}: ${error.path ?? '(document)'}: ${error.message}\n`);
      return 1;
    }
  }

  const [base, ...overlays] = models;
  let merged: JsonObject;
  try {
    merged = mergeCompose(base!, ...overlays);
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    out.stderr(`${error.path ?? '(document)'}: ${error.message}\n`);
    return 1;
  }
  out.stdout(parsed.json ? `${JSON.stringify(merged, null, 2)}\n` : stringifyComposeModel(merged));
  return 0;
}
