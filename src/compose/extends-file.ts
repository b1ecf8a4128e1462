/**
 * `extends.file` read from disk, as Compose resolves it, for `panel compose config` (a deploy
 * leaves it to Compose on the server, with host access only). Compose's rules (checked against
 * Compose v2 in cli-files.test.ts):
 *
 * - a file named in a top-level document is found from the project folder (the first file's
 *   folder); one named in an extended file, from that file's folder;
 * - the extended service gets that file's own `extends` applied first (same document or files);
 * - the relative paths of each file's services are rebased onto the project folder once, from
 *   that file's folder: build context, env_file, label_file, bind mount sources, develop.watch
 *   paths.
 */
import { dirname, isAbsolute, relative, resolve } from 'node:path';
import { parseComposeText } from './document.ts';
import type { ExtendsFileLoader } from './extends.ts';
import { composeInvalid } from './limits.ts';
import { resolveLayerExtends } from './merge.ts';
import { withoutMergeTags } from './tags.ts';
import { isMapping, type JsonObject, type JsonValue } from './values.ts';

/** Reads a file's text (the caller's I/O: this module stays pure). */
export type ReadFile = (path: string) => string;

/** The parsed document in `file`; one that cannot be read is refused at `path` (the key naming it). */
export function readComposeFile(read: ReadFile, file: string, path: string): JsonObject {
  let text: string;
  try {
    text = read(file);
  } catch (error) {
    throw composeInvalid(`${path}: cannot read ${file}: ${(error as Error).message}`, path);
  }
  return parseComposeText(text).data;
}

/** The loader for the top-level documents of a project whose folder is `projectDir`. */
export function extendsFileLoader(projectDir: string, read: ReadFile): ExtendsFileLoader {
  const loaderFrom = (dir: string, chain: readonly string[]): ExtendsFileLoader => (file, service, path) => {
    const filePath = resolve(dir, file);
    const link = `${filePath}#${service}`;
    if (chain.includes(link)) throw composeInvalid(`${path}: circular reference ${[...chain, link].join(' -> ')}`, path);
    const fileDir = dirname(filePath);
    const services = withoutMergeTags(readComposeFile(read, filePath, `${path}.file`).services ?? null);
    if (!isMapping(services) || !isMapping(services[service] ?? null)) throw composeInvalid(`${path}: service "${service}" is not in ${filePath}`, path);
    // Rebased before that file's own extends apply: what they bring is rebased by their own file.
    const rebased = Object.fromEntries(Object.entries(services).map(([name, definition]) => [name, isMapping(definition) ? rebaseService(definition, fileDir, projectDir) : definition]));
    const resolved = resolveLayerExtends({ services: rebased }, loaderFrom(fileDir, [...chain, link])).services as JsonObject;
    return resolved[service] as JsonObject;
  };
  return loaderFrom(projectDir, []);
}

const isRemote = (context: string) => /^[a-z][a-z0-9+.-]*:\/\//i.test(context) || context.startsWith('git@');

/** A relative path written in `from`, as seen from `to` (`./`-prefixed, so it stays a path). */
export function rebasePath(path: string, from: string, to: string): string {
  if (isAbsolute(path) || path.startsWith('~')) return path;
  const moved = relative(to, resolve(from, path));
  if (moved === '') return '.';
  return moved.startsWith('..') ? moved : `./${moved}`;
}

/** A service of another file with its relative paths rebased from `from` onto `to`. */
export function rebaseService(service: JsonObject, from: string, to: string): JsonObject {
  const path = (value: JsonValue): JsonValue => (typeof value === 'string' ? rebasePath(value, from, to) : value);
  const listOf = (value: JsonValue, each: (item: JsonValue) => JsonValue): JsonValue => (Array.isArray(value) ? value.map(each) : each(value));
  const result: JsonObject = { ...service };
  const { build, env_file: envFile, label_file: labelFile, volumes, develop } = service;
  if (typeof build === 'string') result.build = isRemote(build) ? build : rebasePath(build, from, to);
  else if (isMapping(build ?? null) && typeof (build as JsonObject).context === 'string') {
    const context = (build as JsonObject).context as string;
    result.build = { ...(build as JsonObject), context: isRemote(context) ? context : rebasePath(context, from, to) };
  }
  if (envFile !== undefined) result.env_file = listOf(envFile, (item) => (isMapping(item) ? { ...item, path: path(item.path ?? null) } : path(item)));
  if (labelFile !== undefined) result.label_file = listOf(labelFile, path);
  if (Array.isArray(volumes)) result.volumes = volumes.map((volume) => rebaseVolume(volume, from, to));
  if (isMapping(develop ?? null) && Array.isArray((develop as JsonObject).watch)) {
    const watch = ((develop as JsonObject).watch as JsonValue[]).map((rule) => (isMapping(rule) ? { ...rule, path: path(rule.path ?? null) } : rule));
    result.develop = { ...(develop as JsonObject), watch };
  }
  return result;
}

/** Bind sources only: a short-syntax source is a path when it starts with `.` (else a volume name or absolute). */
function rebaseVolume(volume: JsonValue, from: string, to: string): JsonValue {
  if (typeof volume === 'string') {
    const colon = volume.indexOf(':');
    if (colon === -1 || !volume.startsWith('.')) return volume;
    return `${rebasePath(volume.slice(0, colon), from, to)}${volume.slice(colon)}`;
  }
  if (isMapping(volume) && volume.type === 'bind' && typeof volume.source === 'string') return { ...volume, source: rebasePath(volume.source, from, to) };
  return volume;
}
