/**
 * What a deploy of the environment would publish (GET /environments/:id/deploy-preview): the
 * plan's servers side by side, each with its compiled runtime document (read-only), the
 * containers and secret files it gets; the servers a deploy would stop; the warnings; and per
 * service where each variable comes from, secrets masked. A 409 server_placement_required says
 * how to fix it; a planner refusal shows the planner's own message.
 */
import { PLACEMENT_REFUSAL_CODES } from '../../../src/contract/errors.ts';
import type { ApiError } from '../api.ts';
import { LoadFailed, Loading } from '../data.tsx';
import type { DeployPreview, ResolvedEntry } from '../deploy-api.ts';
import { useCanWrite } from '../role.tsx';

export const PIN_ANCHOR = 'server-pin';

export const PLACEMENT_REFUSALS: ReadonlySet<string> = new Set(PLACEMENT_REFUSAL_CODES);

/** A plan the planner refused: its message names the service and the rule. */
export function PlacementRefused({ error }: { error: ApiError }) {
  return (
    <div class="alert" role="alert">
      <p>
        <strong>This environment cannot be placed</strong> ({error.code.replaceAll('_', ' ')}): {error.message}
      </p>
      {error.path && (
        <p class="muted">
          At <code>{error.path}</code> in the Compose file. Change the document on the project page (or this environment's overlay), or the servers' labels.
        </p>
      )}
    </div>
  );
}

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

type Block = DeployPreview['blocks'][number];

/** One server of the plan: what runs there (service and replica number) and the document its daemon gets. */
function ServerBlock({ block, isAnchor, keyOf }: { block: Block; isAnchor: boolean; keyOf: (serviceId: string) => string | undefined }) {
  const heading = `compiled-${block.serverId}`;
  return (
    <article class="card server-block" aria-labelledby={heading} data-server-id={block.serverId}>
      <h3 id={heading}>
        {block.serverName}
        {isAnchor && <span class="badge">Anchor</span>}
      </h3>
      <p class="muted">
        {block.containers.length} container{block.containers.length === 1 ? '' : 's'}:
      </p>
      <ul class="tags" aria-label={`Containers on ${block.serverName}`}>
        {block.containers.map((container) => (
          <li key={container.containerName}>
            <code class="chip" title={container.containerName}>
              {keyOf(container.serviceId) ?? container.composeServiceName} #{container.ordinal}
            </code>
          </li>
        ))}
      </ul>
      {block.secrets.length > 0 && <p class="muted">Secret files for this server's daemon: {block.secrets.map((secret) => secret.key).join(', ')} (values never shown).</p>}
      <details open>
        <summary>compose.yaml</summary>
        <pre class="compiled" tabIndex={0} aria-label={`Compiled compose.yaml for ${block.serverName}`}>
          <code>{block.yaml}</code>
        </pre>
      </details>
    </article>
  );
}

function PreviewBody({ preview, organizationId }: { preview: PreviewState; organizationId: string }) {
  if (preview.error?.code === 'server_placement_required') return <PlacementRequired organizationId={organizationId} />;
  if (preview.error && PLACEMENT_REFUSALS.has(preview.error.code)) return <PlacementRefused error={preview.error} />;
  if (preview.error) return <LoadFailed error={preview.error} what="the deploy preview" retry={preview.reload} />;
  if (!preview.data) return <Loading what="the deploy preview" />;
  const { data } = preview;
  const names = data.blocks.map((block) => block.serverName);
  const keys = new Map(data.variables.map((service) => [service.serviceId, service.composeServiceName]));
  return (
    <>
      <p>
        Anchored on server <strong>{data.server.name}</strong>.{' '}
        {data.blocks.length === 0
          ? 'Nothing is placed on any server.'
          : data.blocks.length === 1
            ? `Everything runs on ${names[0]}.`
            : `The plan runs on ${data.blocks.length} servers: ${names.join(', ')}.`}
      </p>
      {data.stops.length > 0 && (
        <p class="notice" role="status">
          A deploy stops this environment on {data.stops.map((server) => server.name).join(', ')}: {data.stops.length === 1 ? 'it is' : 'they are'} no longer in the plan.
        </p>
      )}
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
      <div class="server-blocks">
        {data.blocks.map((block) => (
          <ServerBlock key={block.serverId} block={block} isAnchor={block.serverId === data.server.id} keyOf={(id) => keys.get(id)} />
        ))}
      </div>
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
