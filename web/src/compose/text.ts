/**
 * Compose text in the console, with the server's own modules (browser-safe): parsing the
 * editor's text into a ComposeDocument, the read-only merged preview (src/compose/merge.ts), and
 * placing an error at its line, whether the message says "at line L, column C" or the error
 * carries a `path` into the document.
 */
import { isMap, isScalar, isSeq, LineCounter, type Node, parseDocument } from 'yaml';
import { type ComposeDocument, composeToText, parseComposeText, stringifyComposeModel } from '../../../src/compose/document.ts';
import { mergeCompose } from '../../../src/compose/merge.ts';
import type { StoredComposeDocument } from '../../../src/contract/compose.ts';

export interface ComposeProblem {
  message: string;
  /** 1-based; absent when the error cannot be placed in the text. */
  line?: number;
  column?: number;
}

/** The text the editor shows for a stored document (empty when there is none yet). */
export function textOf(document: StoredComposeDocument | undefined): string {
  // A stored document's data is the JSON the server parsed it to.
  return document ? composeToText(document as ComposeDocument) : '';
}

export type Parsed = { document: ComposeDocument; problem?: undefined } | { document?: undefined; problem: ComposeProblem };

/** Parses as the server does; a syntax error comes back placed at its line. */
export function parseText(text: string, editorView: string): Parsed {
  try {
    return { document: parseComposeText(text, { editorView }) };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { problem: { message, ...placeOf(text, message) } };
  }
}

export type Preview = { text: string; problem?: undefined } | { text?: undefined; problem: ComposeProblem };

/** Base merged with the overlay, as YAML: a simulation for reading; deploys use the compiled file. */
export function mergedPreview(base: string, overlay: string): Preview {
  const parsedBase = parseText(base, '');
  if (parsedBase.problem) return { problem: { message: `The base does not parse: ${parsedBase.problem.message}` } };
  const parsedOverlay = parseText(overlay, '');
  if (parsedOverlay.problem) return { problem: { message: `The overlay does not parse: ${parsedOverlay.problem.message}` } };
  try {
    return { text: stringifyComposeModel(mergeCompose(parsedBase.document.data, parsedOverlay.document.data)) };
  } catch (error) {
    return { problem: { message: error instanceof Error ? error.message : String(error) } };
  }
}

/** Line and column of an error: from its message, else from its path into the document. */
export function placeOf(text: string, message: string, path?: string): { line?: number; column?: number } {
  const at = /at line (\d+), column (\d+)/.exec(message);
  if (at) return { line: Number(at[1]), column: Number(at[2]) };
  const segments = path === undefined ? [] : documentSegments(path);
  if (segments.length === 0) return {};
  const lineCounter = new LineCounter();
  const document = parseDocument(text, { lineCounter, uniqueKeys: false });
  const offset = deepestOffset(document.contents, segments);
  if (offset === null) return {};
  const { line, col } = lineCounter.linePos(offset);
  return { line, column: col };
}

/** An API path names the body field (options.compose.data.services.web); keep the part inside the model. */
function documentSegments(path: string): string[] {
  const inside = path.replace(/^options\.compose(\.data)?(\.|$)/, '').replace(/^data(\.|$)/, '');
  return inside === '' ? [] : inside.split('.');
}

/**
 * Offset of the deepest node the path reaches (a mapping entry's key, a sequence item).
 * Keys may hold dots themselves ("traefik.http.routers"), so longer joins are tried first.
 */
function deepestOffset(node: Node | null, segments: string[]): number | null {
  if (segments.length === 0 || !node) return null;
  if (isSeq(node)) {
    const item = node.items[Number(segments[0])] as Node | undefined;
    if (!/^\d+$/.test(segments[0]!) || !item?.range) return null;
    return deepestOffset(item, segments.slice(1)) ?? item.range[0];
  }
  if (!isMap(node)) return null;
  for (let take = segments.length; take > 0; take--) {
    const key = segments.slice(0, take).join('.');
    const pair = node.items.find((entry) => isScalar(entry.key) && String(entry.key.value) === key);
    if (!pair || !isScalar(pair.key) || !pair.key.range) continue;
    return deepestOffset(pair.value as Node | null, segments.slice(take)) ?? pair.key.range[0];
  }
  return null;
}
