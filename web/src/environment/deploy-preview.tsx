/**
 * What a deploy of the environment would publish (GET /environments/:id/deploy-preview): the
 * compiled runtime document per server (read-only), the warnings, and per service where each
 * variable comes from, secrets masked. A 409 server_placement_required says how to fix it.
 */
import type { ApiError } from '../api.ts';
import { LoadFailed, Loading } from '../data.tsx';
import type { DeployPreview, ResolvedEntry } from '../deploy-api.ts';
import { useCanWrite } from '../role.tsx';

export const PIN_ANCHOR = 'server-pin';

/** Moves focus to the server pin select (the anchor's target), so keyboard users land on it. */
export function SetPinLink({ children }: { children: string }) {
  const focusPin = (event: MouseEvent) => {
    const select = document.getElementById(PIN_ANCHOR);
    if (!select) return;
    event.preventDefault();
    select.scrollIntoView({ block: 'center' });
    select.focus();
  };
  return (
    <a href={`#${PIN_ANCHOR}`} onClick={focusPin}>
      {children}
    </a>
  );
}

export function PlacementRequired({ organizationId }: { organizationId: string }) {
  const writable = useCanWrite(organizationId);
  return (
    <div class="alert" role="alert">
      <p>
        <strong>No server to deploy to.</strong> This environment has no server pin and its project has no default server.
      </p>
      {writable ? (
        <p>
          <SetPinLink>Set the server pin</SetPinLink> below, or choose a default server on the project page.
        </p>
      ) : (
        <p>An admin or owner of the organization can set the server pin or the project's default server.</p>
      )}
    </div>
  );
}

const SCOPE_LABEL: Record<string, string> = { organization: 'organization', workspace: 'workspace', project: 'project', environment: 'environment', service: 'service', hosting: 'hosting', server: 'server' };

/** The provenance table of one service: key, value (secrets masked), the scope it comes from, what it overrides. */
export function ProvenanceTable({ label, entries }: { label: string; entries: ResolvedEntry[] }) {
  if (entries.length === 0) return <p class="muted">No variables reach {label}.</p>;
  return (
    <div class="table-scroll">
      <table aria-label={`Resolved variables of ${label}`}>
        <thead>
          <tr>
            <th scope="col">Key</th>
            <th scope="col">Value</th>
            <th scope="col">Comes from</th>
            <th scope="col">Overrides</th>
          </tr>
        </thead>
        <tbody>
          {entries.map((entry) => (
            <tr key={entry.key}>
              <th scope="row">
                <code>{entry.key}</code>
              </th>
              <td>{entry.isSecret ? <span class="muted">•••••• (secret)</span> : <code class="value">{entry.value}</code>}</td>
              <td>{SCOPE_LABEL[entry.scope] ?? entry.scope}</td>
              <td>{entry.shadowed.length === 0 ? <span class="muted">—</span> : entry.shadowed.map((source) => SCOPE_LABEL[source.scope] ?? source.scope).join(', ')}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

interface PreviewState {
  data: DeployPreview | undefined;
  error: ApiError | undefined;
  reload: () => void;
}

export function DeployPreviewSection({ preview, organizationId }: { preview: PreviewState; organizationId: string }) {
  return (
    <section aria-labelledby="preview-heading">
      <div class="section-header">
        <h2 id="preview-heading">
          Deploy preview <span class="badge">Read-only</span>
        </h2>
        <button type="button" onClick={preview.reload}>
          Refresh preview
        </button>
      </div>
      <PreviewBody preview={preview} organizationId={organizationId} />
    </section>
  );
}

function PreviewBody({ preview, organizationId }: { preview: PreviewState; organizationId: string }) {
  if (preview.error?.code === 'server_placement_required') return <PlacementRequired organizationId={organizationId} />;
  if (preview.error) return <LoadFailed error={preview.error} what="the deploy preview" retry={preview.reload} />;
  if (!preview.data) return <Loading what="the deploy preview" />;
  const { data } = preview;
  return (
    <>
      <p>
        Deploys to server <strong>{data.server.name}</strong>.
      </p>
      {data.warnings.length > 0 && (
        <div class="notice" role="status">
          <h3>Warnings</h3>
          <ul>
            {data.warnings.map((warning) => (
              <li key={warning}>{warning}</li>
            ))}
          </ul>
        </div>
      )}
      {data.blocks.map((block) => (
        <div key={block.serverId}>
          <h3 id={`compiled-${block.serverId}`}>Compiled compose.yaml for {block.serverId === data.server.id ? data.server.name : block.serverId}</h3>
          <pre class="compiled" tabIndex={0} aria-labelledby={`compiled-${block.serverId}`}>
            <code>{block.yaml}</code>
          </pre>
          {block.secrets.length > 0 && <p class="muted">Secret files delivered to the daemon: {block.secrets.map((secret) => secret.key).join(', ')} (values never shown).</p>}
        </div>
      ))}
      <h3>Variables by service</h3>
      {data.variables.map((service) => (
        <details key={service.serviceId} open={data.variables.length <= 3}>
          <summary>{service.composeServiceName}</summary>
          <ProvenanceTable label={service.composeServiceName} entries={service.entries} />
        </details>
      ))}
    </>
  );
}
