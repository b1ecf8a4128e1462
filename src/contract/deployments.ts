/** Deploy, stop and destroy of an environment, the deployments they create and the deploy preview. */
import * as v from 'valibot';
import { ListQuery, strict, Timestamps, Uuid } from './common.ts';
import { containerRoles, deploymentKinds, deploymentStatuses } from './enums.ts';

export const DeploymentListQuery = v.object({ environmentId: Uuid, ...ListQuery });
export const Deployment = v.object({
  id: v.string(),
  environmentId: v.string(),
  serverId: v.nullable(v.string()),
  kind: v.picklist(deploymentKinds),
  desiredGeneration: v.number(),
  status: v.picklist(deploymentStatuses),
  error: v.nullable(v.string()),
  ...Timestamps,
});
export type Deployment = v.InferOutput<typeof Deployment>;

/** Optional: a deploy may be sent with no body at all. No server field: placement lives on the environment. */
export const DeployRequest = v.optional(
  strict({
    /** Proceed although the plan warns about health checks. */
    acknowledgeHealthCheckWarnings: v.optional(v.boolean()),
    /** Build without the layer cache (services with `build`). */
    noCache: v.optional(v.boolean()),
    /** A source reference to deploy; not supported (501 source_ref_unsupported). */
    ref: v.optional(v.unknown()),
  }),
);
export type DeployRequest = v.InferOutput<typeof DeployRequest>;
/** Stop and destroy take no fields; the body may be left out. */
export const TeardownRequest = v.optional(strict({}));
export const Deployed = v.object({ ...Deployment.entries, warnings: v.array(v.string()) });
export type Deployed = v.InferOutput<typeof Deployed>;

const Source = v.object({ variableId: v.string(), scope: v.string(), scopeId: v.string() });
const ResolvedEntry = v.object({
  key: v.string(),
  value: v.nullable(v.string()),
  isSecret: v.boolean(),
  isLiteral: v.boolean(),
  forBuild: v.boolean(),
  forRuntime: v.boolean(),
  ...Source.entries,
  /** Rows of the same key at wider scopes that this one overrides, nearest first. */
  shadowed: v.array(Source),
});

const ServerRef = v.object({ id: v.string(), name: v.string() });

export const DeployPreview = v.object({
  /** The anchor: the environment pin or the project default. */
  server: ServerRef,
  /** The `x-panel.placement.server_id` the compiler records in the anchor's runtime document. */
  placementServerId: v.string(),
  /** One block per server the plan places work on, the anchor's first (none when nothing is placed). */
  blocks: v.array(
    v.object({
      serverId: v.string(),
      serverName: v.string(),
      /** The runtime compose.yaml of that server (its `x-panel.placement.server_id` names it); secrets only as ./secrets/<name> files. */
      yaml: v.string(),
      containers: v.array(
        v.object({ serviceId: v.string(), composeServiceName: v.string(), containerName: v.string(), role: v.picklist(containerRoles), ordinal: v.number() }),
      ),
      /** Secret files that server's daemon would receive; never their values. */
      secrets: v.array(v.object({ name: v.string(), serviceId: v.string(), key: v.string() })),
    }),
  ),
  /** Servers that ran the environment and drop out of the plan: a deploy stops the project there. */
  stops: v.array(ServerRef),
  /** Per service, where each variable comes from; secret values are null. */
  variables: v.array(v.object({ serviceId: v.string(), composeServiceName: v.string(), entries: v.array(ResolvedEntry) })),
  warnings: v.array(v.string()),
});
export type DeployPreview = v.InferOutput<typeof DeployPreview>;
