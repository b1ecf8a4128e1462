/**
 * The YAML most Compose files are written in, read without the `yaml` package: block mappings
 * and sequences, plain and one-line quoted scalars, one-line flow collections, literal and
 * folded block scalars, comments. `readBlockYaml` gives the data the package's parse and
 * NodeReader (yaml-data.ts) give for such a text, or undefined for anything else — tags,
 * anchors, merge keys, multi-line plain or quoted scalars, tabs, CR line ends, directives,
 * several documents, an irregular indent, a duplicate key, any error — which then goes the
 * package's way, so that its data, its errors and their messages stay what they are. The package
 * reads through generators and builds a node tree first: most of `panel compose config`'s time
 * (docs/PERFORMANCE.md, 16). A differential property test holds the two to the same data
 * (block-yaml.test.ts).
 *
 * Plain scalars are resolved by the tags of the package's schema (YAML_OPTIONS: the core schema
 * and legacy octal), as the package resolves them. Browser-safe, like document.ts.
 */
import { Document, isScalar } from 'yaml';
import type { JsonObject, JsonValue } from './values.ts';
import { PROTOTYPE_KEY, YAML_OPTIONS } from './yaml-data.ts';

/** Thrown inside the reader when the text leaves the subset; never escapes readBlockYaml. */
class OutsideSubset extends Error {}
const outside = () => new OutsideSubset();

// Only printable characters, line feeds and spaces: no tab, CR, BOM, NEL, line separators,
// Unicode spaces, C0/C1 controls or lone surrogates (which the package reads, or refuses, in
// ways of its own).
const OUTSIDE_CHARACTERS = /[^\n\x20-\x7e\u00a1-\u167f\u1681-\u1fff\u200b-\u2027\u202a-\u202e\u2030-\u205e\u2060-\u2fff\u3001-\ud7ff\ue000-\ufefe\uff00-\ufffd\u{10000}-\u{10ffff}]/u;

interface ResolvingTag {
  default?: boolean | 'key';
  test?: RegExp;
  resolve(value: string, onError: (message: string) => void, options: object): unknown;
}

/** The schema's tags that resolve a plain scalar, in the order the package tries them. */
const PLAIN_TAGS = (new Document(null, YAML_OPTIONS).schema.tags as ResolvingTag[]).filter((tag) => tag.default === true && tag.test !== undefined);
// Joined for a quick "it is a string": alternatives match exactly when one of them does, as
// none has flags or back-references (block-yaml.test.ts checks it).
const ANY_PLAIN_TAG = new RegExp(PLAIN_TAGS.map((tag) => `(?:${tag.test!.source})`).join('|'));
const PARSE_OPTIONS = { intAsBigInt: false };
const refuse = () => {
  throw outside();
};

/** A plain scalar's value, as the package's composer resolves it. */
function plainValue(source: string): JsonValue {
  if (!ANY_PLAIN_TAG.test(source)) return source;
  const tag = PLAIN_TAGS.find((candidate) => candidate.test!.test(source));
  if (tag === undefined) return source;
  const resolved = tag.resolve(source, refuse, PARSE_OPTIONS);
  const value = isScalar(resolved) ? resolved.value : resolved;
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  throw outside(); // .inf, .nan: NodeReader refuses them with a path
}

const ESCAPES: Record<string, string> = {
  '0': '\0', a: '\x07', b: '\b', e: '\x1b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v',
  N: '\u0085', _: '\u00a0', L: '\u2028', P: '\u2029', ' ': ' ', '"': '"', '/': '/', '\\': '\\',
};
const HEX_LENGTH: Record<string, number> = { x: 2, u: 4, U: 8 };

/** The text of a one-line double-quoted scalar between its quotes (the package's doubleQuotedValue). */
function doubleQuotedValue(source: string): string {
  if (!source.includes('\\')) return source;
  let value = '';
  for (let i = 0; i < source.length; i++) {
    const ch = source[i]!;
    if (ch !== '\\') {
      value += ch;
      continue;
    }
    const next = source[++i];
    if (next === undefined) throw outside();
    const escaped = ESCAPES[next];
    if (escaped !== undefined) {
      value += escaped;
      continue;
    }
    const length = HEX_LENGTH[next];
    const code = length === undefined ? '' : source.substr(i + 1, length);
    if (length === undefined || code.length !== length || !/^[0-9a-fA-F]+$/.test(code)) throw outside();
    const point = Number.parseInt(code, 16);
    if (point > 0x10ffff) throw outside();
    value += String.fromCodePoint(point);
    i += length;
  }
  return value;
}

/** How far an implicit key's `:` may be from the key's start (YAML 1.2, 7.4.2 and 8.2.2). */
const MAX_IMPLICIT_KEY = 1024;

const FLOW_INDICATORS = ',[]{}';
/** Characters a plain scalar cannot start with (`-`, `?` and `:` only when a space follows). */
const PLAIN_FIRST_REFUSED = ',[]{}#&*!|>\'"%@`';

function isSpaceOrEnd(ch: string | undefined): boolean {
  return ch === undefined || ch === ' ';
}

/** Whether a plain scalar may start at `pos` (in flow context, when a flow indicator ends it). */
function startsPlain(line: string, pos: number, inFlow: boolean): boolean {
  const ch = line[pos];
  if (ch === undefined || PLAIN_FIRST_REFUSED.includes(ch)) return false;
  if (ch === '-' || ch === '?' || ch === ':') {
    const next = line[pos + 1];
    return !isSpaceOrEnd(next) && !(inFlow && FLOW_INDICATORS.includes(next!));
  }
  return true;
}

class Reader {
  private row = 0;
  private readonly lines: string[];

  constructor(
    text: string,
    private readonly maxDepth: number,
  ) {
    this.lines = text.split('\n');
    // The line after the final line feed is empty, and no line of the document.
    if (this.lines[this.lines.length - 1] === '') this.lines.pop();
  }

  read(): JsonObject {
    this.skipToContent();
    const first = this.lines[this.row];
    if (first !== undefined && /^---( +#.*| *)$/.test(first)) {
      this.row++;
      this.skipToContent();
      if (this.row >= this.lines.length) throw outside(); // an empty document after `---` is null
    }
    if (this.row >= this.lines.length) return {};
    const indent = this.indentOf(this.row);
    if (this.isSequenceEntry(this.row, indent)) throw outside(); // a root sequence: refused with its message
    const data = this.mapping(indent, 1);
    if (this.row < this.lines.length) throw outside();
    return data;
  }

  /** Moves past blank and comment lines; refuses the markers and directives the subset has no room for. */
  private skipToContent(): void {
    for (; this.row < this.lines.length; this.row++) {
      const line = this.lines[this.row]!;
      if (line.startsWith('---') || line.startsWith('...') || line.startsWith('%')) {
        if (this.row === 0 && /^---( +#.*| *)$/.test(line)) return;
        throw outside();
      }
      const indent = this.indentOf(this.row);
      if (indent < line.length && line[indent] !== '#') return;
    }
  }

  private indentOf(row: number): number {
    const line = this.lines[row]!;
    let indent = 0;
    while (line.charCodeAt(indent) === 32) indent++;
    return indent;
  }

  /** The indent of the next content line, or -1 at the end. */
  private nextIndent(): number {
    this.skipToContent();
    return this.row < this.lines.length ? this.indentOf(this.row) : -1;
  }

  private isSequenceEntry(row: number, column: number): boolean {
    const line = this.lines[row]!;
    return line[column] === '-' && isSpaceOrEnd(line[column + 1]);
  }

  /** A block mapping whose first key starts at `column` of the current line (after `- ` in a sequence). */
  private mapping(column: number, depth: number): JsonObject {
    if (depth > this.maxDepth) throw outside();
    const result: JsonObject = {};
    for (;;) {
      const line = this.lines[this.row]!;
      const { key, valueStart } = this.key(line, column);
      if (key === PROTOTYPE_KEY || key === '<<' || Object.hasOwn(result, key)) throw outside();
      result[key] = this.entryValue(line, valueStart, column, depth, true);
      const next = this.nextIndent();
      if (next < column) return result;
      if (next > column || this.isSequenceEntry(this.row, column)) throw outside();
    }
  }

  /** The key at `column` and where its value starts (after the `:`). */
  private key(line: string, column: number): { key: string; valueStart: number } {
    const colon = keyIndicator(line, column);
    // YAML ends an implicit key within 1,024 characters of its start; the package refuses longer ones.
    if (colon === -1 || colon - column > MAX_IMPLICIT_KEY) throw outside();
    const ch = line[column];
    const key = ch === '"' || ch === "'" ? quotedScalar(line, column).value : String(plainValue(line.slice(column, colon).trimEnd()));
    return { key, valueStart: colon + 1 };
  }

  /**
   * The value after a key's `:` or a sequence's `-` at `pos`: inline on this line (then nothing
   * more indented than `parent` may follow), or a block node on the lines below.
   */
  private entryValue(line: string, pos: number, parent: number, depth: number, inMapping: boolean): JsonValue {
    while (line.charCodeAt(pos) === 32) pos++;
    // A `#` here follows a space: `key:#` is no key and `-#` no entry.
    if (pos < line.length && line[pos] !== '#') return this.inlineValue(line, pos, parent, depth);
    this.row++;
    const next = this.nextIndent();
    if (next > parent) return this.blockNode(next, depth + 1);
    // A sequence may sit at its key's own indent.
    if (inMapping && next === parent && this.isSequenceEntry(this.row, parent)) return this.sequence(parent, depth + 1);
    return null;
  }

  private blockNode(indent: number, depth: number): JsonValue {
    return this.isSequenceEntry(this.row, indent) ? this.sequence(indent, depth) : this.mapping(indent, depth);
  }

  private sequence(column: number, depth: number): JsonValue[] {
    if (depth > this.maxDepth) throw outside();
    const items: JsonValue[] = [];
    for (;;) {
      const line = this.lines[this.row]!;
      let pos = column + 1;
      while (line.charCodeAt(pos) === 32) pos++;
      // `- key: value` and `- - item` start a mapping or a sequence at the item's column.
      if (pos < line.length && line[pos] !== '#' && this.isSequenceEntry(this.row, pos)) items.push(this.sequence(pos, depth + 1));
      else if (pos < line.length && line[pos] !== '#' && keyIndicator(line, pos) !== -1) items.push(this.mapping(pos, depth + 1));
      else items.push(this.entryValue(line, pos, column, depth, false));
      const next = this.nextIndent();
      if (next < column || (next === column && !this.isSequenceEntry(this.row, column))) return items;
      if (next > column) throw outside();
    }
  }

  /** A scalar, flow collection or block scalar starting at `pos` of the current line. */
  private inlineValue(line: string, pos: number, parent: number, depth: number): JsonValue {
    const ch = line[pos]!;
    let value: JsonValue;
    let end: number;
    if (ch === '|' || ch === '>') return this.blockScalar(line, pos, parent);
    if (ch === '"' || ch === "'") ({ value, end } = quotedScalar(line, pos));
    else if (ch === '[' || ch === '{') ({ value, end } = new FlowReader(line, this.maxDepth).collection(pos, depth + 1));
    else {
      if (!startsPlain(line, pos, false)) throw outside();
      const comment = line.indexOf(' #', pos);
      const source = (comment === -1 ? line.slice(pos) : line.slice(pos, comment)).trimEnd();
      if (source.includes(': ') || source.endsWith(':')) throw outside();
      value = plainValue(source);
      end = line.length;
    }
    assertLineEnd(line, end);
    this.row++;
    if (this.nextIndent() > parent) throw outside(); // a continuation line, or an error
    return value;
  }

  /** `|` or `>` with an optional chomping indicator; its lines are more indented than `parent`. */
  private blockScalar(line: string, pos: number, parent: number): string {
    const literal = line[pos] === '|';
    let chomp = line[pos + 1];
    let end = pos + 1;
    if (chomp === '-' || chomp === '+') end++;
    else chomp = '';
    assertLineEnd(line, end);
    // Its lines: blank ones, and those at least as indented as the first non-blank one.
    let leadingBlank = 0;
    let row = this.row + 1;
    for (; row < this.lines.length && this.indentOf(row) === this.lines[row]!.length; row++) leadingBlank++;
    if (row >= this.lines.length) throw outside();
    const indent = this.indentOf(row);
    if (indent <= parent) throw outside(); // an empty block scalar
    // Leading blank lines longer than the first line's indent need an indentation indicator.
    for (let blank = row - leadingBlank; blank < row; blank++) if (this.lines[blank]!.length > indent) throw outside();
    const content: string[] = [];
    let trailingBlank = 0;
    for (; row < this.lines.length; row++) {
      const text = this.lines[row]!;
      const lineIndent = this.indentOf(row);
      if (lineIndent === text.length) {
        trailingBlank++;
        continue;
      }
      if (lineIndent < indent) break;
      for (let blank = row - trailingBlank; blank < row; blank++) content.push(this.lines[blank]!.slice(indent));
      trailingBlank = 0;
      content.push(text.slice(indent));
    }
    // Blank lines after the last one belong to it in ways of their own when they hold more
    // spaces than its indent, or any space and it keeps its final line breaks (`+`).
    for (let blank = row - trailingBlank; blank < row; blank++) {
      const length = this.lines[blank]!.length;
      if (length > indent || (chomp === '+' && length > 0)) throw outside();
    }
    this.row = row;
    if (this.nextIndent() > parent) throw outside();
    let value = '\n'.repeat(leadingBlank) + (literal ? content.join('\n') : folded(content));
    if (chomp === '+') value += '\n'.repeat(1 + trailingBlank);
    else if (chomp === '') value += '\n';
    return value;
  }
}

/**
 * The position of the `:` that ends a key starting at `pos` (a quoted scalar, or a plain one up
 * to the first `: ` or final `:`), or -1 when no mapping entry starts there.
 */
function keyIndicator(line: string, pos: number): number {
  const ch = line[pos];
  if (ch === '"' || ch === "'") {
    const { end } = quotedScalar(line, pos);
    return line[end] === ':' && isSpaceOrEnd(line[end + 1]) ? end : -1;
  }
  if (!startsPlain(line, pos, false)) return -1;
  let colon = line.indexOf(':', pos);
  while (colon !== -1 && !isSpaceOrEnd(line[colon + 1])) colon = line.indexOf(':', colon + 1);
  return colon === -1 || line.slice(pos, colon).includes(' #') ? -1 : colon;
}

/** Folded block lines (without their common indent) joined as the package's resolveBlockScalar does. */
function folded(lines: string[]): string {
  let value = '';
  let separator = '';
  let previousMoreIndented = false;
  for (const line of lines) {
    if (line[0] === ' ') {
      if (separator === ' ') separator = '\n';
      else if (!previousMoreIndented && separator === '\n') separator = '\n\n';
      value += separator + line;
      separator = '\n';
      previousMoreIndented = true;
    } else if (line === '') {
      if (separator === '\n') value += '\n';
      else separator = '\n';
    } else {
      value += separator + line;
      separator = ' ';
      previousMoreIndented = false;
    }
  }
  return value;
}

/** After a value: spaces, then the end of the line or a comment. */
function assertLineEnd(line: string, end: number): void {
  let pos = end;
  while (line.charCodeAt(pos) === 32) pos++;
  if (pos === line.length) return;
  if (line[pos] === '#' && pos > end) return;
  throw outside();
}

/** A quoted scalar that closes on its own line. */
function quotedScalar(line: string, pos: number): { value: string; end: number } {
  const quote = line[pos];
  if (quote === "'") {
    let close = pos + 1;
    for (;;) {
      close = line.indexOf("'", close);
      if (close === -1) throw outside();
      if (line[close + 1] !== "'") break;
      close += 2;
    }
    return { value: line.slice(pos + 1, close).replaceAll("''", "'"), end: close + 1 };
  }
  let close = pos + 1;
  for (; close < line.length && line[close] !== '"'; close++) if (line[close] === '\\') close++;
  if (close >= line.length) throw outside();
  return { value: doubleQuotedValue(line.slice(pos + 1, close)), end: close + 1 };
}

/** A flow collection (`[a, b]`, `{a: 1}`) that closes on its own line. */
class FlowReader {
  constructor(
    private readonly line: string,
    private readonly maxDepth: number,
  ) {}

  collection(pos: number, depth: number): { value: JsonValue; end: number } {
    if (depth > this.maxDepth) throw outside();
    const sequence = this.line[pos] === '[';
    const close = sequence ? ']' : '}';
    const items: JsonValue[] = [];
    const mapping: JsonObject = {};
    pos = this.skipSpaces(pos + 1);
    if (this.line[pos] === close) return { value: sequence ? items : mapping, end: pos + 1 };
    for (;;) {
      if (sequence) {
        const item = this.item(pos, depth);
        if (this.line[item.end] === ':') throw outside(); // a pair in a sequence
        items.push(item.value);
        pos = item.end;
      } else {
        const key = this.item(pos, depth);
        if ((typeof key.value === 'object' && key.value !== null) || key.end - pos > MAX_IMPLICIT_KEY) throw outside();
        const name = String(key.value);
        if (this.line[key.end] !== ':' || this.line[key.end + 1] !== ' ') throw outside();
        if (name === PROTOTYPE_KEY || name === '<<' || Object.hasOwn(mapping, name)) throw outside();
        const value = this.item(this.skipSpaces(key.end + 1), depth);
        mapping[name] = value.value;
        pos = value.end;
      }
      if (this.line[pos] === close) return { value: sequence ? items : mapping, end: pos + 1 };
      if (this.line[pos] !== ',') throw outside();
      pos = this.skipSpaces(pos + 1);
      if (this.line[pos] === close) throw outside(); // a trailing comma
    }
  }

  /** A value inside the collection; `end` is past the spaces after it. */
  private item(pos: number, depth: number): { value: JsonValue; end: number } {
    const ch = this.line[pos];
    let result: { value: JsonValue; end: number };
    if (ch === '[' || ch === '{') result = this.collection(pos, depth + 1);
    else if (ch === '"' || ch === "'") result = quotedScalar(this.line, pos);
    else {
      if (!startsPlain(this.line, pos, true)) throw outside();
      let end = pos;
      for (; end < this.line.length; end++) {
        const c = this.line[end]!;
        if (FLOW_INDICATORS.includes(c)) break;
        if (c === ':' && (isSpaceOrEnd(this.line[end + 1]) || FLOW_INDICATORS.includes(this.line[end + 1]!))) break;
        if (c === '#' && this.line[end - 1] === ' ') throw outside();
      }
      result = { value: plainValue(this.line.slice(pos, end).trimEnd()), end };
    }
    return { value: result.value, end: this.skipSpaces(result.end) };
  }

  private skipSpaces(pos: number): number {
    while (this.line.charCodeAt(pos) === 32) pos++;
    return pos;
  }
}

/**
 * The data of a text in the subset, or undefined: then the `yaml` package reads it. The caller
 * has checked the text's size and nesting bound; deeper than `maxDepth` is outside the subset.
 */
export function readBlockYaml(text: string, maxDepth: number): JsonObject | undefined {
  if (OUTSIDE_CHARACTERS.test(text)) return undefined;
  try {
    return new Reader(text, maxDepth).read();
  } catch (error) {
    if (error instanceof OutsideSubset) return undefined;
    throw error;
  }
}
