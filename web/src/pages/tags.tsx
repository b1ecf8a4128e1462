/**
 * Tags: the organization's tags page (create; edit name, color and description; delete) and the pieces other pages
 * use: a tag list, a picker that replaces an entity's whole tag set (PUT /{taggable}/{id}/tags)
 * and a filter that keeps the items carrying a chosen tag. Members of the organization see the
 * tags without the controls that change them.
 */
import { useState } from 'preact/hooks';
import { type Tag, tagApi, type Taggable } from '../account-api.ts';
import type { Project } from '../api.ts';
import { useCurrentOrganization } from '../current-organization.ts';
import { ListView, useList, useResource } from '../data.tsx';
import { isUnchanged } from '../changes.ts';
import { Field, type FieldBinding, FormAlert, SubmitButton, useForm } from '../forms.tsx';
import { ReadOnlyNote, useCanWrite } from '../role.tsx';
import { Link, usePageTitle } from '../router.tsx';
import { Breadcrumbs } from '../breadcrumbs.tsx';

const TAG_FIELDS = ['name', 'color', 'description'] as const;

export function OrganizationTagsPage({ id }: { id: string }) {
  usePageTitle('Tags');
  useCurrentOrganization(id);
  const tags = useList(`tags:${id}`, (cursor) => tagApi.list({ organizationId: id, cursor }));
  const form = useForm(TAG_FIELDS);
  const writable = useCanWrite(id);
  const create = form.onSubmit(async (values) => {
    await tagApi.create({ organizationId: id, name: values.name!, color: values.color || null, description: values.description || null });
    form.formRef.current?.reset();
    tags.reload();
  });
  return (
    <>
      <Breadcrumbs items={[{ label: 'Organization', href: `/organizations/${id}` }, { label: 'Tags' }]} />
      <h1 tabIndex={-1}>Tags</h1>
      {writable ? (
        <form ref={form.formRef} onSubmit={create} noValidate class="card stack" aria-label="Create a tag">
          <TagFields fieldProps={form.fieldProps} />
          <FormAlert problem={form.problem} />
          <SubmitButton busy={form.busy} busyLabel="Creating…">
            Create tag
          </SubmitButton>
        </form>
      ) : (
        <ReadOnlyNote action="create, rename or delete tags" />
      )}
      <ListView list={tags} what="tags" empty="This organization has no tags yet.">
        {(items) => (
          <ul class="rows">
            {items.map((tag) => (
              <TagRow key={tag.id} tag={tag} writable={writable} onChanged={tags.reload} />
            ))}
          </ul>
        )}
      </ListView>
    </>
  );
}

/** A tag's name, color and description; labelled after `tag` when it edits one. */
function TagFields({ fieldProps, tag }: { fieldProps: (name: string) => FieldBinding; tag?: Tag }) {
  const of = tag ? ` of tag ${tag.name}` : '';
  return (
    <>
      <Field {...fieldProps('name')} label={tag ? `Name${of}` : 'Tag name'} required autoComplete="off" />
      <Field {...fieldProps('color')} label={`Color${of} (optional)`} hint="#rgb or #rrggbb" spellcheck={false} autoComplete="off" />
      <Field {...fieldProps('description')} label={`Description${of} (optional)`} autoComplete="off" />
    </>
  );
}

function TagRow({ tag, writable, onChanged }: { tag: Tag; writable: boolean; onChanged: () => void }) {
  const [editing, setEditing] = useState(false);
  const remove = useForm([]);
  const drop = remove.onSubmit(async () => {
    await tagApi.remove(tag.id);
    onChanged();
  });
  return (
    <li class="row-item">
      <TagBadge tag={tag} />
      {tag.description && <span class="muted">{tag.description}</span>}
      {writable && !editing && (
        <form ref={remove.formRef} onSubmit={drop} class="row compact">
          <button type="button" onClick={() => setEditing(true)} aria-label={`Edit tag ${tag.name}`}>
            Edit
          </button>
          <button type="submit" class="danger" aria-label={`Delete tag ${tag.name}`}>
            Delete
          </button>
        </form>
      )}
      <FormAlert problem={remove.problem} />
      {editing && (
        <EditTagForm
          tag={tag}
          onCancel={() => setEditing(false)}
          onSaved={() => {
            setEditing(false);
            onChanged();
          }}
        />
      )}
    </li>
  );
}

/** Opens with the tag's name, color and description, and sends only the ones changed. */
function EditTagForm({ tag, onSaved, onCancel }: { tag: Tag; onSaved: () => void; onCancel: () => void }) {
  const form = useForm(TAG_FIELDS, {}, { name: tag.name, color: tag.color ?? '', description: tag.description ?? '' });
  const save = form.onSubmit(async (values, edited) => {
    const changes = {
      ...('name' in edited ? { name: values.name ?? '' } : {}),
      ...('color' in edited ? { color: values.color?.trim() || null } : {}),
      ...('description' in edited ? { description: values.description?.trim() || null } : {}),
    };
    if (isUnchanged(changes)) return onCancel();
    await tagApi.update(tag.id, changes);
    onSaved();
  });
  return (
    <form ref={form.formRef} onSubmit={save} noValidate class="card stack tag-form" aria-label={`Edit tag ${tag.name}`}>
      <TagFields fieldProps={form.fieldProps} tag={tag} />
      <FormAlert problem={form.problem} />
      <div class="row">
        <SubmitButton busy={form.busy} busyLabel="Saving…">
          Save tag
        </SubmitButton>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}

/** A tag's name; its color is shown as a swatch (an SVG fill, allowed by the CSP). */
export function TagBadge({ tag }: { tag: Tag }) {
  return (
    <span class="badge tag" title={tag.description ?? undefined}>
      {tag.color && (
        <svg width="10" height="10" aria-hidden="true">
          <circle cx="5" cy="5" r="5" fill={tag.color} />
        </svg>
      )}
      {tag.name}
    </span>
  );
}

/** The tags of one entity with a checkbox list to change them. */
export function TagPicker({ taggable, id, organizationId }: { taggable: Taggable; id: string; organizationId: string }) {
  const applied = useResource(`${taggable}-tags:${id}`, () => tagApi.of(taggable, id));
  const all = useList(`tags:${organizationId}`, (cursor) => tagApi.list({ organizationId, cursor }));
  const [editing, setEditing] = useState(false);
  const writable = useCanWrite(organizationId);
  const form = useForm(['tagIds']);
  const save = form.onSubmit(async () => {
    const chosen = [...(form.formRef.current?.querySelectorAll<HTMLInputElement>('input[name="tagIds"]:checked') ?? [])].map((box) => box.value);
    await tagApi.replace(taggable, id, chosen);
    setEditing(false);
    applied.reload();
  });
  const current = applied.data?.data ?? [];
  return (
    <div class="tag-picker">
      <ul class="tags" aria-label="Tags">
        {current.map((tag) => (
          <li key={tag.id}>
            <TagBadge tag={tag} />
          </li>
        ))}
      </ul>
      {!writable ? null : !editing ? (
        <button type="button" class="link" onClick={() => setEditing(true)}>
          Edit tags
        </button>
      ) : (
        <form ref={form.formRef} onSubmit={save} class="card stack">
          <fieldset>
            <legend>Tags</legend>
            {(all.data ?? []).length === 0 && <p class="muted">The organization has no tags yet.</p>}
            {(all.data ?? []).map((tag) => (
              <label key={tag.id} class="check">
                <input type="checkbox" name="tagIds" value={tag.id} defaultChecked={current.some((applied) => applied.id === tag.id)} />
                {tag.name}
              </label>
            ))}
          </fieldset>
          <FormAlert problem={form.problem} />
          <div class="row">
            <SubmitButton busy={form.busy} busyLabel="Saving…">
              Save tags
            </SubmitButton>
            <button type="button" onClick={() => setEditing(false)}>
              Cancel
            </button>
          </div>
        </form>
      )}
    </div>
  );
}

/**
 * Items filtered by a tag: loads each item's tags once, then keeps those carrying the chosen
 * one. Answers the select to show and the kept items (all of them while no tag is chosen).
 */
export function useTagFilter<T extends { id: string }>(taggable: Taggable, organizationId: string | undefined, items: T[] | undefined) {
  const [tagId, setTagId] = useState('');
  const tags = useList(`tags:${organizationId}`, (cursor) => (organizationId ? tagApi.list({ organizationId, cursor }) : Promise.resolve({ data: [], nextCursor: null })));
  const ids = (items ?? []).map((item) => item.id).join(',');
  const tagsOf = useResource(`${taggable}-tag-filter:${tagId}:${ids}`, async () =>
    tagId ? new Map(await Promise.all((items ?? []).map(async (item) => [item.id, (await tagApi.of(taggable, item.id)).data] as const))) : new Map<string, Tag[]>(),
  );
  const kept = !tagId ? items : tagsOf.data ? items?.filter((item) => tagsOf.data!.get(item.id)?.some((tag) => tag.id === tagId)) : undefined;
  const select = (tags.data ?? []).length > 0 && (
    <div class="field tag-filter">
      <label for={`${taggable}-tag-filter`}>Filter by tag</label>
      <select id={`${taggable}-tag-filter`} value={tagId} onChange={(event) => setTagId(event.currentTarget.value)}>
        <option value="">All</option>
        {(tags.data ?? []).map((tag) => (
          <option key={tag.id} value={tag.id}>
            {tag.name}
          </option>
        ))}
      </select>
    </div>
  );
  return { select, kept, tagId };
}

/** A workspace's project cards with each project's tags and the tag filter above them. */
export function TaggedProjectCards({ projects, organizationId }: { projects: Project[]; organizationId: string }) {
  const filter = useTagFilter('projects', organizationId, projects);
  return (
    <>
      {filter.select}
      {!filter.kept ? (
        <p class="muted" role="status">
          Filtering…
        </p>
      ) : filter.kept.length === 0 ? (
        <p class="muted">No project here carries that tag.</p>
      ) : (
        <ul class="cards" aria-label="Projects">
          {filter.kept.map((project) => (
            <li key={project.id} class="card">
              <Link href={`/projects/${project.id}`}>{project.name ?? 'Unnamed project'}</Link>
              {project.component && <span class="badge">Platform</span>}
              {project.description && <p class="muted">{project.description}</p>}
              <AppliedTags taggable="projects" id={project.id} />
            </li>
          ))}
        </ul>
      )}
    </>
  );
}

function AppliedTags({ taggable, id }: { taggable: Taggable; id: string }) {
  const tags = useResource(`${taggable}-tags:${id}`, () => tagApi.of(taggable, id));
  const list = tags.data?.data ?? [];
  if (list.length === 0) return null;
  return (
    <ul class="tags" aria-label="Tags">
      {list.map((tag) => (
        <li key={tag.id}>
          <TagBadge tag={tag} />
        </li>
      ))}
    </ul>
  );
}
