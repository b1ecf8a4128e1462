/**
 * What a log, metric or live request is about: one container, a service (every replica) or an
 * environment (every service), resolved to its organization and checked like any read: another
 * organization's id answers 404, exactly like a missing one.
 */
import { eq } from 'drizzle-orm';
import { service } from '../../db/schema/index.ts';
import { DomainError } from '../../lib/errors.ts';
import { type Actor, authorize } from '../actor.ts';
import { findContainer } from '../containers/queries.ts';
import { findEnvironment } from '../environments/queries.ts';
import { findService } from '../services/queries.ts';
import type { Queryable } from '../shared/database.ts';
import { notFound } from '../../lib/errors.ts';

export type TargetRef = { containerId: string } | { serviceId: string } | { environmentId: string };

export interface ResolvedTarget {
  organizationId: string;
  environmentId: string;
  /** The services whose history is read. */
  serviceIds: string[];
  /** Set when the target is one container row. */
  containerId?: string;
}

/** Exactly one of the ids, as the request named it. */
export function targetOf(query: { containerId?: string; serviceId?: string; environmentId?: string }): TargetRef {
  const given = [query.containerId, query.serviceId, query.environmentId].filter((id) => id !== undefined);
  if (given.length !== 1) throw new DomainError('validation_failed', 'name exactly one of containerId, serviceId and environmentId', 'serviceId');
  if (query.containerId !== undefined) return { containerId: query.containerId };
  if (query.serviceId !== undefined) return { serviceId: query.serviceId };
  return { environmentId: query.environmentId! };
}

/** Resolves the target; 404 when it is missing or not the caller's to read. */
export function loadTarget(db: Queryable, actor: Actor, target: TargetRef): ResolvedTarget {
  const resolved = resolveTarget(db, target);
  const what = 'containerId' in target ? 'container' : 'serviceId' in target ? 'service' : 'environment';
  if (!resolved) throw notFound(what);
  authorize(actor, resolved.organizationId, 'read', what);
  return resolved;
}

/** The target without an access check (the hub's own use), or undefined when it does not exist. */
export function resolveTarget(db: Queryable, target: TargetRef): ResolvedTarget | undefined {
  if ('containerId' in target) {
    const row = findContainer(db, target.containerId);
    const owner = row && findService(db, row.serviceId);
    return row && owner ? { organizationId: row.organizationId, environmentId: owner.environmentId, serviceIds: [row.serviceId], containerId: row.id } : undefined;
  }
  if ('serviceId' in target) {
    const row = findService(db, target.serviceId);
    return row ? { organizationId: row.organizationId, environmentId: row.environmentId, serviceIds: [row.id] } : undefined;
  }
  const row = findEnvironment(db, target.environmentId);
  if (!row) return undefined;
  const serviceIds = db.select({ id: service.id }).from(service).where(eq(service.environmentId, row.id)).all().map((s) => s.id);
  return { organizationId: row.organizationId, environmentId: row.id, serviceIds };
}
