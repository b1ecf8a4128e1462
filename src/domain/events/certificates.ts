/**
 * The one call the ingress makes for certificate events: issued, renewed, failed (ACME or the
 * organization CA could not produce one) and expiring (a library certificate nearing its end).
 * They join the organization's events feed and its webhook like every other event.
 */
import type { Event } from '../../db/schema/index.ts';
import type { EventRecorder } from './record.ts';

export type CertificateEventKind = 'issued' | 'renewed' | 'failed' | 'expiring';

export interface CertificateEvent {
  organizationId: string;
  kind: CertificateEventKind;
  /** The names the certificate covers (or was meant to). */
  hostnames: readonly string[];
  /** Where it happened, when a server's ingress did it. */
  serverId?: string | null;
  serviceId?: string | null;
  /** The certificate in the organization's library, when it is one of those. */
  tlsId?: string | null;
  /** ISO time the certificate stops being valid. */
  expiresAt?: string | null;
  /** Why it failed (an ACME problem, a missing DNS record); never key material. */
  reason?: string | null;
}

const SEVERITY = { issued: 'info', renewed: 'info', failed: 'error', expiring: 'warning' } as const;

function messageOf(input: CertificateEvent): string {
  const names = input.hostnames.slice(0, 5).join(', ') + (input.hostnames.length > 5 ? ` and ${input.hostnames.length - 5} more` : '');
  switch (input.kind) {
    case 'issued':
      return `Certificate issued for ${names}`;
    case 'renewed':
      return `Certificate renewed for ${names}`;
    case 'failed':
      return `Certificate for ${names} could not be obtained${input.reason ? `: ${input.reason}` : ''}`;
    case 'expiring':
      return `Certificate for ${names} expires ${input.expiresAt ?? 'soon'}`;
  }
}

export function recordCertificateEvent(events: EventRecorder, input: CertificateEvent): Event {
  return events.record({
    organizationId: input.organizationId,
    kind: `certificate.${input.kind}`,
    severity: SEVERITY[input.kind],
    message: messageOf(input),
    serverId: input.serverId ?? null,
    serviceId: input.serviceId ?? null,
    data: {
      hostnames: [...input.hostnames],
      ...(input.tlsId ? { tlsId: input.tlsId } : {}),
      ...(input.expiresAt ? { expiresAt: input.expiresAt } : {}),
      ...(input.reason ? { reason: input.reason.slice(0, 1000) } : {}),
    },
  });
}
