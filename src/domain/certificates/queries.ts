import { and, eq, inArray, isNotNull } from 'drizzle-orm';
import { hosting, type NewTls, type Tls, tls } from '../../db/schema/index.ts';
import type { Queryable } from '../shared/database.ts';
import { type Page, type PageRequest, pageWindow, toPage } from '../shared/pagination.ts';

export function findCertificate(db: Queryable, id: string): Tls | undefined {
  return db.select().from(tls).where(eq(tls.id, id)).get();
}

export function listCertificatesOf(db: Queryable, organizationId: string, page: PageRequest): Page<Tls> {
  const { where, fetch, limit } = pageWindow(tls.id, page, eq(tls.organizationId, organizationId));
  return toPage(db.select().from(tls).where(where).orderBy(tls.id).limit(fetch).all(), limit);
}

export function insertCertificate(db: Queryable, values: NewTls): Tls {
  return db.insert(tls).values(values).returning().get();
}

export function updateCertificateRow(db: Queryable, id: string, changes: Partial<NewTls>): Tls {
  return db.update(tls).set(changes).where(eq(tls.id, id)).returning().get()!;
}

export function deleteCertificateRow(db: Queryable, id: string): void {
  db.delete(tls).where(eq(tls.id, id)).run();
}

/** How many hostings pin each certificate of the list. */
export function hostingCounts(db: Queryable, ids: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  if (ids.length === 0) return counts;
  const rows = db
    .select({ tlsId: hosting.tlsId })
    .from(hosting)
    .where(and(isNotNull(hosting.tlsId), inArray(hosting.tlsId, [...ids])))
    .all();
  for (const { tlsId } of rows) counts.set(tlsId!, (counts.get(tlsId!) ?? 0) + 1);
  return counts;
}
