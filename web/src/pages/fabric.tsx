/**
 * The organization's overlay fabric (docs/FABRIC.md): whether it is on and its ranges (owners
 * change them), and every server: converged, pending or in error with the reason, its mesh
 * address and UDP port, where the others reach it (admins set an endpoint and a datacenter in a
 * form that opens with the stored values), its WireGuard key (admins rotate it, after a
 * confirmation; the row says while the daemon has not made the new one), and each peer with the
 * last handshake. The view is
 * read again every few seconds while the page is open, without flashing: daemons report as the
 * mesh changes, and the page says when it last heard.
 */
import { useEffect, useState } from 'preact/hooks';
import { ApiError } from '../api.ts';
import { ConfirmDialog } from '../confirm-dialog.tsx';
import { useCurrentOrganization } from '../current-organization.ts';
import { LoadFailed, Loading } from '../data.tsx';
import { deployApi } from '../deploy-api.ts';
import { CheckField, Field, FormAlert, SubmitButton, useForm } from '../forms.tsx';
import { type FabricServer, type FabricView, hasRole, organizationApi } from '../organization-api.ts';
import { ReadOnlyNote, useOrganizationRole } from '../role.tsx';
import { usePageTitle } from '../router.tsx';
import { Breadcrumbs } from '../breadcrumbs.tsx';

const REFRESH_MS = 5_000;

const STATE_TEXT: Record<FabricServer['state'], string> = {
  converged: 'converged',
  pending: 'pending',
  error: 'error',
  not_member: 'not a member',
};

/** The view, read again every REFRESH_MS; `replace` puts in what a save answered. */
function useFabric(organizationId: string) {
  const [view, setView] = useState<FabricView | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [readAt, setReadAt] = useState<Date | null>(null);
  const [attempt, setAttempt] = useState(0);
  useEffect(() => {
    let current = true;
    const read = () =>
      organizationApi.fabric.get(organizationId).then(
        (answer) => {
          if (!current) return;
          setView(answer);
          setError(null);
          setReadAt(new Date());
        },
        (failure: unknown) => current && setError(failure instanceof ApiError ? failure : new ApiError(0, 'console_error', 'The console could not read the answer.')),
      );
    void read();
    const timer = setInterval(read, REFRESH_MS);
    return () => {
      current = false;
      clearInterval(timer);
    };
  }, [organizationId, attempt]);
  return {
    view: view?.organizationId === organizationId ? view : null,
    error,
    readAt,
    retry: () => setAttempt((n) => n + 1),
    replace: (answer: FabricView) => {
      setView(answer);
      setReadAt(new Date());
    },
  };
}

export function FabricPage({ organizationId }: { organizationId: string }) {
  const fabric = useFabric(organizationId);
  const role = useOrganizationRole(organizationId);
  useCurrentOrganization(organizationId);
  usePageTitle('Overlay fabric');
  if (!fabric.view) {
    return fabric.error ? <LoadFailed error={fabric.error} what="the overlay fabric" retry={fabric.retry} /> : <Loading what="the overlay fabric" />;
  }
  const { view } = fabric;
  const members = view.servers.filter((server) => server.state !== 'not_member');
  const converged = members.filter((server) => server.state === 'converged').length;
  return (
    <>
      <Breadcrumbs items={[{ label: 'Organization', href: `/organizations/${organizationId}` }, { label: 'Overlay fabric' }]} />
      <h1 tabIndex={-1}>Overlay fabric</h1>
      <p class="lead">
        A WireGuard mesh between this organization's servers. Networks declared <code>driver: overlay</code> in a Compose file then span servers: each server runs
        them as a bridge with a subnet of its own, routed over the mesh, and services reach each other by name.
      </p>
      <p class="muted" role="status">
        {view.enabled ? `On: ${converged} of ${members.length} member${members.length === 1 ? '' : 's'} converged.` : 'Off: no network spans servers.'}{' '}
        {fabric.readAt && `Read at ${fabric.readAt.toLocaleTimeString()}, again every ${REFRESH_MS / 1000} seconds.`}
        {fabric.error && ` The last read failed: ${fabric.error.message}`}
      </p>
      <FabricSettings view={view} canEdit={hasRole(role, 'owner')} onSaved={fabric.replace} />
      <FabricServers view={view} canEdit={hasRole(role, 'admin')} onChanged={fabric.retry} onReplaced={fabric.replace} />
    </>
  );
}

function FabricSettings({ view, canEdit, onSaved }: { view: FabricView; canEdit: boolean; onSaved: (view: FabricView) => void }) {
  const form = useForm(['enabled', 'meshRange', 'containerRange'], {}, { meshRange: view.meshRange, containerRange: view.containerRange });
  const [enabled, setEnabled] = useState(view.enabled);
  const [outcome, setOutcome] = useState<string | null>(null);
  useEffect(() => setEnabled(view.enabled), [view.enabled]);
  const save = form.onSubmit(async (values, edited) => {
    setOutcome(null);
    const changes = {
      ...(enabled !== view.enabled ? { enabled } : {}),
      ...('meshRange' in edited ? { meshRange: values.meshRange ?? '' } : {}),
      ...('containerRange' in edited ? { containerRange: values.containerRange ?? '' } : {}),
    };
    if (Object.keys(changes).length === 0) return setOutcome('Nothing changed: there was nothing to save.');
    onSaved(await organizationApi.fabric.update(view.organizationId, changes));
    setOutcome(changes.enabled === true ? 'The fabric is on: every server with a key joins; their states follow below.' : changes.enabled === false ? 'The fabric is off: every server removes its interface and rules.' : 'Settings saved.');
  });
  return (
    <section aria-labelledby="fabric-settings-heading">
      <h2 id="fabric-settings-heading">Settings</h2>
      <form ref={form.formRef} onSubmit={save} noValidate class="card settings-form" aria-label="Fabric settings">
        <fieldset class="bare" disabled={!canEdit} aria-describedby="fabric-settings-explained">
          <p class="field-hint" id="fabric-settings-explained">
            Turning the fabric on opens a UDP port on every server and routes containers between them, so only owners change it.{!canEdit && ' Ask an owner.'}
          </p>
          <CheckField {...form.fieldProps('enabled')} label="Overlay fabric on" hint="Off by default. Turning it off cuts what runs on networks spanning servers." checked={enabled} onChange={setEnabled} />
          <Field
            {...form.fieldProps('meshRange')}
            label="Mesh range"
            hint="Each server's address on the mesh. A private /8 to /24, clear of Docker's pools (172.17-31.x, 192.168.x); changes only while the fabric is off."
            spellcheck={false}
          />
          <Field
            {...form.fieldProps('containerRange')}
            label="Container range"
            hint="Each network spanning servers gets a /24 from here on every server it runs on. A private /8 to /22; changes only while no network uses it."
            spellcheck={false}
          />
          <FormAlert problem={form.problem} />
          {outcome && (
            <p class="notice" role="status">
              {outcome}
            </p>
          )}
          {canEdit && (
            <SubmitButton busy={form.busy} busyLabel="Saving…">
              Save fabric settings
            </SubmitButton>
          )}
        </fieldset>
      </form>
    </section>
  );
}

/** "12 s ago", "3 min ago", or the time. */
function since(iso: string): string {
  const seconds = Math.round((Date.now() - Date.parse(iso)) / 1000);
  if (seconds < 90) return `${Math.max(seconds, 0)} s ago`;
  if (seconds < 3600) return `${Math.round(seconds / 60)} min ago`;
  return new Date(iso).toLocaleString();
}

interface FabricServersProps {
  view: FabricView;
  canEdit: boolean;
  /** Read the view again (after a change answered with something else). */
  onChanged: () => void;
  /** Show the view a change answered. */
  onReplaced: (view: FabricView) => void;
}

function FabricServers({ view, canEdit, onChanged, onReplaced }: FabricServersProps) {
  const [editing, setEditing] = useState<string | null>(null);
  const [rotating, setRotating] = useState<FabricServer | null>(null);
  if (view.servers.length === 0) return <p class="muted">No servers yet.</p>;
  return (
    <section aria-labelledby="fabric-servers-heading">
      <h2 id="fabric-servers-heading">Servers</h2>
      <div class="table-scroll">
        <table aria-label="Fabric servers">
          <thead>
            <tr>
              <th scope="col">Server</th>
              <th scope="col">State</th>
              <th scope="col">Mesh address</th>
              <th scope="col">UDP port</th>
              <th scope="col">Reached at</th>
              <th scope="col">Key</th>
              <th scope="col">Peers (last handshake)</th>
            </tr>
          </thead>
          <tbody>
            {view.servers.map((server) => (
              <tr key={server.serverId} data-fabric-state={server.state}>
                <th scope="row">
                  {server.name}
                  <span class={`badge status-${server.status}`}>{server.status}</span>
                </th>
                <td>
                  <span class={`status fabric-${server.state}`}>{STATE_TEXT[server.state]}</span>
                  {server.reason && <p class="field-hint">{server.reason}</p>}
                </td>
                <td>{server.meshAddress ?? <span class="muted">none</span>}</td>
                <td>{server.listenPort ?? <span class="muted">none</span>}</td>
                <td>
                  {editing === server.serverId ? (
                    <ReachForm
                      server={server}
                      onDone={() => {
                        setEditing(null);
                        onChanged();
                      }}
                    />
                  ) : (
                    <>
                      <Reach server={server} />
                      {canEdit && (
                        <button type="button" onClick={() => setEditing(server.serverId)} aria-label={`Edit where ${server.name} is reached`}>
                          Edit
                        </button>
                      )}
                    </>
                  )}
                </td>
                <td>
                  <ServerKey server={server} canEdit={canEdit} onRotate={() => setRotating(server)} />
                </td>
                <td>
                  {server.peers.length === 0 ? (
                    <span class="muted">none</span>
                  ) : (
                    <ul class="peers" aria-label={`Peers of ${server.name}`}>
                      {server.peers.map((peer) => (
                        <li key={peer.serverId}>
                          {peer.name}: {peer.lastHandshakeAt ? <time dateTime={peer.lastHandshakeAt}>{since(peer.lastHandshakeAt)}</time> : <span class="muted">no handshake yet</span>}
                          {peer.endpoint && <span class="muted"> via {peer.endpoint}</span>}
                        </li>
                      ))}
                    </ul>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {!canEdit && <ReadOnlyNote action="set where a server is reached or rotate its key" />}
      {rotating && (
        <ConfirmDialog
          title={`Rotate the WireGuard key of ${rotating.name}?`}
          confirmLabel="Rotate key"
          onConfirm={async () => onReplaced(await organizationApi.fabric.rotateKey(rotating.serverId))}
          onClose={() => setRotating(null)}
        >
          <p>
            Its daemon makes a new key pair {rotating.status === 'connected' ? 'now' : 'when it connects again (within an hour)'} and uses it at once; the other servers get the
            new public key right after. Until they have, traffic over the fabric to and from {rotating.name} pauses, usually for seconds. The private key never leaves the
            server.
          </p>
        </ConfirmDialog>
      )}
    </section>
  );
}

/** The start of the server's public key, and whether a new one is on its way. */
function ServerKey({ server, canEdit, onRotate }: { server: FabricServer; canEdit: boolean; onRotate: () => void }) {
  return (
    <>
      {server.publicKey ? (
        <code title={server.publicKey} aria-label={`Public key ${server.publicKey}`}>
          {server.publicKey.slice(0, 10)}…
        </code>
      ) : (
        <span class="muted">none reported</span>
      )}
      {server.keyRotationRequestedAt ? (
        <p class="field-hint" role="status">
          New key requested at {new Date(server.keyRotationRequestedAt).toLocaleTimeString()}; waiting for its daemon{server.status === 'connected' ? '' : ' to connect'}.
        </p>
      ) : (
        canEdit &&
        server.publicKey && (
          <button type="button" onClick={onRotate} aria-label={`Rotate the key of ${server.name}`}>
            Rotate key
          </button>
        )
      )}
    </>
  );
}

function Reach({ server }: { server: FabricServer }) {
  return (
    <p class="reach">
      {server.endpoint ? <code>{server.endpoint}</code> : server.candidates.length > 0 ? <span>{server.candidates.join(', ')}</span> : <span class="muted">no address reported</span>}
      {server.endpoint && <span class="muted"> (set by an admin)</span>}
      {server.datacenter && <span class="badge">{server.datacenter}</span>}
    </p>
  );
}

function ReachForm({ server, onDone }: { server: FabricServer; onDone: () => void }) {
  const form = useForm(['fabricEndpoint', 'datacenter'], {}, { fabricEndpoint: server.endpoint ?? '', datacenter: server.datacenter ?? '' });
  const submit = form.onSubmit(async (values, edited) => {
    const reach = {
      ...('fabricEndpoint' in edited ? { fabricEndpoint: values.fabricEndpoint?.trim() || null } : {}),
      ...('datacenter' in edited ? { datacenter: values.datacenter?.trim() || null } : {}),
    };
    if (Object.keys(reach).length > 0) await deployApi.servers.setReach(server.serverId, reach);
    onDone();
  });
  return (
    <form ref={form.formRef} onSubmit={submit} class="stack" aria-label={`Where ${server.name} is reached`}>
      <Field
        {...form.fieldProps('fabricEndpoint')}
        label="Endpoint"
        hint={`host, host:port or [v6]:port; empty: the addresses its daemon reports (${server.candidates.join(', ') || 'none yet'}).`}
        spellcheck={false}
        autoFocus
      />
      <Field {...form.fieldProps('datacenter')} label="Datacenter" hint="Servers naming the same datacenter reach each other at their private addresses." spellcheck={false} />
      <FormAlert problem={form.problem} />
      <div class="row">
        <SubmitButton busy={form.busy} busyLabel="Saving…">
          Save endpoint
        </SubmitButton>
        <button type="button" onClick={onDone}>
          Cancel
        </button>
      </div>
    </form>
  );
}
