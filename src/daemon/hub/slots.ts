/**
 * Which container row a daemon's lines or samples belong to. A daemon names the container by the
 * platform labels it carries (environment, service, role, ordinal); the hub trusts them only as
 * far as its own records agree: the service must exist, belong to that environment and to the
 * daemon's organization. A daemon can so never write another organization's history. Answers
 * are cached per (server, runtime container id), refreshed after a minute.
 */
import { and, eq } from 'drizzle-orm';
import { container } from '../../db/schema/index.ts';
import { findService } from '../../domain/services/queries.ts';
import type { Queryable } from '../../domain/shared/database.ts';
import type { DaemonOf } from '../../domain/daemons/outcomes.ts';

export interface ContainerSlotClaim {
  containerId: string;
  name: string;
  environmentId: string;
  serviceId: string;
  role: string;
  ordinal: number;
}

export interface ResolvedSlot {
  organizationId: string;
  environmentId: string;
  serviceId: string;
  /** The container row of that slot, when there is one. */
  containerRowId: string | null;
  ordinal: number;
  containerName: string;
}

const CACHE_TTL_MS = 60_000;
const MAX_CACHED = 20_000;

export class SlotResolver {
  private readonly cache = new Map<string, { slot: ResolvedSlot | null; at: number }>();

  constructor(
    private readonly db: Queryable,
    private readonly now: () => number,
  ) {}

  /** The slot the claim names, or null when the daemon has no business naming it. */
  resolve(daemon: DaemonOf, claim: ContainerSlotClaim): ResolvedSlot | null {
    const key = `${daemon.serverId}|${claim.containerId}`;
    const cached = this.cache.get(key);
    const now = this.now();
    if (cached && now - cached.at < CACHE_TTL_MS && (cached.slot === null || cached.slot.containerName === claim.name.slice(0, 255))) return cached.slot;
    const slot = this.lookup(daemon, claim);
    if (this.cache.size >= MAX_CACHED) this.cache.delete(this.cache.keys().next().value!);
    this.cache.delete(key);
    this.cache.set(key, { slot, at: now });
    return slot;
  }

  private lookup(daemon: DaemonOf, claim: ContainerSlotClaim): ResolvedSlot | null {
    const owner = findService(this.db, claim.serviceId);
    if (!owner || owner.organizationId !== daemon.organizationId || owner.environmentId !== claim.environmentId) return null;
    const role = claim.role as typeof container.$inferSelect.role;
    const row = this.db
      .select({ id: container.id })
      .from(container)
      .where(and(eq(container.serviceId, owner.id), eq(container.role, role), eq(container.ordinal, claim.ordinal)))
      .get();
    return {
      organizationId: owner.organizationId,
      environmentId: owner.environmentId,
      serviceId: owner.id,
      containerRowId: row?.id ?? null,
      ordinal: claim.ordinal,
      containerName: claim.name.slice(0, 255),
    };
  }
}
