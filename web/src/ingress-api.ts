/**
 * Typed calls for the organization's TLS library, its CA and (on the organization) its ACME
 * settings. Same transport and error shape as api.ts.
 */
import { call, type Page } from './api.ts';
import type { Certificate, CertificateAuthority, CertificateCreate, CertificateUpdate } from '../../src/contract/certificates.ts';
import type { HostingLive } from '../../src/contract/hostings.ts';

export type { Certificate, CertificateAuthority, HostingLive };

const V1 = 'client/v1';

export const ingressApi = {
  certificates: (query: { organizationId: string; cursor?: string }) => call<Page<Certificate>>('GET', `${V1}/certificates`, undefined, query),
  addCertificate: (input: CertificateCreate) => call<Certificate>('POST', `${V1}/certificates`, input),
  updateCertificate: (id: string, changes: CertificateUpdate) => call<Certificate>('PATCH', `${V1}/certificates/${id}`, changes),
  removeCertificate: (id: string) => call<void>('DELETE', `${V1}/certificates/${id}`),
  authority: (organizationId: string) => call<CertificateAuthority>('GET', `${V1}/organizations/${organizationId}/certificate-authority`),
  /** Where the browser downloads the organization CA's PEM (the session cookie authenticates the GET). */
  authorityDownload: (organizationId: string) => `/api/${V1}/organizations/${organizationId}/certificate-authority/certificate`,
};

/** A date as people read it, in their own time zone. */
export const dateOf = (iso: string) => new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });

/** "expires in 12 days", "expired 3 days ago". */
export function expiryOf(iso: string, now = Date.now()): string {
  const days = Math.round((Date.parse(iso) - now) / 86_400_000);
  if (days > 1) return `expires in ${days} days`;
  if (days >= 0) return 'expires within a day';
  return `expired ${-days} days ago`;
}
