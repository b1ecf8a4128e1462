/**
 * Conversion between `yaml` Document nodes and the plain JSON kept in ComposeDocument.data.
 *
 * We walk the nodes ourselves instead of calling `toJS()` so that, in one pass, the merge tags
 * become JSON markers (tags.ts), anchors are expanded under the same budget as the `yaml`
 * package's maxAliasCount, YAML merge keys (`<<`) are applied like Compose does, and anything
 * JSON cannot hold (complex keys, .inf, binary, unknown tags) is refused with a path.
 */
import {
  type Alias,
  type Document,
  isAlias,
  isMap,
  isPair,
  isScalar,
  isSeq,
  type LineCounter,
  type Node,
  Pair,
  parse,
  Scalar,
  type ScalarTag,
  type SchemaOptions,
  type Tags,
  visit,
  YAMLMap,
  YAMLSeq,
} from 'yaml';
import { type ComposeLimits, composeInvalid, depthExceeded } from './limits.ts';
import { type MergeTag, mergeTagOf, taggedValue, tagMarker, YAML_TAG_OF } from './tags.ts';
import { isMapping, type JsonObject, type JsonValue, joinPath } from './values.ts';

/**
 * Compose reads YAML with Go's yaml.v3, which takes `0644` as octal (420) where YAML 1.2 reads
 * decimal 644. File modes are written that way, so we read (and write back) them as Go does.
 */
const legacyOctal: ScalarTag = {
  identify: (value) => typeof value === 'number' && Number.isInteger(value) && value >= 0,
  default: true,
  tag: 'tag:yaml.org,2002:int',
  format: 'LEGACY_OCT',
  test: /^0[0-7]+$/,
  resolve: (source) => Number.parseInt(source, 8),
  stringify: (node) => `0${Number((node as Scalar).value).toString(8)}`,
};

/**
 * `__proto__` is refused as a key wherever it appears: assigned to a plain object it replaces the
 * object's prototype instead of adding a key, hiding what is under it from every check that walks
 * the model's own keys, the tenant policy among them (document.security.test.ts).
 */
export const PROTOTYPE_KEY = '__proto__';
export const prototypeKeyRefused = (path: string) => composeInvalid(`${PROTOTYPE_KEY} is not allowed as a key`, path);

/**
 * YAML 1.2 core schema plus legacy octal, whatever a `%YAML` directive says (Compose ignores it
 * too). Duplicate keys are refused by NodeReader: the `yaml` package's own check is quadratic
 * (a 500 KB flat mapping took 15 s).
 */
export const YAML_OPTIONS: SchemaOptions & { uniqueKeys: boolean } = {
  schema: 'core',
  customTags: (tags: Tags) => [legacyOctal, ...tags],
  uniqueKeys: false,
};

const CORE_TAGS = new Set(['str', 'int', 'float', 'bool', 'null', 'map', 'seq'].map((t) => `tag:yaml.org,2002:${t}`));
const MERGE_TAG_BY_YAML: Record<string, MergeTag> = { '!reset': 'reset', '!override': 'override' };

export function mergeTagOfNode(node: unknown): MergeTag | null {
  const tag = (node as { tag?: string } | null)?.tag;
  return tag === undefined ? null : (MERGE_TAG_BY_YAML[tag] ?? null);
}

/**
 * `yaml` leaves a scalar under an unknown tag as its raw text (`!override 8081` is "8081");
 * Compose resolves it like an untagged scalar, so we do too.
 */
export function resolvedTaggedScalar(node: Scalar): unknown {
  if (node.type !== 'PLAIN' || typeof node.value !== 'string') return node.value;
  let resolved: unknown;
  try {
    resolved = parse(node.value, YAML_OPTIONS);
  } catch {
    return node.value;
  }
  return resolved === null || ['string', 'number', 'boolean'].includes(typeof resolved) ? resolved : node.value;
}

interface AnchorUse {
  count: number;
  aliasCount: number;
}

class NodeReader {
  private readonly anchors = new Map<Node, AnchorUse>();
  private readonly expanding = new Set<Node>();
  private aliasTargets: Map<Alias, Node | undefined> | undefined;
  constructor(
    private readonly doc: Document,
    private readonly limits: ComposeLimits,
    private readonly lineCounter?: LineCounter,
  ) {}

  read(node: unknown, depth: number, path: string): JsonValue {
    if (node === null || node === undefined) return null;
    if (isAlias(node)) return this.readAlias(node, depth, path);
    const tag = (node as { tag?: string }).tag;
    const mergeTag = mergeTagOfNode(node);
    if (tag !== undefined && mergeTag === null && !CORE_TAGS.has(tag)) {
      throw composeInvalid(`unsupported YAML tag ${tag}`, path || undefined);
    }
    let value: JsonValue;
    if (isScalar(node)) value = this.readScalar(node, mergeTag !== null, path);
    else if (isMap(node)) value = this.readMap(node, depth + 1, path);
    else if (isSeq(node)) value = this.readSeq(node, depth + 1, path);
    else throw composeInvalid('unsupported YAML node', path || undefined);
    return mergeTag === null ? value : tagMarker(mergeTag, value);
  }

  private readScalar(node: Scalar, tagged: boolean, path: string): JsonValue {
    const value = tagged ? resolvedTaggedScalar(node) : node.value;
    if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
    if (typeof value === 'number' && Number.isFinite(value)) return value;
    throw composeInvalid('value cannot be represented in JSON', path || undefined);
  }

  private readSeq(node: YAMLSeq, depth: number, path: string): JsonValue[] {
    if (depth > this.limits.maxDepth) throw depthExceeded(this.limits, path);
    return node.items.map((item, i) => this.read(item, depth, joinPath(path, i)));
  }

  private readMap(node: YAMLMap, depth: number, path: string): JsonObject {
    if (depth > this.limits.maxDepth) throw depthExceeded(this.limits, path);
    const ownKeys = new Set<string>();
    for (const pair of node.items) {
      if (isMergeKey(pair.key)) continue;
      const key = this.readKey(pair, path);
      if (ownKeys.has(key)) throw this.duplicateKey(pair, key);
      ownKeys.add(key);
    }
    const result: JsonObject = {};
    for (const pair of node.items) {
      if (isMergeKey(pair.key)) {
        // Merge keys: own keys win, then earlier merged mappings win over later ones.
        for (const source of this.readMergeSources(pair.value, depth, path)) {
          for (const [key, value] of Object.entries(source)) {
            if (!ownKeys.has(key) && !Object.hasOwn(result, key)) result[key] = value;
          }
        }
        continue;
      }
      const key = this.readKey(pair, path);
      result[key] = this.read(pair.value, depth, joinPath(path, key));
    }
    return result;
  }

  private duplicateKey(pair: Pair, key: string) {
    const offset = (pair.key as { range?: [number, number, number] } | null)?.range?.[0];
    const position = offset === undefined ? undefined : this.lineCounter?.linePos(offset);
    const where = position === undefined ? '' : ` at line ${position.line}, column ${position.col}`;
    return composeInvalid(`YAML syntax error: Map keys must be unique; "${key}" is repeated${where}`);
  }

  private readKey(pair: Pair, path: string): string {
    const key = isAlias(pair.key) ? this.targetOf(pair.key) : pair.key;
    if (!isScalar(key)) throw composeInvalid('mapping keys must be scalars', path || undefined);
    const name = String(key.value);
    if (name === PROTOTYPE_KEY) throw prototypeKeyRefused(joinPath(path, name));
    return name;
  }

  private readMergeSources(value: unknown, depth: number, path: string): JsonObject[] {
    const sources = isSeq(value) ? value.items : [value];
    return sources.map((source) => {
      const merged = this.read(source, depth - 1, path);
      if (!isMapping(merged)) throw composeInvalid('a merge key (<<) must refer to mappings', path || undefined);
      return merged;
    });
  }

  /**
   * The node an alias refers to: the closest anchor of that name before it in the document.
   * Indexed in one pass on first use; `Alias.resolve` walks the whole document on every call.
   */
  private targetOf(alias: Alias): Node | undefined {
    if (this.aliasTargets === undefined) {
      const targets = new Map<Alias, Node | undefined>();
      const anchored = new Map<string, Node>();
      visit(this.doc, {
        Node(_key, node) {
          if (isAlias(node)) targets.set(node, anchored.get(node.source));
          else if (node.anchor) anchored.set(node.anchor, node);
        },
      });
      this.aliasTargets = targets;
    }
    return this.aliasTargets.get(alias);
  }

  /** Same accounting as the `yaml` package: dereferences per anchor, weighted by nested aliases. */
  private readAlias(alias: Alias, depth: number, path: string): JsonValue {
    const source = this.targetOf(alias);
    if (source === undefined) throw composeInvalid(`alias *${alias.source} refers to no anchor`, path || undefined);
    if (this.expanding.has(source)) {
      throw composeInvalid(`alias *${alias.source} refers to a node that contains it`, path || undefined);
    }
    let use = this.anchors.get(source);
    if (use === undefined) {
      use = { count: 0, aliasCount: 0 };
      this.anchors.set(source, use);
    }
    use.count += 1;
    if (use.aliasCount === 0) use.aliasCount = this.aliasWeight(source);
    if (use.count * use.aliasCount > this.limits.maxAliasCount) {
      throw composeInvalid(
        `too many alias expansions (limit ${this.limits.maxAliasCount}); the document expands exponentially`,
        path || undefined,
      );
    }
    this.expanding.add(source);
    try {
      return this.read(source, depth, path);
    } finally {
      this.expanding.delete(source);
    }
  }

  private aliasWeight(node: unknown): number {
    if (isAlias(node)) {
      const source = this.targetOf(node);
      const use = source === undefined ? undefined : this.anchors.get(source);
      return use === undefined ? 0 : use.count * use.aliasCount;
    }
    if (isPair(node)) return Math.max(this.aliasWeight(node.key), this.aliasWeight(node.value));
    if (isMap(node) || isSeq(node)) {
      return (node.items as unknown[]).reduce<number>((max, item) => Math.max(max, this.aliasWeight(item)), 0);
    }
    return 1;
  }
}

function isMergeKey(key: unknown): boolean {
  return isScalar(key) && key.value === '<<' && key.type === 'PLAIN' && key.tag === undefined;
}

/**
 * The JSON a node stands for (the whole document by default); throws compose_invalid. With the
 * LineCounter the document was parsed with, errors about the text give line and column.
 */
export function nodeToData(
  doc: Document,
  limits: ComposeLimits,
  node: unknown = doc.contents,
  lineCounter?: LineCounter,
): JsonValue {
  return new NodeReader(doc, limits, lineCounter).read(node, 0, '');
}

/** A fresh node for a JSON value; tag markers become `!reset` / `!override` tags. */
export function dataToNode(doc: Document, value: JsonValue): Node {
  const tag = mergeTagOf(value);
  if (tag !== null) {
    const inner = dataToNode(doc, taggedValue(value));
    inner.tag = YAML_TAG_OF[tag];
    return inner;
  }
  if (Array.isArray(value)) {
    const seq = new YAMLSeq(doc.schema);
    seq.items = value.map((item) => dataToNode(doc, item));
    return seq;
  }
  if (isMapping(value)) {
    const map = new YAMLMap(doc.schema);
    map.items = Object.entries(value).map(([key, item]) => new Pair(new Scalar(key), dataToNode(doc, item)));
    return map;
  }
  return new Scalar(value);
}
