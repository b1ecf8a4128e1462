/**
 * Creating or changing one variable. The edit form opens with the stored value, flags and
 * description and sends only what changed. Secrets are write-only: their value input is a
 * password field that starts empty (left empty on edit, the stored value is kept), and
 * "generate" asks the server for a random value that it answers once. API errors go to the
 * field they name.
 */
import { useState } from 'preact/hooks';
import { deployApi, type ScopeQuery, type Variable, type VariableSettings, type WrittenVariable } from '../deploy-api.ts';
import { changedEntries, isUnchanged } from '../changes.ts';
import { CheckField, Field, FormAlert, SubmitButton, useForm } from '../forms.tsx';

const FIELDS = ['key', 'value', 'isSecret', 'generate', 'isLiteral', 'forBuild', 'forRuntime', 'description'] as const;

interface VariableFormProps {
  scope: ScopeQuery;
  /** The row being edited; absent when creating. */
  editing?: Variable;
  onSaved: (written: WrittenVariable) => void;
  onCancel: () => void;
}

export function VariableForm({ scope, editing, onSaved, onCancel }: VariableFormProps) {
  // A secret's value is write-only: its input starts empty, and left empty the stored one is kept.
  const form = useForm(FIELDS, {}, editing ? { value: editing.value ?? '', description: editing.description ?? '' } : {});
  const [isSecret, setSecret] = useState(editing?.isSecret ?? false);
  const [generate, setGenerate] = useState(false);
  const [isLiteral, setLiteral] = useState(editing?.isLiteral ?? false);
  const [forBuild, setForBuild] = useState(editing?.forBuild ?? false);
  const [forRuntime, setForRuntime] = useState(editing?.forRuntime ?? true);
  const props = (name: (typeof FIELDS)[number]) => form.fieldProps(name);

  const submit = form.onSubmit(async (values, edited) => {
    const description = values.description?.trim() || null;
    const generated = isSecret && generate;
    if (!editing) {
      const value = generated ? { generate: true } : { value: values.value ?? '' };
      onSaved(await deployApi.variables.create({ ...scope, key: values.key ?? '', isSecret, isLiteral, forBuild, forRuntime, description, ...value }));
      return;
    }
    const changes: VariableSettings = {
      ...changedEntries({ isSecret, isLiteral, forBuild, forRuntime }, editing),
      ...('description' in edited ? { description } : {}),
      // Unchanged, the stored value stays (sealed when the variable becomes secret); a secret
      // turned plain needs a new one, which the API asks for at the field.
      ...(generated ? { generate: true } : 'value' in edited ? { value: values.value ?? '' } : {}),
    };
    if (isUnchanged(changes)) return onCancel();
    onSaved(await deployApi.variables.update(editing.id, changes));
  });

  const heading = editing ? `Edit ${editing.key}` : 'New variable';
  return (
    <form ref={form.formRef} onSubmit={submit} class="card variable-form" aria-label={heading}>
      <h3>{heading}</h3>
      {!editing && <Field {...props('key')} label="Key" hint="Letters, digits and _; not starting with a digit." required autoFocus spellcheck={false} autoComplete="off" />}
      <CheckField {...props('isSecret')} label="Secret (write-only, delivered as a file)" checked={isSecret} onChange={setSecret} />
      {isSecret && <CheckField {...props('generate')} label="Generate a random value (shown once)" checked={generate} onChange={setGenerate} />}
      {!(isSecret && generate) && (
        <Field
          {...props('value')}
          label="Value"
          type={isSecret ? 'password' : 'text'}
          autoComplete={isSecret ? 'new-password' : 'off'}
          spellcheck={false}
          hint={editing?.isSecret && isSecret ? 'Leave empty to keep the stored secret.' : undefined}
        />
      )}
      <fieldset class="segmented">
        <legend>Delivery</legend>
        <CheckField {...props('forRuntime')} label="At runtime" checked={forRuntime} onChange={setForRuntime} />
        <CheckField {...props('forBuild')} label="At build" checked={forBuild} onChange={setForBuild} />
        <CheckField {...props('isLiteral')} label="Literal (no $ interpolation)" checked={isLiteral} onChange={setLiteral} />
      </fieldset>
      <Field {...props('description')} label="Description" autoComplete="off" />
      <FormAlert problem={form.problem} />
      <div class="row">
        <SubmitButton busy={form.busy} busyLabel="Saving…">
          {editing ? 'Save variable' : 'Add variable'}
        </SubmitButton>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}

/** The one place a generated secret is shown: right after the write, until dismissed. */
export function GeneratedSecretPanel({ variableKey, value, onDismiss }: { variableKey: string; value: string; onDismiss: () => void }) {
  return (
    <div class="notice generated-secret" role="alert">
      <p>
        Generated value of <strong>{variableKey}</strong>. It is shown only now: copy it if you need it elsewhere.
      </p>
      <pre tabIndex={0} aria-label={`Generated value of ${variableKey}`}>
        <code>{value}</code>
      </pre>
      <button type="button" onClick={onDismiss}>
        Dismiss
      </button>
    </div>
  );
}
