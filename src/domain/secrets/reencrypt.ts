import { and, asc, count, eq, gt, like, not, type SQL, sql } from 'drizzle-orm';
import { EnvelopeError } from '../../crypto/envelope.ts';
import type { KeyRing } from '../../crypto/keyring.ts';
import { resealSecret } from '../../crypto/secret.ts';
import type { Db } from '../../db/client.ts';
import { SEALED_COLUMNS, type SealedColumn } from './sealed-columns.ts';

/** Rows re-sealed per transaction: small enough to keep the write lock short. */
export const REENCRYPT_BATCH_SIZE = 500;

/** Sealed values per key id. */
export type KeyIdCounts = Record<string, number>;

/**
 * Counted in SQL (this runs at every start): the key id is the third dot-separated field of
 * `pnsecret.v1.<keyId>.<payload>`; the schema's CHECK guarantees that shape for sealed columns.
 */
export function countSealedByKeyId(db: Db): KeyIdCounts {
  const counts: KeyIdCounts = {};
  for (const column of SEALED_COLUMNS) {
    const afterVersion = sql`substr(${column.value}, instr(substr(${column.value}, 10), '.') + 10)`;
    const keyId = sql<string>`substr(${afterVersion}, 1, instr(${afterVersion}, '.') - 1)`;
    const rows = db.select({ keyId, count: count() }).from(column.table).where(column.sealedRows).groupBy(keyId).all();
    for (const row of rows) counts[row.keyId] = (counts[row.keyId] ?? 0) + row.count;
  }
  return counts;
}

/** Key ids still sealing rows that the ring cannot open, with their row counts. */
export function keyIdsMissingFromRing(counts: KeyIdCounts, ring: KeyRing): KeyIdCounts {
  return Object.fromEntries(Object.entries(counts).filter(([keyId]) => !ring.hasKey(keyId)));
}

/** One line per key id: `<keyId> <count> current|open|MISSING`, for `panel secrets status`. */
export function formatKeyIdCounts(counts: KeyIdCounts, ring: KeyRing): string {
  const ids = [...new Set([...ring.keyIds, ...Object.keys(counts)])];
  const lines = ids.map((keyId) => {
    const state = keyId === ring.currentKeyId ? 'current' : ring.hasKey(keyId) ? 'in ring' : 'MISSING from PANEL_SECRETS';
    return `${keyId.padEnd(24)} ${String(counts[keyId] ?? 0).padStart(8)}  ${state}`;
  });
  return `${'key id'.padEnd(24)} ${'secrets'.padStart(8)}  state\n${lines.join('\n')}\n`;
}

export interface ReencryptReport {
  before: KeyIdCounts;
  after: KeyIdCounts;
  resealed: number;
  /** Values that could not be opened (unknown key or damaged) and were left untouched. */
  failed: number;
}

/**
 * Re-seals every stored secret under the ring's current key, a batch per transaction, walking
 * each table by id. Values already under the current key are skipped, so a second run (or a run
 * resumed after an interruption) does nothing more than finish the job.
 */
export function reencryptAll(db: Db, ring: KeyRing, batchSize = REENCRYPT_BATCH_SIZE): ReencryptReport {
  const before = countSealedByKeyId(db);
  let resealed = 0;
  let failed = 0;
  for (const column of SEALED_COLUMNS) {
    const result = reencryptColumn(db, ring, column, batchSize);
    resealed += result.resealed;
    failed += result.failed;
  }
  return { before, after: countSealedByKeyId(db), resealed, failed };
}

function reencryptColumn(db: Db, ring: KeyRing, column: SealedColumn, batchSize: number) {
  const currentPrefix = `pnsecret.v1.${ring.currentKeyId}.%`;
  // Prepared once: per-row query building would dominate a 100,000-row run.
  const replaceIfUnchanged = db
    .update(column.table)
    .set({ [column.property]: sql.placeholder('envelope') })
    // Only replace the value we read: a concurrent write in between already sealed anew.
    .where(and(eq(column.id, sql.placeholder('id')), eq(column.value, sql.placeholder('previous'))))
    .returning({ id: column.id })
    .prepare();
  let cursor: string | null = null;
  let resealed = 0;
  let failed = 0;
  for (;;) {
    const conditions: SQL[] = [column.sealedRows, not(like(column.value, currentPrefix))];
    if (cursor) conditions.push(gt(column.id, cursor));
    const batch = db
      .select({ id: column.id, value: column.value })
      .from(column.table)
      .where(and(...conditions))
      .orderBy(asc(column.id))
      .limit(batchSize)
      .all() as { id: string; value: string }[];
    if (batch.length === 0) return { resealed, failed };
    cursor = batch[batch.length - 1]!.id;
    db.transaction(() => {
      for (const row of batch) {
        const owner = { table: column.tableName, column: column.columnName, id: row.id };
        try {
          const { envelope } = resealSecret(ring, row.value, owner);
          resealed += replaceIfUnchanged.all({ envelope, id: row.id, previous: row.value }).length;
        } catch (error) {
          if (!(error instanceof EnvelopeError)) throw error;
          failed += 1;
        }
      }
    });
  }
}
