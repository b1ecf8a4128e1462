import { EnvelopeError } from '../../crypto/envelope.ts';
import type { KeyRing } from '../../crypto/keyring.ts';
import { openSecret, secretKeyId } from '../../crypto/secret.ts';
import type { Db } from '../../db/client.ts';
import type { KeyIdCounts } from './reencrypt.ts';
import { SEALED_COLUMNS } from './sealed-columns.ts';

/**
 * Opens every stored secret with `ring` and counts, per key id, the ones that do not open
 * (missing key, a different key under the same id, or damage). Empty means all open.
 */
export function countUnopenableByKeyId(db: Db, ring: KeyRing): KeyIdCounts {
  const failures: KeyIdCounts = {};
  for (const column of SEALED_COLUMNS) {
    const rows = db.select({ id: column.id, value: column.value }).from(column.table).where(column.sealedRows).all() as { id: string; value: string }[];
    for (const row of rows) {
      try {
        openSecret(ring, row.value, { table: column.tableName, column: column.columnName, id: row.id });
      } catch (error) {
        if (!(error instanceof EnvelopeError)) throw error;
        const keyId = keyIdOf(row.value);
        failures[keyId] = (failures[keyId] ?? 0) + 1;
      }
    }
  }
  return failures;
}

function keyIdOf(envelope: string): string {
  try {
    return secretKeyId(envelope);
  } catch {
    return '(malformed)';
  }
}
