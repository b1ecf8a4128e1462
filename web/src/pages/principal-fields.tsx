/**
 * Form pieces the principals, managed-database and service pages share: the write-only password
 * fields (type a new one, or have Panel generate one that is shown once) and refusals explained
 * in plain words.
 */
import type { ApiError } from '../api.ts';
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
