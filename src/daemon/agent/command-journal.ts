/**
 * What the agent remembers about commands so that an id runs at most once. The hub redelivers a
 * command until it sees its result (after a reconnect, or after the agent restarted), so every
 * delivery of a known id is answered from here instead of being run again:
 *   running      acked again; the result follows when the run ends
 *   done         acked again and answered with the recorded result
 *   interrupted  the agent stopped while it ran (found `running` on load): answered with a
 *                failed result, never re-run, because how far it got is unknown
 * The journal is written through to <stateDir>/commands.json (0600) on every change and keeps
 * the most recent MAX_ENTRIES ids. Results hold no secret values (see compose-runner.ts).
 */
import { readFile } from 'node:fs/promises';
import * as v from 'valibot';
import { Frame, type ResultFrame } from '../../contract/daemon-protocol.ts';
import { writePrivateFile } from './identity.ts';

export const MAX_JOURNAL_ENTRIES = 1000;

const JournalFile = v.object({
  commands: v.array(v.object({ id: v.string(), result: v.nullable(v.unknown()) })),
});

export type JournalEntry = { state: 'running' } | { state: 'done'; result: ResultFrame };

export const INTERRUPTED_RESULT_CODE = 'interrupted';

export class CommandJournal {
  private readonly entries = new Map<string, JournalEntry>();
  private writing: Promise<void> = Promise.resolve();

  /** `path` null keeps the journal in memory only. */
  private constructor(private readonly path: string | null) {}

  static inMemory(): CommandJournal {
    return new CommandJournal(null);
  }

  /** Loads the journal at `path` (a missing or unreadable file starts empty). */
  static async open(path: string): Promise<CommandJournal> {
    const journal = new CommandJournal(path);
    const parsed = v.safeParse(JournalFile, await readJson(path));
    for (const { id, result } of parsed.success ? parsed.output.commands : []) {
      const frame = v.safeParse(Frame, result);
      const recorded = frame.success && frame.output.type === 'result' ? frame.output : interruptedResult(id);
      journal.entries.set(id, { state: 'done', result: recorded });
    }
    return journal;
  }

  get(id: string): JournalEntry | undefined {
    return this.entries.get(id);
  }

  /** Marks `id` as running; false when it is already known (then it must not run). */
  async begin(id: string): Promise<boolean> {
    if (this.entries.has(id)) return false;
    this.entries.set(id, { state: 'running' });
    this.evictOldest();
    await this.persist();
    return true;
  }

  async finish(result: ResultFrame): Promise<void> {
    this.entries.delete(result.id);
    this.entries.set(result.id, { state: 'done', result });
    this.evictOldest();
    await this.persist();
  }

  private evictOldest(): void {
    for (const id of this.entries.keys()) {
      if (this.entries.size <= MAX_JOURNAL_ENTRIES) return;
      this.entries.delete(id);
    }
  }

  /** Writes are chained so the file always ends with the latest state. */
  private persist(): Promise<void> {
    const path = this.path;
    if (path === null) return Promise.resolve();
    const commands = [...this.entries].map(([id, entry]) => ({ id, result: entry.state === 'done' ? entry.result : null }));
    this.writing = this.writing.catch(() => undefined).then(() => writePrivateFile(path, JSON.stringify({ commands })));
    return this.writing;
  }
}

function interruptedResult(id: string): ResultFrame {
  return { type: 'result', id, ok: false, error: { code: INTERRUPTED_RESULT_CODE, message: 'the daemon stopped while this command ran; it was not run again' } };
}

async function readJson(path: string): Promise<unknown> {
  try {
    return JSON.parse(await readFile(path, 'utf8'));
  } catch {
    return undefined;
  }
}
