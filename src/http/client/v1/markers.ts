/**
 * Markers (a tag applied to one entity): listed per tag, and each taggable entity's whole tag
 * set read and replaced at `/{collection}/{id}/tags`.
 */
import { Elysia } from 'elysia';
import * as v from 'valibot';
import type { AppDeps } from '../../../deps.ts';
import { IdParams, ListQuery, listEnvelope } from '../../../contract/common.ts';
import { Marker, MarkerListQuery, Tag, type TaggableCollection, taggableCollections, TagSetReplace } from '../../../contract/tags.ts';
import { listEntityTags, listMarkers, replaceEntityTags } from '../../../domain/markers/service.ts';
import { clientGuard } from '../../plugins/guard.ts';
import { resourceRoutes } from '../../resource.ts';
import { errorResponses } from '../../schemas.ts';
import { presentTag } from './tags.ts';

const READ_ERRORS = ['unauthenticated', 'install_required', 'not_found', 'validation_failed'] as const;

/** GET and PUT of one kind of entity's tag set. */
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
        response: { 200: listEnvelope(Tag), ...errorResponses(...READ_ERRORS) },
        role: 'member',
        detail: { summary: `List the tags applied to one of the ${collection}` },
      },
    )
    .put(
      '/:id/tags',
      ({ actor, params, body }) => ({ data: replaceEntityTags(deps.db, actor, collection, params.id, body.tagIds).map(presentTag), nextCursor: null }),
      {
        params: IdParams,
        body: TagSetReplace,
        response: { 200: listEnvelope(Tag), ...errorResponses(...READ_ERRORS, 'forbidden') },
        role: 'admin',
        detail: { summary: `Replace the whole tag set of one of the ${collection} (answers the new set)` },
      },
    );

export const markerRoutes = (deps: AppDeps) =>
  taggableCollections.reduce(
    (routes, collection) => routes.use(entityTagRoutes(deps, collection)),
    new Elysia().use(
      resourceRoutes({
        collection: 'markers',
        schema: Marker,
        guard: clientGuard(deps),
        list: { query: MarkerListQuery, run: (actor, query) => listMarkers(deps.db, actor, query.tagId, query), summary: 'List the markers applying a tag' },
      }),
    ),
  );
