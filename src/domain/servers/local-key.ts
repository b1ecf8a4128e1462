/**
 * The local server's daemon key is pinned at the local daemon's first hello (src/daemon/hub/
 * servers.ts, checkLocalKey); a hello never changes it. Changing it is an operator's act: a
 * superadmin (POST /api/admin/v1/local-server/reset-key) or someone with the host's data dir
 * (`panel local-daemon reset-key`) allows the next local hello to bring a new key. The key in use
 * stays until that hello, so deploys keep working meanwhile.
 */
import { eq } from 'drizzle-orm';
import { server } from '../../db/schema/index.ts';
import { notFound } from '../../lib/errors.ts';
import type { Queryable } from '../shared/database.ts';

export interface LocalKeyReset {
  serverId: string;
  /** The key pinned now; the next local hello may replace it. */
  pinnedKeyId: string | null;
  resetAt: Date;
}

export function allowNewLocalDaemonKey(db: Queryable, now: Date): LocalKeyReset {
  const row = db.update(server).set({ keyResetAt: now }).where(eq(server.isLocal, true)).returning().get();
  if (!row) throw notFound('local server');
  return { serverId: row.id, pinnedKeyId: row.daemonKeyId, resetAt: now };
}
