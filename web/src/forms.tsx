/**
 * Forms: labelled fields whose errors sit right under them (linked by aria-describedby), a
 * form-level alert for errors that concern no field, and a submit button that shows progress
 * while the request runs. An API error's `path` picks the field it concerns.
 */
import type { ComponentChildren, InputHTMLAttributes } from 'preact';
import { useId, useRef, useState } from 'preact/hooks';
import { ApiError } from './api.ts';

export interface FormProblem {
  message: string;
  requestId?: string;
}

export interface FormRouting {
  /** API error path -> form field name; a path not listed maps to its last segment when that is a field. */
  paths?: Record<string, string>;
  /** Error code -> field, for errors that concern a field but carry no path (a wrong install token). */
  codes?: Record<string, string>;
}

/** Which field an API error concerns, or null for the whole form. */
export function fieldOfError(error: ApiError, fields: readonly string[], routing: FormRouting = {}): string | null {
  if (error.path) {
    const mapped = routing.paths?.[error.path];
    if (mapped) return mapped;
    const last = error.path.split('.').at(-1)!;
    if (fields.includes(last)) return last;
  }
  return routing.codes?.[error.code] ?? null;
}

const problemOf = (error: unknown): FormProblem =>
  error instanceof ApiError
    ? { message: error.message, requestId: error.requestId }
    : { message: 'Something went wrong in the console. Reload the page and try again.' };

/**
 * State of one form. `submit(action)` reads the form's values, runs the action while `busy`,
 * and spreads an ApiError onto its field (then focuses that field) or onto the form alert.
 */
export function useForm(fields: readonly string[], routing: FormRouting = {}) {
  const formId = useId();
  const formRef = useRef<HTMLFormElement>(null);
  const [busy, setBusy] = useState(false);
  const [fieldErrors, setFieldErrors] = useState<Record<string, string>>({});
  const [problem, setProblem] = useState<FormProblem | null>(null);

  const onSubmit = (action: (values: Record<string, string>) => Promise<void>) => async (event: Event) => {
    event.preventDefault();
    if (busy || !formRef.current) return;
    const form = formRef.current;
    const values = Object.fromEntries([...new FormData(form).entries()].map(([key, value]) => [key, String(value)]));
    setBusy(true);
    setFieldErrors({});
    setProblem(null);
    try {
      await action(values);
    } catch (error) {
      const field = error instanceof ApiError ? fieldOfError(error, fields, routing) : null;
      if (field) {
        setFieldErrors({ [field]: (error as ApiError).message });
        requestAnimationFrame(() => (form.elements.namedItem(field) as HTMLElement | null)?.focus());
      } else {
        setProblem(problemOf(error));
      }
    } finally {
      if (form.isConnected) setBusy(false);
    }
  };

  const fieldProps = (name: string) => ({ id: `${formId}-${name}`, name, error: fieldErrors[name] });
  return { formRef, busy, problem, onSubmit, fieldProps };
}

interface FieldProps {
  id: string;
  name: string;
  label: string;
  hint?: string;
  error?: string;
  type?: 'text' | 'email' | 'password';
  autoComplete?: string;
  inputMode?: 'numeric' | 'text';
  pattern?: string;
  spellcheck?: boolean;
  required?: boolean;
  autoFocus?: boolean;
}

export function Field({ id, label, hint, error, type = 'text', ...input }: FieldProps) {
  const described = [hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ');
  return (
    <div class={error ? 'field field-invalid' : 'field'}>
      <label for={id}>{label}</label>
      <input
        id={id}
        aria-invalid={error ? 'true' : undefined}
        aria-describedby={described || undefined}
        // preact types <input> per type value; this union of text-like types is fine for each.
        {...({ type, ...input } as InputHTMLAttributes<HTMLInputElement>)}
      />
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
    </div>
  );
}

export function FormAlert({ problem }: { problem: FormProblem | null }) {
  if (!problem) return null;
  return (
    <div class="alert" role="alert">
      <p>{problem.message}</p>
      {problem.requestId && <p class="muted">Request id: {problem.requestId}</p>}
    </div>
  );
}

export function SubmitButton({ busy, busyLabel, children }: { busy: boolean; busyLabel: string; children: ComponentChildren }) {
  return (
    <button type="submit" class="primary" aria-busy={busy ? 'true' : undefined} aria-disabled={busy ? 'true' : undefined}>
      {busy ? (
        <>
          <span class="spinner" aria-hidden="true" />
          {busyLabel}
        </>
      ) : (
        children
      )}
    </button>
  );
}
