/**
 * stringifyComposeModel: the YAML text of a plain model (merged or compiled, no merge tags),
 * exactly as the `yaml` package's Document printer writes it under the YAML 1.1 schema with
 * lineWidth 0 (`new Document(model, { version: '1.1' }).toString({ lineWidth: 0 })`), but written
 * directly from the JSON instead of through a Document's nodes, which cost `panel compose config`
 * a third of its time (docs/PERFORMANCE.md, 16). YAML 1.1 quoting keeps strings that older
 * parsers would read as numbers or booleans ("2222:22", "yes", "0644") quoted for every Compose
 * implementation.
 *
 * The functions follow the package's stringifyString, stringifyPair and stringifyCollection
 * (yaml/dist/stringify), with what a plain model never has left out (comments, flow styles, tags)
 * and lineWidth 0 applied (no folding, block strings always literal `|`). Which strings need
 * quotes comes from the package's own YAML 1.1 tags. A property test compares the two printers
 * byte for byte (yaml-print.test.ts). A model that holds one object in two places, which the
 * package writes as an anchor and aliases, is handed to the package's printer.
 *
 * Browser-safe: the console previews merged models with it.
 */
import { Document } from 'yaml';
import { isMapping, type JsonObject, type JsonValue } from './values.ts';

const STEP = '  ';
/** Over this length (once written) a key is written explicitly: `? key` then `: value`. */
const MAX_IMPLICIT_KEY = 1024;
/** Shorter double-quoted JSON keeps `\n` escapes instead of breaking the line. */
const DOUBLE_QUOTED_MIN_MULTILINE = 40;

const MERGE_KEY = '<<';

const SCHEMA_1_1_TAGS = new Document(null, { version: '1.1' }).schema.tags;

/**
 * Whether a plain string would be read as something other than a string (a number, a boolean,
 * null, a date, the merge key `<<`...): the tests of the YAML 1.1 tags the printer consults,
 * joined into one expression: alternatives match exactly when one of them does, as none has
 * flags or back-references (yaml-print.test.ts checks it).
 */
export const READS_AS_OTHER_THAN_STRING = new RegExp(
  SCHEMA_1_1_TAGS.flatMap((tag) => (tag.default && tag.tag !== 'tag:yaml.org,2002:str' && 'test' in tag && tag.test ? [`(?:${tag.test.source})`] : [])).join('|'),
);

// The package's own expressions, in stringifyString's order.
const FORCE_DOUBLE_QUOTES = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u{D800}-\u{DFFF}]/u;
const NOT_PLAIN = /^[\n\t ,[\]{}#&*!|>'"%@`]|^[?-]$|^[?-][ \t]|[\n:][ \t]|[ \t]\n|[\n\t ]#|[\n\t :]$/;
const DOCUMENT_MARKER = /^(%|---|\.\.\.)/m;
const BLOCK_END_NEWLINES = /(^|(?<!\n))\n+(?!\n|$)/g;

function doubleQuoted(value: string, indent: string, implicitKey: boolean): string {
  const json = JSON.stringify(value);
  let str = '';
  let start = 0;
  for (let i = 0, ch = json[i]; ch; ch = json[++i]) {
    if (ch === ' ' && json[i + 1] === '\\' && json[i + 2] === 'n') {
      // A space before a line break is escaped so that it is not folded away.
      str += `${json.slice(start, i)}\\ `;
      i += 1;
      start = i;
      ch = '\\';
    }
    if (ch !== '\\') continue;
    switch (json[i + 1]) {
      case 'u': {
        str += json.slice(start, i);
        const code = json.substr(i + 2, 4);
        str += SHORT_ESCAPES[code] ?? (code.startsWith('00') ? `\\x${code.substr(2)}` : json.substr(i, 6));
        i += 5;
        start = i + 1;
        break;
      }
      case 'n':
        if (implicitKey || json[i + 2] === '"' || json.length < DOUBLE_QUOTED_MIN_MULTILINE) {
          i += 1;
        } else {
          // The line break is written as two (folding takes one back), each further one as itself.
          str += `${json.slice(start, i)}\n\n`;
          while (json[i + 2] === '\\' && json[i + 3] === 'n' && json[i + 4] !== '"') {
            str += '\n';
            i += 2;
          }
          str += indent;
          if (json[i + 2] === ' ') str += '\\';
          i += 1;
          start = i + 1;
        }
        break;
      default:
        i += 1;
    }
  }
  return start ? str + json.slice(start) : json;
}

const SHORT_ESCAPES: Record<string, string> = {
  '0000': '\\0',
  '0007': '\\a',
  '000b': '\\v',
  '001b': '\\e',
  '0085': '\\N',
  '00a0': '\\_',
  '2028': '\\L',
  '2029': '\\P',
};

function singleQuoted(value: string, indent: string, implicitKey: boolean): string {
  if ((implicitKey && value.includes('\n')) || /[ \t]\n|\n[ \t]/.test(value)) return doubleQuoted(value, indent, implicitKey);
  return `'${value.replace(/'/g, "''").replace(/\n+/g, `$&\n${indent}`)}'`;
}

function quoted(value: string, indent: string, implicitKey: boolean): string {
  return value.includes('"') && !value.includes("'") ? singleQuoted(value, indent, implicitKey) : doubleQuoted(value, indent, implicitKey);
}

/** A literal block (`|`, `|-`, `|+`) for a string with line breaks. */
function literalBlock(value: string, indent: string): string {
  // A block cannot end in whitespace after its last line break.
  if (/\n[\t ]+$/.test(value)) return quoted(value, indent, false);
  let endStart = value.length;
  while (endStart > 0 && (value[endStart - 1] === '\n' || value[endStart - 1] === '\t' || value[endStart - 1] === ' ')) endStart--;
  let end = value.substring(endStart);
  const endNewline = end.indexOf('\n');
  const chomp = endNewline === -1 ? '-' : value === end || endNewline !== end.length - 1 ? '+' : '';
  if (end) {
    value = value.slice(0, -end.length);
    if (end.endsWith('\n')) end = end.slice(0, -1);
    end = end.replace(BLOCK_END_NEWLINES, `$&${indent}`);
  }
  let startsWithSpace = false;
  let startEnd = 0;
  let startNewline = -1;
  for (; startEnd < value.length; ++startEnd) {
    const ch = value[startEnd];
    if (ch === ' ') startsWithSpace = true;
    else if (ch === '\n') startNewline = startEnd;
    else break;
  }
  let start = value.substring(0, startNewline < startEnd ? startNewline + 1 : startEnd);
  if (start) {
    value = value.substring(start.length);
    start = start.replace(/\n+/g, `$&${indent}`);
  }
  const header = (startsWithSpace ? '2' : '') + chomp;
  return `|${header}\n${indent}${start}${value.replace(/\n+/g, `$&${indent}`)}${end}`;
}

/** A string as a key (`implicitKey`) or a value, written by a node at `indent`. */
function stringScalar(value: string, indent: string, implicitKey: boolean): string {
  // The YAML 1.1 merge tag claims this string before the string tag does, and writes it plain.
  if (value === MERGE_KEY) return value;
  if (FORCE_DOUBLE_QUOTES.test(value)) return doubleQuoted(value, indent, implicitKey);
  const multiline = value.includes('\n');
  if (implicitKey && multiline) return quoted(value, indent, implicitKey);
  if (NOT_PLAIN.test(value)) return implicitKey || !multiline ? quoted(value, indent, implicitKey) : literalBlock(value, indent);
  if (multiline) return literalBlock(value, indent);
  // Every node here is indented (the root is a mapping); a top-level key is quoted.
  if (implicitKey && indent === STEP && DOCUMENT_MARKER.test(value)) return quoted(value, indent, implicitKey);
  return READS_AS_OTHER_THAN_STRING.test(value) ? quoted(value, indent, implicitKey) : value;
}

/** The package's stringifyNumber, which its YAML 1.1 int and float tags use. */
function numberScalar(value: number): string {
  if (!Number.isFinite(value)) return Number.isNaN(value) ? '.nan' : value < 0 ? '-.inf' : '.inf';
  return Object.is(value, -0) ? '-0' : JSON.stringify(value);
}

function isBlock(value: JsonValue): boolean {
  return Array.isArray(value) ? value.length > 0 : isMapping(value) && Object.keys(value).length > 0;
}

class SharedObject extends Error {}

class Printer {
  private readonly seen = new Set<object>();

  /** A value written by a node at `indent`; a collection's lines after the first start with `indent`. */
  value(value: JsonValue, indent: string): string {
    if (typeof value === 'string') return stringScalar(value, indent, false);
    if (typeof value === 'number') return numberScalar(value);
    if (value === null) return 'null';
    if (typeof value === 'boolean') return value ? 'true' : 'false';
    if (this.seen.has(value)) throw new SharedObject();
    this.seen.add(value);
    return Array.isArray(value) ? this.sequence(value, indent) : this.mapping(value, indent);
  }

  private mapping(mapping: JsonObject, indent: string): string {
    // Own keys, as the package reads an object (a `__proto__` key read from YAML is no own key).
    const keys = Object.keys(mapping);
    if (keys.length === 0) return '{}';
    let text = this.pair(keys[0]!, mapping[keys[0]!]!, indent);
    for (let i = 1; i < keys.length; i++) text += `\n${indent}${this.pair(keys[i]!, mapping[keys[i]!]!, indent)}`;
    return text;
  }

  private sequence(items: JsonValue[], indent: string): string {
    if (items.length === 0) return '[]';
    const itemIndent = indent + STEP;
    let text = `- ${this.value(items[0]!, itemIndent)}`;
    for (let i = 1; i < items.length; i++) text += `\n${indent}- ${this.value(items[i]!, itemIndent)}`;
    return text;
  }

  private pair(key: string, value: JsonValue, indent: string): string {
    const inner = indent + STEP;
    const keyText = stringScalar(key, inner, true);
    const explicitKey = keyText.length > MAX_IMPLICIT_KEY;
    const valueText = this.value(value, inner);
    if (explicitKey) return `? ${keyText}\n${indent}: ${valueText}`;
    // A collection with items starts on the next line; `{}`, `[]` and scalars on the key's.
    return isBlock(value) ? `${keyText}:\n${inner}${valueText}` : `${keyText}: ${valueText}`;
  }
}

export function stringifyComposeModel(model: JsonObject): string {
  try {
    return `${new Printer().value(model, '')}\n`;
  } catch (error) {
    if (!(error instanceof SharedObject)) throw error;
    return new Document(model, { version: '1.1' }).toString({ lineWidth: 0 });
  }
}
