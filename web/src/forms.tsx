/**
 * Forms: labelled fields (text, multi-line text, select, checkbox) whose errors sit right under them (linked by
 * aria-describedby), a form-level alert for errors that concern no field, and a submit button
 * that shows progress while the request runs. An API error's `path` picks the field it concerns.
 */
import type { ComponentChildren, InputHTMLAttributes } from 'preact';
import { useId, useRef, useState } from 'preact/hooks';
import { ApiError } from './api.ts';
import { changedEntries } from './changes.ts';

export interface FormProblem {
  message: string;
  requestId?: string;
  /** The API error's stable code, for forms that answer some codes their own way. */
  code?: string;
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
    ? { message: error.message, requestId: error.requestId, code: error.code }
    : { message: 'Something went wrong in the console. Reload the page and try again.' };

/** What a form gives one of its fields: the input's id and name, the API error about it and its stored value. */
export interface FieldBinding {
  id: string;
  name: string;
  error?: string;
  defaultValue?: string;
}

/**
 * State of one form. `submit(action)` reads the form's values, runs the action while `busy`,
 * and spreads an ApiError onto its field (then focuses that field) or onto the form alert.
 *
 * An edit form passes `shown`, the stored values as its inputs show them: each field starts with
 * its value (`fieldProps` carries it as the input's default, so it is there in the first render),
 * and the action also gets `edited`, the fields whose text differs from what they started with:
 * the fields to send (changes.ts).
 */
export function useForm(fields: readonly string[], routing: FormRouting = {}, shown: Readonly<Record<string, string>> = {}) {
  const formId = useId();
  const formRef = useRef<HTMLFormElement>(null);
  const [busy, setBusy] = useState(false);
  const [fieldErrors, setFieldErrors] = useState<Record<string, string>>({});
  const [problem, setProblem] = useState<FormProblem | null>(null);

  const onSubmit = (action: (values: Record<string, string>, edited: Partial<Record<string, string>>) => Promise<void>) => async (event: Event) => {
    event.preventDefault();
    if (busy || !formRef.current) return;
    const form = formRef.current;
    const values = Object.fromEntries([...new FormData(form).entries()].map(([key, value]) => [key, String(value)]));
    setBusy(true);
    setFieldErrors({});
    setProblem(null);
    try {
      await action(values, changedEntries(values, shown));
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

  const fieldProps = (name: string): FieldBinding => ({ id: `${formId}-${name}`, name, error: fieldErrors[name], defaultValue: shown[name] });
  return { formRef, busy, problem, onSubmit, fieldProps };
}

interface FieldProps {
  id: string;
  name: string;
  label: string;
  hint?: string;
  error?: string;
  /**
   * What the input starts with: an edit form's stored value, in the first render (a form reset
   * returns to it). A later change shows unless the user has typed into the input.
   */
  defaultValue?: string;
  type?: 'text' | 'email' | 'password';
  autoComplete?: string;
  inputMode?: 'numeric' | 'text';
  pattern?: string;
  spellcheck?: boolean;
  required?: boolean;
  autoFocus?: boolean;
}

export function Field({ id, label, hint, error, type = 'text', ...input }: FieldProps) {
  return (
    <div class={error ? 'field field-invalid' : 'field'}>
      <label for={id}>{label}</label>
      <input
        id={id}
        aria-invalid={error ? 'true' : undefined}
        aria-describedby={describedBy({ id, hint, error })}
        // preact types <input> per type value; this union of text-like types is fine for each.
        {...({ type, ...input } as InputHTMLAttributes<HTMLInputElement>)}
      />
      <HintAndError id={id} hint={hint} error={error} />
    </div>
  );
}

/** A multi-line text input (PEM files, certificates); its hint and error sit under it like a Field's. */
export function TextAreaField({ id, label, hint, error, rows = 6, ...input }: FieldBase & { rows?: number; placeholder?: string; spellcheck?: boolean; required?: boolean }) {
  return (
    <div class={error ? 'field field-invalid' : 'field'}>
      <label for={id}>{label}</label>
      <textarea id={id} rows={rows} class="mono" aria-invalid={error ? 'true' : undefined} aria-describedby={describedBy({ id, hint, error })} {...input} />
      <HintAndError id={id} hint={hint} error={error} />
    </div>
  );
}

/** What every labelled control takes: its error (from useForm's fieldProps) and hint sit under it. */
interface FieldBase {
  id: string;
  name: string;
  label: string;
  hint?: string;
  error?: string;
  /** The stored value an edit form shows (useForm's `shown`). */
  defaultValue?: string;
}

type HintAndErrorProps = Pick<FieldBase, 'id' | 'hint' | 'error'>;

const describedBy = ({ id, hint, error }: HintAndErrorProps) => [hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ') || undefined;

function HintAndError({ id, hint, error }: HintAndErrorProps) {
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
 * A select; `selected` (else the stored `defaultValue`) is its initial choice (a form reset returns
 * to the first one). With `onChange` it also reports each choice, for forms whose other fields
 * depend on it. `inline` sets the label beside the select (a toolbar's choice rather than a form's).
 */
export function SelectField(props: FieldBase & { choices: readonly Choice[]; selected?: string; onChange?: (value: string) => void; required?: boolean; inline?: boolean }) {
  const { id, name, label, error, choices, onChange, required, inline } = props;
  const selected = props.selected ?? props.defaultValue;
  return (
    <div class={['field', inline && 'inline', error && 'field-invalid'].filter(Boolean).join(' ')}>
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
