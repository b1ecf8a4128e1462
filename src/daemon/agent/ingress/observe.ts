/**
 * The containers a server's ingress routes to, as the daemon observes them: `docker inspect` of
 * the running containers of the organization's services, reduced to what the configuration
 * generator needs (src/ingress/caddy-config.ts ObservedContainer). Only containers carrying the
 * platform labels of the organization and of a routed service count: labels under `dev.panel.`
 * are set by the compiler alone, so a container cannot pass for another service's.
 */
import { PANEL_LABELS } from '../../../compose/naming.ts';
import type { ObservedContainer } from '../../../ingress/caddy-config.ts';
import type { DockerCli } from '../docker-cli.ts';

/** The fields of one `docker inspect` entry read here. */
interface InspectedContainer {
  Name?: string;
  State?: { Status?: string; Health?: { Status?: string } };
  Config?: { Labels?: Record<string, string> | null; ExposedPorts?: Record<string, unknown> | null };
  HostConfig?: { NetworkMode?: string };
  NetworkSettings?: { Networks?: Record<string, { IPAddress?: string; GlobalIPv6Address?: string }> | null };
}

/** Where the host reaches the container: loopback with host networking, else an address on one of its networks (sorted by name). */
function addressOf(container: InspectedContainer): string | null {
  const mode = container.HostConfig?.NetworkMode ?? '';
  if (mode === 'host') return '127.0.0.1';
  if (mode === 'none') return null;
  const networks = Object.entries(container.NetworkSettings?.Networks ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  for (const [, network] of networks) if (network.IPAddress) return network.IPAddress;
  for (const [, network] of networks) if (network.GlobalIPv6Address) return network.GlobalIPv6Address;
  return null;
}

/** TCP ports from `ExposedPorts` keys such as `8080/tcp`. */
function exposedTcpPorts(container: InspectedContainer): number[] {
  return Object.keys(container.Config?.ExposedPorts ?? {})
    .filter((key) => key.endsWith('/tcp'))
    .map((key) => Number(key.slice(0, -4)))
    .filter((port) => Number.isInteger(port) && port > 0 && port < 65536)
    .sort((a, b) => a - b);
}

export function observedContainers(inspected: readonly unknown[], organizationId: string, serviceIds: ReadonlySet<string>): ObservedContainer[] {
  const observed: ObservedContainer[] = [];
  for (const entry of inspected as InspectedContainer[]) {
    const labels = entry.Config?.Labels ?? {};
    const serviceId = labels[PANEL_LABELS.serviceId];
    if (labels[PANEL_LABELS.organizationId] !== organizationId || (labels[PANEL_LABELS.role] ?? 'service') !== 'service') continue;
    if (!serviceId || !serviceIds.has(serviceId)) continue;
    const status = entry.State?.Status ?? 'unknown';
    const health = entry.State?.Health?.Status;
    observed.push({
      serviceId,
      name: (entry.Name ?? '').replace(/^\//, ''),
      address: addressOf(entry),
      exposedPorts: exposedTcpPorts(entry),
      ready: status === 'running' && (health === undefined || health === 'healthy'),
      condition: status === 'running' && health !== undefined ? health : status,
    });
  }
  return observed.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** The running containers of the organization's routed services on this server. */
export async function observe(docker: DockerCli, organizationId: string, serviceIds: ReadonlySet<string>): Promise<ObservedContainer[]> {
  if (serviceIds.size === 0) return [];
  const ids = await docker.runningContainerIds([`${PANEL_LABELS.organizationId}=${organizationId}`]);
  return observedContainers(await docker.inspectContainers(ids), organizationId, serviceIds);
}
