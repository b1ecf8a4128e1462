/**
 * The principals of an organization: host accounts (system principals services run as) and
 * database users of its managed clusters, listed with their applied login and scope. Host
 * accounts are created here; any principal can be edited (shell and ids of a host account, the
 * databases of a database user, and the write-only password, which is never shown) and deleted
 * after a confirmation. Members of the organization see the list only.
 */
import { useState } from 'preact/hooks';
import { RowActions } from '../row-actions.tsx';
import { api } from '../api.ts';
import { ConfirmDialog } from '../confirm-dialog.tsx';
import { useCurrentOrganization } from '../current-organization.ts';
import { ListView, LoadFailed, Loading, useList, useResource } from '../data.tsx';
import { isUnchanged, sameValue } from '../changes.ts';
import { Field, type FieldBinding, FormAlert, SelectField, SubmitButton, useForm } from '../forms.tsx';
import { databasesOf, managedApi, onListField, optionalInteger, type Principal, principalApi, SHELLS, type Shell, SYSTEM_USERNAME_MAX, type WrittenPrincipal } from '../principals-api.ts';
import { ReadOnlyNote, useCanWrite } from '../role.tsx';
import { Link, usePageTitle } from '../router.tsx';
import { ShownOnce } from './account-security.tsx';
import { Breadcrumbs } from '../breadcrumbs.tsx';
import { chosenDatabases, DatabaseChoice, explainRefusal, PasswordFields, passwordChange } from './principal-fields.tsx';

const DEFAULT_SHELL: Shell = '/usr/sbin/nologin';
const SHELL_CHOICES = SHELLS.map((shell) => ({ value: shell, label: shell === DEFAULT_SHELL ? `${shell} (no interactive login)` : shell }));
const HOST_ACCOUNT_FIELDS = ['username', 'shell', 'uid', 'gid', 'password', 'generatePassword'] as const;
const PRINCIPAL_FIELDS = [...HOST_ACCOUNT_FIELDS, 'databaseChoice'] as const;

const kindLabel = (principal: Principal) => (principal.kind === 'system' ? 'Host account' : 'Database user');

/** The generated password of the last write, shown once above the list. */
export function GeneratedPassword({ written, onDone }: { written: WrittenPrincipal | null; onDone: () => void }) {
  if (!written?.generatedPassword) return null;
  return <ShownOnce title={`Generated password of ${written.username}`} values={[written.generatedPassword]} onDone={onDone} />;
}

export function PrincipalsPage({ organizationId }: { organizationId: string }) {
  const organization = useResource(`organization:${organizationId}`, () => api.organizations.get(organizationId));
  const principals = useList(`principals:${organizationId}`, (cursor) => principalApi.list({ organizationId, cursor }));
  const [editing, setEditing] = useState<Principal | null>(null);
  const [deleting, setDeleting] = useState<Principal | null>(null);
  const [written, setWritten] = useState<WrittenPrincipal | null>(null);
  const writable = useCanWrite(organizationId);
  useCurrentOrganization(organizationId);
  usePageTitle('Principals');

  const saved = (principal: WrittenPrincipal) => {
    setWritten(principal);
    setEditing(null);
    principals.reload();
  };

  if (organization.error) return <LoadFailed error={organization.error} what="the organization" retry={organization.reload} />;
  if (!organization.data) return <Loading what="the organization" />;
  return (
    <>
      <Breadcrumbs items={[{ label: organization.data.name, href: `/organizations/${organizationId}` }, { label: 'Principals' }]} />
      <h1 tabIndex={-1}>Principals</h1>
      <p class="lead">
        Host accounts services run as, and the database users of the <Link href={`/organizations/${organizationId}/managed`}>managed databases</Link>.
      </p>
      <GeneratedPassword written={written} onDone={() => setWritten(null)} />
      <ListView list={principals} what="principals" empty="This organization has no principals yet.">
        {(items) => <PrincipalsTable organizationId={organizationId} principals={items} writable={writable} onEdit={setEditing} onDelete={setDeleting} />}
      </ListView>
      {editing && <EditPrincipalForm key={editing.id} principal={editing} onSaved={saved} onCancel={() => setEditing(null)} />}
      {writable ? <CreateHostAccount organizationId={organizationId} onCreated={saved} /> : <ReadOnlyNote action="create, edit or delete principals" />}
      {deleting && (
        <ConfirmDialog
          title={`Delete ${deleting.username}?`}
          confirmLabel="Delete principal"
          explain={(error) => explainRefusal(error, 'delete principals')}
          onClose={() => setDeleting(null)}
          onConfirm={async () => {
            await principalApi.remove(deleting.id);
            if (editing?.id === deleting.id) setEditing(null);
            principals.reload();
          }}
        >
          <p>
            {deleting.kind === 'system'
              ? 'Services that run as this host account no longer do.'
              : 'Its bindings are deleted with it, and the variables they gave services.'}{' '}
            This cannot be undone.
          </p>
        </ConfirmDialog>
      )}
    </>
  );
}

interface PrincipalsTableProps {
  organizationId: string;
  principals: Principal[];
  /** Whether the caller may edit and delete (admins and owners). */
  writable: boolean;
  onEdit: (principal: Principal) => void;
  onDelete: (principal: Principal) => void;
}

function PrincipalsTable({ organizationId, principals, writable, onEdit, onDelete }: PrincipalsTableProps) {
  const clusters = useList(`managed:${organizationId}`, (cursor) => managedApi.list({ organizationId, cursor }));
  const clusterName = (id: string) => clusters.data?.find((cluster) => cluster.id === id)?.name ?? 'a managed database';
  return (
    <div class="table-scroll">
      <table aria-label="Principals">
        <thead>
          <tr>
            <th scope="col">Username</th>
            <th scope="col">Applied username</th>
            <th scope="col">Kind</th>
            <th scope="col">Scope</th>
            <th scope="col">Password</th>
            {writable && <th scope="col">Actions</th>}
          </tr>
        </thead>
        <tbody>
          {principals.map((principal) => (
            <tr key={principal.id}>
              <th scope="row">
                {principal.username}
                {principal.metadata?.managedRoot === true && <span class="badge">Root</span>}
              </th>
              <td>
                <code>{principal.appliedUsername}</code>
              </td>
              <td>
                {kindLabel(principal)} ({principal.provider})
              </td>
              <td>
                {principal.managedId ? (
                  <Link href={`/organizations/${organizationId}/managed`}>{clusterName(principal.managedId)}</Link>
                ) : principal.projectId ? (
                  <ProjectLink id={principal.projectId} />
                ) : (
                  'Organization'
                )}
              </td>
              <td>{principal.hasPassword ? 'Set' : 'None'}</td>
              {writable && (
                <td>
                  <RowActions name={principal.username} onEdit={() => onEdit(principal)} onRemove={() => onDelete(principal)} />
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function ProjectLink({ id }: { id: string }) {
  const project = useResource(`project:${id}`, () => api.projects.get(id));
  return <Link href={`/projects/${id}`}>{project.data ? (project.data.name ?? 'Unnamed project') : 'Project'}</Link>;
}

/** Shell and optional uid/gid of a host account, as the API's options object. */
function hostOptions(values: Record<string, string>) {
  const uid = optionalInteger(values.uid, 'uid');
  const gid = optionalInteger(values.gid, 'gid');
  return { shell: values.shell as Shell, ...(uid === undefined ? {} : { uid }), ...(gid === undefined ? {} : { gid }) };
}

function HostAccountFields({ fieldProps }: { fieldProps: (name: string) => FieldBinding }) {
  return (
    <>
      <SelectField {...fieldProps('shell')} label="Login shell" choices={SHELL_CHOICES} />
      <div class="grid-2">
        <Field {...fieldProps('uid')} label="User id (optional)" hint="1000 to 60000; when empty, the server picks one." inputMode="numeric" autoComplete="off" />
        <Field {...fieldProps('gid')} label="Group id (optional)" hint="1000 to 60000; when empty, the server picks one." inputMode="numeric" autoComplete="off" />
      </div>
    </>
  );
}

function CreateHostAccount({ organizationId, onCreated }: { organizationId: string; onCreated: (principal: WrittenPrincipal) => void }) {
  const form = useForm(HOST_ACCOUNT_FIELDS, { paths: { 'options.shell': 'shell' } });
  const [generate, setGenerate] = useState(false);
  const create = form.onSubmit(async (values) => {
    const created = await principalApi.createSystem({ organizationId, username: values.username ?? '', options: hostOptions(values), ...passwordChange(values, generate) });
    form.formRef.current?.reset();
    setGenerate(false);
    onCreated(created);
  });
  return (
    <section aria-labelledby="create-host-account-heading">
      <h2 id="create-host-account-heading">Create a host account</h2>
      <form ref={form.formRef} onSubmit={create} noValidate class="card stack" aria-label="Create a host account">
        <Field
          {...form.fieldProps('username')}
          label="Username"
          hint={`Up to ${SYSTEM_USERNAME_MAX} characters: letters, digits, _ and -, starting with a letter or _. Its home is /srv/users/<applied username>.`}
          required
          spellcheck={false}
          autoComplete="off"
        />
        <HostAccountFields fieldProps={form.fieldProps} />
        <PasswordFields fieldProps={form.fieldProps} generate={generate} onGenerate={setGenerate} replacing={false} />
        <FormAlert problem={form.problem} />
        <SubmitButton busy={form.busy} busyLabel="Creating…">
          Create host account
        </SubmitButton>
      </form>
    </section>
  );
}

/**
 * Shell and ids of a host account, the databases a database user is meant for, and any
 * principal's write-only password; sends only what changed.
 */
function EditPrincipalForm({ principal, onSaved, onCancel }: { principal: Principal; onSaved: (principal: WrittenPrincipal) => void; onCancel: () => void }) {
  const isHostAccount = principal.kind === 'system';
  const options = principal.options ?? {};
  const shown: Record<string, string> = isHostAccount ? { shell: options.shell ?? DEFAULT_SHELL, uid: options.uid?.toString() ?? '', gid: options.gid?.toString() ?? '' } : {};
  const form = useForm(PRINCIPAL_FIELDS, { paths: { 'options.shell': 'shell' } }, shown);
  const [generate, setGenerate] = useState(false);
  const managedId = principal.managedId;
  const cluster = useResource(`managed-cluster:${managedId ?? ''}`, () => (managedId ? managedApi.get(managedId) : Promise.resolve(null)));
  const storedDatabases = principal.metadata?.databases ?? [];
  const save = form.onSubmit(async (values, edited) => {
    // The form shows every key of a host account's options, so a change sends the whole object.
    const optionsChanged = ['shell', 'uid', 'gid'].some((name) => name in edited);
    const databases = cluster.data ? chosenDatabases(form.formRef) : storedDatabases;
    const databasesChanged = !sameValue([...databases].sort(), [...storedDatabases].sort());
    const changes = {
      ...(optionsChanged ? { options: hostOptions(values) } : {}),
      ...(databasesChanged ? { metadata: { databases } } : {}),
      ...passwordChange(values, generate),
    };
    if (isUnchanged(changes)) return onCancel();
    try {
      onSaved(await principalApi.update(principal.id, changes));
    } catch (error) {
      onListField(error, 'metadata.databases', 'databaseChoice', databases);
    }
  });
  const heading = `Edit ${principal.username}`;
  return (
    <section aria-labelledby="edit-principal-heading">
      <h2 id="edit-principal-heading">{heading}</h2>
      <form ref={form.formRef} onSubmit={save} noValidate class="card stack" aria-label={heading}>
        <p class="muted">
          {kindLabel(principal)} <code>{principal.appliedUsername}</code>: the username is fixed once created.
        </p>
        {isHostAccount && <HostAccountFields fieldProps={form.fieldProps} />}
        {cluster.data && <DatabaseChoice field={form.fieldProps('databaseChoice')} databases={databasesOf(cluster.data)} chosen={storedDatabases} />}
        <PasswordFields fieldProps={form.fieldProps} generate={generate} onGenerate={setGenerate} replacing />
        <FormAlert problem={form.problem} />
        <div class="row">
          <SubmitButton busy={form.busy} busyLabel="Saving…">
            Save {principal.username}
          </SubmitButton>
          <button type="button" onClick={onCancel}>
            Cancel
          </button>
        </div>
      </form>
    </section>
  );
}
