/**
 * One server: whether its daemon is connected, its host, private address and version facts, and its resource
 * charts (CPU, memory, disk, load), live while the page is open.
 */
import { call } from '../api.ts';
import { useCurrentOrganization } from '../current-organization.ts';
import { LoadFailed, Loading, useResource } from '../data.tsx';
import type { Server } from '../deploy-api.ts';
import { MetricsPanel } from '../observe/metrics-panel.tsx';
import { usePageTitle } from '../router.tsx';
import { Breadcrumbs } from '../breadcrumbs.tsx';

export function ServerPage({ id }: { id: string }) {
  const server = useResource(`server:${id}`, () => call<Server>('GET', `client/v1/servers/${id}`));
  useCurrentOrganization(server.data?.organizationId);
  usePageTitle(server.data ? `Server ${server.data.name}` : 'Server');
  if (server.error) return <LoadFailed error={server.error} what="the server" retry={server.reload} />;
  if (!server.data) return <Loading what="the server" />;
  const row = server.data;
  return (
    <>
      <Breadcrumbs items={[{ label: 'Servers', href: `/organizations/${row.organizationId}/servers` }, { label: row.name }]} />
      <h1 tabIndex={-1}>{row.name}</h1>
      <dl class="facts">
        <dt>Status</dt>
        <dd>
          <span class={`status status-${row.status}`}>{row.status}</span>
        </dd>
        <dt>Host</dt>
        <dd>{row.hostname ?? <span class="muted">unknown</span>}</dd>
        <dt>Private address</dt>
        <dd>{row.privateAddress ?? <span class="muted">not set (tcp/udp hostings cannot bind datacenter here)</span>}</dd>
        <dt>Daemon</dt>
        <dd>{row.isLocal ? 'Local (on the control plane’s host)' : 'Remote'}</dd>
      </dl>
      <MetricsPanel target={{ serverId: id }} kind="server" />
    </>
  );
}
