/**
 * Fast block-style YAML for a plain JSON model: the compiled runtime compose.yaml.
 *
 * stringifyComposeModel (yaml-print.ts) writes what the `yaml` package writes under YAML 1.1,
 * which a YAML 1.2 reader can read otherwise (`0o17` is written plain). This writer is
 * deliberately conservative, so that every YAML reader (YAML 1.1 and 1.2, go-yaml in Compose,
 * the `yaml` package) reads back exactly the model:
 *
 * - a string is written plain only when it is words of `A-Za-z0-9_./:@+=,~-` separated by single
 *   spaces, without `: ` or a final `:`, starting with a letter, `_`, `/`, `./` or `../` (and
 *   no YAML 1.1 boolean or null word such as `yes`, `off`, `null`), or with a digit when it
 *   also holds a letter and no colon or space (`5s`, `512M`), and is no number in any schema
 *   (`0x1F`, `1e5`, `E0`); every other string is double-quoted with JSON escapes, plus `\u`
 *   escapes for the characters YAML would not take raw (DEL, C1 controls, U+2028/U+2029, BOM...);
 * - numbers, booleans and null as JSON writes them (an exponent gets a dot, for YAML 1.1);
 *   `{}` and `[]` for empty collections;
 * - keys follow the same rule as strings. Mappings are indented by two spaces, sequences by two
 *   spaces under their key (`- ` items), mappings inside sequences start on the `- ` line.
 */
import { isMapping, type JsonObject, type JsonValue } from './values.ts';

// Words of these characters, separated by single spaces.
const PLAIN_WORDS = /^[A-Za-z0-9_./:@+=,~-]+(?: [A-Za-z0-9_./:@+=,~-]+)*$/;
// A letter, `_`, `/`, `./` or `../` first; a digit first is handled by readsAsString.
const PLAIN_START = /^(?:[A-Za-z_/]|\.{1,2}\/)/;
const RESERVED_WORDS = new Set(['y', 'n', 'yes', 'no', 'on', 'off', 'true', 'false', 'null']);
/** A number in some YAML schema: 0x/0o/0b prefixes, exponents (the `yaml` package's YAML 1.1 schema even reads `E0`). */
const NUMBER_LIKE = /^(?:0[xXoObB]|[0-9_]*(?:\.[0-9_]*)?[eE][-+]?[0-9]+$)/;

/** Whether the string can be written plain and read back as this very string by YAML 1.1 and 1.2 readers. */
function readsAsString(text: string): boolean {
  if (!PLAIN_WORDS.test(text) || text.includes(': ') || text.endsWith(':') || NUMBER_LIKE.test(text)) return false;
  if (PLAIN_START.test(text)) return text.length > 5 || !RESERVED_WORDS.has(text.toLowerCase());
  // Digit first: a letter rules out integers, floats and dates; no colon or space rules out
  // sexagesimal numbers and times.
  return /^[0-9]/.test(text) && /[A-Za-z]/.test(text) && !/[: ]/.test(text);
}

// Characters JSON.stringify leaves raw that YAML does not accept (or reads as line breaks).
const UNSAFE_RAW = /[\u007f-\u009f\u2028\u2029\ufeff\ufffe\uffff]/;
const UNSAFE_RAW_ALL = new RegExp(UNSAFE_RAW.source, 'g');

function quoted(text: string): string {
  const json = JSON.stringify(text);
  if (!UNSAFE_RAW.test(json)) return json;
  return json.replace(UNSAFE_RAW_ALL, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

function stringScalar(text: string): string {
  return readsAsString(text) ? text : quoted(text);
}

interface Output {
  text: string;
  /** Written form of each string seen: compiled projects repeat keys and values many times. */
  strings: Map<string, string>;
}

function writtenString(text: string, out: Output): string {
  let written = out.strings.get(text);
  if (written === undefined) out.strings.set(text, (written = stringScalar(text)));
  return written;
}

function scalar(value: JsonValue, out: Output): string {
  if (typeof value === 'string') return writtenString(value, out);
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new TypeError(`cannot write ${value} as YAML`);
    // YAML 1.1 reads an exponent as a float only after a dot: 1e+21 → 1.0e+21.
    const text = String(value);
    return text.includes('e') && !text.includes('.') ? text.replace('e', '.0e') : text;
  }
  if (isMapping(value)) return '{}';
  if (Array.isArray(value)) return '[]';
  return String(value); // true, false, null
}

function isBlock(value: JsonValue): value is JsonObject | JsonValue[] {
  if (Array.isArray(value)) return value.length > 0;
  if (!isMapping(value)) return false;
  for (const _ in value) return true;
  return false;
}

/**
 * Each writer indents its lines by `indent`, except the first, which starts with `first`: the
 * same width, ending in `- ` when the block is a sequence item (`- key: value`, `- - item`).
 */
function writeMapping(mapping: JsonObject, indent: string, first: string, out: Output): void {
  let prefix = first;
  for (const key in mapping) {
    const value = mapping[key]!;
    out.text += `${prefix}${writtenString(key, out)}:`;
    prefix = indent;
    if (isBlock(value)) {
      out.text += '\n';
      writeBlock(value, `${indent}  `, `${indent}  `, out);
    } else {
      out.text += ` ${scalar(value, out)}\n`;
    }
  }
}

function writeSequence(items: JsonValue[], indent: string, first: string, out: Output): void {
  let prefix = first;
  for (const item of items) {
    if (isBlock(item)) writeBlock(item, `${indent}  `, `${prefix}- `, out);
    else out.text += `${prefix}- ${scalar(item, out)}\n`;
    prefix = indent;
  }
}

function writeBlock(value: JsonObject | JsonValue[], indent: string, first: string, out: Output): void {
  if (Array.isArray(value)) writeSequence(value, indent, first, out);
  else writeMapping(value, indent, first, out);
}

export function writeComposeYaml(model: JsonObject): string {
  const out: Output = { text: '', strings: new Map() };
  writeMapping(model, '', '', out);
  return out.text === '' ? '{}\n' : out.text;
}
