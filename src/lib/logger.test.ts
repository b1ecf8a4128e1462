import { describe, expect, test } from 'bun:test';
import { createLogger, redact } from './logger.ts';

describe('logger', () => {
  test('writes JSON lines with time, level and message, filtered by level', () => {
    const lines: string[] = [];
    const logger = createLogger('info', (line) => lines.push(line));
    logger.debug('hidden');
    logger.info('shown', { requestId: 'r1' });
    expect(lines).toHaveLength(1);
    const entry = JSON.parse(lines[0]!);
    expect(entry).toMatchObject({ level: 'info', msg: 'shown', requestId: 'r1' });
    expect(new Date(entry.time).toISOString()).toBe(entry.time);
  });

  test('redacts secret-looking fields at any depth', () => {
    const lines: string[] = [];
    const logger = createLogger('debug', (line) => lines.push(line));
    logger.info('x', { password: 'hunter2hunter2', nested: { apiToken: 'pat_abc', list: [{ value: 'v', secret: 's' }] }, cookie: 'c', keep: 'ok' });
    expect(lines[0]).not.toMatch(/hunter2|pat_abc|"v"|"s"|"c"/);
    expect(JSON.parse(lines[0]!).keep).toBe('ok');
    expect(redact({ Authorization: 'Bearer x' })).toEqual({ Authorization: '[redacted]' });
  });
});
