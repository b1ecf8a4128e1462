/** Containers: one container of a service on the server observed to host it. */
import * as v from 'valibot';
import { JsonColumn, JsonObject, ListQuery, strict, Text, Timestamps, Uuid } from './common.ts';
import { containerRoles, containerStatuses } from './enums.ts';

/** Free-form JSON: identity keys (id, serviceId, serverId, containerId, status, role, ...) are stripped. */
const Json = {
  metadata: v.optional(v.nullable(JsonObject)),
  options: v.optional(v.nullable(JsonObject)),
};
/** Status and the runtime container id come from daemon reports only. */
export const ContainerCreate = strict({
  serviceId: Uuid,
  /** The server observed to host it: one of the same organization. */
  serverId: Uuid,
  containerName: Text(255),
  composeServiceName: Text(255),
  role: v.optional(v.picklist(containerRoles, `must be one of ${containerRoles.join(', ')}`)),
  ordinal: v.optional(v.pipe(v.number(), v.integer('must be an integer'), v.minValue(1, 'must be at least 1'), v.maxValue(10_000, 'must be at most 10000'))),
  ...Json,
});
export type ContainerCreate = v.InferInput<typeof ContainerCreate>;
export const ContainerUpdate = strict(Json);
export type ContainerUpdate = v.InferInput<typeof ContainerUpdate>;
export const ContainerListQuery = v.object({ serviceId: v.optional(Uuid), serverId: v.optional(Uuid), ...ListQuery });

export const Container = v.object({
  id: v.string(),
  serviceId: v.string(),
  serverId: v.string(),
  containerId: v.nullable(v.string()),
  containerName: v.string(),
  status: v.picklist(containerStatuses),
  /** The container no longer exists on its server (destroyed, or removed outside Panel); `status` is the last state it had. */
  isRemoved: v.boolean(),
  role: v.picklist(containerRoles),
  composeServiceName: v.string(),
  ordinal: v.number(),
  metadata: JsonColumn,
  options: JsonColumn,
  ...Timestamps,
});
export type Container = v.InferOutput<typeof Container>;
