/** Services: Compose services of an environment. Derived from Compose, managed allocation and daemon reports; never created by clients. */
import * as v from 'valibot';
import { Description, JsonColumn, JsonObject, ListQuery, ResourceName, strict, Timestamps, Uuid } from './common.ts';

const Resources = strict(
  {
    cpus: v.optional(v.pipe(v.number(), v.gtValue(0, 'must be above 0'), v.maxValue(1024, 'must be at most 1024'))),
    /** Bytes, or a size with a unit such as `512m` or `2g`. */
    memory: v.optional(
      v.union(
        [v.pipe(v.number(), v.integer(), v.minValue(1)), v.pipe(v.string(), v.regex(/^[1-9][0-9]*(\.[0-9]+)?[bkmgBKMG]?$/))],
        'must be a byte count or a size such as 512m',
      ),
    ),
  },
  'resource',
);

const ServiceOptions = strict(
  {
    instances: v.optional(v.pipe(v.number(), v.integer('must be an integer'), v.minValue(1, 'must be at least 1'), v.maxValue(100, 'must be at most 100'))),
    build: v.optional(JsonObject),
    operations: v.optional(JsonObject),
    healthCheck: v.optional(JsonObject),
    resources: v.optional(Resources),
    /** Deploy hooks: only where the organization enables them. */
    hooks: v.optional(JsonObject),
  },
  'option',
);

export const ServiceUpdate = strict({
  name: v.optional(v.nullable(ResourceName)),
  description: v.optional(v.nullable(Description)),
  /** Identity keys (id, environmentId, composeServiceName, serviceId, organizationId, projectId) are stripped. */
  metadata: v.optional(v.nullable(JsonObject)),
  options: v.optional(v.nullable(ServiceOptions)),
});
export type ServiceUpdate = v.InferInput<typeof ServiceUpdate>;
export const ServiceListQuery = v.object({ environmentId: Uuid, ...ListQuery });

export const Service = v.object({
  id: v.string(),
  environmentId: v.string(),
  /** Defaults to the Compose service key. */
  name: v.string(),
  description: v.nullable(v.string()),
  /** The Compose service key; derived, read-only. */
  composeServiceName: v.string(),
  metadata: JsonColumn,
  options: JsonColumn,
  ...Timestamps,
});
export type Service = v.InferOutput<typeof Service>;
