/**
 * The organization's webhook: where its events are POSTed (signed with a secret shown once),
 * which families are sent, on or off, a test delivery and the recent deliveries. Admins change
 * it; members see it without the controls. The operator decides which networks it may reach.
 */
import { useState } from 'preact/hooks';
import { ApiError } from '../api.ts';
import { CopyableCommand } from '../confirm-dialog.tsx';
import { useResource } from '../data.tsx';
import { CheckField, Field, FormAlert, SubmitButton, useForm } from '../forms.tsx';
import { EVENT_FAMILIES, observeApi, type Webhook } from '../observe/observe-api.ts';
import { ReadOnlyNote, useCanWrite } from '../role.tsx';

const SIGNATURE_HELP =
  'Each delivery carries Panel-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>" under the secret>. Check it, and refuse old timestamps.';

function Deliveries({ organizationId, version }: { organizationId: string; version: number }) {
  const deliveries = useResource(`webhook-deliveries:${organizationId}:${version}`, () => observeApi.webhook.deliveries(organizationId));
  if (!deliveries.data || deliveries.data.data.length === 0) return <p class="muted">No deliveries yet.</p>;
  return (
    <div class="table-scroll">
      <table aria-label="Recent deliveries">
        <thead>
          <tr>
            <th scope="col">Queued</th>
            <th scope="col">Status</th>
            <th scope="col">Attempts</th>
            <th scope="col">Last answer</th>
          </tr>
        </thead>
        <tbody>
          {deliveries.data.data.slice(0, 20).map((row) => (
            <tr key={row.id}>
              <td>{new Date(row.createdAt).toLocaleString()}</td>
              <td>
                <span class={`status status-${row.status === 'delivered' ? 'succeeded' : row.status}`}>{row.status}</span>
                {row.nextAttemptAt && <span class="muted"> (next try {new Date(row.nextAttemptAt).toLocaleTimeString()})</span>}
              </td>
              <td>{row.attempts}</td>
              <td>{row.error ?? (row.responseStatus ? `HTTP ${row.responseStatus}` : <span class="muted">none yet</span>)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function WebhookForm({ organizationId, webhook, onSaved }: { organizationId: string; webhook: Webhook | null; onSaved: (saved: Webhook & { secret?: string }) => void }) {
  const form = useForm(['url'], {}, webhook ? { url: webhook.url } : {});
  const kinds = webhook?.eventKinds ?? [];
  const submit = form.onSubmit(async (values) => {
    const chosen = EVENT_FAMILIES.map(([family]) => family).filter((family) => values[`kind-${family}`] === 'on');
    onSaved(await observeApi.webhook.save(organizationId, { url: values.url ?? '', isEnabled: values.isEnabled === 'on', eventKinds: chosen.length > 0 ? chosen : null }));
  });
  return (
    <form ref={form.formRef} onSubmit={submit} class="stack settings-form" aria-label="Webhook" noValidate>
      <Field {...form.fieldProps('url')} label="URL" hint="Events are POSTed here as JSON. https is strongly advised." spellcheck={false} autoComplete="off" />
      <CheckField {...form.fieldProps('isEnabled')} label="Send events" initially={webhook?.isEnabled ?? true} />
      <fieldset>
        <legend>Families to send (none checked: every event)</legend>
        {EVENT_FAMILIES.filter(([family]) => family !== 'webhook').map(([family, label]) => (
          <CheckField key={family} {...form.fieldProps(`kind-${family}`)} label={label} initially={kinds.includes(family)} />
        ))}
      </fieldset>
      <FormAlert problem={form.problem} />
      <SubmitButton busy={form.busy} busyLabel="Saving…">
        {webhook ? 'Save webhook' : 'Create webhook'}
      </SubmitButton>
    </form>
  );
}

export function WebhookSettings({ organizationId }: { organizationId: string }) {
  const [version, setVersion] = useState(0);
  const loaded = useResource(`webhook:${organizationId}:${version}`, () =>
    observeApi.webhook.get(organizationId).catch((error: unknown) => {
      if (error instanceof ApiError && error.code === 'not_found') return null;
      throw error;
    }),
  );
  const [secret, setSecret] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [note, setNote] = useState<string | null>(null);
  const writable = useCanWrite(organizationId);
  const refresh = () => setVersion((n) => n + 1);
  const act = (work: () => Promise<void>) => async () => {
    setProblem(null);
    setNote(null);
    try {
      await work();
    } catch (error) {
      setProblem(error instanceof ApiError ? error.message : String(error));
    }
  };
  const sendTest = act(async () => {
    await observeApi.webhook.test(organizationId);
    setNote('A test event was queued; see its delivery below.');
    refresh();
  });
  const rotate = act(async () => {
    setSecret((await observeApi.webhook.rotate(organizationId)).secret ?? null);
    refresh();
  });
  const remove = act(async () => {
    await observeApi.webhook.remove(organizationId);
    setSecret(null);
    refresh();
  });
  const webhook = loaded.data ?? null;
  return (
    <section aria-labelledby="webhook-heading" class="card stack">
      <h2 id="webhook-heading">Webhook</h2>
      <p class="muted">{SIGNATURE_HELP}</p>
      {loaded.error && <p class="alert">Could not load the webhook: {loaded.error.message}</p>}
      {secret && (
        <div class="notice" role="status">
          <p>The signing secret, shown only now: keep it where the receiver checks signatures.</p>
          <CopyableCommand text={secret} label="Signing secret" />
        </div>
      )}
      {loaded.data === undefined && !loaded.error ? null : writable ? (
        <>
          <WebhookForm
            key={webhook?.updatedAt ?? 'new'}
            organizationId={organizationId}
            webhook={webhook}
            onSaved={(saved) => {
              if (saved.secret) setSecret(saved.secret);
              refresh();
            }}
          />
          {webhook && (
            <div class="row">
              <button type="button" onClick={sendTest}>
                Send a test event
              </button>
              <button type="button" onClick={rotate}>
                Replace the secret
              </button>
              <button type="button" class="danger" onClick={remove}>
                Remove webhook
              </button>
            </div>
          )}
        </>
      ) : (
        <>
          {webhook ? (
            <p>
              Events go to <code>{webhook.url}</code> {webhook.isEnabled ? '' : '(turned off)'}
            </p>
          ) : (
            <p class="muted">No webhook.</p>
          )}
          <ReadOnlyNote action="set the webhook" />
        </>
      )}
      {problem && (
        <div class="alert" role="alert">
          <p>{problem}</p>
        </div>
      )}
      {note && (
        <p class="muted" role="status">
          {note}
        </p>
      )}
      {webhook && <Deliveries organizationId={organizationId} version={version} />}
    </section>
  );
}
