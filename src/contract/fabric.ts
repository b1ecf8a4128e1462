/**
 * The overlay fabric as the daemon protocol carries it (valibot only; the hub, the agent and the
 * console import it alike):
 * - FabricCommandPayload: the `fabric` command, a member's whole WireGuard configuration
 *   (`up`, with the hash the control plane keeps), the order to remove it (`down`), or to make a
 *   new key pair and use it (`rotate-key`; the daemon then reports the new public key);
 * - FabricNetwork: per deploy, each network of the server's document that spans servers, with
 *   the subnets of the same network on the other servers (its routes and forward rules);
 * - FabricStatus: the `fabric` frame a daemon sends after connecting, after every apply and
 *   every minute while its interface is up: its public key, where it can be reached, the hash of
 *   what it applied (or why it could not) and the last handshake of each peer.
 */
import * as v from 'valibot';

/** The WireGuard interface every member gets. */
export const FABRIC_INTERFACE = 'panelwg';

/** A WireGuard public key: 32 bytes in base64 (43 characters and one `=`). */
export const WIREGUARD_KEY_PATTERN = /^[A-Za-z0-9+/]{42}[AEIMQUYcgkosw048]=$/;
const WireguardKey = v.pipe(v.string(), v.regex(WIREGUARD_KEY_PATTERN, 'must be a WireGuard public key (base64 of 32 bytes)'));

const IPV4 = /^(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;
const IPV6 = /^[0-9a-fA-F:]{2,39}$/;
const Ipv4Address = v.pipe(v.string(), v.regex(IPV4, 'must be an IPv4 address'));
const Ipv4Prefix = v.pipe(
  v.string(),
  v.check((text) => {
    const [address = '', prefix = ''] = text.split('/');
    return IPV4.test(address) && /^(3[0-2]|[12]?\d)$/.test(prefix);
  }, 'must be an IPv4 prefix'),
);
/** An address a server can be reached at: IPv4 or IPv6, no port. */
export const CandidateAddress = v.pipe(
  v.string(),
  v.check((text) => IPV4.test(text) || (text.includes(':') && IPV6.test(text)), 'must be an IPv4 or IPv6 address'),
);
/**
 * An endpoint an admin sets for a server: a DNS name, an IPv4 address or a bracketed IPv6
 * address, optionally with `:port`. Without a port, peers use the server's listen port.
 */
export const ENDPOINT_PATTERN = /^(?:\[[0-9a-fA-F:.]{2,45}\]|[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?)(?::(?:6553[0-5]|655[0-2]\d|65[0-4]\d\d|6[0-4]\d{3}|[1-5]\d{4}|[1-9]\d{0,3}))?$/;
export const FabricEndpoint = v.pipe(v.string(), v.regex(ENDPOINT_PATTERN, 'must be host, host:port or [ipv6]:port'));
/** A datacenter name: servers with the same one prefer each other's private addresses. */
export const Datacenter = v.pipe(v.string(), v.minLength(1, 'must not be empty'), v.maxLength(64, 'must be at most 64 characters'), v.regex(/^[A-Za-z0-9][A-Za-z0-9 ._-]*$/, 'may contain only letters, digits, spaces and . _ -'));

/** `host:port` as a configuration names a peer: IPv4 or DNS name, or bracketed IPv6. Nothing else reaches `wg`. */
export const PEER_ENDPOINT_PATTERN = /^(?:\[[0-9a-fA-F:.]{2,45}\]|[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?):\d{1,5}$/;
const Port = v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(65535));
const Uuid = v.pipe(v.string(), v.uuid());
/** The most peers a configuration may list (the frame cap binds first on very large fleets). */
export const MAX_FABRIC_PEERS = 4096;

export const FabricPeer = v.object({
  serverId: Uuid,
  publicKey: WireguardKey,
  meshAddress: Ipv4Address,
  /** `host:port`; null when the peer reported no address (it reaches this server instead). */
  endpoint: v.nullable(v.pipe(v.string(), v.regex(PEER_ENDPOINT_PATTERN, 'must be host:port or [ipv6]:port'))),
});
export type FabricPeer = v.InferOutput<typeof FabricPeer>;

export const FabricConfig = v.object({
  /** The server's mesh address with the mesh range's prefix length, e.g. 10.209.0.1/16. */
  address: Ipv4Prefix,
  listenPort: Port,
  mtu: v.pipe(v.number(), v.integer(), v.minValue(1280), v.maxValue(9000)),
  /** Routed over the interface; the server's own fabric bridges are more specific. */
  containerRange: Ipv4Prefix,
  peers: v.pipe(v.array(FabricPeer), v.maxLength(MAX_FABRIC_PEERS)),
});
export type FabricConfig = v.InferOutput<typeof FabricConfig>;

export const FABRIC_HASH_PATTERN = /^sha256:[0-9a-f]{64}$/;
const FabricHash = v.pipe(v.string(), v.regex(FABRIC_HASH_PATTERN, 'must be sha256:<64 hex digits>'));

export const FabricCommandPayload = v.variant('state', [
  v.object({ state: v.literal('up'), config: FabricConfig, hash: FabricHash }),
  v.object({ state: v.literal('down') }),
  v.object({ state: v.literal('rotate-key') }),
]);
export type FabricCommandPayload = v.InferOutput<typeof FabricCommandPayload>;

/** A fabric bridge: `pnf<index of its /24 in the container range>`. */
export const FABRIC_BRIDGE_PATTERN = /^pnf\d{1,5}$/;

/** One network of a deploy that spans servers, as this server runs it. */
export const FabricNetwork = v.object({
  /** The network's key in the document. */
  network: v.pipe(v.string(), v.minLength(1), v.maxLength(255)),
  bridge: v.pipe(v.string(), v.regex(FABRIC_BRIDGE_PATTERN, 'must be pnf<number>')),
  subnet: Ipv4Prefix,
  /** `internal: true`: its containers reach the network's other servers and nothing else. */
  internal: v.boolean(),
  /** The same network's subnet on each other server it spans. */
  peers: v.pipe(v.array(v.object({ serverId: Uuid, subnet: Ipv4Prefix })), v.maxLength(MAX_FABRIC_PEERS)),
});
export type FabricNetwork = v.InferOutput<typeof FabricNetwork>;

export const FABRIC_BACKENDS = ['kernel', 'userspace'] as const;

/** The `fabric` frame's fields (agent -> hub). */
export const FabricStatus = v.object({
  /** The daemon's WireGuard public key; its private key never leaves the server. */
  publicKey: WireguardKey,
  /** Addresses of the server's own interfaces, most useful first. */
  candidates: v.pipe(v.array(CandidateAddress), v.maxLength(32)),
  /** How the interface runs now: kernel WireGuard, wireguard-go, or not at all (null). */
  backend: v.nullable(v.picklist(FABRIC_BACKENDS)),
  /** The hash of the configuration applied and still in place; null when none is. */
  appliedHash: v.nullable(FabricHash),
  /** Why the last apply failed, or what is missing (wg not installed, ...); null when fine. */
  error: v.nullable(v.object({ code: v.pipe(v.string(), v.maxLength(64)), message: v.pipe(v.string(), v.maxLength(2000)) })),
  peers: v.pipe(
    v.array(
      v.object({
        publicKey: WireguardKey,
        /** Epoch milliseconds; null before the first handshake. */
        lastHandshakeAt: v.nullable(v.number()),
        /** Where WireGuard last heard from the peer. */
        endpoint: v.nullable(v.pipe(v.string(), v.maxLength(300))),
      }),
    ),
    v.maxLength(MAX_FABRIC_PEERS),
  ),
});
export type FabricStatus = v.InferOutput<typeof FabricStatus>;

/** PATCH /organizations/{id}/fabric (owners). */
export const FabricSettingsUpdate = v.strictObject(
  {
    /** Turns the fabric on (every server whose daemon reported a key joins) or off (every member takes it down). */
    enabled: v.optional(v.boolean()),
    /** The servers' mesh addresses: a private /8 to /24 clear of Docker's pools; only while the fabric is off. */
    meshRange: v.optional(v.pipe(v.string(), v.maxLength(18))),
    /** The /24 of each network spanning servers comes from here: a private /8 to /22; only while no network uses it. */
    containerRange: v.optional(v.pipe(v.string(), v.maxLength(18))),
  },
  'unknown field',
);
export type FabricSettingsUpdate = v.InferInput<typeof FabricSettingsUpdate>;

export const FABRIC_MEMBER_STATES = ['converged', 'pending', 'error', 'not_member'] as const;

/** GET /organizations/{id}/fabric: the settings and every server of the organization. */
export const FabricView = v.object({
  organizationId: v.string(),
  enabled: v.boolean(),
  meshRange: v.string(),
  containerRange: v.string(),
  servers: v.array(
    v.object({
      serverId: v.string(),
      name: v.string(),
      /** The daemon's connection: a disconnected member keeps its tunnels. */
      status: v.string(),
      /** converged: its daemon applied the configuration last sent; pending: not yet; error: it could not (reason); not_member. */
      state: v.picklist(FABRIC_MEMBER_STATES),
      /** Why it is not converged, in a sentence; null when it is. */
      reason: v.nullable(v.string()),
      meshAddress: v.nullable(v.string()),
      /** The UDP port its WireGuard listens on: open it to the other servers. */
      listenPort: v.nullable(v.number()),
      publicKey: v.nullable(v.string()),
      candidates: v.array(v.string()),
      endpoint: v.nullable(v.string()),
      datacenter: v.nullable(v.string()),
      /** When its daemon last reported (handshakes are as of then). */
      reportedAt: v.nullable(v.string()),
      /** When an admin asked for a new WireGuard key that its daemon has not made yet; null when none is waiting. */
      keyRotationRequestedAt: v.nullable(v.string()),
      peers: v.array(
        v.object({
          serverId: v.string(),
          name: v.string(),
          /** Where this server sends to the peer (admin endpoint, same-datacenter private address, public address). */
          endpoint: v.nullable(v.string()),
          /** The last WireGuard handshake with the peer; null before the first. */
          lastHandshakeAt: v.nullable(v.string()),
        }),
      ),
    }),
  ),
});
export type FabricView = v.InferOutput<typeof FabricView>;
