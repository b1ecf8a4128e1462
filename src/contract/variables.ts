/** Variables: one configuration key/value at exactly one scope; secrets are write-only. */
import * as v from 'valibot';
import { Description, EnvironmentKey, ListQuery, strict, Timestamps, Uuid } from './common.ts';

/** 64 KiB of UTF-8. Messages never echo the value: it may be a secret. */
export const MAX_VARIABLE_VALUE_BYTES = 65536;
const Value = v.pipe(v.string('value must be a string'), v.maxBytes(MAX_VARIABLE_VALUE_BYTES, 'value must be at most 64 KiB'));

/** Exactly one scope parent: on create, and as the list filter. */
const ScopeFields = {
  organizationId: v.optional(Uuid),
  workspaceId: v.optional(Uuid),
  projectId: v.optional(Uuid),
  environmentId: v.optional(Uuid),
  serviceId: v.optional(Uuid),
  hostingId: v.optional(Uuid),
  serverId: v.optional(Uuid),
};

const Settings = {
  isLiteral: v.optional(v.boolean()),
  forBuild: v.optional(v.boolean()),
  forRuntime: v.optional(v.boolean()),
  description: v.optional(v.nullable(Description)),
};

const ValueFields = {
  value: v.optional(Value),
  isSecret: v.optional(v.boolean()),
  /** Secrets only: the server picks a random value and returns it once as `generatedValue`. */
  generate: v.optional(v.boolean()),
};

export const VariableCreate = strict({ ...ScopeFields, key: EnvironmentKey(255), ...ValueFields, ...Settings });
export type VariableCreate = v.InferInput<typeof VariableCreate>;
export const VariableUpdate = strict({ ...ValueFields, ...Settings });
export type VariableUpdate = v.InferInput<typeof VariableUpdate>;
export const VariableListQuery = v.object({ ...ListQuery, ...ScopeFields });

export const Variable = v.object({
  id: v.string(),
  organizationId: v.nullable(v.string()),
  workspaceId: v.nullable(v.string()),
  projectId: v.nullable(v.string()),
  environmentId: v.nullable(v.string()),
  serviceId: v.nullable(v.string()),
  hostingId: v.nullable(v.string()),
  serverId: v.nullable(v.string()),
  /** Set on system-owned rows materialized by a binding (read-only to clients). */
  bindingId: v.nullable(v.string()),
  key: v.string(),
  /** Null for secrets: they are write-only. */
  value: v.nullable(v.string()),
  isSecret: v.boolean(),
  isLiteral: v.boolean(),
  forBuild: v.boolean(),
  forRuntime: v.boolean(),
  description: v.nullable(v.string()),
  ...Timestamps,
});
export type Variable = v.InferOutput<typeof Variable>;
/** The answer to a write: a generated secret is shown here, once. */
export const WrittenVariable = v.object({ ...Variable.entries, generatedValue: v.optional(v.string()) });
export type WrittenVariable = v.InferOutput<typeof WrittenVariable>;
