/**
 * The organization TLS library (`tls` in the specification): certificates hostings pin with
 * `tlsId`. The private key is write-only (answered as null); the chain, its names, issuer and
 * validity are shown. Refusals of a chain or key are 422 on `certificate` or `privateKey`.
 */
import type { AppDeps } from '../../../deps.ts';
import { Certificate, CertificateCreate, CertificateListQuery, CertificateUpdate } from '../../../contract/certificates.ts';
import { describeCertificate, readCertificateChain } from '../../../crypto/certificates.ts';
import type { Tls } from '../../../db/schema/index.ts';
import { hostingCounts } from '../../../domain/certificates/queries.ts';
import { createCertificate, listCertificates, loadCertificate } from '../../../domain/certificates/service.ts';
import type { Queryable } from '../../../domain/shared/database.ts';
import { changeCertificate, removeCertificate } from '../../../domain/ingress/writes.ts';
import { clientGuard } from '../../plugins/guard.ts';
import { resourceRoutes } from '../../resource.ts';

/** Each row with what its chain says and how many hostings pin it (one count query for all). */
function withFacts(db: Queryable, rows: Tls[]) {
  const counts = hostingCounts(db, rows.map((row) => row.id));
  return rows.map((row) => ({ ...row, ...describeCertificate(readCertificateChain(row.certificate)), hostingCount: counts.get(row.id) ?? 0 }));
}

export const certificateRoutes = (deps: AppDeps) => {
  const one = (row: Tls) => withFacts(deps.db, [row])[0]!;
  const ingressWrite = { ...deps, notify: deps.hub.notifier };
  return resourceRoutes({
    collection: 'certificates',
    schema: Certificate,
    derive: { privateKey: () => null },
    guard: clientGuard(deps),
    create: {
      body: CertificateCreate,
      run: (actor, body) => one(createCertificate(deps, actor, body)),
      summary: "Add a certificate to the organization's TLS library",
    },
    list: {
      query: CertificateListQuery,
      run: (actor, query) => {
        const page = listCertificates(deps.db, actor, query.organizationId, query);
        return { data: withFacts(deps.db, page.data), nextCursor: page.nextCursor };
      },
      summary: "List the organization's TLS library",
    },
    read: { run: (actor, id) => one(loadCertificate(deps.db, actor, id)), summary: 'Read a certificate (never its private key)' },
    update: {
      body: CertificateUpdate,
      run: (actor, id, body) => one(changeCertificate(ingressWrite, actor, id, body)),
      errors: ['secret_unreadable'],
      summary: 'Rename a certificate or replace its chain and/or key',
      description:
        'A new chain alone is checked against the stored key (a renewal keeping its key); a new key alone against the stored chain. ' +
        'The servers serving hostings that pin it apply the new one.',
    },
    remove: {
      run: (actor, id) => removeCertificate(ingressWrite, actor, id),
      summary: 'Delete a certificate; hostings that pinned it get an internal certificate (tlsId set null)',
    },
  });
};
