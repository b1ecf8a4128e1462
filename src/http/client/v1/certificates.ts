/**
 * The organization TLS library (`tls` in the specification): certificates hostings pin with
 * `tlsId`. The private key is write-only (answered as null); the chain, its names, issuer and
 * validity are shown. Refusals of a chain or key are 422 on `certificate` or `privateKey`.
 */
import { Elysia } from 'elysia';
import type { AppDeps } from '../../../app.ts';
import { describeCertificate, readCertificateChain } from '../../../crypto/certificates.ts';
import type { Tls } from '../../../db/schema/index.ts';
import { createCertificate, deleteCertificate, listCertificates, loadCertificate, updateCertificate } from '../../../domain/certificates/service.ts';
import { hostingCounts } from '../../../domain/certificates/queries.ts';
import { serversPinning } from '../../../domain/ingress/queries.ts';
import { clientGuard } from '../../plugins/guard.ts';
import { writeWithIngress } from './ingress-refresh.ts';
import { iso, timestampsOf } from '../../present.ts';
import { IdParams, listEnvelope, NoContent } from '../../../contract/common.ts';
import { Certificate as CertificateResponse, CertificateCreate, CertificateListQuery, CertificateUpdate } from '../../../contract/certificates.ts';
import { errorResponses } from '../../schemas.ts';

function present(row: Tls, hostingCount: number) {
  const facts = describeCertificate(readCertificateChain(row.certificate));
  return {
    id: row.id,
    organizationId: row.organizationId,
    name: row.name,
    certificate: row.certificate,
    privateKey: null,
    subject: facts.subject,
    names: facts.names,
    issuer: facts.issuer,
    notBefore: iso(facts.notBefore),
    notAfter: iso(facts.notAfter),
    fingerprint: facts.fingerprint,
    keyType: facts.keyType,
    chainLength: facts.chainLength,
    hostingCount,
    ...timestampsOf(row),
  };
}

export const certificateRoutes = (deps: AppDeps) => {
  const presentOne = (row: Tls) => present(row, hostingCounts(deps.db, [row.id]).get(row.id) ?? 0);
  return new Elysia({ prefix: '/certificates', detail: { tags: ['certificates'] } })
    .use(clientGuard(deps))
    .post(
      '/',
      ({ actor, body, set }) => {
        set.status = 201;
        return presentOne(createCertificate(deps, actor, body));
      },
      {
        body: CertificateCreate,
        response: { 201: CertificateResponse, ...errorResponses('unauthenticated', 'forbidden', 'not_found', 'validation_failed') },
        detail: { summary: "Add a certificate to the organization's TLS library (admins)" },
      },
    )
    .get(
      '/',
      ({ actor, query }) => {
        const page = listCertificates(deps.db, actor, query.organizationId, query);
        const counts = hostingCounts(deps.db, page.data.map((row) => row.id));
        return { data: page.data.map((row) => present(row, counts.get(row.id) ?? 0)), nextCursor: page.nextCursor };
      },
      {
        query: CertificateListQuery,
        response: { 200: listEnvelope(CertificateResponse), ...errorResponses('unauthenticated', 'not_found', 'validation_failed') },
        detail: { summary: "List the organization's TLS library" },
      },
    )
    .get('/:id', ({ actor, params }) => presentOne(loadCertificate(deps.db, actor, params.id)), {
      params: IdParams,
      response: { 200: CertificateResponse, ...errorResponses('unauthenticated', 'not_found', 'validation_failed') },
      detail: { summary: 'Read a certificate (never its private key)' },
    })
    .patch(
      '/:id',
      ({ actor, params, body }) =>
        presentOne(writeWithIngress(deps, (tx) => ({ result: updateCertificate({ ...deps, db: tx }, actor, params.id, body), servers: serversPinning(tx, params.id) }))),
      {
        params: IdParams,
        body: CertificateUpdate,
        response: { 200: CertificateResponse, ...errorResponses('unauthenticated', 'forbidden', 'not_found', 'secret_unreadable', 'validation_failed') },
        detail: {
          summary: 'Rename a certificate or replace its chain and/or key',
          description:
            'A new chain alone is checked against the stored key (a renewal keeping its key); a new key alone against the stored chain. ' +
            'The servers serving hostings that pin it apply the new one.',
        },
      },
    )
    .delete(
      '/:id',
      ({ actor, params, set }) => {
        writeWithIngress(deps, (tx) => {
          const servers = serversPinning(tx, params.id);
          deleteCertificate(tx, actor, params.id);
          return { result: undefined, servers };
        });
        set.status = 204;
      },
      {
        params: IdParams,
        response: { 204: NoContent, ...errorResponses('unauthenticated', 'forbidden', 'not_found', 'validation_failed') },
        detail: { summary: 'Delete a certificate; hostings that pinned it get an internal certificate (tlsId set null)' },
      },
    );
};
