/**
 * The daemon's own check of a deploy before `up` (docs/SECURITY.md): the Compose policy the
 * control plane applied (src/compose/policy), enforced again on what this server will run, so a
 * command that bypassed the control plane, or a value only Compose resolves, cannot reach the
 * host. Three passes; the first refusal fails the command with its path and nothing starts.
 *
 * 1. The compiled document as received (form `compiled`). Panel writes it without YAML anchors,
 *    aliases, merge keys, tags or a second document, so one that has them is refused: another
 *    YAML reader could see other keys than this one. This pass sees what Compose's resolved model
 *    no longer shows (env_file, label_file, include, extends.file are applied and gone there).
 * 2. Compose's own resolved model of the staged project (`docker compose config`: interpolation,
 *    anchors and merges done by Compose itself), form `resolved`: every host path absolute
 *    inside the project folder; Panel's secret files only as the secrets the daemon wrote.
 * 3. On disk, without host access: no host path below the project folder runs through a symbolic
 *    link, and none lies inside a folder a container can write (a running one of the project, or
 *    one this deploy mounts read-write), where it could be swapped for a link between this check
 *    and Compose's use of it.
 */
import { lstat } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { isAlias, isPair, isScalar, parseAllDocuments, visit } from 'yaml';
import { composeInvalid } from '../../compose/limits.ts';
import { secretFileReference } from '../../compose/naming.ts';
import { checkComposePolicy, type HostPathUse } from '../../compose/policy/index.ts';
import { isWithin, normalizePath } from '../../compose/policy/paths.ts';
import type { JsonValue } from '../../compose/values.ts';

export interface ProjectCheck {
  /** The compiled document as the command carried it. */
  compose: string;
  project: string;
  /** The Compose project folder (absolute): where relative paths resolve and `up` runs. */
  projectDir: string;
  /** The secret files the daemon wrote for this deploy: name → absolute path. */
  secretFiles: ReadonlyMap<string, string>;
  policy: { hostAccess: boolean; platform: boolean };
  /** The deploy's networks that span servers (the command's `fabric`): their bridge and subnet are Panel's. */
  fabricNetworks: readonly { network: string; bridge: string; subnet: string }[];
  /** Compose's resolved model of the staged project (`docker compose config`). */
  resolve(): Promise<JsonValue>;
  /** Sources of the read-write bind mounts of the project's running containers. */
  writableMounts(): Promise<string[]>;
}

/** Throws DomainError('compose_invalid') naming the path of the first value the policy refuses. */
export async function checkProject(check: ProjectCheck): Promise<void> {
  const { project, projectDir, policy } = check;
  const used: HostPathUse[] = [];
  const absolute = (use: HostPathUse) => ({ ...use, value: normalizePath(use.value.startsWith('/') ? use.value : join(projectDir, use.value)) });
  const references = new Map([...check.secretFiles.keys()].map((name) => [name, secretFileReference(project, name)]));
  const fabricNetworks = new Map(check.fabricNetworks.map(({ network, bridge, subnet }) => [network, { bridge, subnet }]));
  checkComposePolicy(readCompiledDocument(check.compose), {
    ...policy,
    form: 'compiled',
    secretFiles: references,
    fabricNetworks,
    onHostPath: (use) => used.push(absolute(use)),
  });
  checkComposePolicy(await check.resolve(), {
    ...policy,
    form: 'resolved',
    project,
    projectDir,
    secretFiles: check.secretFiles,
    fabricNetworks,
    onHostPath: (use) => used.push(absolute(use)),
  });
  if (policy.hostAccess) return;
  const writable = [...used.filter((use) => use.kind === 'bind' && use.writable).map((use) => use.value), ...(await check.writableMounts())];
  for (const use of used) await checkOnDisk(use, projectDir, writable);
}

/** The compiled document as plain JSON; refused when it uses YAML Panel never writes. */
export function readCompiledDocument(text: string): JsonValue {
  const documents = parseAllDocuments(text, { merge: false, prettyErrors: false });
  if (!Array.isArray(documents) || documents.length !== 1) throw composeInvalid('the compiled document must be exactly one YAML document');
  const [document] = documents;
  if (document!.errors.length > 0) throw composeInvalid(`the compiled document is not valid YAML: ${document!.errors[0]!.message}`);
  let refusal: string | undefined;
  visit(document!, {
    Alias: () => void (refusal ??= 'an alias'),
    Node: (_key, node) => {
      if (isAlias(node)) return;
      if (node.anchor !== undefined) refusal ??= `the anchor &${node.anchor}`;
      if (node.tag !== undefined) refusal ??= `the tag ${node.tag}`;
    },
    Pair: (_key, pair) => {
      if (isPair(pair) && isScalar(pair.key) && pair.key.value === '<<') refusal ??= 'a merge key (<<)';
    },
  });
  if (refusal !== undefined) throw composeInvalid(`the compiled document uses ${refusal}, which Panel never writes`);
  return document!.toJS() as JsonValue;
}

async function checkOnDisk(use: HostPathUse, projectDir: string, writable: readonly string[]): Promise<void> {
  if (!isWithin(use.value, projectDir)) return;
  let current = projectDir;
  for (const part of relative(projectDir, use.value).split('/').filter(Boolean)) {
    current = join(current, part);
    const stat = await lstat(current).catch(() => null);
    if (stat === null) break; // Docker creates what is missing, as a folder
    if (stat.isSymbolicLink()) {
      throw composeInvalid(`${use.path}: ${use.value} runs through the symbolic link ${current}, which can lead out of the project folder`, use.path);
    }
  }
  const outer = writable.find((dir) => use.value !== dir && isWithin(use.value, dir));
  if (outer !== undefined) {
    throw composeInvalid(
      `${use.path}: ${use.value} lies inside ${outer}, which a container can write: it could become a link out of the project folder before Compose uses it`,
      use.path,
    );
  }
}
