import type { AppDeps } from '../../../deps.ts';
import { Tag, TagCreate, TagListQuery, TagUpdate } from '../../../contract/tags.ts';
import { createTag, deleteTag, listTags, loadTag, updateTag } from '../../../domain/tags/service.ts';
import { clientGuard } from '../../plugins/guard.ts';
import { presenterOf } from '../../present.ts';
import { resourceRoutes } from '../../resource.ts';

export const presentTag = presenterOf(Tag);

export const tagRoutes = (deps: AppDeps) =>
  resourceRoutes({
    collection: 'tags',
    schema: Tag,
    guard: clientGuard(deps),
    create: { body: TagCreate, run: (actor, body) => createTag(deps.db, actor, body), errors: ['name_in_use'], summary: 'Create a tag in an organization' },
    list: { query: TagListQuery, run: (actor, query) => listTags(deps.db, actor, query.organizationId, query), summary: 'List the tags of an organization' },
    read: { run: (actor, id) => loadTag(deps.db, actor, id), summary: 'Read a tag' },
    update: {
      body: TagUpdate,
      run: (actor, id, body) => updateTag(deps.db, actor, id, body),
      errors: ['name_in_use'],
      summary: 'Rename, describe or recolor a tag',
    },
    remove: { run: (actor, id) => deleteTag(deps.db, actor, id), summary: 'Delete a tag and every marker applying it' },
  });
