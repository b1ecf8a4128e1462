/**
 * Tags: free-form, organization-owned labels. Names are unique per organization once trimmed
 * and lower-cased and carry no format rule; descriptions are normalized like display names;
 * colors are `#rgb` or `#rrggbb`. Deleting a tag removes its markers.
 */
import type { Tag } from '../../db/schema/index.ts';
import { conflict, validationFailed } from '../../lib/errors.ts';
import { type Access, type Actor, authorize, loadFor } from '../actor.ts';
import type { Queryable } from '../shared/database.ts';
import type { Page, PageRequest } from '../shared/pagination.ts';
import { deleteTagRow, findTag, insertTag, listTagsOf, tagNamesOf, updateTagRow } from './queries.ts';

export const MAX_TAG_NAME_LENGTH = 255;

export interface TagFields {
  name?: string;
  description?: string | null;
  color?: string | null;
}

/** Trimmed, with runs of whitespace collapsed to one space; null when nothing is left. */
export function normalizeDescription(text: string | null | undefined): string | null | undefined {
  if (text === null || text === undefined) return text;
  const normalized = text.trim().replace(/\s+/g, ' ');
  return normalized === '' ? null : normalized;
}

function normalizeName(name: string | undefined): string | undefined {
  if (name === undefined) return undefined;
  const trimmed = name.trim();
  const length = [...trimmed].length;
  if (length === 0 || length > MAX_TAG_NAME_LENGTH) throw validationFailed(`must be 1 to ${MAX_TAG_NAME_LENGTH} characters once trimmed`, 'name');
  return trimmed;
}

function assertNameFree(db: Queryable, organizationId: string, name: string, exceptId?: string): void {
  const folded = name.toLowerCase();
  if (tagNamesOf(db, organizationId, exceptId).some((other) => other.trim().toLowerCase() === folded)) {
    throw conflict('name_in_use', `a tag named '${name}' already exists in this organization`, 'name');
  }
}

export function loadTag(db: Queryable, actor: Actor, id: string, access: Access = 'read'): Tag {
  return loadFor(actor, access, 'tag', findTag(db, id));
}

export function listTags(db: Queryable, actor: Actor, organizationId: string, page: PageRequest): Page<Tag> {
  authorize(actor, organizationId, 'read', 'organization');
  return listTagsOf(db, organizationId, page);
}

export function createTag(db: Queryable, actor: Actor, input: TagFields & { organizationId: string; name: string }): Tag {
  authorize(actor, input.organizationId, 'write', 'organization');
  const name = normalizeName(input.name)!;
  assertNameFree(db, input.organizationId, name);
  return insertTag(db, {
    organizationId: input.organizationId,
    name,
    description: normalizeDescription(input.description),
    color: input.color,
  });
}

export function updateTag(db: Queryable, actor: Actor, id: string, changes: TagFields): Tag {
  const row = loadTag(db, actor, id, 'write');
  const name = normalizeName(changes.name);
  if (name !== undefined) assertNameFree(db, row.organizationId, name, row.id);
  const columns = { name, description: normalizeDescription(changes.description), color: changes.color };
  if (Object.values(columns).every((value) => value === undefined)) return row;
  return updateTagRow(db, id, columns);
}

/** Its markers cascade. */
export function deleteTag(db: Queryable, actor: Actor, id: string): void {
  loadTag(db, actor, id, 'write');
  deleteTagRow(db, id);
}
