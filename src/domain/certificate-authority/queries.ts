import { eq } from 'drizzle-orm';
import { type CertificateAuthority, certificateAuthority } from '../../db/schema/index.ts';
import type { Queryable } from '../shared/database.ts';

export function findAuthorityOf(db: Queryable, organizationId: string): CertificateAuthority | undefined {
  return db.select().from(certificateAuthority).where(eq(certificateAuthority.organizationId, organizationId)).get();
}

/** Inserts unless the organization already has one; answers the organization's row either way. */
export function insertAuthority(db: Queryable, values: typeof certificateAuthority.$inferInsert): CertificateAuthority {
  db.insert(certificateAuthority).values(values).onConflictDoNothing({ target: certificateAuthority.organizationId }).run();
  return findAuthorityOf(db, values.organizationId)!;
}
