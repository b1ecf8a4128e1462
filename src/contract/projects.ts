/** Projects: one application described by one Compose document, owned by a workspace. */
import * as v from 'valibot';
import { Description, JsonObject, ListQuery, refuseArrays, strict, Timestamps, Uuid } from './common.ts';
import { ComposeDocument, StoredComposeDocument } from './compose.ts';
import { containerNamings, projectTypes } from './enums.ts';

const ProjectOptions = strict(
  {
    /** The base ComposeDocument. */
    compose: v.optional(ComposeDocument),
    containerNaming: v.optional(v.picklist(containerNamings, 'must be uuid or custom')),
    /** Server used by environments without a pin: one of the same organization. */
    defaultServerId: v.optional(v.nullable(Uuid)),
    /** Seed provenance. */
    composeSource: v.optional(JsonObject),
  },
  'option',
);

/** `type` is docker-compose, managed or template (`system` is platform-only); other keys are free. */
const ProjectMetadata = refuseArrays(v.looseObject({ type: v.optional(v.picklist(projectTypes, `must be one of ${projectTypes.join(', ')}`)) }));

const Fields = {
  /** Unique per organization after trimming and case folding; 1-255 characters once trimmed. */
  name: v.optional(v.nullable(v.string())),
  description: v.optional(v.nullable(Description)),
  metadata: v.optional(v.nullable(ProjectMetadata)),
  options: v.optional(v.nullable(ProjectOptions)),
};
export const ProjectCreate = strict({ workspaceId: Uuid, ...Fields });
export type ProjectCreate = v.InferInput<typeof ProjectCreate>;
export const ProjectUpdate = strict({ workspaceId: v.optional(Uuid), ...Fields });
export type ProjectUpdate = v.InferInput<typeof ProjectUpdate>;
export const ProjectListQuery = v.object({ workspaceId: v.optional(Uuid), organizationId: v.optional(Uuid), ...ListQuery });

export const Project = v.object({
  id: v.string(),
  organizationId: v.string(),
  workspaceId: v.string(),
  repositoryId: v.nullable(v.string()),
  name: v.nullable(v.string()),
  description: v.nullable(v.string()),
  /** Set on the platform's own projects only; those are read-only to clients. */
  component: v.nullable(v.string()),
  metadata: v.nullable(v.looseObject({ type: v.optional(v.picklist(projectTypes)) })),
  options: v.nullable(
    v.looseObject({
      compose: v.optional(StoredComposeDocument),
      containerNaming: v.optional(v.picklist(containerNamings)),
      defaultServerId: v.optional(v.nullable(v.string())),
      composeSource: v.optional(v.record(v.string(), v.unknown())),
    }),
  ),
  ...Timestamps,
});
export type Project = v.InferOutput<typeof Project>;
