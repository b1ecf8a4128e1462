import { eq, isNotNull, type SQL } from 'drizzle-orm';
import type { SQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core';
import { certificateAuthority, principal, serverCertificateAuthority, tls, userTotp, variable } from '../../db/schema/index.ts';

/**
 * Every column that stores `pnsecret` envelopes at rest. Re-encryption, the key-ring check at
 * start and `panel secrets status` all read this one list: a new sealed column is added here
 * and nowhere else. The owner used for sealing is {table, column, id} of the row.
 */
export interface SealedColumn {
  table: SQLiteTable;
  tableName: string;
  columnName: string;
  /** The drizzle property of the sealed column (update objects are keyed by it). */
  property: string;
  id: SQLiteColumn;
  value: SQLiteColumn;
  /** Rows whose value is a sealed envelope (others hold plaintext or null). */
  sealedRows: SQL;
}

export const SEALED_COLUMNS: readonly SealedColumn[] = [
  { table: variable, tableName: 'variable', columnName: 'value', property: 'value', id: variable.id, value: variable.value, sealedRows: eq(variable.isSecret, true) },
  { table: principal, tableName: 'principal', columnName: 'password', property: 'password', id: principal.id, value: principal.password, sealedRows: isNotNull(principal.password) },
  { table: tls, tableName: 'tls', columnName: 'private_key', property: 'privateKey', id: tls.id, value: tls.privateKey, sealedRows: isNotNull(tls.privateKey) },
  {
    table: certificateAuthority,
    tableName: 'certificate_authority',
    columnName: 'private_key',
    property: 'privateKey',
    id: certificateAuthority.id,
    value: certificateAuthority.privateKey,
    sealedRows: isNotNull(certificateAuthority.privateKey),
  },
  {
    table: serverCertificateAuthority,
    tableName: 'server_certificate_authority',
    columnName: 'private_key',
    property: 'privateKey',
    id: serverCertificateAuthority.id,
    value: serverCertificateAuthority.privateKey,
    sealedRows: isNotNull(serverCertificateAuthority.privateKey),
  },
  { table: userTotp, tableName: 'user_totp', columnName: 'secret', property: 'secret', id: userTotp.id, value: userTotp.secret, sealedRows: isNotNull(userTotp.secret) },
];
