/**
 * The hub's work under load, in slices of bounded length (src/daemon/hub.ts). Bun hands every
 * socket that is ready to the event loop in one turn: when 10,000 daemons reconnected at once, a
 * turn held 200 upgrades or 200 hellos and a batch write (40-60 ms), and an API request that came
 * in meanwhile waited for all of it. Here, work runs at once while the hub's work of the current
 * turn is shorter than the budget and nothing waits; otherwise it waits, in arrival order, for a
 * later turn, and each later turn runs waiting work for at most the budget before the event loop
 * serves everything else again. While work given to `run` waits, new work waits behind it, so
 * what one daemon sends is handled in the order it was sent; work given to `later` (writes of
 * what was already answered) orders nothing.
 */

/** Entries taken from the front before the array drops them. */
const COMPACT_AFTER = 1_024;

/** How long the hub's work may hold one event-loop turn, in ms. */
export const TURN_BUDGET_MS = 2;

export class WorkSlices {
  private readonly waiting: { work: () => void; ordered: boolean }[] = [];
  /** The first waiting entry: shifting a long array entry by entry would move the rest each time. */
  private head = 0;
  /** Entries of `run` waiting. */
  private orderedWaiting = 0;
  /** When the hub's work of the current turn began; null between turns. */
  private turnStartedAt: number | null = null;
  private scheduled = false;

  constructor(
    private readonly now: () => number,
    private readonly failed: (error: unknown) => void,
    private readonly budgetMs = TURN_BUDGET_MS,
  ) {}

  /** Runs `work` now when this turn has budget left and no other work of `run` waits; else after what waits. */
  run(work: () => void): void {
    if (this.orderedWaiting === 0 && this.withinBudget()) return work();
    this.orderedWaiting++;
    this.enqueue(work, true);
  }

  /**
   * `run`, for work whose answer the caller needs: what `work` answers (or throws) when it runs
   * now, else a promise of it.
   */
  answer<T>(work: () => T): T | Promise<T> {
    let outcome: { value: T } | { error: unknown } | undefined;
    let settle: (() => void) | undefined;
    this.run(() => {
      try {
        outcome = { value: work() };
      } catch (error) {
        outcome = { error };
      }
      settle?.();
    });
    const answered = () => {
      if ('error' in outcome!) throw outcome.error;
      return outcome!.value;
    };
    if (outcome) return answered();
    return new Promise<T>((resolve, reject) => {
      settle = () => {
        try {
          resolve(answered());
        } catch (error) {
          reject(error);
        }
      };
    });
  }

  /** Runs `work` in a later turn, after what waits. */
  later(work: () => void): void {
    this.enqueue(work, false);
  }

  /** Runs everything waiting, now (the hub stopping). */
  drain(): void {
    while (this.pending > 0) this.runNext();
  }

  /** Work waiting for a later turn. */
  private get pending(): number {
    return this.waiting.length - this.head;
  }

  private withinBudget(): boolean {
    const now = this.now();
    if (this.turnStartedAt === null) {
      this.turnStartedAt = now;
      // The turn ends when the event loop gets to its immediates.
      this.schedule();
    }
    return now - this.turnStartedAt < this.budgetMs;
  }

  private enqueue(work: () => void, ordered: boolean): void {
    this.waiting.push({ work, ordered });
    this.schedule();
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.slice());
  }

  /** A later turn: waiting work, for at most the budget (and at least one entry). */
  private slice(): void {
    this.scheduled = false;
    const started = this.now();
    this.turnStartedAt = started;
    while (this.pending > 0) {
      this.runNext();
      if (this.now() - started >= this.budgetMs) break;
    }
    this.turnStartedAt = null;
    if (this.pending > 0) this.schedule();
  }

  private runNext(): void {
    const { work, ordered } = this.waiting[this.head++]!;
    if (ordered) this.orderedWaiting--;
    if (this.head === this.waiting.length || this.head >= COMPACT_AFTER) {
      this.waiting.splice(0, this.head);
      this.head = 0;
    }
    try {
      work();
    } catch (error) {
      this.failed(error);
    }
  }
}
