/**
 * The pieces the organization, workspace, project and environment pages share: a "New …" form
 * (name, description, plus any fields the caller adds) that opens what it created, a settings
 * section that renames, describes and deletes (with a confirmation that explains in plain words
 * what blocks a delete, then lands on the parent page), and the hook that shows a saved copy
 * over the loaded one without reloading the page. Each change is announced (structure-api.ts)
 * so navigation elsewhere on screen follows it. Members of the organization, who may not write,
 * get the values read-only instead (role.tsx).
 */
import type { ComponentChildren } from 'preact';
import { useId, useState } from 'preact/hooks';
import type { ApiError } from './api.ts';
import { isUnchanged } from './changes.ts';
import { ConfirmDialog } from './confirm-dialog.tsx';
import { Field, type FieldBinding, FormAlert, SubmitButton, useForm } from './forms.tsx';
import { ReadOnlyNote, useCanWrite } from './role.tsx';
import { navigate } from './router.tsx';
import { announceStructureChanged, NAME_HINTS, type NameAndDescription, type StructureKind } from './structure-api.ts';

type What = StructureKind;

interface Named {
  id: string;
  name: string | null;
  description: string | null;
  updatedAt: string;
}

/**
 * What a create form sends, or with `edited` only the fields the user changed. An empty
 * description clears it; the name is sent as typed, so the API judges an empty one.
 */
const changesFrom = (values: Record<string, string>, edited: Partial<Record<string, string>> = values): NameAndDescription => ({
  ...('name' in edited ? { name: values.name } : {}),
  ...('description' in edited ? { description: values.description?.trim() ? values.description : null } : {}),
});

/**
 * Creates a workspace, project or environment, then opens its page. `extraFields` names the
 * caller's own inputs (rendered by `children`) so API errors about them land next to them.
 */
export function CreateForm({
  what,
  organizationId,
  create,
  extraFields = [],
  children,
}: {
  what: What;
  organizationId: string;
  create: (fields: NameAndDescription, values: Record<string, string>) => Promise<{ id: string }>;
  extraFields?: string[];
  children?: (fieldProps: (name: string) => FieldBinding) => ComponentChildren;
}) {
  const headingId = useId();
  const form = useForm(['name', 'description', ...extraFields]);
  const writable = useCanWrite(organizationId);
  const submit = form.onSubmit(async (values) => {
    const created = await create(changesFrom(values), values);
    announceStructureChanged(what);
    navigate(`/${what}s/${created.id}`);
  });
  if (!writable) return <ReadOnlyNote action={`create ${what}s`} />;
  return (
    <form ref={form.formRef} onSubmit={submit} noValidate class="card stack entity-form" aria-labelledby={headingId}>
      <h3 id={headingId}>New {what}</h3>
      <Field {...form.fieldProps('name')} label="Name" hint={NAME_HINTS[what]} required autoComplete="off" />
      <Field {...form.fieldProps('description')} label="Description (optional)" autoComplete="off" />
      {children?.(form.fieldProps)}
      <FormAlert problem={form.problem} />
      <div>
        <SubmitButton busy={form.busy} busyLabel="Creating…">
          Create {what}
        </SubmitButton>
      </div>
    </form>
  );
}

/** What to do about the dependents a restricted delete names, per kind of dependent. */
const REMEDIES: Record<string, string> = {
  projects: 'Delete its projects, or move them to another workspace, first',
  environments: 'Delete each of its environments first (on the environment’s page)',
  services: 'Its services come from the Compose file: delete them first (on each service’s page)',
};

/** A 409 has_dependents in plain words: what still hangs off the resource and what to do about it. */
export function explainRestrict(what: What, error: ApiError): string | undefined {
  if (error.code !== 'has_dependents') return undefined;
  const dependents = /still has (\w+)/.exec(error.message)?.[1];
  if (dependents) return `This ${what} still has ${dependents}. ${REMEDIES[dependents] ?? 'Remove them first'}, then delete the ${what}.`;
  return `Other records still refer to this ${what} (bindings or principals, for example). Remove them first, then delete the ${what}.`;
}

interface EntitySettingsProps<T extends Named> {
  what: What;
  entity: T;
  organizationId: string;
  /** Why the name cannot change (the platform workspace); the name field is then left out. */
  fixedName?: string;
  /** Why it cannot be deleted; the delete button is then left out. */
  undeletable?: string;
  save: (changes: NameAndDescription) => Promise<T>;
  onSaved: (updated: T) => void;
  remove: () => Promise<void>;
  /** What the delete confirmation says goes with it. */
  consequence: string;
  /** Where a delete lands. */
  parentHref: string;
}

/** Rename and describe an entity, and delete it after a confirmation; members see it read-only. */
export function EntitySettings<T extends Named>(props: EntitySettingsProps<T>) {
  const writable = useCanWrite(props.organizationId);
  return writable ? <EditableSettings {...props} /> : <ReadOnlySettings what={props.what} entity={props.entity} />;
}

function EditableSettings<T extends Named>(props: EntitySettingsProps<T>) {
  const { what, entity, fixedName, undeletable } = props;
  const headingId = useId();
  const form = useForm(['name', 'description'], {}, { name: entity.name ?? '', description: entity.description ?? '' });
  const [outcome, setOutcome] = useState<'updated' | 'unchanged' | null>(null);
  const [confirming, setConfirming] = useState(false);
  const submit = form.onSubmit(async (values, edited) => {
    setOutcome(null);
    const changes = changesFrom(values, edited);
    if (isUnchanged(changes)) return setOutcome('unchanged');
    props.onSaved(await props.save(changes));
    announceStructureChanged(what);
    setOutcome('updated');
  });
  const label = entity.name ?? `unnamed ${what}`;

  return (
    <section aria-labelledby={headingId} class="card stack entity-settings">
      <h2 id={headingId}>Settings</h2>
      <form ref={form.formRef} onSubmit={submit} noValidate aria-label={`Rename or describe the ${what}`}>
        {fixedName ? <p class="muted">{fixedName}</p> : <Field {...form.fieldProps('name')} label="Name" hint={NAME_HINTS[what]} required autoComplete="off" />}
        <Field {...form.fieldProps('description')} label="Description (optional)" autoComplete="off" />
        <FormAlert problem={form.problem} />
        <div class="row">
          {/* Named apart from the Compose editor's Save button on the project page. */}
          <SubmitButton busy={form.busy} busyLabel="Updating…">
            Update {what}
          </SubmitButton>
          <span role="status" class="muted">
            {form.busy ? '' : outcome === 'updated' ? 'Updated.' : outcome === 'unchanged' ? 'Nothing changed.' : ''}
          </span>
        </div>
      </form>
      {undeletable ? (
        <p class="muted">{undeletable}</p>
      ) : (
        <div>
          <button type="button" class="danger" onClick={() => setConfirming(true)}>
            Delete {what}
          </button>
        </div>
      )}
      {confirming && (
        <ConfirmDialog
          title={`Delete ${what} ${label}?`}
          confirmLabel={`Delete ${what}`}
          explain={(error) => explainRestrict(what, error)}
          onClose={() => setConfirming(false)}
          onConfirm={async () => {
            await props.remove();
            announceStructureChanged(what);
            // Unsaved changes to what was just deleted (its Compose file) no longer matter.
            navigate(props.parentHref, { replace: true, discardUnsaved: true });
          }}
        >
          <p>{props.consequence}</p>
        </ConfirmDialog>
      )}
    </section>
  );
}

/** What a member sees of the settings: the values, and who may change them. */
function ReadOnlySettings({ what, entity }: { what: What; entity: Named }) {
  const headingId = useId();
  return (
    <section aria-labelledby={headingId} class="card stack entity-settings">
      <h2 id={headingId}>Settings</h2>
      <dl class="facts">
        <dt>Name</dt>
        <dd>{entity.name ?? <span class="muted">Unnamed {what}</span>}</dd>
        <dt>Description</dt>
        <dd>{entity.description ?? <span class="muted">None</span>}</dd>
      </dl>
      <ReadOnlyNote />
    </section>
  );
}

/**
 * The loaded entity, or the copy a save answered when that is newer: a rename shows at once
 * without reloading the page (which would remount its editors and forms).
 */
export function useSavedOver<T extends Named>(loaded: T | undefined) {
  const [saved, setSaved] = useState<T | null>(null);
  const current = saved && loaded && saved.id === loaded.id && saved.updatedAt >= loaded.updatedAt ? saved : loaded;
  return [current, setSaved] as const;
}
