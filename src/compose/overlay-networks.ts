/**
 * `driver: overlay` networks, compiled per server (ARCHITECTURE.md §8, Fabric). Docker refuses
 * the overlay driver outside swarm, and Panel runs no swarm, so no compiled document keeps it:
 *
 * - A network whose services the plan puts on several servers (Placement.spanning) becomes, on
 *   each of them, a Docker bridge with that server's /24 of the organization's container range
 *   (src/fabric/allocate.ts): bridge `pnf<index>`, masquerade off (containers keep their
 *   addresses across servers), MTU 1420 (the WireGuard interface's), gateway mode `routed`
 *   (Docker ≥ 28 would otherwise drop packets to container addresses arriving on another
 *   interface; older engines ignore the option). The daemon routes the container range over
 *   the mesh and admits, per network, only the same network's subnets on the other servers.
 *   `internal: true` is kept by the daemon's forward rules rather than Docker's (an internal
 *   Docker bridge has no route off its own subnet, so it could not span servers).
 * - Every other overlay network (all its services on one server, or a one-server plan) becomes
 *   a plain bridge there: the same document Docker refused now runs.
 *
 * Names across servers: Docker's DNS answers only for containers on its own engine, so each
 * replica on a spanning network gets a fixed address (kept across deploys, the subnet row holds
 * them) and every service on it gets `extra_hosts` entries for the services that have replicas
 * on other servers: all their replicas' addresses (the service's own name included when it spans
 * servers itself). /etc/hosts comes before Docker's DNS, so the entries list the local replicas
 * too. Placement only changes at deploy, which rewrites the entries: no resolver to run.
 */
import type { FabricNetwork } from '../contract/fabric.ts';
import { assignHosts, bridgeName, FABRIC_MTU, hostAddress, SubnetPool, subnetIndex } from '../fabric/allocate.ts';
import { composeInvalid } from './limits.ts';
import type { Placement } from './planner/plan.ts';
import { isMapping, type JsonObject, type JsonValue } from './values.ts';

/** A /24 of one spanning network on one server, with its replicas' host numbers (`<service>#<ordinal>`). */
export interface FabricSubnet {
  network: string;
  serverId: string;
  subnet: string;
  hosts: Record<string, number>;
}

/** The organization's container range and the subnets of its environments, as the deploy reads them. */
export interface FabricAllocation {
  containerRange: string;
  /** The environment's subnets from its previous deploys (kept where the network still spans the server). */
  subnets: readonly FabricSubnet[];
  /** Subnets other environments of the organization hold. */
  taken: readonly string[];
}

/** Options of a swarm overlay network that mean nothing on a bridge. */
const OVERLAY_ONLY_OPTIONS = ['encrypted', 'com.docker.network.driver.overlay.vxlanid_list'];
/** Bridge options a spanning network keeps from the document; the fabric sets the others. */
const KEPT_BRIDGE_OPTIONS = ['com.docker.network.bridge.enable_icc'];

const replicaKey = (service: string, ordinal: number) => `${service}#${ordinal}`;

/** The networks a service joins, as the planner reads them: `default` when it names none, none with network_mode. */
function networksOf(service: JsonObject): string[] {
  if (service.network_mode !== undefined && service.network_mode !== null) return [];
  if (Array.isArray(service.networks)) return service.networks.map(String);
  if (isMapping(service.networks)) return Object.keys(service.networks);
  return ['default'];
}

export class OverlayNetworks {
  /** network → server id → its subnet there. */
  private readonly byNetwork = new Map<string, Map<string, FabricSubnet>>();
  /** The environment's subnets after this deploy (what the deploy stores). */
  readonly subnets: FabricSubnet[] = [];
  private readonly overlay: Set<string>;

  constructor(
    private readonly merged: JsonObject,
    private readonly placement: Placement,
    private readonly context: FabricAllocation | undefined,
  ) {
    const networks = isMapping(merged.networks) ? merged.networks : {};
    this.overlay = new Set(Object.entries(networks).filter(([, network]) => isMapping(network) && network.driver === 'overlay').map(([name]) => name));
    if (placement.spanning.size === 0) return;
    if (context === undefined) throw new Error('a network spans servers but the compile was given no fabric allocation');
    const pool = new SubnetPool(context.containerRange, [...context.taken, ...context.subnets.map((entry) => entry.subnet)]);
    const services = isMapping(merged.services) ? merged.services : {};
    for (const [network, serverIds] of placement.spanning) {
      const members = Object.keys(services).filter((key) => networksOf(services[key] as JsonObject).includes(network));
      const here = new Map<string, FabricSubnet>();
      for (const serverId of serverIds) {
        const previous = context.subnets.find((entry) => entry.network === network && entry.serverId === serverId);
        const wanted = members.flatMap((key) => (placement.byServer.get(serverId)!.get(key) ?? []).map((ordinal) => replicaKey(key, ordinal)));
        const subnet = previous?.subnet ?? pool.take();
        const entry = { network, serverId, subnet, hosts: assignHosts(subnet, previous?.hosts ?? {}, wanted) };
        here.set(serverId, entry);
        this.subnets.push(entry);
      }
      this.byNetwork.set(network, here);
    }
  }

  /** The top-level networks of one server's document: every overlay network compiled for it. */
  compileNetworks(networks: JsonValue, serverId: string, warnings: string[]): JsonValue {
    if (!isMapping(networks)) return networks;
    const compiled: JsonObject = {};
    for (const [name, network] of Object.entries(networks)) {
      if (!this.overlay.has(name) || !isMapping(network)) {
        compiled[name] = network;
        continue;
      }
      const subnet = this.byNetwork.get(name)?.get(serverId);
      compiled[name] = subnet === undefined ? plainBridge(network) : this.fabricBridge(name, network, subnet, warnings);
    }
    return compiled;
  }

  private fabricBridge(name: string, network: JsonObject, entry: FabricSubnet, warnings: string[]): JsonObject {
    const path = `networks.${name}`;
    const { driver: _driver, driver_opts: authoredOptions, ipam, internal: _internal, attachable: _attachable, enable_ipv6: enableIpv6, ...rest } = network;
    if (ipam !== undefined && ipam !== null) warnings.push(`${path}.ipam is replaced: the fabric gives ${name} a subnet on each server it spans`);
    if (enableIpv6 === true) warnings.push(`${path}.enable_ipv6 is dropped: the fabric carries IPv4 between servers`);
    const options: JsonObject = {};
    if (isMapping(authoredOptions)) for (const key of KEPT_BRIDGE_OPTIONS) if (authoredOptions[key] !== undefined) options[key] = authoredOptions[key]!;
    return {
      ...rest,
      driver: 'bridge',
      driver_opts: {
        ...options,
        'com.docker.network.bridge.name': this.bridgeOf(entry),
        'com.docker.network.bridge.enable_ip_masquerade': 'false',
        'com.docker.network.driver.mtu': String(FABRIC_MTU),
        'com.docker.network.bridge.gateway_mode_ipv4': 'routed',
      },
      ipam: { config: [{ subnet: entry.subnet }] },
    };
  }

  private bridgeOf(entry: FabricSubnet): string {
    return bridgeName(subnetIndex(this.context!.containerRange, entry.subnet)!);
  }

  /**
   * One container's service in a server's document (`key` with `ordinal`): its fixed address on
   * each spanning network it joins, and the names of the services it shares one with that run
   * elsewhere.
   */
  compileService(service: JsonObject, key: string, ordinal: number, serverId: string, warnings: string[]): void {
    const joined = networksOf(service).filter((network) => this.byNetwork.get(network)?.has(serverId));
    if (joined.length === 0) return;
    const networks: JsonObject = {};
    if (Array.isArray(service.networks)) for (const name of service.networks) networks[String(name)] = null;
    else if (isMapping(service.networks)) Object.assign(networks, service.networks);
    else networks.default = null;
    for (const network of joined) {
      const entry = this.byNetwork.get(network)!.get(serverId)!;
      const settings = isMapping(networks[network]) ? { ...(networks[network] as JsonObject) } : {};
      if (settings.ipv4_address !== undefined) warnings.push(`services.${key}.networks.${network}.ipv4_address is replaced: the fabric numbers containers on ${network}`);
      settings.ipv4_address = hostAddress(entry.subnet, entry.hosts[replicaKey(key, ordinal)]!);
      networks[network] = settings;
    }
    service.networks = networks;
    this.addHosts(service, key, serverId, joined, warnings);
  }

  /** extra_hosts for every service sharing a spanning network that has a replica on another server. */
  private addHosts(service: JsonObject, key: string, serverId: string, joined: readonly string[], warnings: string[]): void {
    const entries: string[] = [];
    const named = new Set<string>();
    for (const network of joined) {
      const subnets = this.byNetwork.get(network)!;
      const services = isMapping(this.merged.services) ? this.merged.services : {};
      for (const other of Object.keys(services)) {
        if (named.has(other) || !networksOf(services[other] as JsonObject).includes(network)) continue;
        const replicas = this.placement.services.get(other) ?? [];
        if (replicas.every((replica) => replica.serverId === serverId)) continue;
        named.add(other);
        for (const { ordinal, serverId: where } of replicas) {
          const entry = subnets.get(where)!;
          entries.push(`${other}:${hostAddress(entry.subnet, entry.hosts[replicaKey(other, ordinal)]!)}`);
        }
      }
    }
    if (entries.length === 0) return;
    const authored = authoredHosts(service.extra_hosts);
    const authoredNames = new Set(authored.map((entry) => entry.split(/[:=]/)[0]));
    const added = entries.filter((entry) => !authoredNames.has(entry.split(':')[0]));
    for (const name of named) if (authoredNames.has(name)) warnings.push(`services.${key}.extra_hosts names ${name}: its entry is kept, so ${name} is not resolved to its replicas on other servers`);
    service.extra_hosts = [...authored, ...added];
  }

  /** The spanning networks one server runs, with the same networks' subnets elsewhere (the deploy command's `fabric`). */
  networksOn(serverId: string, merged: JsonObject): FabricNetwork[] {
    const networks = isMapping(merged.networks) ? merged.networks : {};
    return [...this.byNetwork]
      .filter(([, subnets]) => subnets.has(serverId))
      .map(([network, subnets]) => {
        const entry = subnets.get(serverId)!;
        return {
          network,
          bridge: this.bridgeOf(entry),
          subnet: entry.subnet,
          internal: isMapping(networks[network]) && (networks[network] as JsonObject).internal === true,
          peers: [...subnets.values()].filter((peer) => peer.serverId !== serverId).map((peer) => ({ serverId: peer.serverId, subnet: peer.subnet })),
        };
      });
  }
}

/** An overlay network on one server: a bridge, without the swarm-only settings. */
function plainBridge(network: JsonObject): JsonObject {
  const { attachable: _attachable, ...rest } = network;
  const bridge: JsonObject = { ...rest, driver: 'bridge' };
  if (isMapping(network.driver_opts)) {
    const options = Object.fromEntries(Object.entries(network.driver_opts).filter(([key]) => !OVERLAY_ONLY_OPTIONS.includes(key)));
    if (Object.keys(options).length > 0) bridge.driver_opts = options;
    else delete bridge.driver_opts;
  }
  return bridge;
}

/** extra_hosts as a list of `name:address` (the mapping form, values possibly lists, flattened). */
function authoredHosts(value: JsonValue | undefined): string[] {
  if (value === undefined || value === null) return [];
  if (Array.isArray(value)) return value.map(String);
  if (isMapping(value)) {
    return Object.entries(value).flatMap(([name, address]) => (Array.isArray(address) ? address : [address]).map((item) => `${name}:${String(item)}`));
  }
  throw composeInvalid('extra_hosts must be a list or a mapping', 'extra_hosts');
}
