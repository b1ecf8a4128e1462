/**
 * Structural patch: bring a parsed `yaml` Document in line with new JSON data while keeping
 * everything that did not change (comments, blank lines, key order, quoting, anchors) attached
 * to the nodes that survive. Used when a document was edited through the JSON API.
 *
 * Mapping keys keep their order and new keys are appended; sequences are aligned on their
 * unchanged items (longest common subsequence) so an insertion does not shift every comment.
 * An alias whose target no longer matches is replaced by a plain node, since the shared source
 * cannot express the new value; so is a mapping whose merge keys (`<<: *base`) supply a key
 * that must disappear.
 */
import { type Document, isAlias, isMap, isScalar, isSeq, type Node, Pair, Scalar, YAMLMap, type YAMLSeq } from 'yaml';
import type { ComposeLimits } from './limits.ts';
import { mergeTagOf, taggedValue } from './tags.ts';
import { dataToNode, mergeTagOfNode, nodeToData, resolvedTaggedScalar } from './yaml-data.ts';
import { deepEqual, isMapping, type JsonObject, type JsonValue } from './values.ts';

export function patchDocument(doc: Document, desired: JsonValue, limits: ComposeLimits): void {
  normalizeTaggedScalars(doc.contents);
  doc.contents = new Patcher(doc, limits).patch(doc.contents, desired) as Document['contents'];
}

/** So that an untouched `!override 8081` is written back as a number, not as "8081". */
function normalizeTaggedScalars(node: unknown): void {
  if (isScalar(node) && mergeTagOfNode(node) !== null) node.value = resolvedTaggedScalar(node);
  else if (isMap(node)) for (const pair of node.items) normalizeTaggedScalars(pair.value);
  else if (isSeq(node)) for (const item of node.items) normalizeTaggedScalars(item);
}

class Patcher {
  constructor(
    private readonly doc: Document,
    private readonly limits: ComposeLimits,
  ) {}

  /** Returns the node to keep in place of `node`: the same node patched, or a fresh one. */
  patch(node: unknown, desired: JsonValue): Node {
    if (node !== null && node !== undefined && this.represents(node, desired)) return node as Node;
    const desiredTag = mergeTagOf(desired);
    if (isAlias(node) || node === null || node === undefined || desiredTag !== mergeTagOfNode(node)) {
      return this.fresh(node, desired);
    }
    const inner = desiredTag === null ? desired : taggedValue(desired);
    if (isMap(node) && isMapping(inner) && this.patchMap(node, inner)) return node;
    if (isSeq(node) && Array.isArray(inner)) {
      this.patchSeq(node, inner);
      return node;
    }
    if (isScalar(node) && !isMapping(inner) && !Array.isArray(inner) && typeof node.value === typeof inner) {
      node.value = inner;
      return node;
    }
    return this.fresh(node, desired);
  }

  private represents(node: unknown, desired: JsonValue): boolean {
    try {
      return deepEqual(nodeToData(this.doc, this.limits, node), desired);
    } catch {
      return false; // e.g. an alias whose anchor was removed by this patch
    }
  }

  /**
   * Keys of the mapping keep their place; new keys go at the end. With merge keys (`<<: *base`)
   * a key the merge already supplies with the desired value is left to it, and a differing one
   * becomes an own key; returns false when the merge cannot be kept (a merged key must vanish).
   */
  private patchMap(map: YAMLMap, desired: JsonObject): boolean {
    const mergePairs = map.items.filter((pair) => isMergeKeyPair(pair));
    const merged = mergePairs.length === 0 ? {} : this.dataOrUndefined(mapOf(this.doc, mergePairs));
    if (!isMapping(merged)) return false;
    const ownPairs = map.items.filter((pair) => !isMergeKeyPair(pair));
    const ownKeys = new Set(ownPairs.map((pair) => keyOf(pair)));
    const vanishing = Object.keys(merged).some((key) => !Object.hasOwn(desired, key) && !ownKeys.has(key));
    const exposed = ownPairs.some((pair) => !Object.hasOwn(desired, keyOf(pair)) && Object.hasOwn(merged, keyOf(pair)));
    if (vanishing || exposed) return false;

    const kept: unknown[] = [];
    for (const pair of map.items) {
      const key = keyOf(pair);
      if (isMergeKeyPair(pair)) kept.push(pair);
      else if (Object.hasOwn(desired, key)) {
        pair.value = this.patch(pair.value, desired[key] as JsonValue);
        kept.push(pair);
      }
    }
    for (const [key, value] of Object.entries(desired)) {
      if (ownKeys.has(key) || (Object.hasOwn(merged, key) && deepEqual(merged[key], value))) continue;
      kept.push(new Pair(new Scalar(key), dataToNode(this.doc, value)));
    }
    map.items = kept as YAMLMap['items'];
    return true;
  }

  private patchSeq(seq: YAMLSeq, desired: JsonValue[]): void {
    const current = seq.items.map((item) => this.dataOrUndefined(item));
    const matches = longestCommonSubsequence(current, desired);
    const items: unknown[] = [];
    let oldIndex = 0;
    let newIndex = 0;
    for (const [matchOld, matchNew] of [...matches, [current.length, desired.length] as const]) {
      // Between two unchanged items, old and new items are paired in order and patched in place.
      while (newIndex < matchNew) {
        const old = oldIndex < matchOld ? seq.items[oldIndex++] : undefined;
        items.push(this.patch(old, desired[newIndex++] as JsonValue));
      }
      oldIndex = matchOld;
      if (matchOld < current.length) {
        items.push(seq.items[matchOld]);
        oldIndex += 1;
        newIndex += 1;
      }
    }
    seq.items = items;
  }

  private dataOrUndefined(node: unknown): JsonValue | undefined {
    try {
      return nodeToData(this.doc, this.limits, node);
    } catch {
      return undefined;
    }
  }

  /** A new node for `desired` that keeps the comments and anchor of the node it replaces. */
  private fresh(old: unknown, desired: JsonValue): Node {
    const node = dataToNode(this.doc, desired);
    if (old !== null && typeof old === 'object') {
      const previous = old as Partial<Pick<Scalar, 'comment' | 'commentBefore' | 'spaceBefore' | 'anchor'>>;
      node.comment = previous.comment;
      node.commentBefore = previous.commentBefore;
      node.spaceBefore = previous.spaceBefore;
      if (!isAlias(old) && previous.anchor) (node as Scalar).anchor = previous.anchor;
    }
    return node;
  }
}

function isMergeKeyPair(pair: Pair): boolean {
  return isScalar(pair.key) && pair.key.value === '<<' && pair.key.type === 'PLAIN';
}

function keyOf(pair: Pair): string {
  return String(isScalar(pair.key) ? pair.key.value : pair.key);
}

function mapOf(doc: Document, pairs: Pair[]): YAMLMap {
  const map = new YAMLMap(doc.schema);
  map.items = pairs;
  return map;
}

/** Index pairs [old, new] of a longest common subsequence under deep equality. */
function longestCommonSubsequence(a: (JsonValue | undefined)[], b: JsonValue[]): (readonly [number, number])[] {
  const lengths = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      const row = lengths[i]!;
      row[j] =
        a[i] !== undefined && deepEqual(a[i], b[j])
          ? lengths[i + 1]![j + 1]! + 1
          : Math.max(lengths[i + 1]![j]!, row[j + 1]!);
    }
  }
  const pairs: (readonly [number, number])[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i] !== undefined && deepEqual(a[i], b[j])) {
      pairs.push([i++, j++]);
    } else if (lengths[i + 1]![j]! >= lengths[i]![j + 1]!) {
      i++;
    } else {
      j++;
    }
  }
  return pairs;
}
