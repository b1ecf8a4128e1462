/**
 * The JSON text of cacheable list pages (src/domain/shared/cacheable-list.ts), each kept with the
 * change counters of the tables it was read from. A page is answered again only while those
 * counters are what they were when it was read, and only after the request's own authorization
 * passed: the text is the same for every caller allowed to ask. Reading a 50-service page costs
 * SQLite alone about twice what a whole /api/health answer does (docs/PERFORMANCE.md, finding 20).
 *
 * Bounded by entries and by characters kept, for each list route that has one (four do: 4 Mi
 * characters in all, twice that in bytes for text beyond Latin-1); the least recently answered
 * page goes first.
 */
export interface AnswerCacheLimits {
  entries: number;
  characters: number;
}

export const ANSWER_CACHE_LIMITS: AnswerCacheLimits = { entries: 128, characters: 1024 * 1024 };

interface Kept {
  changes: string;
  text: string;
}

/**
 * `answer(key, changes, build)`: the text kept under `key` when it was read under `changes`,
 * else `build()` (kept unless `changes` is null). The caller reads `changes` before `build`
 * reads any row, so a page is never kept under counters newer than its rows.
 */
export function answerCache(limits: AnswerCacheLimits = ANSWER_CACHE_LIMITS) {
  const kept = new Map<string, Kept>();
  let characters = 0;
  const drop = (key: string, entry: Kept) => {
    kept.delete(key);
    characters -= entry.text.length;
  };
  return (key: string, changes: string | null, build: () => string): string => {
    const found = kept.get(key);
    if (found) {
      drop(key, found);
      if (found.changes === changes) {
        // Answered again: now the most recent.
        kept.set(key, found);
        characters += found.text.length;
        return found.text;
      }
    }
    const text = build();
    if (changes === null || text.length > limits.characters) return text;
    kept.set(key, { changes, text });
    characters += text.length;
    for (const [oldestKey, oldest] of kept) {
      if (kept.size <= limits.entries && characters <= limits.characters) break;
      drop(oldestKey, oldest);
    }
    return text;
  };
}
