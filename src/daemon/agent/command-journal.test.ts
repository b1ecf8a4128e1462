import { afterEach, describe, expect, test } from 'bun:test';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ResultFrame } from '../../contract/daemon-protocol.ts';
import { CommandJournal, INTERRUPTED_RESULT_CODE, MAX_JOURNAL_ENTRIES } from './command-journal.ts';

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});
async function journalPath(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'panel-journal-'));
  dirs.push(dir);
  return join(dir, 'commands.json');
}
const okResult = (id: string): ResultFrame => ({ type: 'result', id, ok: true, data: { containers: 1 } });

describe('CommandJournal', () => {
  test('an id begins once; its result is kept', async () => {
    const journal = CommandJournal.inMemory();
    expect(await journal.begin('a')).toBe(true);
    expect(await journal.begin('a')).toBe(false);
    expect(journal.get('a')).toEqual({ state: 'running' });
    await journal.finish(okResult('a'));
    expect(journal.get('a')).toEqual({ state: 'done', result: okResult('a') });
    expect(await journal.begin('a')).toBe(false);
  });

  test('survives a restart: finished ids keep their result, running ones become interrupted', async () => {
    const path = await journalPath();
    const before = await CommandJournal.open(path);
    await before.begin('finished');
    await before.finish(okResult('finished'));
    await before.begin('running');
    expect((await stat(path)).mode & 0o777).toBe(0o600);

    const after = await CommandJournal.open(path);
    expect(after.get('finished')).toEqual({ state: 'done', result: okResult('finished') });
    expect(after.get('running')).toEqual({
      state: 'done',
      result: { type: 'result', id: 'running', ok: false, error: { code: INTERRUPTED_RESULT_CODE, message: expect.any(String) } },
    });
    expect(await after.begin('running')).toBe(false);
  });

  test('an unreadable file starts an empty journal', async () => {
    const path = await journalPath();
    await writeFile(path, 'not json');
    expect((await CommandJournal.open(path)).get('a')).toBeUndefined();
  });

  test(`keeps the most recent ${MAX_JOURNAL_ENTRIES} ids`, async () => {
    const journal = CommandJournal.inMemory();
    for (let index = 0; index <= MAX_JOURNAL_ENTRIES; index++) await journal.begin(`c${index}`);
    expect(journal.get('c0')).toBeUndefined();
    expect(journal.get('c1')).toEqual({ state: 'running' });
    expect(journal.get(`c${MAX_JOURNAL_ENTRIES}`)).toEqual({ state: 'running' });
  });
});
