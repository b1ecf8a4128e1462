/**
 * The planner's refusals, with the codes and statuses the specification names (Errors): each
 * carries the planner's own message and the path of the service or setting that cannot be met.
 */
import { DomainError } from '../../lib/errors.ts';

export const PLACEMENT_REFUSALS = {
  /** Nothing can be placed: no connected server of the organization takes the service. */
  no_eligible_server: 409,
  /** Connected servers exist, but none satisfies the service's constraints. */
  constraint_unsatisfiable: 422,
  /** A service must share a server with another (`service:` namespaces, volumes_from) and cannot. */
  colocation_conflict: 422,
  /** Replicas publishing one host port need distinct servers; two services of the plan cannot share one. */
  host_port_conflict: 422,
  /** More replicas than the eligible servers can hold at max_replicas_per_node. */
  max_replicas_per_node_exceeded: 422,
  /** The plan spans servers and needs a `driver: overlay` network the organization's fabric does not provide. */
  turbofabric_required: 422,
} as const;

export type PlacementRefusalCode = keyof typeof PLACEMENT_REFUSALS;

export function placementRefusal(code: PlacementRefusalCode, message: string, path: string): DomainError {
  return new DomainError(code, PLACEMENT_REFUSALS[code], message, path);
}
