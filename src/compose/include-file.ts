/**
 * `include` read from disk, as Compose applies it, for `panel compose config` (a deploy never
 * reads it: host access only, and then Compose on the server does). Compose's rules (checked
 * against Compose v2 in cli-files.test.ts):
 *
 * - each entry (`path`, a string or a list merged in order, and `project_directory`) is its own
 *   project: its files are found from the including project's folder, its folder is
 *   `project_directory` or its first file's folder, its files' `extends` and `include` apply
 *   there, and its relative paths are rebased onto the including project's folder;
 * - what it defines (services, networks, volumes, secrets, configs, models) joins the including
 *   document after that document's own `extends` (a service cannot extend an included one); a
 *   name the document defines differently is an error.
 *
 * `env_file` of an entry only feeds interpolation, which this tool does not do.
 */
import { dirname, resolve } from 'node:path';
import { extendsFileLoader, type ReadFile, readComposeFile, rebasePath, rebaseService } from './extends-file.ts';
import { composeInvalid } from './limits.ts';
import { mergeCompose, resolveLayerExtends } from './merge.ts';
import { withoutMergeTags } from './tags.ts';
import { deepEqual, isMapping, type JsonObject, type JsonValue } from './values.ts';

const IMPORTED = ['services', 'networks', 'volumes', 'secrets', 'configs', 'models'] as const;

/** The layer without `include`, what its entries define added; the input is not modified. */
export function resolveIncludes(layer: JsonObject, projectDir: string, read: ReadFile, chain: readonly string[] = []): JsonObject {
  const include = withoutMergeTags(layer.include ?? null);
  if (include === null) return layer;
  if (!Array.isArray(include)) throw composeInvalid('include must be a list', 'include');
  const { include: _include, ...result } = layer;
  include.forEach((entry, index) => {
    const path = `include.${index}`;
    const imported = importEntry(entry, path, projectDir, read, chain);
    for (const kind of IMPORTED) {
      const definitions = imported[kind];
      if (!isMapping(definitions ?? null)) continue;
      const own = { ...((isMapping(result[kind] ?? null) ? result[kind] : {}) as JsonObject) };
      for (const [name, definition] of Object.entries(definitions as JsonObject)) {
        if (Object.hasOwn(own, name) && !deepEqual(withoutMergeTags(own[name]!), definition)) {
          throw composeInvalid(`${path}: ${kind}.${name} conflicts with imported resource`, path);
        }
        own[name] = definition;
      }
      result[kind] = own;
    }
  });
  return result;
}

/** One `include` entry's project, rebased onto `projectDir`. */
function importEntry(entry: JsonValue, path: string, projectDir: string, read: ReadFile, chain: readonly string[]): JsonObject {
  const long = isMapping(entry) ? entry : { path: entry };
  const paths = typeof long.path === 'string' ? [long.path] : long.path;
  if (!Array.isArray(paths) || paths.length === 0 || !paths.every((item) => typeof item === 'string')) {
    throw composeInvalid(`${path}.path must be a path or a list of paths`, `${path}.path`);
  }
  const files = (paths as string[]).map((item) => resolve(projectDir, item));
  const projectDirectory = long.project_directory;
  if (projectDirectory !== undefined && projectDirectory !== null && typeof projectDirectory !== 'string') {
    throw composeInvalid(`${path}.project_directory must be a path`, `${path}.project_directory`);
  }
  const includedDir = typeof projectDirectory === 'string' ? resolve(projectDir, projectDirectory) : dirname(files[0]!);
  const layers = files.map((file) => {
    if (chain.includes(file)) throw composeInvalid(`${path}: circular include ${[...chain, file].join(' -> ')}`, path);
    const data = readComposeFile(read, file, `${path}.path`);
    // The file's own extends first, then its own include, in the entry's project folder.
    return resolveIncludes(resolveLayerExtends(data, extendsFileLoader(includedDir, read)), includedDir, read, [...chain, file]);
  });
  const model = mergeCompose(layers[0]!, ...layers.slice(1));
  return rebaseModel(model, includedDir, projectDir);
}

/** Services and the file sources of secrets and configs, from `from` onto `to`. */
function rebaseModel(model: JsonObject, from: string, to: string): JsonObject {
  const result: JsonObject = { ...model };
  const each = (value: JsonValue | undefined, change: (definition: JsonObject) => JsonObject): JsonValue | undefined =>
    isMapping(value ?? null)
      ? Object.fromEntries(Object.entries(value as JsonObject).map(([name, definition]) => [name, isMapping(definition) ? change(definition) : definition]))
      : value;
  const withFile = (definition: JsonObject) => (typeof definition.file === 'string' ? { ...definition, file: rebasePath(definition.file, from, to) } : definition);
  for (const [kind, change] of [
    ['services', (definition: JsonObject) => rebaseService(definition, from, to)],
    ['secrets', withFile],
    ['configs', withFile],
  ] as const) {
    const rebased = each(model[kind], change);
    if (rebased !== undefined) result[kind] = rebased;
  }
  return result;
}
