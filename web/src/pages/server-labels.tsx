/**
 * A server's labels: shown as `key=value` chips in the servers table, and edited by admins in a
 * form that opens with the stored labels, one row per label. Placement constraints
 * (`node.labels.disk == ssd`) and spread preferences match them; tags stay for grouping.
 */
import { useState } from 'preact/hooks';
import { LABEL_KEY, LABEL_VALUE, MAX_SERVER_LABELS } from '../../../src/contract/servers.ts';
import { deployApi, type Server } from '../deploy-api.ts';
import { FormAlert, SubmitButton, useForm } from '../forms.tsx';

export function LabelChips({ labels }: { labels: Record<string, string> }) {
  const entries = Object.entries(labels);
  if (entries.length === 0) return <span class="muted">none</span>;
  return (
    <ul class="tags" aria-label="Labels">
      {entries.map(([key, value]) => (
        <li key={key}>
          <code class="chip">
            {key}={value}
          </code>
        </li>
      ))}
    </ul>
  );
}

interface Row {
  /** Stable across edits, so inputs keep focus and what was typed. */
  id: number;
  key: string;
  value: string;
}

/** The rows' labels, or the first thing wrong with them (checked as the API will). */
function labelsOf(rows: readonly Row[]): Record<string, string> | string {
  const labels: Record<string, string> = {};
  for (const { key, value } of rows) {
    const name = key.trim();
    if (name === '' && value.trim() === '') continue;
    if (!LABEL_KEY.test(name)) return `"${name}" is not a label key: letters, digits, ".", "_" or "-", starting with a letter or digit, at most 63.`;
    if (!LABEL_VALUE.test(value)) return `The value of ${name} must be 1-255 characters, without spaces at either end.`;
    if (Object.hasOwn(labels, name)) return `${name} is listed twice.`;
    labels[name] = value;
  }
  if (Object.keys(labels).length > MAX_SERVER_LABELS) return `A server carries at most ${MAX_SERVER_LABELS} labels.`;
  return labels;
}

export function LabelsForm({ server, onDone }: { server: Server; onDone: () => void }) {
  const form = useForm([]);
  const [nextId, setNextId] = useState(() => Object.keys(server.labels).length + 1);
  const [rows, setRows] = useState<Row[]>(() => {
    const stored = Object.entries(server.labels).map(([key, value], i) => ({ id: i, key, value }));
    return stored.length > 0 ? stored : [{ id: 0, key: '', value: '' }];
  });
  const [invalid, setInvalid] = useState<string | null>(null);
  const change = (id: number, field: 'key' | 'value', text: string) => setRows((all) => all.map((row) => (row.id === id ? { ...row, [field]: text } : row)));
  const add = () => {
    setRows((all) => [...all, { id: nextId, key: '', value: '' }]);
    setNextId(nextId + 1);
  };
  const submit = form.onSubmit(async () => {
    const labels = labelsOf(rows);
    setInvalid(typeof labels === 'string' ? labels : null);
    if (typeof labels === 'string') return;
    await deployApi.servers.setLabels(server.id, labels);
    onDone();
  });
  return (
    <form ref={form.formRef} onSubmit={submit} class="inline-form labels-form" aria-label={`Labels of ${server.name}`}>
      <p class="muted">Placement constraints match these, e.g. node.labels.disk == ssd. Leave a row empty to drop it.</p>
      {rows.map((row, i) => (
        <div class="label-row" key={row.id}>
          <div class="field">
            <label for={`label-key-${server.id}-${row.id}`}>Key {i + 1}</label>
            <input
              id={`label-key-${server.id}-${row.id}`}
              value={row.key}
              autoComplete="off"
              spellcheck={false}
              autoFocus={i === 0}
              onInput={(event) => change(row.id, 'key', event.currentTarget.value)}
            />
          </div>
          <div class="field">
            <label for={`label-value-${server.id}-${row.id}`}>Value {i + 1}</label>
            <input
              id={`label-value-${server.id}-${row.id}`}
              value={row.value}
              autoComplete="off"
              spellcheck={false}
              onInput={(event) => change(row.id, 'value', event.currentTarget.value)}
            />
          </div>
          <button type="button" aria-label={`Remove label ${i + 1}`} onClick={() => setRows((all) => all.filter((other) => other.id !== row.id))}>
            Remove
          </button>
        </div>
      ))}
      {invalid && (
        <div class="alert" role="alert">
          <p>{invalid}</p>
        </div>
      )}
      <FormAlert problem={form.problem} />
      <div class="row">
        <button type="button" onClick={add}>
          Add label
        </button>
        <SubmitButton busy={form.busy} busyLabel="Saving labels…">
          Save labels
        </SubmitButton>
        <button type="button" onClick={onDone}>
          Cancel
        </button>
      </div>
    </form>
  );
}
