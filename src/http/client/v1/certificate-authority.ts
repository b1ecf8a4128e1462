/**
 * The organization CA (docs/DECISIONS.md "Ingress"): every server's internal certificates chain
 * to this one root. Members read it and download it to trust it; it is made on first use.
 *   GET /organizations/:id/certificate-authority              its certificate and facts (JSON)
 *   GET /organizations/:id/certificate-authority/certificate  the PEM file, as a download
 */
import { X509Certificate } from 'node:crypto';
import { Elysia } from 'elysia';
import * as v from 'valibot';
import type { AppDeps } from '../../../deps.ts';
import type { CertificateAuthority } from '../../../db/schema/index.ts';
import { readOrganizationAuthority } from '../../../domain/certificate-authority/service.ts';
import { clientGuard } from '../../plugins/guard.ts';
import { iso } from '../../present.ts';
import { IdParams } from '../../../contract/common.ts';
import { CertificateAuthority as CertificateAuthorityResponse } from '../../../contract/certificates.ts';
import { errorResponses } from '../../schemas.ts';

function present(row: CertificateAuthority) {
  const parsed = new X509Certificate(row.certificate);
  return {
    organizationId: row.organizationId,
    certificate: row.certificate,
    subject: parsed.subject.replaceAll('\n', ', '),
    notBefore: iso(new Date(parsed.validFrom)),
    notAfter: iso(new Date(parsed.validTo)),
    fingerprint: parsed.fingerprint256,
  };
}

export const certificateAuthorityRoutes = (deps: AppDeps) =>
  new Elysia({ prefix: '/organizations', detail: { tags: ['organizations'] } })
    .use(clientGuard(deps))
    .get('/:id/certificate-authority', ({ actor, params }) => present(readOrganizationAuthority(deps, actor, params.id)), {
      params: IdParams,
      response: { 200: CertificateAuthorityResponse, ...errorResponses('unauthenticated', 'not_found', 'validation_failed') },
      role: 'member',
      detail: { summary: "The organization CA's root certificate, which internal certificates chain to" },
    })
    .get(
      '/:id/certificate-authority/certificate',
      ({ actor, params, set }) => {
        const row = readOrganizationAuthority(deps, actor, params.id);
        set.headers['content-type'] = 'application/x-pem-file';
        set.headers['content-disposition'] = `attachment; filename="panel-${row.organizationId}-root-ca.pem"`;
        return row.certificate;
      },
      {
        params: IdParams,
        response: { 200: v.string(), ...errorResponses('unauthenticated', 'not_found', 'validation_failed') },
        role: 'member',
        detail: { summary: 'Download the organization CA root certificate (PEM) to add to a trust store' },
      },
    );
