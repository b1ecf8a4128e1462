/**
 * "Database bindings" on a service page: database users of the organization's managed clusters
 * attached to the service, each with the database it uses, the prefix of the credential keys it
 * writes (<PREFIX>_HOST, _PORT, _NAME, _USER, _PASSWORD, _URL) and whether it also writes the
 * engine's conventional keys. The keys are variables of the service that the binding owns:
 * after any change here the page's variables are reloaded (`onChanged`). Members of the
 * organization see the bindings without the controls that change them.
 */
import { useState } from 'preact/hooks';
import { RowActions } from '../row-actions.tsx';
import { ConfirmDialog } from '../confirm-dialog.tsx';
import { ListView, LoadFailed, Loading, useList, useResource } from '../data.tsx';
import { changedEntries, isUnchanged } from '../changes.ts';
import { CheckField, Field, FormAlert, SelectField, SubmitButton, useForm } from '../forms.tsx';
import { allPages, type Binding, bindingApi, type BindingSettings, databasesOf, type Engine, type ManagedCluster, managedApi, type Principal, principalApi } from '../principals-api.ts';
import { ReadOnlyNote, useCanWrite } from '../role.tsx';
import { Link } from '../router.tsx';
import { explainRefusal } from './principal-fields.tsx';

const SETTING_FIELDS = ['databaseName', 'keyPrefix', 'emitEngineDefaults'] as const;
/** Creating also picks the user: errors about it (a cluster without an address) go to that select. */
const CREATE_FIELDS = ['principalId', ...SETTING_FIELDS] as const;
const DEFAULT_KEY_PREFIX = 'DATABASE';
const ENGINE_KEYS: Record<Engine, string> = { postgres: 'PGHOST, PGUSER, …', mysql: 'MYSQL_HOST, MYSQL_USER, …', redis: 'REDIS_HOST, REDIS_URL, …', clickhouse: 'CLICKHOUSE_HOST, CLICKHOUSE_USER, …' };

interface Bindable {
  users: Principal[];
  clusters: ManagedCluster[];
}

const clusterOf = (bindable: Bindable, user: Principal | undefined) => bindable.clusters.find((cluster) => cluster.id === user?.managedId);

export function DatabaseBindingsSection({ serviceId, organizationId, onChanged }: { serviceId: string; organizationId: string; onChanged: () => void }) {
  const bindings = useList(`bindings:${serviceId}`, (cursor) => bindingApi.list({ serviceId, cursor }));
  const bindable = useResource<Bindable>(`bindable:${organizationId}`, async () => {
    const [principals, clusters] = await Promise.all([
      allPages((cursor) => principalApi.list({ organizationId, cursor })),
      allPages((cursor) => managedApi.list({ organizationId, cursor })),
    ]);
    return { users: principals.filter((principal) => principal.kind === 'database' && principal.managedId !== null), clusters };
  });
  const [editing, setEditing] = useState<Binding | null>(null);
  const [deleting, setDeleting] = useState<Binding | null>(null);
  const writable = useCanWrite(organizationId);
  // The create form starts over after each change (a new key), with the user and prefix defaults.
  const [revision, setRevision] = useState(0);
  const changed = () => {
    setEditing(null);
    setRevision((value) => value + 1);
    bindings.reload();
    onChanged();
  };

  const intro = (
    <>
      <h2 id="bindings-heading">Database bindings</h2>
      <p class="muted">A binding writes a database user's credentials into this service's variables, read-only, and rewrites them when the user or cluster changes.</p>
    </>
  );
  if (!bindable.data) {
    return (
      <section aria-labelledby="bindings-heading" class="stack">
        {intro}
        {bindable.error ? <LoadFailed error={bindable.error} what="the database users" retry={bindable.reload} /> : <Loading what="the database users" />}
      </section>
    );
  }
  const available = bindable.data;
  const userOf = (binding: Binding) => available.users.find((user) => user.id === binding.principalId);
  const anotherEmits = (bindings.data ?? []).some((binding) => binding.emitEngineDefaults);
  return (
    <section aria-labelledby="bindings-heading" class="stack">
      {intro}
      <ListView list={bindings} what="database bindings" empty="No database is bound to this service.">
        {(items) => (
          <div class="table-scroll">
            <table aria-label="Database bindings">
              <thead>
                <tr>
                  <th scope="col">Database user</th>
                  <th scope="col">Managed database</th>
                  <th scope="col">Database</th>
                  <th scope="col">Key prefix</th>
                  <th scope="col">Engine keys</th>
                  {writable && <th scope="col">Actions</th>}
                </tr>
              </thead>
              <tbody>
                {items.map((binding) => {
                  const user = userOf(binding);
                  const label = `${user?.username ?? 'user'} on ${binding.databaseName}`;
                  return (
                    <tr key={binding.id}>
                      <th scope="row">{user?.username ?? <span class="muted">Unknown user</span>}</th>
                      <td>{clusterOf(available, user)?.name ?? '—'}</td>
                      <td>
                        <code>{binding.databaseName}</code>
                      </td>
                      <td>
                        <code>{binding.keyPrefix}</code>
                      </td>
                      <td>{binding.emitEngineDefaults ? 'Yes' : 'No'}</td>
                      {writable && (
                        <td>
                          <RowActions name={`binding ${label}`} remove="Remove" onEdit={() => setEditing(binding)} onRemove={() => setDeleting(binding)} />
                        </td>
                      )}
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
        )}
      </ListView>
      {editing && (
        <BindingForm key={editing.id} serviceId={serviceId} binding={editing} bindable={available} emitsByDefault={false} onSaved={changed} onCancel={() => setEditing(null)} />
      )}
      {!writable ? (
        <ReadOnlyNote action="bind databases to this service" />
      ) : available.users.length === 0 ? (
        <p class="muted">
          The organization has no database users yet: add one on the <Link href={`/organizations/${organizationId}/managed`}>Managed databases</Link> page.
        </p>
      ) : (
        <details>
          <summary>Bind a database user</summary>
          <BindingForm key={revision} serviceId={serviceId} bindable={available} emitsByDefault={!anotherEmits} onSaved={changed} />
        </details>
      )}
      {deleting && (
        <ConfirmDialog
          title={`Remove the ${deleting.keyPrefix} binding?`}
          confirmLabel="Remove binding"
          explain={(error) => explainRefusal(error, 'remove bindings')}
          onClose={() => setDeleting(null)}
          onConfirm={async () => {
            await bindingApi.remove(deleting.id);
            changed();
          }}
        >
          <p>
            The variables it wrote ({deleting.keyPrefix}_HOST, {deleting.keyPrefix}_PASSWORD, …) are deleted: deploys made after this no longer receive them. The database user is
            kept.
          </p>
        </ConfirmDialog>
      )}
    </section>
  );
}

/** Binds a user (no `binding`) or changes `binding`: the database, the key prefix, the engine keys. */
function BindingForm({ serviceId, binding, bindable, emitsByDefault, onSaved, onCancel }: { serviceId: string; binding?: Binding; bindable: Bindable; emitsByDefault: boolean; onSaved: () => void; onCancel?: () => void }) {
  const form = useForm(binding ? SETTING_FIELDS : CREATE_FIELDS, {}, binding ? { databaseName: binding.databaseName, keyPrefix: binding.keyPrefix } : { keyPrefix: DEFAULT_KEY_PREFIX });
  const [principalId, setPrincipalId] = useState(binding?.principalId ?? bindable.users[0]?.id ?? '');
  const user = bindable.users.find((candidate) => candidate.id === principalId);
  const cluster = clusterOf(bindable, user);
  const databases = cluster ? databasesOf(cluster) : [];
  const save = form.onSubmit(async (values, edited) => {
    const emitEngineDefaults = values.emitEngineDefaults !== undefined;
    if (!binding) {
      await bindingApi.create({ principalId, serviceId, databaseName: values.databaseName ?? '', keyPrefix: values.keyPrefix?.trim() || undefined, emitEngineDefaults });
      return onSaved();
    }
    const changes: BindingSettings = {
      ...('databaseName' in edited ? { databaseName: values.databaseName ?? '' } : {}),
      ...('keyPrefix' in edited ? { keyPrefix: values.keyPrefix?.trim() ?? '' } : {}),
      ...changedEntries({ emitEngineDefaults }, binding),
    };
    if (isUnchanged(changes)) return onCancel?.();
    await bindingApi.update(binding.id, changes);
    onSaved();
  });
  const heading = binding ? `Edit the ${binding.keyPrefix} binding` : 'Bind a database user';
  return (
    <form ref={form.formRef} onSubmit={save} noValidate class="card stack" aria-label={heading}>
      {binding && <h3>{heading}</h3>}
      {!binding && (
        <SelectField
          {...form.fieldProps('principalId')}
          label="Database user"
          choices={bindable.users.map((candidate) => ({ value: candidate.id, label: `${candidate.username} (${clusterOf(bindable, candidate)?.name ?? 'cluster'})` }))}
          selected={principalId}
          onChange={setPrincipalId}
        />
      )}
      {databases.length > 0 ? (
        // Keyed by the user: another cluster offers other databases, and the choice starts over.
        <SelectField key={principalId} {...form.fieldProps('databaseName')} label="Database" choices={databases.map((name) => ({ value: name, label: name }))} />
      ) : (
        <p class="notice">
          {cluster ? `${cluster.name} lists no databases yet: add them on the Managed databases page.` : 'The database user’s cluster is not available.'}
        </p>
      )}
      <Field {...form.fieldProps('keyPrefix')} label="Key prefix" hint="The keys are <PREFIX>_HOST, _PORT, _NAME, _USER, _PASSWORD and _URL. Unique per service." spellcheck={false} autoComplete="off" />
      <CheckField
        {...form.fieldProps('emitEngineDefaults')}
        label={`Also write the engine’s own keys${cluster ? ` (${ENGINE_KEYS[cluster.engine]})` : ''}`}
        hint="At most one binding of a service can."
        initially={binding ? binding.emitEngineDefaults : emitsByDefault}
      />
      <FormAlert problem={form.problem} />
      <div class="row">
        <SubmitButton busy={form.busy} busyLabel="Saving…">
          {binding ? 'Save binding' : 'Bind database user'}
        </SubmitButton>
        {onCancel && (
          <button type="button" onClick={onCancel}>
            Cancel
          </button>
        )}
      </div>
    </form>
  );
}
