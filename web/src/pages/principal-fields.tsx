/**
 * Form pieces the principals, managed-database and service pages share: the write-only password
 * fields (type a new one, or have Panel generate one that is shown once), the databases a
 * database user is meant for, and refusals explained in plain words.
 */
import type { ApiError } from '../api.ts';
import type { RefObject } from 'preact';
import { CheckField, Field, type FieldBinding } from '../forms.tsx';
import type { PasswordChange } from '../principals-api.ts';

/**
 * The write-only password: a password input that always starts empty, or "generate", which has
 * the API pick one and answer it once. `replacing` words it for an existing principal.
 */
export function PasswordFields({ fieldProps, generate, onGenerate, replacing }: { fieldProps: (name: string) => FieldBinding; generate: boolean; onGenerate: (generate: boolean) => void; replacing: boolean }) {
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

/** A refusal in plain words, or undefined to show the API's own message. */
export function explainRefusal(error: ApiError, action: string): string | undefined {
  if (error.code === 'forbidden') return `Only owners and admins of the organization can ${action}.`;
  if (error.code === 'not_found') return 'It is already gone: someone else may have deleted it. Refresh the page.';
  return undefined;
}

/**
 * The databases of its cluster a database user is meant for, as checkboxes (`chosen` starts
 * checked). Named and focusable as one field, so an error about the list lands here (useForm).
 */
export function DatabaseChoice({ field, databases, chosen = [] }: { field: FieldBinding; databases: string[]; chosen?: string[] }) {
  if (databases.length === 0) return null;
  return (
    <fieldset name={field.name} tabIndex={-1} aria-describedby={field.error ? `${field.id}-error` : undefined}>
      <legend>Databases it is meant for (optional)</legend>
      {databases.map((name) => (
        <CheckField key={name} id={`${field.id}-${name}`} name="databases" value={name} label={name} initially={chosen.includes(name)} />
      ))}
      {field.error && (
        <p class="field-error" id={`${field.id}-error`}>
          {field.error}
        </p>
      )}
    </fieldset>
  );
}

/** The databases checked in a form's DatabaseChoice. */
export const chosenDatabases = (form: RefObject<HTMLFormElement | null>) =>
  [...(form.current?.querySelectorAll<HTMLInputElement>('input[name="databases"]:checked') ?? [])].map((box) => box.value);
