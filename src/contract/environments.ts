/** Environments: deployable copies of a project (staging, production), each deployed as a unit. */
import * as v from 'valibot';
import { Description, EnvironmentName, JsonColumn, JsonObject, ListQuery, strict, Timestamps, Uuid } from './common.ts';
import { ComposeDocument, StoredComposeDocument } from './compose.ts';

/** `compose` is the overlay document; placement keys are accepted and stripped (placement is `serverId`). */
const EnvironmentOptions = strict({ compose: v.optional(ComposeDocument), placement: v.optional(v.unknown()), serverId: v.optional(v.unknown()) }, 'option');

const Fields = {
  name: v.optional(v.nullable(EnvironmentName)),
  description: v.optional(v.nullable(Description)),
  /** `serverId` and `component` keys are stripped. */
  metadata: v.optional(v.nullable(JsonObject)),
  options: v.optional(v.nullable(EnvironmentOptions)),
  /** Placement pin: a server of the same organization; null clears it (the project default applies). */
  serverId: v.optional(v.nullable(Uuid)),
};
export const EnvironmentCreate = strict({ projectId: Uuid, ...Fields });
export type EnvironmentCreate = v.InferInput<typeof EnvironmentCreate>;
export const EnvironmentUpdate = strict(Fields);
export type EnvironmentUpdate = v.InferInput<typeof EnvironmentUpdate>;
export const EnvironmentListQuery = v.object({ projectId: Uuid, ...ListQuery });

export const Environment = v.object({
  id: v.string(),
  projectId: v.string(),
  serverId: v.nullable(v.string()),
  /** Desired generation, raised once per deploy plan; read-only. */
  generation: v.number(),
  name: v.nullable(v.string()),
  description: v.nullable(v.string()),
  metadata: JsonColumn,
  options: v.nullable(v.looseObject({ compose: v.optional(StoredComposeDocument) })),
  ...Timestamps,
});
export type Environment = v.InferOutput<typeof Environment>;
