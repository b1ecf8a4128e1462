/**
 * The database users of one managed cluster (principals of kind database with its managedId):
 * listed with the databases each is meant for, created with a write-only or generated password,
 * and deleted after a confirmation that names what goes with them (their bindings). Members of
 * the organization see the list only.
 */
import { useState } from 'preact/hooks';
import { ConfirmDialog } from '../confirm-dialog.tsx';
import { ListView, useList } from '../data.tsx';
import { Field, FormAlert, SubmitButton, useForm } from '../forms.tsx';
import { databasesOf, type ManagedCluster, onListField, type Principal, principalApi, type WrittenPrincipal } from '../principals-api.ts';
import { useCanWrite } from '../role.tsx';
import { GeneratedPassword } from './principals.tsx';
import { chosenDatabases, DatabaseChoice, explainRefusal, PasswordFields, passwordChange } from './principal-fields.tsx';

const USER_FIELDS = ['username', 'databaseChoice', 'password', 'generatePassword'] as const;

export function DatabaseUsers({ cluster }: { cluster: ManagedCluster }) {
  const users = useList(`database-users:${cluster.id}`, (cursor) => principalApi.list({ managedId: cluster.id, cursor }));
  const [written, setWritten] = useState<WrittenPrincipal | null>(null);
  const [deleting, setDeleting] = useState<Principal | null>(null);
  const writable = useCanWrite(cluster.organizationId);
  const headingId = `cluster-${cluster.id}-users-heading`;
  return (
    <section aria-labelledby={headingId} class="stack">
      <h3 id={headingId}>Database users of {cluster.name}</h3>
      <GeneratedPassword written={written} onDone={() => setWritten(null)} />
      <ListView list={users} what="database users" empty="No database users yet.">
        {(items) => (
          <div class="table-scroll">
            <table aria-label={`Database users of ${cluster.name}`}>
              <thead>
                <tr>
                  <th scope="col">Username</th>
                  <th scope="col">Applied username</th>
                  <th scope="col">Databases</th>
                  <th scope="col">Password</th>
                  {writable && <th scope="col">Actions</th>}
                </tr>
              </thead>
              <tbody>
                {items.map((user) => (
                  <tr key={user.id}>
                    <th scope="row">
                      {user.username}
                      {user.metadata?.managedRoot === true && <span class="badge">Root</span>}
                    </th>
                    <td>
                      <code>{user.appliedUsername}</code>
                    </td>
                    <td>{user.metadata?.databases?.join(', ') || <span class="muted">Any</span>}</td>
                    <td>{user.hasPassword ? 'Set' : 'None'}</td>
                    {writable && (
                      <td>
                        <button type="button" class="danger" onClick={() => setDeleting(user)} aria-label={`Delete database user ${user.username}`}>
                          Delete
                        </button>
                      </td>
                    )}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </ListView>
      {writable && (
        <details>
          <summary>Add a database user to {cluster.name}</summary>
          <CreateDatabaseUser
            cluster={cluster}
            onCreated={(user) => {
              setWritten(user);
              users.reload();
            }}
          />
        </details>
      )}
      {deleting && (
        <ConfirmDialog
          title={`Delete database user ${deleting.username}?`}
          confirmLabel="Delete database user"
          explain={(error) => explainRefusal(error, 'delete database users')}
          onClose={() => setDeleting(null)}
          onConfirm={async () => {
            await principalApi.remove(deleting.id);
            users.reload();
          }}
        >
          <p>Its bindings are deleted with it, and so are the variables they gave services. This cannot be undone.</p>
        </ConfirmDialog>
      )}
    </section>
  );
}

function CreateDatabaseUser({ cluster, onCreated }: { cluster: ManagedCluster; onCreated: (user: WrittenPrincipal) => void }) {
  const form = useForm(USER_FIELDS);
  const [generate, setGenerate] = useState(false);
  const create = form.onSubmit(async (values) => {
    const chosen = chosenDatabases(form.formRef);
    try {
      const created = await principalApi.createDatabaseUser(cluster, { username: values.username ?? '', metadata: { databases: chosen }, ...passwordChange(values, generate) });
      form.formRef.current?.reset();
      setGenerate(false);
      onCreated(created);
    } catch (error) {
      onListField(error, 'metadata.databases', 'databaseChoice', chosen);
    }
  });
  return (
    <form ref={form.formRef} onSubmit={create} noValidate class="stack" aria-label={`Add a database user to ${cluster.name}`}>
      <Field {...form.fieldProps('username')} label="Username" hint="Letters, digits, _ and -, starting with a letter or _." required spellcheck={false} autoComplete="off" />
      <DatabaseChoice field={form.fieldProps('databaseChoice')} databases={databasesOf(cluster)} />
      <PasswordFields fieldProps={form.fieldProps} generate={generate} onGenerate={setGenerate} replacing={false} />
      <FormAlert problem={form.problem} />
      <SubmitButton busy={form.busy} busyLabel="Adding…">
        Add database user
      </SubmitButton>
    </form>
  );
}
