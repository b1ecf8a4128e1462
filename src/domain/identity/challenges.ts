/**
 * The database side of single-use challenges (`pn2fa`, `pnwebauthn`, `pnoauth`): redeeming is an
 * insert into `consumed_challenge` that fails on the primary key when the id was seen before.
 */
import { lt } from 'drizzle-orm';
import type { ChallengePurpose, ConsumedChallengeStore } from '../../crypto/index.ts';
import type { Db } from '../../db/client.ts';
import { consumedChallenge } from '../../db/schema/index.ts';
import type { Clock } from '../../lib/clock.ts';

export function consumedChallengeStore(db: Db, clock: Clock): ConsumedChallengeStore {
  return {
    consume(id: string, purpose: ChallengePurpose, expiresAt: Date): boolean {
      // Expired ids can go: their envelopes are refused as expired before the store is asked.
      db.delete(consumedChallenge).where(lt(consumedChallenge.expiresAt, clock.now())).run();
      const inserted = db
        .insert(consumedChallenge)
        .values({ id, purpose: `pn${purpose}`, expiresAt })
        .onConflictDoNothing()
        .returning({ id: consumedChallenge.id })
        .all();
      return inserted.length === 1;
    },
  };
}
