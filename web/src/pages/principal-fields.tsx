/**
 * Form pieces the principals, managed-database and service pages share: a labelled select and
 * checkbox whose errors sit under them (like forms.tsx's Field), the write-only password fields
 * (type a new one, or have Panel generate one that is shown once), filling an edit form's text
 * inputs, and refusals explained in plain words.
 */
import type { RefObject } from 'preact';
import { useEffect } from 'preact/hooks';
import type { ApiError } from '../api.ts';
import { Field } from '../forms.tsx';
import type { PasswordChange } from '../principals-api.ts';

interface FieldBase {
  id: string;
  name: string;
  label: string;
  hint?: string;
  error?: string;
}

const describedBy = ({ id, hint, error }: FieldBase) => [hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ') || undefined;

function HintAndError({ id, hint, error }: FieldBase) {
  return (
    <>
      {hint && (
        <p class="field-hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
      {error && (
        <p class="field-error" id={`${id}-error`}>
          {error}
        </p>
      )}
    </>
  );
}

export interface Choice {
  value: string;
  label: string;
}

/**
 * A select; `selected` is its initial choice (a form reset returns to the first one). With
 * `onChange` it also reports each choice, for forms whose other fields depend on it.
 */
export function SelectField(props: FieldBase & { choices: Choice[]; selected?: string; onChange?: (value: string) => void; required?: boolean }) {
  const { id, name, label, error, choices, selected, onChange, required } = props;
  return (
    <div class={error ? 'field field-invalid' : 'field'}>
      <label for={id}>{label}</label>
      <select
        id={id}
        name={name}
        required={required}
        aria-invalid={error ? 'true' : undefined}
        aria-describedby={describedBy(props)}
        onChange={onChange && ((event) => onChange(event.currentTarget.value))}
      >
        {choices.map((choice) => (
          <option key={choice.value} value={choice.value} selected={choice.value === selected}>
            {choice.label}
          </option>
        ))}
      </select>
      <HintAndError {...props} />
    </div>
  );
}

/** A checkbox; controlled when `checked` is given, else `initially` is its default. */
export function CheckField(props: FieldBase & { checked?: boolean; initially?: boolean; onChange?: (checked: boolean) => void; value?: string }) {
  const { id, name, label, error, checked, initially, onChange, value } = props;
  return (
    <div class={error ? 'field toggle field-invalid' : 'field toggle'}>
      <label for={id}>
        <input
          type="checkbox"
          id={id}
          name={name}
          value={value}
          checked={checked}
          defaultChecked={checked === undefined ? initially : undefined}
          onChange={onChange && ((event) => onChange(event.currentTarget.checked))}
          aria-invalid={error ? 'true' : undefined}
          aria-describedby={describedBy(props)}
        />
        {label}
      </label>
      <HintAndError {...props} />
    </div>
  );
}

type FieldPropsOf = (name: string) => { id: string; name: string; error?: string };

/**
 * The write-only password: a password input that always starts empty, or "generate", which has
 * the API pick one and answer it once. `replacing` words it for an existing principal.
 */
export function PasswordFields({ fieldProps, generate, onGenerate, replacing }: { fieldProps: FieldPropsOf; generate: boolean; onGenerate: (generate: boolean) => void; replacing: boolean }) {
  return (
    <>
      <CheckField
        {...fieldProps('generatePassword')}
        label={replacing ? 'Generate a new random password (shown once)' : 'Generate a random password (shown once)'}
        checked={generate}
        onChange={onGenerate}
      />
      {!generate && (
        <Field
          {...fieldProps('password')}
          label={replacing ? 'Set new password' : 'Password (optional)'}
          type="password"
          autoComplete="new-password"
          spellcheck={false}
          hint={replacing ? 'Write-only: leave empty to keep the stored password. It is never shown.' : 'Write-only: Panel stores it sealed and never shows it.'}
        />
      )}
    </>
  );
}

/** What the password fields ask the API to do; nothing when left empty. */
export function passwordChange(values: Record<string, string>, generate: boolean): PasswordChange {
  if (generate) return { generatePassword: true };
  return values.password ? { password: values.password } : {};
}

/**
 * Fills text inputs of an edit form with the stored values (Field renders uncontrolled inputs).
 * The default is set too, so the form's reset returns to them. Runs again when `version` changes.
 */
export function useFieldDefaults(formRef: RefObject<HTMLFormElement | null>, values: Record<string, string | undefined>, version: string) {
  useEffect(() => {
    const form = formRef.current;
    if (!form) return;
    for (const [name, value] of Object.entries(values)) {
      const input = form.elements.namedItem(name);
      if (input instanceof HTMLInputElement && value !== undefined) {
        input.defaultValue = value;
        input.value = value;
      }
    }
  }, [version]);
}

/** A refusal in plain words, or undefined to show the API's own message. */
export function explainRefusal(error: ApiError, action: string): string | undefined {
  if (error.code === 'forbidden') return `Only owners and admins of the organization can ${action}.`;
  if (error.code === 'not_found') return 'It is already gone: someone else may have deleted it. Refresh the page.';
  return undefined;
}
