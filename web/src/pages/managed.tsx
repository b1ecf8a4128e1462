/**
 * The managed database clusters of an organization: where each listens (host, port), its engine
 * and version, and the databases bindings may use (options.databases). Clusters are added,
 * changed and deleted here, and each one's database users are managed in its own section
 * (managed-users.tsx). Members of the organization see them without the controls that change them.
 */
import { useState } from 'preact/hooks';
import { api, ApiError } from '../api.ts';
import { ConfirmDialog } from '../confirm-dialog.tsx';
import { useCurrentOrganization } from '../current-organization.ts';
import { ListView, LoadFailed, Loading, useList, useResource } from '../data.tsx';
import { isUnchanged } from '../changes.ts';
import { Field, FormAlert, SelectField, SubmitButton, useForm } from '../forms.tsx';
import { type ClusterFields, databasesOf, ENGINES, type Engine, type ManagedCluster, managedApi, namesIn, onListField, optionalInteger } from '../principals-api.ts';
import { ReadOnlyNote, useCanWrite } from '../role.tsx';
import { usePageTitle } from '../router.tsx';
import { Breadcrumbs } from '../breadcrumbs.tsx';
import { DatabaseUsers } from './managed-users.tsx';
import { explainRefusal } from './principal-fields.tsx';

const CLUSTER_FIELDS = ['name', 'engine', 'version', 'host', 'port', 'databases'] as const;
const ENGINE_CHOICES = ENGINES.map((engine) => ({ value: engine, label: { postgres: 'PostgreSQL', mysql: 'MySQL', redis: 'Redis', clickhouse: 'ClickHouse' }[engine] }));
const engineLabel = (engine: Engine) => ENGINE_CHOICES.find((choice) => choice.value === engine)!.label;

export function ManagedPage({ organizationId }: { organizationId: string }) {
  const organization = useResource(`organization:${organizationId}`, () => api.organizations.get(organizationId));
  const clusters = useList(`managed:${organizationId}`, (cursor) => managedApi.list({ organizationId, cursor }));
  const writable = useCanWrite(organizationId);
  useCurrentOrganization(organizationId);
  usePageTitle('Managed databases');

  if (organization.error) return <LoadFailed error={organization.error} what="the organization" retry={organization.reload} />;
  if (!organization.data) return <Loading what="the organization" />;
  return (
    <>
      <Breadcrumbs items={[{ label: organization.data.name, href: `/organizations/${organizationId}` }, { label: 'Managed databases' }]} />
      <h1 tabIndex={-1}>Managed databases</h1>
      <p class="lead">Database clusters services can be bound to: where they listen, which databases they hold, and their users.</p>
      <ListView list={clusters} what="managed databases" empty="No managed databases yet. Add one below.">
        {(items) => (
          <ul class="rows" aria-label="Managed databases">
            {items.map((cluster) => (
              <li key={cluster.id}>
                <ClusterSection cluster={cluster} onChanged={clusters.reload} />
              </li>
            ))}
          </ul>
        )}
      </ListView>
      {writable ? (
        <section aria-labelledby="add-cluster-heading">
          <h2 id="add-cluster-heading">Add a managed database</h2>
          <ClusterForm organizationId={organizationId} onSaved={clusters.reload} />
        </section>
      ) : (
        <ReadOnlyNote action="add, change or delete managed databases and their users" />
      )}
    </>
  );
}

function ClusterSection({ cluster, onChanged }: { cluster: ManagedCluster; onChanged: () => void }) {
  const [editing, setEditing] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const writable = useCanWrite(cluster.organizationId);
  const headingId = `cluster-${cluster.id}-heading`;
  const databases = databasesOf(cluster);
  return (
    <section aria-labelledby={headingId} class="card stack cluster">
      <h2 id={headingId}>{cluster.name}</h2>
      <dl class="facts">
        <dt>Engine</dt>
        <dd>
          {engineLabel(cluster.engine)} {cluster.version ?? <span class="muted">(version not set)</span>}
        </dd>
        <dt>Address</dt>
        <dd>{cluster.host && cluster.port ? <code>{`${cluster.host}:${cluster.port}`}</code> : <span class="muted">Not set yet: bindings need a host and port.</span>}</dd>
        <dt>Databases</dt>
        <dd>{databases.length ? databases.map((name) => <code key={name} class="chip">{name}</code>) : <span class="muted">None listed</span>}</dd>
      </dl>
      {editing ? (
        <ClusterForm
          organizationId={cluster.organizationId}
          cluster={cluster}
          onSaved={() => {
            setEditing(false);
            onChanged();
          }}
          onCancel={() => setEditing(false)}
        />
      ) : writable ? (
        <div class="row compact">
          <button type="button" onClick={() => setEditing(true)} aria-label={`Edit ${cluster.name}`}>
            Edit
          </button>
          <button type="button" class="danger" onClick={() => setDeleting(true)} aria-label={`Delete ${cluster.name}`}>
            Delete
          </button>
        </div>
      ) : null}
      <DatabaseUsers cluster={cluster} />
      {deleting && (
        <ConfirmDialog
          title={`Delete ${cluster.name}?`}
          confirmLabel="Delete managed database"
          explain={(error) => explainRefusal(error, 'delete managed databases')}
          onClose={() => setDeleting(false)}
          onConfirm={async () => {
            await managedApi.remove(cluster.id);
            onChanged();
          }}
        >
          <p>Panel forgets this cluster. Its database users are deleted with it, and so are their bindings and the variables those gave services.</p>
        </ConfirmDialog>
      )}
    </section>
  );
}

/** What a cluster's inputs show of it. */
const shownOf = (cluster: ManagedCluster) => ({
  name: cluster.name,
  version: cluster.version ?? '',
  host: cluster.host ?? '',
  port: cluster.port?.toString() ?? '',
  databases: databasesOf(cluster).join(' '),
});

/** The API keeps a cluster's address once set (bindings depend on it): it can change, not go. */
function keptAddressPart(text: string | undefined, field: 'host' | 'port'): string {
  const trimmed = text?.trim() ?? '';
  if (trimmed === '') throw new ApiError(422, 'validation_failed', `a set ${field} cannot be removed: type the new one`, field);
  return trimmed;
}

/** Adds a cluster, or changes `cluster` (only the fields edited; its engine is fixed). */
function ClusterForm({ organizationId, cluster, onSaved, onCancel }: { organizationId: string; cluster?: ManagedCluster; onSaved: () => void; onCancel?: () => void }) {
  const form = useForm(CLUSTER_FIELDS, {}, cluster ? shownOf(cluster) : {});
  const label = cluster ? cluster.name : 'new managed database';
  const save = form.onSubmit(async (values, edited) => {
    const databases = namesIn(values.databases);
    try {
      if (cluster) {
        const changes: Partial<ClusterFields> = {
          ...('name' in edited ? { name: values.name ?? '' } : {}),
          ...('version' in edited ? { version: values.version?.trim() || null } : {}),
          ...('host' in edited ? { host: keptAddressPart(values.host, 'host') } : {}),
          ...('port' in edited ? { port: optionalInteger(keptAddressPart(values.port, 'port'), 'port') } : {}),
          ...('databases' in edited ? { options: { databases } } : {}),
        };
        if (!isUnchanged(changes)) await managedApi.update(cluster.id, changes);
      } else {
        const port = optionalInteger(values.port, 'port');
        await managedApi.create({
          organizationId,
          engine: values.engine as Engine,
          name: values.name ?? '',
          version: values.version?.trim() || null,
          ...(values.host?.trim() ? { host: values.host.trim() } : {}),
          ...(port === undefined ? {} : { port }),
          options: { databases },
        });
        form.formRef.current?.reset();
      }
    } catch (error) {
      onListField(error, 'options.databases', 'databases', databases);
    }
    onSaved();
  });
  return (
    <form ref={form.formRef} onSubmit={save} noValidate class="stack" aria-label={cluster ? `Edit ${cluster.name}` : 'Add a managed database'}>
      <div class="grid-2">
        <Field {...form.fieldProps('name')} label={cluster ? `Name of ${label}` : 'Name'} required autoComplete="off" />
        {!cluster && <SelectField {...form.fieldProps('engine')} label="Engine" choices={ENGINE_CHOICES} selected="postgres" />}
        <Field {...form.fieldProps('version')} label={cluster ? `Version of ${label}` : 'Version (optional)'} hint="For example 17 or 8.4." autoComplete="off" spellcheck={false} />
        <Field {...form.fieldProps('host')} label={cluster ? `Host of ${label}` : 'Host'} hint="The name or IP address services connect to." autoComplete="off" spellcheck={false} />
        <Field {...form.fieldProps('port')} label={cluster ? `Port of ${label}` : 'Port'} inputMode="numeric" autoComplete="off" />
      </div>
      <Field
        {...form.fieldProps('databases')}
        label={cluster ? `Databases of ${label}` : 'Databases'}
        hint="Names separated by spaces or commas: letters, digits and _, not starting with a digit. A database still bound to a service cannot be removed."
        autoComplete="off"
        spellcheck={false}
      />
      <FormAlert problem={form.problem} />
      <div class="row">
        <SubmitButton busy={form.busy} busyLabel="Saving…">
          {cluster ? `Save ${cluster.name}` : 'Add managed database'}
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
