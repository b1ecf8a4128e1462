/**
 * The servers of an organization: connected or not and when last seen, rename, delete (a 409
 * has_dependents is explained), and "Add server": a join token whose exact `panel daemon join`
 * command is shown once, with a copy button.
 */
import { useState } from 'preact/hooks';
import { api, type ApiError } from '../api.ts';
import { ConfirmDialog, CopyableCommand } from '../confirm-dialog.tsx';
import { useCurrentOrganization } from '../current-organization.ts';
import { ListView, LoadFailed, Loading, useList, useResource } from '../data.tsx';
import { type CreatedJoinToken, deployApi, type Server } from '../deploy-api.ts';
import { Field, FormAlert, SubmitButton, useForm } from '../forms.tsx';
import { usePageTitle } from '../router.tsx';
import { Breadcrumbs } from './browse.tsx';

const explainDelete = (error: ApiError) =>
  error.code === 'has_dependents'
    ? `This server is still in use: ${error.message}. Move environments pinned to it (and projects using it as their default) to another server, and stop or destroy what runs on it, then delete it.`
    : undefined;

function lastSeen(server: Server): string {
  if (server.status === 'connected') return 'now';
  return server.lastSeenAt ? new Date(server.lastSeenAt).toLocaleString() : 'never';
}

function RenameForm({ server, onDone }: { server: Server; onDone: () => void }) {
  const form = useForm(['name']);
  const submit = form.onSubmit(async (values) => {
    await deployApi.servers.rename(server.id, values.name ?? '');
    onDone();
  });
  return (
    <form ref={form.formRef} onSubmit={submit} class="inline-form" aria-label={`Rename ${server.name}`}>
      <Field {...form.fieldProps('name')} label={`New name for ${server.name}`} required autoFocus autoComplete="off" />
      <FormAlert problem={form.problem} />
      <div class="row">
        <SubmitButton busy={form.busy} busyLabel="Renaming…">
          Rename
        </SubmitButton>
        <button type="button" onClick={onDone}>
          Cancel
        </button>
      </div>
    </form>
  );
}

function AddServer({ organizationId }: { organizationId: string }) {
  const [created, setCreated] = useState<CreatedJoinToken | null>(null);
  const form = useForm([]);
  const submit = form.onSubmit(async () => setCreated(await deployApi.joinTokens.create(organizationId)));
  return (
    <section aria-labelledby="add-server-heading" class="card">
      <h2 id="add-server-heading">Add server</h2>
      {created ? (
        <>
          <p>
            Run this on the new server as root (Docker must be installed). The token works once and expires at {new Date(created.expiresAt).toLocaleString()}. It is
            shown only now.
          </p>
          <CopyableCommand text={created.command} label="Join command" />
          <button type="button" onClick={() => setCreated(null)}>
            Done
          </button>
        </>
      ) : (
        <form ref={form.formRef} onSubmit={submit}>
          <p class="muted">Creates a one-time join token and shows the command that enrolls a server with it.</p>
          <FormAlert problem={form.problem} />
          <SubmitButton busy={form.busy} busyLabel="Creating the join token…">
            Create join command
          </SubmitButton>
        </form>
      )}
    </section>
  );
}

export function ServersPage({ organizationId }: { organizationId: string }) {
  const organization = useResource(`organization:${organizationId}`, () => api.organizations.get(organizationId));
  const servers = useList(`servers:${organizationId}`, (cursor) => deployApi.servers.list({ organizationId, cursor }));
  const [renaming, setRenaming] = useState<string | null>(null);
  const [deleting, setDeleting] = useState<Server | null>(null);
  useCurrentOrganization(organizationId);
  usePageTitle('Servers');

  if (organization.error) return <LoadFailed error={organization.error} what="the organization" retry={organization.reload} />;
  if (!organization.data) return <Loading what="the organization" />;
  return (
    <>
      <Breadcrumbs items={[{ label: organization.data.name, href: `/organizations/${organizationId}` }, { label: 'Servers' }]} />
      <h1 tabIndex={-1}>Servers</h1>
      <div class="row">
        <button type="button" onClick={servers.reload}>
          Refresh
        </button>
      </div>
      <ListView list={servers} what="servers" empty="No servers yet. Add one below.">
        {(items) => (
          <div class="table-scroll">
            <table aria-label="Servers">
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Status</th>
                  <th scope="col">Last seen</th>
                  <th scope="col">Host</th>
                  <th scope="col">Actions</th>
                </tr>
              </thead>
              <tbody>
                {items.map((server) => (
                  <tr key={server.id}>
                    <th scope="row">
                      {server.name}
                      {server.isLocal && <span class="badge">Local</span>}
                    </th>
                    <td>
                      <span class={`status status-${server.status}`}>{server.status}</span>
                    </td>
                    <td>{lastSeen(server)}</td>
                    <td>{server.hostname ?? <span class="muted">unknown</span>}</td>
                    <td>
                      {renaming === server.id ? (
                        <RenameForm
                          server={server}
                          onDone={() => {
                            setRenaming(null);
                            servers.reload();
                          }}
                        />
                      ) : (
                        <div class="row compact">
                          <button type="button" onClick={() => setRenaming(server.id)} aria-label={`Rename ${server.name}`}>
                            Rename
                          </button>
                          <button type="button" class="danger" onClick={() => setDeleting(server)} aria-label={`Delete ${server.name}`}>
                            Delete
                          </button>
                        </div>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </ListView>
      <AddServer organizationId={organizationId} />
      {deleting && (
        <ConfirmDialog
          title={`Delete server ${deleting.name}?`}
          confirmLabel="Delete server"
          explain={explainDelete}
          onClose={() => setDeleting(null)}
          onConfirm={async () => {
            await deployApi.servers.remove(deleting.id);
            servers.reload();
          }}
        >
          <p>Panel forgets this server and its daemon can no longer connect. Its containers are not touched.</p>
        </ConfirmDialog>
      )}
    </>
  );
}
