/** Tags (organization-owned labels) and markers (a tag applied to one entity). */
import * as v from 'valibot';
import { Description, ListQuery, strict, Timestamps, Uuid } from './common.ts';

/** Entities that carry tags, by their collection name in the API: `/{collection}/{id}/tags`. */
export const taggableCollections = ['servers', 'workspaces', 'projects', 'environments', 'services', 'datacenters', 'storages'] as const;
export type TaggableCollection = (typeof taggableCollections)[number];
/** An entity carries at most this many tags, so its whole set fits one page. */
export const MAX_TAGS_PER_ENTITY = 200;

const Color = v.pipe(v.string(), v.regex(/^#(?:[0-9A-Fa-f]{3}|[0-9A-Fa-f]{6})$/, 'must be #rgb or #rrggbb'));
const Fields = {
  /** Trimmed whitespace is dropped and runs of whitespace become one space; empty reads as null. */
  description: v.optional(v.nullable(Description)),
  color: v.optional(v.nullable(Color)),
};
/** Names: any text, 1-255 characters once trimmed, unique per organization ignoring case. */
export const TagCreate = strict({ organizationId: Uuid, name: v.string(), ...Fields });
export type TagCreate = v.InferInput<typeof TagCreate>;
export const TagUpdate = strict({ name: v.optional(v.string()), ...Fields });
export type TagUpdate = v.InferInput<typeof TagUpdate>;
export const TagListQuery = v.object({ organizationId: Uuid, ...ListQuery });

export const Tag = v.object({
  id: v.string(),
  organizationId: v.string(),
  name: v.string(),
  description: v.nullable(v.string()),
  color: v.nullable(v.string()),
  ...Timestamps,
});
export type Tag = v.InferOutput<typeof Tag>;

/** PUT `/{collection}/{id}/tags`: the entity's whole new tag set. */
export const TagSetReplace = strict({ tagIds: v.pipe(v.array(Uuid), v.maxLength(MAX_TAGS_PER_ENTITY, `at most ${MAX_TAGS_PER_ENTITY} tags`)) });
export const MarkerListQuery = v.object({ tagId: Uuid, ...ListQuery });

export const Marker = v.object({
  id: v.string(),
  tagId: v.string(),
  /** Exactly one of the entity ids is set. */
  serverId: v.nullable(v.string()),
  workspaceId: v.nullable(v.string()),
  projectId: v.nullable(v.string()),
  environmentId: v.nullable(v.string()),
  serviceId: v.nullable(v.string()),
  datacenterId: v.nullable(v.string()),
  storageId: v.nullable(v.string()),
  ...Timestamps,
});
export type Marker = v.InferOutput<typeof Marker>;
