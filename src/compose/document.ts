/**
 * ComposeDocument: how a Compose file is stored (project.options.compose is the base,
 * environment.options.compose the overlay).
 *
 *   { version: 1, data, presentation: { yaml, editorView?, ... } }
 *
 * `data` is the plain-JSON model every other module reads (merge tags as in tags.ts);
 * `presentation.yaml` is the exact text the editor saved, so loading it gives back the same
 * bytes, comments included. When `data` changes through the JSON API the previous text is
 * patched node by node (yaml-patch.ts) so comments on untouched parts survive.
 */
import { Document, LineCounter, parseDocument, type ToStringOptions } from 'yaml';
import { readBlockYaml } from './block-yaml.ts';
import {
  assertDepth,
  assertNestingBound,
  assertTextSize,
  type ComposeLimits,
  composeInvalid,
  depthExceeded,
  resolveLimits,
} from './limits.ts';
import { isMapping, type JsonObject, type JsonValue, deepEqual } from './values.ts';
import { nodeToData, PROTOTYPE_KEY, prototypeKeyRefused, YAML_OPTIONS } from './yaml-data.ts';
import { patchDocument } from './yaml-patch.ts';

export interface ComposePresentation {
  /** The YAML text exactly as last saved or as regenerated from `data`. */
  yaml: string;
  /** The console editor tab the user last used ('yaml' or 'form'); stored as given. */
  editorView?: string;
  [extra: string]: unknown;
}

export interface ComposeDocument {
  version: 1;
  data: JsonObject;
  presentation: ComposePresentation;
}

export type PresentationExtras = Omit<ComposePresentation, 'yaml'>;

interface ParsedYaml {
  doc: Document;
  data: JsonObject;
}

/** Parses YAML text under the caps; syntax errors carry line and column and no path. */
function parseYaml(text: string, limits: ComposeLimits): ParsedYaml {
  assertTextSize(text, limits);
  assertNestingBound(text, limits);
  // prettyErrors would build a code frame for every error: quadratic on hostile input.
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { ...YAML_OPTIONS, prettyErrors: false, lineCounter });
  const error = doc.errors[0];
  if (error !== undefined) {
    if (error.message.includes('Maximum call stack size exceeded')) throw depthExceeded(limits);
    const { line, col } = lineCounter.linePos(error.pos[0]);
    throw composeInvalid(`YAML syntax error: ${error.message} at line ${line}, column ${col}`);
  }
  // An empty (or comments-only) document is an empty model, e.g. an overlay with nothing yet.
  const data = doc.contents === null ? {} : nodeToData(doc, limits, doc.contents, lineCounter);
  if (!isMapping(data)) throw composeInvalid('the document root must be a mapping');
  assertDepth(data, limits);
  return { doc, data };
}

/**
 * The data of a text: read directly when it is in the block subset (block-yaml.ts), by the
 * `yaml` package otherwise, which also gives every error (the caps are checked first either way).
 */
function parseYamlData(text: string, limits: ComposeLimits): JsonObject {
  assertTextSize(text, limits);
  assertNestingBound(text, limits);
  const data = readBlockYaml(text, limits.maxDepth);
  if (data === undefined) return parseYaml(text, limits).data;
  // The reader declines what is too deep; the package's way checks the data once more, so does this.
  assertDepth(data, limits);
  return data;
}

/** Text from the editor → document. Throws compose_invalid (syntax, size, depth, aliases). */
export function parseComposeText(
  text: string,
  presentationExtras: PresentationExtras = {},
  limits: Partial<ComposeLimits> = {},
): ComposeDocument {
  return { version: 1, data: parseYamlData(text, resolveLimits(limits)), presentation: { ...presentationExtras, yaml: text } };
}

/** The YAML the editor should show for a document. */
export function composeToText(document: ComposeDocument, limits: Partial<ComposeLimits> = {}): string {
  const resolved = { ...resolveLimits(limits), maxTextBytes: Number.POSITIVE_INFINITY };
  const previous = document.presentation?.yaml ?? '';
  let parsed: ParsedYaml;
  try {
    parsed = parseYaml(previous, resolved);
  } catch {
    return freshText(document.data); // a stored text we can no longer read: regenerate
  }
  if (deepEqual(parsed.data, document.data)) return previous;
  patchDocument(parsed.doc, document.data, resolved);
  return parsed.doc.toString(stringifyOptionsLike(previous));
}

/** JSON from the API → document; `previous` supplies the text to patch and the editor view. */
export function fromJson(
  data: unknown,
  previous?: ComposeDocument | null,
  limits: Partial<ComposeLimits> = {},
): ComposeDocument {
  const resolved = resolveLimits(limits);
  if (!isMapping(data)) throw composeInvalid('the document root must be a mapping');
  assertDepth(data, resolved);
  assertJson(data);
  const presentation: ComposePresentation = { ...previous?.presentation, yaml: previous?.presentation?.yaml ?? '' };
  const yaml = composeToText({ version: 1, data, presentation }, limits);
  assertTextSize(yaml, resolved);
  return { version: 1, data, presentation: { ...presentation, yaml } };
}

/**
 * YAML for a plain model without merge tags (a merged or compiled one), under the YAML 1.1
 * quoting rules (yaml-print.ts).
 */
export { stringifyComposeModel } from './yaml-print.ts';

function freshText(data: JsonObject): string {
  if (Object.keys(data).length === 0) return '';
  const doc = new Document(null, YAML_OPTIONS);
  patchDocument(doc, data, { ...resolveLimits(), maxTextBytes: Number.POSITIVE_INFINITY });
  return doc.toString({ lineWidth: 0 });
}

/** Refuses values JSON cannot carry (undefined, functions, NaN...), e.g. from a hand-built object. */
function assertJson(value: unknown, path = ''): asserts value is JsonValue {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return;
  if (typeof value === 'number' && Number.isFinite(value)) return;
  if (Array.isArray(value)) {
    value.forEach((item, i) => assertJson(item, path === '' ? String(i) : `${path}.${i}`));
    return;
  }
  if (isMapping(value) && Object.getPrototypeOf(value) === Object.prototype) {
    for (const [key, item] of Object.entries(value)) {
      const itemPath = path === '' ? key : `${path}.${key}`;
      // JSON.parse makes it an own key; the first copy made with `result[key] = ...` would not.
      if (key === PROTOTYPE_KEY) throw prototypeKeyRefused(itemPath);
      assertJson(item, itemPath);
    }
    return;
  }
  throw composeInvalid('value is not plain JSON', path || undefined);
}

/**
 * Layout of the text being patched, so regenerated parts look like the rest: the smallest
 * indent in use, whether block sequences sit under their key (`- ` at the key's column, as many
 * Compose files are written) or indented below it, and `{ a: 1 }` versus `{a: 1}`.
 */
function stringifyOptionsLike(text: string): ToStringOptions {
  const lines = text.split('\n').filter((line) => line.trim() !== '' && !line.trimStart().startsWith('#'));
  const smallestIndent = lines.reduce((smallest, line) => {
    const indent = line.length - line.trimStart().length;
    return indent > 0 && indent < smallest ? indent : smallest;
  }, Number.POSITIVE_INFINITY);
  const indent = Number.isFinite(smallestIndent) ? Math.min(smallestIndent, 8) : 2;
  let indentSeq = true;
  for (let i = 0; i + 1 < lines.length; i++) {
    const key = /^(\s*)[^\s#-][^#]*:\s*$/.exec(lines[i]!);
    const item = /^(\s*)- /.exec(lines[i + 1]!);
    if (key && item) {
      indentSeq = item[1]!.length > key[1]!.length;
      break;
    }
  }
  const padded = (text.match(/[[{] [^\s\]}]/g) ?? []).length;
  const tight = (text.match(/[[{][^\s\]}]/g) ?? []).length;
  return { lineWidth: 0, indent, indentSeq, flowCollectionPadding: padded >= tight };
}
