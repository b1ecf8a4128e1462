/**
 * Certificate events: issued, renewed, failed (ACME or the organization CA could not produce one)
 * and expiring. `recordCertificateEvent` is the one call for each; the hub calls it for what the
 * ingress reports (`certificateChangeEvent`), and `warnExpiringCertificates` (the hub's hourly sweep) for the TLS
 * library's certificates nearing their end. They join the organization's events feed and its
 * webhook like every other event.
 */
import { and, eq, sql } from 'drizzle-orm';
import { describeCertificate, readCertificateChain } from '../../crypto/certificates.ts';
import { type Event, event, tls } from '../../db/schema/index.ts';
import type { CertificateChange } from '../ingress/state.ts';
import type { Queryable } from '../shared/database.ts';
import type { EventRecorder } from './record.ts';

/** A library certificate ending within this many days is announced (once per end date). */
export const EXPIRY_WARNING_DAYS = 14;
const DAY_MS = 86_400_000;

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

/**
 * What a change a server's ingress reported announces: `failed` when a certificate turns failed or
 * fails for another reason; `issued` when one it obtains (ACME or the organization CA) is first
 * served; `renewed` when it is served again with a later end. Library certificates are uploaded,
 * not obtained: only their failures (a name they do not cover) are announced.
 */
export function certificateChangeEvent(change: CertificateChange): CertificateEvent | null {
  const { current, previous, organizationId, serverId } = change;
  const base = { organizationId, serverId, hostnames: [current.hostname], expiresAt: current.notAfter?.toISOString() ?? null };
  if (current.status === 'failed') {
    const again = previous?.status === 'failed' && previous.error === current.error;
    return again ? null : { ...base, kind: 'failed', reason: current.error };
  }
  if (current.status !== 'issued' || (current.source !== 'acme' && current.source !== 'internal')) return null;
  if (previous?.status !== 'issued' || previous.source !== current.source) return { ...base, kind: 'issued' };
  const later = (current.notAfter?.getTime() ?? 0) > (previous.notAfter?.getTime() ?? 0);
  return later ? { ...base, kind: 'renewed' } : null;
}

/**
 * One `certificate.expiring` event for each library certificate that ends within
 * EXPIRY_WARNING_DAYS (or has ended) and was not announced for that end date yet: a certificate
 * replaced by a renewed one is announced again when the new one nears its end. Returns how many.
 */
export function warnExpiringCertificates(db: Queryable, events: EventRecorder, now: Date): number {
  const horizon = now.getTime() + EXPIRY_WARNING_DAYS * DAY_MS;
  let recorded = 0;
  for (const row of db.select({ id: tls.id, organizationId: tls.organizationId, certificate: tls.certificate }).from(tls).all()) {
    // The library checked the chain at upload; a row that no longer parses is not this sweep's to judge.
    let facts: ReturnType<typeof describeCertificate>;
    try {
      facts = describeCertificate(readCertificateChain(row.certificate));
    } catch {
      continue;
    }
    if (facts.notAfter.getTime() > horizon) continue;
    const expiresAt = facts.notAfter.toISOString();
    const announced = db
      .select({ id: event.id })
      .from(event)
      .where(
        and(
          eq(event.organizationId, row.organizationId),
          eq(event.kind, 'certificate.expiring'),
          sql`json_extract(${event.data}, '$.tlsId') = ${row.id}`,
          sql`json_extract(${event.data}, '$.expiresAt') = ${expiresAt}`,
        ),
      )
      .get();
    if (announced) continue;
    recordCertificateEvent(events, { organizationId: row.organizationId, kind: 'expiring', hostnames: facts.names, tlsId: row.id, expiresAt });
    recorded += 1;
  }
  return recorded;
}
