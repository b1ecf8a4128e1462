import { Elysia } from 'elysia';
import type { AppDeps } from '../../../app.ts';
import type { Tag } from '../../../db/schema/index.ts';
import { createTag, deleteTag, listTags, loadTag, updateTag } from '../../../domain/tags/service.ts';
import { clientGuard } from '../../plugins/guard.ts';
import { timestampsOf } from '../../present.ts';
import { IdParams, listEnvelope, NoContent } from '../../../contract/common.ts';
import { errorResponses } from '../../schemas.ts';
import { Tag as TagResponse, TagCreate, TagListQuery, TagUpdate } from '../../../contract/tags.ts';

export const presentTag = (row: Tag) => ({
  id: row.id,
  organizationId: row.organizationId,
  name: row.name,
  description: row.description,
  color: row.color,
  ...timestampsOf(row),
});

export const tagRoutes = (deps: AppDeps) =>
  new Elysia({ prefix: '/tags', detail: { tags: ['tags'] } })
    .use(clientGuard(deps))
    .post(
      '/',
      ({ actor, body, set }) => {
        set.status = 201;
        return presentTag(createTag(deps.db, actor, body));
      },
      {
        body: TagCreate,
        response: { 201: TagResponse, ...errorResponses('unauthenticated', 'forbidden', 'not_found', 'name_in_use', 'validation_failed') },
        detail: { summary: 'Create a tag in an organization' },
      },
    )
    .get(
      '/',
      ({ actor, query }) => {
        const page = listTags(deps.db, actor, query.organizationId, query);
        return { data: page.data.map(presentTag), nextCursor: page.nextCursor };
      },
      {
        query: TagListQuery,
        response: { 200: listEnvelope(TagResponse), ...errorResponses('unauthenticated', 'not_found', 'validation_failed') },
        detail: { summary: 'List the tags of an organization' },
      },
    )
    .get('/:id', ({ actor, params }) => presentTag(loadTag(deps.db, actor, params.id)), {
      params: IdParams,
      response: { 200: TagResponse, ...errorResponses('unauthenticated', 'not_found', 'validation_failed') },
      detail: { summary: 'Read a tag' },
    })
    .patch('/:id', ({ actor, params, body }) => presentTag(updateTag(deps.db, actor, params.id, body)), {
      params: IdParams,
      body: TagUpdate,
      response: { 200: TagResponse, ...errorResponses('unauthenticated', 'forbidden', 'not_found', 'name_in_use', 'validation_failed') },
      detail: { summary: 'Rename, describe or recolor a tag' },
    })
    .delete(
      '/:id',
      ({ actor, params, set }) => {
        deleteTag(deps.db, actor, params.id);
        set.status = 204;
      },
      {
        params: IdParams,
        response: { 204: NoContent, ...errorResponses('unauthenticated', 'forbidden', 'not_found', 'validation_failed') },
        detail: { summary: 'Delete a tag and every marker applying it' },
      },
    );
