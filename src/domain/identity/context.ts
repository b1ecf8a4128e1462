import type { KeyRing } from '../../crypto/keyring.ts';
import type { Db } from '../../db/client.ts';
import type { Clock } from '../../lib/clock.ts';

/** What identity flows need from the app (AppDeps satisfies it). */
export interface IdentityContext {
  db: Db;
  clock: Clock;
  keyring: KeyRing;
}

/** Where a request came from: the rate-limit address and the session's recorded client. */
export interface RequestMeta {
  address: string;
  userAgent?: string | null;
}
