/**
 * The organization TLS library (`tls` in the specification): certificates hostings pin with
 * `tlsId`. The private key is write-only (answered as null); the chain, its names, issuer and
 * validity are shown. Refusals of a chain or key are 422 on `certificate` or `privateKey`.
 */
import { Elysia } from 'elysia';
import * as v from 'valibot';
import type { AppDeps } from '../../../app.ts';
import { describeCertificate, MAX_CERTIFICATE_PEM_CHARS, MAX_PRIVATE_KEY_PEM_CHARS, readCertificateChain } from '../../../crypto/certificates.ts';
import type { Tls } from '../../../db/schema/index.ts';
import { createCertificate, deleteCertificate, listCertificates, loadCertificate, updateCertificate } from '../../../domain/certificates/service.ts';
import { hostingCounts } from '../../../domain/certificates/queries.ts';
import { serversPinning } from '../../../domain/ingress/queries.ts';
import { clientGuard } from '../../plugins/guard.ts';
import { writeWithIngress } from './ingress-refresh.ts';
import { iso, timestampsOf } from '../../present.ts';
import { errorResponses, IdParams, ListQuery, listEnvelope, NoContent, Uuid } from '../../schemas.ts';

const Name = v.pipe(v.string(), v.minLength(1, 'must not be empty'), v.maxLength(255, 'must be at most 255 characters'));
const CertificatePem = v.pipe(v.string(), v.maxLength(MAX_CERTIFICATE_PEM_CHARS, `must be at most ${MAX_CERTIFICATE_PEM_CHARS} characters`));
/** Messages never echo the key. */
const PrivateKeyPem = v.pipe(v.string('privateKey must be a string'), v.maxLength(MAX_PRIVATE_KEY_PEM_CHARS, `privateKey must be at most ${MAX_PRIVATE_KEY_PEM_CHARS} characters`));

const CreateBody = v.strictObject(
  {
    organizationId: Uuid,
    name: Name,
    /** PEM chain: the certificate first, then each issuer (intermediates; the root may be left out). */
    certificate: CertificatePem,
    /** PEM private key of the first certificate (PKCS#8, PKCS#1 or SEC 1; not encrypted). Write-only. */
    privateKey: PrivateKeyPem,
  },
  'unknown field',
);
const UpdateBody = v.strictObject(
  { name: v.optional(Name), certificate: v.optional(CertificatePem), privateKey: v.optional(PrivateKeyPem) },
  'unknown field',
);

const CertificateSchema = v.object({
  id: v.string(),
  organizationId: v.string(),
  name: v.string(),
  certificate: v.string(),
  /** Write-only: always null. */
  privateKey: v.null(),
  subject: v.string(),
  /** DNS names (and IP: addresses) the certificate is valid for. */
  names: v.array(v.string()),
  issuer: v.string(),
  notBefore: v.string(),
  notAfter: v.string(),
  fingerprint: v.string(),
  keyType: v.string(),
  chainLength: v.number(),
  /** Hostings that pin it. */
  hostingCount: v.number(),
  createdAt: v.string(),
  updatedAt: v.string(),
});

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
        body: CreateBody,
        response: { 201: CertificateSchema, ...errorResponses('unauthenticated', 'forbidden', 'not_found', 'validation_failed') },
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
        query: v.object({ organizationId: Uuid, ...ListQuery }),
        response: { 200: listEnvelope(CertificateSchema), ...errorResponses('unauthenticated', 'not_found', 'validation_failed') },
        detail: { summary: "List the organization's TLS library" },
      },
    )
    .get('/:id', ({ actor, params }) => presentOne(loadCertificate(deps.db, actor, params.id)), {
      params: IdParams,
      response: { 200: CertificateSchema, ...errorResponses('unauthenticated', 'not_found', 'validation_failed') },
      detail: { summary: 'Read a certificate (never its private key)' },
    })
    .patch(
      '/:id',
      ({ actor, params, body }) =>
        presentOne(writeWithIngress(deps, (tx) => ({ result: updateCertificate({ ...deps, db: tx }, actor, params.id, body), servers: serversPinning(tx, params.id) }))),
      {
      params: IdParams,
      body: UpdateBody,
      response: { 200: CertificateSchema, ...errorResponses('unauthenticated', 'forbidden', 'not_found', 'secret_unreadable', 'validation_failed') },
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
