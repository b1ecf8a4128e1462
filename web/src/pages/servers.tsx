/**
 * The servers of an organization: connected or not and when last seen, updated live over
 * /ws/client/v1 (live-servers.ts; until the first snapshot, and if the socket is refused, the
 * GET /servers list is shown), their labels (what placement constraints match; admins edit
 * them) and tags (with a tag filter), rename, delete (a 409
 * has_dependents is explained), and "Add server": a join token (for a new server, or replacing
 * one: how an enrolled machine joins again) whose exact `panel daemon join` command is shown
 * once, with a copy button. Members of the organization see the servers without
 * the controls that change them.
 */
import { useEffect, useState } from 'preact/hooks';
import { RowActions } from '../row-actions.tsx';
import { api, type ApiError } from '../api.ts';
import { ConfirmDialog, CopyableCommand } from '../confirm-dialog.tsx';
import { useCurrentOrganization } from '../current-organization.ts';
import { ListView, LoadFailed, Loading, useList, useResource } from '../data.tsx';
import { type CreatedJoinToken, deployApi, type Server } from '../deploy-api.ts';
import { Field, FormAlert, SelectField, SubmitButton, useForm } from '../forms.tsx';
import { useLiveServers } from '../live-servers.ts';
import { ReadOnlyNote, useCanWrite } from '../role.tsx';
import { Link, usePageTitle } from '../router.tsx';
import { Breadcrumbs } from '../breadcrumbs.tsx';
import { PrivateAddressForm } from './server-address.tsx';
import { LabelChips, LabelsForm } from './server-labels.tsx';
import { TagPicker, useTagFilter } from './tags.tsx';
import { ThisMachineCard } from './this-machine.tsx';

const CONNECTION_TEXT = {
  connecting: 'Connecting to live updates…',
  live: 'Live: connections and disconnections appear as they happen.',
  reconnecting: 'Live updates interrupted; reconnecting…',
  refused: 'Live updates are not available',
};

const explainDelete = (error: ApiError) =>
  error.code === 'has_dependents'
    ? `This server is still in use: ${error.message}. Move environments pinned to it (and projects using it as their default) to another server, and destroy the deployments on it (stopped containers still exist), then delete it.`
    : undefined;

const RELATIVE_UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ['year', 365 * 86_400],
  ['month', 30 * 86_400],
  ['week', 7 * 86_400],
  ['day', 86_400],
  ['hour', 3_600],
  ['minute', 60],
];

/** "5 minutes ago", "yesterday"; under a minute "just now". */
function relativeTime(iso: string, now: number): string {
  const seconds = (Date.parse(iso) - now) / 1000;
  const format = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });
  for (const [unit, size] of RELATIVE_UNITS) {
    if (Math.abs(seconds) >= size) return format.format(Math.round(seconds / size), unit);
  }
  return 'just now';
}

/** The current time, refreshed every `everyMs` so relative times move on (nothing is fetched). */
function useNow(everyMs: number): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(timer);
  }, [everyMs]);
  return now;
}

function LastSeen({ server, now }: { server: Server; now: number }) {
  if (!server.lastSeenAt) return <span class="muted">never</span>;
  const exact = new Date(server.lastSeenAt).toLocaleString();
  // A connected server's last_seen_at is only refreshed in the database, not pushed: it is seen now.
  const connected = server.status === 'connected';
  return (
    <time dateTime={server.lastSeenAt} title={connected ? `Connected; last recorded ${exact}` : exact}>
      {connected ? 'now' : relativeTime(server.lastSeenAt, now)}
    </time>
  );
}

function RenameForm({ server, onDone }: { server: Server; onDone: () => void }) {
  const form = useForm(['name'], {}, { name: server.name });
  const submit = form.onSubmit(async (values, edited) => {
    if ('name' in edited) await deployApi.servers.rename(server.id, values.name ?? '');
    onDone();
  });
  return (
    <form ref={form.formRef} onSubmit={submit} class="inline-form" aria-label={`Rename ${server.name}`}>
      <Field {...form.fieldProps('name')} label={`Name of ${server.name}`} required autoFocus autoComplete="off" />
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

const LIFETIMES = [
  { value: '3600', label: '1 hour' },
  { value: '86400', label: '1 day' },
  { value: '604800', label: '7 days' },
];

/**
 * Its own component so its busy state goes with it when the created command replaces it. A
 * machine already enrolled joins again only with a token made to replace its server.
 */
function CreateJoinCommand({ organizationId, servers, onCreated }: { organizationId: string; servers: Server[]; onCreated: (created: CreatedJoinToken) => void }) {
  const form = useForm(['name', 'expiresInSeconds', 'replacesServerId']);
  const submit = form.onSubmit(async (values) =>
    onCreated(
      await deployApi.joinTokens.create({
        organizationId,
        ...(values.name?.trim() ? { name: values.name.trim() } : {}),
        expiresInSeconds: Number(values.expiresInSeconds || '3600'),
        ...(values.replacesServerId ? { replacesServerId: values.replacesServerId } : {}),
      }),
    ),
  );
  const choices = [
    { value: '', label: 'A new server' },
    ...servers.filter((server) => !server.isLocal).map((server) => ({ value: server.id, label: `Replace ${server.name}` })),
  ];
  return (
    <form ref={form.formRef} onSubmit={submit} class="stack" aria-label="Create a join command">
      <p class="muted">Creates a one-time join token and the one-line command that installs Panel's daemon on a server and enrolls it.</p>
      <SelectField
        {...form.fieldProps('replacesServerId')}
        label="The command enrolls"
        choices={choices}
        hint="A machine that is already enrolled can join again (a new key, a reinstalled daemon) only with a token that replaces its server; new hardware can take over a server the same way, keeping its environments and history."
      />
      <Field {...form.fieldProps('name')} label="Server name (optional)" hint="Shown in Panel; without one, the server's hostname." autoComplete="off" />
      <SelectField {...form.fieldProps('expiresInSeconds')} label="The command works for" choices={LIFETIMES} defaultValue="3600" />
      <FormAlert problem={form.problem} />
      <SubmitButton busy={form.busy} busyLabel="Creating the join token…">
        Create join command
      </SubmitButton>
    </form>
  );
}

function AddServer({ organizationId, servers }: { organizationId: string; servers: Server[] }) {
  const [created, setCreated] = useState<CreatedJoinToken | null>(null);
  const replaced = created?.replacesServerId ? servers.find((server) => server.id === created.replacesServerId) : undefined;
  return (
    <section aria-labelledby="add-server-heading" class="card">
      <h2 id="add-server-heading">Add server</h2>
      {created ? (
        <>
          {created.warnings.map((warning) => (
            <p key={warning} class="notice" role="alert">
              {warning}
            </p>
          ))}
          <p>
            {replaced
              ? `Run this on the machine that takes over ${replaced.name} (Docker installed there); the daemon connected as ${replaced.name} now is cut off when it does.`
              : 'Run this on the new server (Docker installed there).'}{' '}
            It downloads Panel's daemon from this Panel, checks its SHA-256, installs it as the panel-daemon systemd service and enrolls the server. The token
            works once and expires at {new Date(created.expiresAt).toLocaleString()}. It is shown only now.
          </p>
          <CopyableCommand text={created.command} label="Join command" />
          <details>
            <summary>The server already has the panel executable</summary>
            <CopyableCommand text={created.joinCommand} label="panel daemon join command" />
            <p class="muted">Then keep it connected with panel daemon run (as a service).</p>
          </details>
          <button type="button" onClick={() => setCreated(null)}>
            Done
          </button>
        </>
      ) : (
        <CreateJoinCommand organizationId={organizationId} servers={servers} onCreated={setCreated} />
      )}
    </section>
  );
}

interface TableProps {
  organizationId: string;
  /** Whether the caller may rename and delete (admins and owners). */
  writable: boolean;
  /** Reloads the list after a rename; absent while the live socket pushes changes. */
  onChanged?: () => void;
  onDelete: (server: Server) => void;
}

function ServerTable({ servers, organizationId, writable, onChanged, onDelete }: TableProps & { servers: Server[] }) {
  const [editing, setEditing] = useState<{ id: string; what: 'name' | 'labels' | 'address' } | null>(null);
  const done = () => {
    setEditing(null);
    onChanged?.();
  };
  const now = useNow(30_000);
  return (
    <div class="table-scroll">
      <table aria-label="Servers">
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Status</th>
            <th scope="col">Last seen</th>
            <th scope="col">Host</th>
            <th scope="col">Labels</th>
            <th scope="col">Tags</th>
            {writable && <th scope="col">Actions</th>}
          </tr>
        </thead>
        <tbody>
          {servers.map((server) => (
            <tr key={server.id} data-server-status={server.status}>
              <th scope="row">
                <Link href={`/servers/${server.id}`}>{server.name}</Link>
                {server.isLocal && <span class="badge">Local</span>}
              </th>
              <td>
                <span class={`status status-${server.status}`}>{server.status}</span>
              </td>
              <td>
                <LastSeen server={server} now={now} />
              </td>
              <td>{server.hostname ?? <span class="muted">unknown</span>}</td>
              <td>
                <LabelChips labels={server.labels} />
              </td>
              <td>
                <TagPicker taggable="servers" id={server.id} organizationId={organizationId} />
              </td>
              {writable && (
                <td>
                  {editing?.id === server.id ? (
                    editing.what === 'name' ? (
                      <RenameForm server={server} onDone={done} />
                    ) : editing.what === 'labels' ? (
                      <LabelsForm server={server} onDone={done} />
                    ) : (
                      <PrivateAddressForm server={server} onDone={done} />
                    )
                  ) : (
                    <div class="row compact">
                      <button type="button" onClick={() => setEditing({ id: server.id, what: 'labels' })} aria-label={`Edit labels of ${server.name}`}>
                        Labels
                      </button>
                      <button type="button" onClick={() => setEditing({ id: server.id, what: 'address' })} aria-label={`Edit the private address of ${server.name}`}>
                        Address
                      </button>
                      <RowActions name={server.name} edit="Rename" onEdit={() => setEditing({ id: server.id, what: 'name' })} onRemove={() => onDelete(server)} />
                    </div>
                  )}
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** The table of the servers that carry the chosen tag (all of them while none is chosen). */
function FilteredServers({ servers, ...table }: TableProps & { servers: Server[] }) {
  const filter = useTagFilter('servers', table.organizationId, servers);
  return (
    <>
      {filter.select}
      {!filter.kept ? (
        <p class="muted" role="status">
          Filtering…
        </p>
      ) : servers.length === 0 ? (
        <p class="muted">No servers yet.</p>
      ) : filter.kept.length === 0 ? (
        <p class="muted">No server carries that tag.</p>
      ) : (
        <ServerTable servers={filter.kept} {...table} />
      )}
    </>
  );
}

export function ServersPage({ organizationId }: { organizationId: string }) {
  const organization = useResource(`organization:${organizationId}`, () => api.organizations.get(organizationId));
  const listed = useList(`servers:${organizationId}`, (cursor) => deployApi.servers.list({ organizationId, cursor }));
  const live = useLiveServers(organizationId);
  const [deleting, setDeleting] = useState<Server | null>(null);
  const writable = useCanWrite(organizationId);
  useCurrentOrganization(organizationId);
  usePageTitle('Servers');

  if (organization.error) return <LoadFailed error={organization.error} what="the organization" retry={organization.reload} />;
  if (!organization.data) return <Loading what="the organization" />;
  // Live rows need no reload: the socket pushes renames and deletes too.
  const table = { organizationId, writable, onChanged: live.servers ? undefined : listed.reload, onDelete: setDeleting };
  return (
    <>
      <Breadcrumbs items={[{ label: organization.data.name, href: `/organizations/${organizationId}` }, { label: 'Servers' }]} />
      <h1 tabIndex={-1}>Servers</h1>
      <ThisMachineCard organizationId={organizationId} serversVersion={live.servers} />
      <p class="muted" role="status">
        {CONNECTION_TEXT[live.connection]}
        {live.problem && `: ${live.problem}`}
      </p>
      {live.servers ? (
        <FilteredServers servers={live.servers} {...table} />
      ) : (
        <ListView list={listed} what="servers" empty="No servers yet.">
          {(items) => <FilteredServers servers={items} {...table} />}
        </ListView>
      )}
      {writable ? <AddServer organizationId={organizationId} servers={live.servers ?? listed.data ?? []} /> : <ReadOnlyNote action="add, rename, label or delete servers" />}
      {deleting && (
        <ConfirmDialog
          title={`Delete server ${deleting.name}?`}
          confirmLabel="Delete server"
          explain={explainDelete}
          onClose={() => setDeleting(null)}
          onConfirm={async () => {
            await deployApi.servers.remove(deleting.id);
            table.onChanged?.();
          }}
        >
          <p>Panel forgets this server and its daemon can no longer connect. Its containers are not touched.</p>
        </ConfirmDialog>
      )}
    </>
  );
}
