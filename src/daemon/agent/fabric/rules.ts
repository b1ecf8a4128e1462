/**
 * What the daemon writes for the fabric, from the member configuration the control plane sent
 * and the spanning networks of the projects it runs (pure; host-network.ts applies it):
 *
 * - the WireGuard configuration for `wg syncconf` (which adds, changes and removes peers to
 *   match): per peer its mesh address and the subnets of every network this server shares
 *   with it (WireGuard drops packets from a peer whose source it does not list, and sends a
 *   packet to the peer whose list holds its destination);
 * - the filter chain PANEL-FABRIC, jumped to first from DOCKER-USER: Docker's FORWARD lets into
 *   a bridge only replies and published ports, so each fabric bridge admits from the interface
 *   exactly its own network's subnets on the other servers (a project never reaches another's
 *   network over the mesh), sends to them, and everything else in or out of the interface is
 *   dropped (a container on any other network cannot use the mesh). An `internal` network's
 *   containers reach the mesh and nothing else;
 * - the nat chain PANEL-FABRIC-NAT, jumped to from POSTROUTING: fabric bridges have masquerade
 *   off (containers keep their addresses across servers), so what leaves them for anywhere but
 *   the container range is masqueraded here, as Docker would have (internal ones excepted).
 */
import { FABRIC_INTERFACE, type FabricConfig, type FabricNetwork } from '../../../contract/fabric.ts';

export const FILTER_CHAIN = 'PANEL-FABRIC';
export const NAT_CHAIN = 'PANEL-FABRIC-NAT';
/** Keeps NAT mappings open for peers behind NAT; WireGuard's usual value. */
export const PERSISTENT_KEEPALIVE_SECONDS = 25;

/** The spanning networks of one project as its last deploy gave them, with when that was. */
export interface ProjectNetworks {
  project: string;
  /** Epoch milliseconds: of two projects claiming one subnet for different peers, the newer wins. */
  writtenAt: number;
  networks: FabricNetwork[];
}

/** Peer server id → the subnets of shared networks it runs (newest claim first for each subnet). */
export function peerSubnets(projects: readonly ProjectNetworks[]): Map<string, string[]> {
  const owner = new Map<string, string>();
  for (const project of [...projects].sort((a, b) => b.writtenAt - a.writtenAt)) {
    for (const network of project.networks) for (const peer of network.peers) if (!owner.has(peer.subnet)) owner.set(peer.subnet, peer.serverId);
  }
  const byPeer = new Map<string, string[]>();
  for (const [subnet, serverId] of [...owner].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const subnets = byPeer.get(serverId);
    if (subnets) subnets.push(subnet);
    else byPeer.set(serverId, [subnet]);
  }
  return byPeer;
}

/** The `wg syncconf` file: the interface's key and port, every peer with its allowed addresses. */
export function wireguardConfig(privateKey: string, config: FabricConfig, projects: readonly ProjectNetworks[]): string {
  const subnets = peerSubnets(projects);
  const lines = ['[Interface]', `PrivateKey = ${privateKey}`, `ListenPort = ${config.listenPort}`];
  for (const peer of config.peers) {
    lines.push('', '[Peer]', `PublicKey = ${peer.publicKey}`, `AllowedIPs = ${[`${peer.meshAddress}/32`, ...(subnets.get(peer.serverId) ?? [])].join(', ')}`);
    if (peer.endpoint !== null) lines.push(`Endpoint = ${peer.endpoint}`);
    lines.push(`PersistentKeepalive = ${PERSISTENT_KEEPALIVE_SECONDS}`);
  }
  return `${lines.join('\n')}\n`;
}

/** Every network of every project, one per bridge (the newest project's when two name one). */
function bridges(projects: readonly ProjectNetworks[]): FabricNetwork[] {
  const seen = new Map<string, FabricNetwork>();
  for (const project of [...projects].sort((a, b) => b.writtenAt - a.writtenAt)) {
    for (const network of project.networks) if (!seen.has(network.bridge)) seen.set(network.bridge, network);
  }
  return [...seen.values()].sort((a, b) => (a.bridge < b.bridge ? -1 : a.bridge > b.bridge ? 1 : 0));
}

/** The input of `iptables-restore --noflush`: both chains, rewritten whole (declaring a chain flushes it). */
export function iptablesRules(containerRange: string, projects: readonly ProjectNetworks[]): string {
  const wg = FABRIC_INTERFACE;
  const filter = ['*filter', `:${FILTER_CHAIN} - [0:0]`];
  const nat = ['*nat', `:${NAT_CHAIN} - [0:0]`];
  for (const network of bridges(projects)) {
    const { bridge, subnet } = network;
    const peers = network.peers.map((peer) => peer.subnet);
    if (peers.length > 0) {
      filter.push(`-A ${FILTER_CHAIN} -i ${wg} -o ${bridge} -s ${peers.join(',')} -d ${subnet} -j ACCEPT`);
      filter.push(`-A ${FILTER_CHAIN} -i ${bridge} -o ${wg} -s ${subnet} -d ${peers.join(',')} -j ACCEPT`);
    }
    if (network.internal) filter.push(`-A ${FILTER_CHAIN} -i ${bridge} ! -o ${bridge} -j DROP`);
    else nat.push(`-A ${NAT_CHAIN} -s ${subnet} ! -o ${bridge} ! -d ${containerRange} -j MASQUERADE`);
  }
  filter.push(`-A ${FILTER_CHAIN} -i ${wg} -j DROP`, `-A ${FILTER_CHAIN} -o ${wg} -j DROP`, 'COMMIT');
  nat.push('COMMIT');
  return `${[...filter, ...nat].join('\n')}\n`;
}
