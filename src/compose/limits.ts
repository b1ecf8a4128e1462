/**
 * Caps applied to every Compose document at save, before anything else looks at it, so a hostile
 * document costs little: text size, nesting depth, alias expansion (billion laughs) and the
 * number of services.
 */
import { DomainError } from '../lib/errors.ts';
import { isMapping } from './values.ts';

export interface ComposeLimits {
  /** Size of the YAML text in bytes (UTF-8). */
  maxTextBytes: number;
  /** Nesting of mappings and sequences; the root mapping is depth 1. */
  maxDepth: number;
  /**
   * The `yaml` package's maxAliasCount: dereferences allowed per anchor, weighted by the
   * aliases nested inside it (billion laughs fails at once, ordinary reuse passes).
   */
  maxAliasCount: number;
  maxServices: number;
}

export const DEFAULT_COMPOSE_LIMITS: Readonly<ComposeLimits> = Object.freeze({
  maxTextBytes: 512 * 1024,
  maxDepth: 64,
  maxAliasCount: 100,
  maxServices: 1000,
});

export function composeInvalid(message: string, path?: string): DomainError {
  return new DomainError('compose_invalid', message, path);
}

export function resolveLimits(overrides?: Partial<ComposeLimits>): ComposeLimits {
  return { ...DEFAULT_COMPOSE_LIMITS, ...overrides };
}

export function assertTextSize(text: string, limits: ComposeLimits): void {
  // Cheap upper bound first: a UTF-8 character takes at most 3 bytes per UTF-16 unit.
  if (text.length * 3 <= limits.maxTextBytes) return;
  const bytes = new TextEncoder().encode(text).length;
  if (bytes > limits.maxTextBytes) {
    throw composeInvalid(`document is ${bytes} bytes; the limit is ${limits.maxTextBytes} bytes`);
  }
}

/**
 * A text-only guard run before parsing: nesting written compactly, as flow collections
 * (`[[[[...`) or as block indicators on one line (`- - - - x`), makes the YAML parser recurse
 * until the stack gives out, which costs about a second. Quoting is ignored, so the bound is
 * generous (16 times the depth limit); the exact depth is checked on the parsed data.
 */
export function assertNestingBound(text: string, limits: ComposeLimits): void {
  const bound = limits.maxDepth * 16;
  if (!mayExceedNestingBound(text, bound)) return;
  let brackets = 0;
  let indicatorsOnLine = 0;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (char === '[' || char === '{') {
      if (++brackets > bound) throw depthExceeded(limits);
    } else if ((char === ']' || char === '}') && brackets > 0) {
      brackets -= 1;
    } else if (char === '\n') {
      indicatorsOnLine = 0;
    } else if ((char === '-' || char === '?') && isBlank(text[i - 1]) && isBlank(text[i + 1])) {
      if (++indicatorsOnLine > bound) throw depthExceeded(limits);
    }
  }
}

/**
 * A quick pass over the text with indexOf: more than `bound` brackets open at once needs more
 * than `bound` brackets, and more than `bound` indicators on a line (each followed by a blank)
 * a line of over 2 * bound characters.
 */
function mayExceedNestingBound(text: string, bound: number): boolean {
  let brackets = 0;
  for (const bracket of ['[', '{']) {
    for (let i = text.indexOf(bracket); i !== -1; i = text.indexOf(bracket, i + 1)) if (++brackets > bound) return true;
  }
  for (let start = 0; start <= text.length; ) {
    const end = text.indexOf('\n', start);
    const stop = end === -1 ? text.length : end;
    if (stop - start > 2 * bound) return true;
    start = stop + 1;
  }
  return false;
}

function isBlank(char: string | undefined): boolean {
  return char === undefined || char === ' ' || char === '\t' || char === '\n' || char === '\r';
}

/** Refuses JSON nested deeper than the limit; iterative, so a hostile value cannot overflow the stack. */
export function assertDepth(value: unknown, limits: ComposeLimits): void {
  const pending: { value: unknown; depth: number; path: string }[] = [{ value, depth: 1, path: '' }];
  while (pending.length > 0) {
    const { value: current, depth, path } = pending.pop()!;
    if (!Array.isArray(current) && !isMapping(current)) continue;
    if (depth > limits.maxDepth) throw depthExceeded(limits, path);
    const entries: [string, unknown][] = Array.isArray(current)
      ? current.map((item, i) => [String(i), item])
      : Object.entries(current);
    for (const [key, item] of entries) {
      pending.push({ value: item, depth: depth + 1, path: path === '' ? key : `${path}.${key}` });
    }
  }
}

export function depthExceeded(limits: ComposeLimits, path?: string): DomainError {
  return composeInvalid(`document is nested deeper than ${limits.maxDepth} levels`, path || undefined);
}

export function assertServiceCount(services: Record<string, unknown>, limits: ComposeLimits): void {
  const count = Object.keys(services).length;
  if (count > limits.maxServices) {
    throw composeInvalid(`document declares ${count} services; the limit is ${limits.maxServices}`, 'services');
  }
}
