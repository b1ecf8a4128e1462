import { Elysia } from 'elysia';
import * as v from 'valibot';
import type { AppDeps } from '../../../app.ts';
import type { Marker } from '../../../db/schema/index.ts';
import { listEntityTags, listMarkers, replaceEntityTags, type TaggableCollection } from '../../../domain/markers/service.ts';
import { clientGuard } from '../../plugins/guard.ts';
import { timestampsOf } from '../../present.ts';
import { IdParams, ListQuery, listEnvelope } from '../../../contract/common.ts';
import { errorResponses } from '../../schemas.ts';
import { presentTag } from './tags.ts';
import { Marker as MarkerResponse, MarkerListQuery, TagSetReplace, Tag as TagResponse } from '../../../contract/tags.ts';

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
        response: { 200: listEnvelope(TagResponse), ...errorResponses('unauthenticated', 'not_found', 'validation_failed') },
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
        body: TagSetReplace,
        response: { 200: listEnvelope(TagResponse), ...errorResponses('unauthenticated', 'forbidden', 'not_found', 'validation_failed') },
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
        query: MarkerListQuery,
        response: { 200: listEnvelope(MarkerResponse), ...errorResponses('unauthenticated', 'not_found', 'validation_failed') },
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
