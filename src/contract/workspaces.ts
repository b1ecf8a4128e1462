/** Workspaces: groups of projects inside one organization. */
import * as v from 'valibot';
import { Description, ListQuery, ResourceName, strict, Timestamps, Uuid } from './common.ts';
import { workspaceKinds } from './enums.ts';

const Fields = {
  /** Unique per organization (case-insensitive); 'TurboPanel' is reserved. */
  name: v.optional(v.nullable(ResourceName)),
  description: v.optional(v.nullable(Description)),
};
/** Clients create `user` workspaces only; the `panel` workspace is made at install. */
export const WorkspaceCreate = strict({ organizationId: Uuid, kind: v.optional(v.literal('user', 'clients create user workspaces only')), ...Fields });
export type WorkspaceCreate = v.InferInput<typeof WorkspaceCreate>;
export const WorkspaceUpdate = strict(Fields);
export type WorkspaceUpdate = v.InferInput<typeof WorkspaceUpdate>;
export const WorkspaceListQuery = v.object({ organizationId: Uuid, ...ListQuery });

export const Workspace = v.object({
  id: v.string(),
  organizationId: v.string(),
  name: v.nullable(v.string()),
  description: v.nullable(v.string()),
  kind: v.picklist(workspaceKinds),
  ...Timestamps,
});
export type Workspace = v.InferOutput<typeof Workspace>;
