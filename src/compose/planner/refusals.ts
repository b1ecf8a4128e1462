/**
 * The planner's refusals, with the codes the specification names (Errors; the codes and their
 * statuses are in the error catalog, src/contract/errors.ts): each carries the planner's own
 * message and the path of the service or setting that cannot be met.
 *
 * - no_eligible_server (409): no connected server of the organization takes a scheduled service;
 * - constraint_unsatisfiable: connected servers exist, but none satisfies its constraints;
 * - colocation_conflict: a service sharing a namespace or volumes with another cannot land with it;
 * - host_port_conflict: replicas publishing one host port need distinct servers, and two
 *   services of the plan cannot bind one port on a server;
 * - max_replicas_per_node_exceeded: the eligible servers cannot hold the replicas at the cap;
 * - turbofabric_required: the plan spans servers and needs a `driver: overlay` network the
 *   organization's fabric does not provide.
 */
import type { PLACEMENT_REFUSAL_CODES } from '../../contract/errors.ts';
import { DomainError } from '../../lib/errors.ts';

export type PlacementRefusalCode = (typeof PLACEMENT_REFUSAL_CODES)[number];

export function placementRefusal(code: PlacementRefusalCode, message: string, path: string): DomainError {
  return new DomainError(code, message, path);
}
