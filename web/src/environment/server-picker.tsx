/**
 * Choosing a server: the environment's placement pin or the project's default server. The
 * empty choice clears it (null). Saved with its own button; an API error shows under the select.
 * Members of the organization see the choice, disabled, without the button.
 */
import { useState } from 'preact/hooks';
import { ApiError } from '../api.ts';
import { useList } from '../data.tsx';
import { deployApi } from '../deploy-api.ts';
import { SubmitButton } from '../forms.tsx';
import { ReadOnlyNote, useCanWrite } from '../role.tsx';

interface ServerPickerProps {
  id: string;
  organizationId: string;
  label: string;
  emptyLabel: string;
  hint: string;
  value: string | null;
  onSave: (serverId: string | null) => Promise<void>;
}

export function ServerPicker({ id, organizationId, label, emptyLabel, hint, value, onSave }: ServerPickerProps) {
  const servers = useList(`servers:${organizationId}`, (cursor) => deployApi.servers.list({ organizationId, cursor }));
  const [choice, setChoice] = useState(value ?? '');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [status, setStatus] = useState('');
  const writable = useCanWrite(organizationId);

  const save = async (event: Event) => {
    event.preventDefault();
    if (busy) return;
    setBusy(true);
    setError(null);
    setStatus('');
    try {
      await onSave(choice === '' ? null : choice);
      setStatus('Saved.');
    } catch (failure) {
      setError(failure instanceof ApiError ? failure.message : String(failure));
    } finally {
      setBusy(false);
    }
  };

  const known = servers.data ?? [];
  const missing = value && servers.data && !known.some((server) => server.id === value);
  return (
    <form onSubmit={save} class="server-picker">
      <div class={error ? 'field field-invalid' : 'field'}>
        <label for={id}>{label}</label>
        <select
          id={id}
          name="serverId"
          value={choice}
          disabled={!writable}
          onChange={(event) => setChoice(event.currentTarget.value)}
          aria-invalid={error ? 'true' : undefined}
          aria-describedby={`${id}-hint${error ? ` ${id}-error` : ''}`}
        >
          <option value="">{emptyLabel}</option>
          {missing && <option value={value}>Unknown server {value}</option>}
          {known.map((server) => (
            <option key={server.id} value={server.id}>
              {server.name} ({server.status}
              {server.isLocal ? ', local' : ''})
            </option>
          ))}
        </select>
        <p class="field-hint" id={`${id}-hint`}>
          {servers.error ? `Could not list the servers: ${servers.error.message}` : hint}
        </p>
        {error && (
          <p class="field-error" id={`${id}-error`}>
            {error}
          </p>
        )}
      </div>
      {writable ? (
        <div class="row">
          <SubmitButton busy={busy} busyLabel="Saving…">
            Set {label.toLowerCase()}
          </SubmitButton>
          <span role="status" class="muted">
            {status}
          </span>
        </div>
      ) : (
        <ReadOnlyNote />
      )}
    </form>
  );
}
