import type { LogLevel } from '../config.ts';

export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

const LEVELS: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

/** Field names whose values never reach a log line, whatever their nesting. */
const SECRET_FIELD = /pass(word)?|secret|token|credential|cookie|authorization|private|^value$/i;

export function redact(value: unknown, depth = 0): unknown {
  if (depth > 8 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((item) => redact(item, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    out[key] = SECRET_FIELD.test(key) ? '[redacted]' : redact(inner, depth + 1);
  }
  return out;
}

/** JSON lines on stderr (stdout stays free for command output). */
export function createLogger(level: LogLevel, write: (line: string) => void = (line) => process.stderr.write(line)): Logger {
  const threshold = LEVELS[level];
  const log = (at: LogLevel) => (message: string, fields?: Record<string, unknown>) => {
    if (LEVELS[at] < threshold) return;
    const entry = { time: new Date().toISOString(), level: at, msg: message, ...(fields ? (redact(fields) as object) : {}) };
    write(`${JSON.stringify(entry)}\n`);
  };
  return { debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') };
}

export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };
