import { Elysia } from 'elysia';
import * as v from 'valibot';
import type { AppDeps } from '../../../app.ts';
import type { Tag } from '../../../db/schema/index.ts';
import { createTag, deleteTag, listTags, loadTag, updateTag } from '../../../domain/tags/service.ts';
import { clientGuard } from '../../plugins/guard.ts';
import { timestampsOf } from '../../present.ts';
import { Description, errorResponses, IdParams, ListQuery, listEnvelope, NoContent, Uuid } from '../../schemas.ts';

const Color = v.pipe(v.string(), v.regex(/^#(?:[0-9A-Fa-f]{3}|[0-9A-Fa-f]{6})$/, 'must be #rgb or #rrggbb'));

const Fields = {
  /** Trimmed whitespace is dropped and runs of whitespace become one space; empty reads as null. */
  description: v.optional(v.nullable(Description)),
  color: v.optional(v.nullable(Color)),
};
/** Names: any text, 1-255 characters once trimmed, unique per organization ignoring case. */
const CreateBody = v.strictObject({ organizationId: Uuid, name: v.string(), ...Fields }, 'unknown field');
const UpdateBody = v.strictObject({ name: v.optional(v.string()), ...Fields }, 'unknown field');

export const TagSchema = v.object({
  id: v.string(),
  organizationId: v.string(),
  name: v.string(),
  description: v.nullable(v.string()),
  color: v.nullable(v.string()),
  createdAt: v.string(),
  updatedAt: v.string(),
});

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
        body: CreateBody,
        response: { 201: TagSchema, ...errorResponses('unauthenticated', 'forbidden', 'not_found', 'name_in_use', 'validation_failed') },
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
        query: v.object({ organizationId: Uuid, ...ListQuery }),
        response: { 200: listEnvelope(TagSchema), ...errorResponses('unauthenticated', 'not_found', 'validation_failed') },
        detail: { summary: 'List the tags of an organization' },
      },
    )
    .get('/:id', ({ actor, params }) => presentTag(loadTag(deps.db, actor, params.id)), {
      params: IdParams,
      response: { 200: TagSchema, ...errorResponses('unauthenticated', 'not_found', 'validation_failed') },
      detail: { summary: 'Read a tag' },
    })
    .patch('/:id', ({ actor, params, body }) => presentTag(updateTag(deps.db, actor, params.id, body)), {
      params: IdParams,
      body: UpdateBody,
      response: { 200: TagSchema, ...errorResponses('unauthenticated', 'forbidden', 'not_found', 'name_in_use', 'validation_failed') },
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
