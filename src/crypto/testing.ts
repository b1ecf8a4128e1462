/**
 * Test doubles for src/crypto tests. The real `ConsumedChallengeStore` is a database table
 * (consumed_challenge); this in-memory one has the same contract.
 */
import type { ChallengePurpose, ConsumedChallengeStore } from './challenge.ts';

export class MemoryConsumedChallengeStore implements ConsumedChallengeStore {
  readonly consumed = new Map<string, { purpose: ChallengePurpose; expiresAt: Date }>();

  consume(id: string, purpose: ChallengePurpose, expiresAt: Date): boolean {
    if (this.consumed.has(id)) return false;
    this.consumed.set(id, { purpose, expiresAt });
    return true;
  }
}
