import { Elysia } from 'elysia';
import * as v from 'valibot';
import type { AppDeps } from '../../../app.ts';
import type { Marker } from '../../../db/schema/index.ts';
import {
  listEntityTags,
  listMarkers,
  MAX_TAGS_PER_ENTITY,
  replaceEntityTags,
  type TaggableCollection,
} from '../../../domain/markers/service.ts';
import { clientGuard } from '../../plugins/guard.ts';
import { timestampsOf } from '../../present.ts';
import { errorResponses, IdParams, ListQuery, listEnvelope, Uuid } from '../../schemas.ts';
import { presentTag, TagSchema } from './tags.ts';

const ReplaceTagsBody = v.strictObject(
  { tagIds: v.pipe(v.array(Uuid), v.maxLength(MAX_TAGS_PER_ENTITY, `at most ${MAX_TAGS_PER_ENTITY} tags`)) },
  'unknown field',
);

const MarkerSchema = v.object({
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
  createdAt: v.string(),
  updatedAt: v.string(),
});

const present = (row: Marker) => ({
  id: row.id,
  tagId: row.tagId,
  serverId: row.serverId,
  workspaceId: row.workspaceId,
  projectId: row.projectId,
  environmentId: row.environmentId,
  serviceId: row.serviceId,
  datacenterId: row.datacenterId,
  storageId: row.storageId,
  ...timestampsOf(row),
});

/** GET and PUT of one kind of entity's tag set: `/{collection}/{id}/tags`. */
const entityTagRoutes = (deps: AppDeps, collection: TaggableCollection) =>
  new Elysia({ prefix: `/${collection}` as string, detail: { tags: ['markers'] } })
    .use(clientGuard(deps))
    .get(
      '/:id/tags',
      ({ actor, params, query }) => {
        const page = listEntityTags(deps.db, actor, collection, params.id, query);
        return { data: page.data.map(presentTag), nextCursor: page.nextCursor };
      },
      {
        params: IdParams,
        query: v.object(ListQuery),
        response: { 200: listEnvelope(TagSchema), ...errorResponses('unauthenticated', 'not_found', 'validation_failed') },
        detail: { summary: `List the tags applied to one of the ${collection}` },
      },
    )
    .put(
      '/:id/tags',
      ({ actor, params, body }) => ({
        data: replaceEntityTags(deps.db, actor, collection, params.id, body.tagIds).map(presentTag),
        nextCursor: null,
      }),
      {
        params: IdParams,
        body: ReplaceTagsBody,
        response: { 200: listEnvelope(TagSchema), ...errorResponses('unauthenticated', 'forbidden', 'not_found', 'validation_failed') },
        detail: { summary: `Replace the whole tag set of one of the ${collection} (answers the new set)` },
      },
    );

export const markerRoutes = (deps: AppDeps) =>
  new Elysia({ detail: { tags: ['markers'] } })
    .use(clientGuard(deps))
    .get(
      '/markers',
      ({ actor, query }) => {
        const page = listMarkers(deps.db, actor, query.tagId, query);
        return { data: page.data.map(present), nextCursor: page.nextCursor };
      },
      {
        query: v.object({ tagId: Uuid, ...ListQuery }),
        response: { 200: listEnvelope(MarkerSchema), ...errorResponses('unauthenticated', 'not_found', 'validation_failed') },
        detail: { summary: 'List the markers applying a tag' },
      },
    )
    .use(entityTagRoutes(deps, 'servers'))
    .use(entityTagRoutes(deps, 'workspaces'))
    .use(entityTagRoutes(deps, 'projects'))
    .use(entityTagRoutes(deps, 'environments'))
    .use(entityTagRoutes(deps, 'services'))
    .use(entityTagRoutes(deps, 'datacenters'))
    .use(entityTagRoutes(deps, 'storages'));
