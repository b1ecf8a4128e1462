/** The unversioned probes and the superadmin surface. */
import * as v from 'valibot';

export const Health = v.object({ status: v.picklist(['ok', 'unavailable']), version: v.string() });

export const Readiness = v.object({
  status: v.picklist(['ready', 'not_ready']),
  version: v.string(),
  database: v.object({
    /** `disk_full`: writes are refused because the data directory's disk is full. */
    status: v.picklist(['ok', 'busy', 'unavailable', 'disk_full']),
    /** The SQLite result code when the check failed (e.g. SQLITE_READONLY). */
    code: v.optional(v.string()),
  }),
  daemonSlot: v.object({
    /** Whether the local daemon slot's unix socket accepts connections. */
    status: v.picklist(['listening', 'down']),
    /** Whether the local daemon is connected; `unknown` when this build cannot tell. Never gates readiness. */
    localDaemon: v.picklist(['connected', 'disconnected', 'unknown']),
  }),
});

const KeyIdCounts = v.pipe(v.record(v.string(), v.number()), v.description('sealed values per key id'));
/** POST /api/admin/v1/secrets/reencrypt. */
export const ReencryptReport = v.object({
  currentKeyId: v.string(),
  before: KeyIdCounts,
  after: KeyIdCounts,
  resealed: v.number(),
  failed: v.pipe(v.number(), v.description('values that could not be opened with the key ring; left untouched')),
});

/** POST /api/admin/v1/local-server/reset-key. */
export const LocalKeyReset = v.object({
  serverId: v.string(),
  pinnedKeyId: v.pipe(v.nullable(v.string()), v.description('the key pinned now; the next local daemon hello may replace it')),
  resetAt: v.string(),
});

/** POST /api/admin/v1/backups. */
export const Backup = v.object({
  name: v.pipe(v.string(), v.description('the file name inside <data dir>/backups/')),
  bytes: v.number(),
  createdAt: v.string(),
});
