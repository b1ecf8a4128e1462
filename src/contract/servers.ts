/** Servers: machines running the Panel daemon. Enrolled by their daemon, never created here. */
import * as v from 'valibot';
import { ListQuery, refuseArrays, strict, Text, Timestamp, Timestamps, Uuid } from './common.ts';
import { serverFlags, serverStatuses } from './enums.ts';
import { CandidateAddress, Datacenter, FabricEndpoint } from './fabric.ts';

/** A server label key (what `node.labels.<key>` constraints and spread preferences match; tags stay tags): letters, digits, `.`, `_`, `-`, starting with a letter or digit; at most 63. */
export const LABEL_KEY = /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/;
/** A label value: 1-255 characters, no control characters, no space at either end (a constraint's value is trimmed). */
export const LABEL_VALUE = /^(?![\s])[^\u0000-\u001f\u007f]{1,255}(?<![\s])$/u;
export const MAX_SERVER_LABELS = 32;

const Labels = v.pipe(
  refuseArrays(
    v.record(
      v.pipe(v.string(), v.regex(LABEL_KEY, 'label keys are letters, digits, ".", "_" or "-", starting with a letter or digit, at most 63')),
      v.pipe(v.string(), v.regex(LABEL_VALUE, 'label values are 1-255 characters without control characters or surrounding spaces')),
    ),
  ),
  v.check((labels) => Object.keys(labels).length <= MAX_SERVER_LABELS, `at most ${MAX_SERVER_LABELS} labels`),
);

export const ServerUpdate = strict({
  name: v.optional(Text(255)),
  /** Replaces the server's whole label set. */
  labels: v.optional(Labels),
  /** Where the other servers' fabric reaches this one (`host`, `host:port`, `[v6]:port`); null: what its daemon reports. */
  fabricEndpoint: v.optional(v.nullable(FabricEndpoint)),
  /** Servers naming the same datacenter reach each other over the fabric at their private addresses. */
  datacenter: v.optional(v.nullable(Datacenter)),
  /** The server's address on its private (datacenter) network: tcp/udp hostings with bind `datacenter` publish there. */
  privateAddress: v.optional(v.nullable(CandidateAddress)),
});
export type ServerUpdate = v.InferInput<typeof ServerUpdate>;
export const ServerListQuery = v.object({ organizationId: Uuid, ...ListQuery });

export const Server = v.object({
  id: v.string(),
  organizationId: v.string(),
  name: v.string(),
  hostname: v.nullable(v.string()),
  machineId: v.nullable(v.string()),
  isLocal: v.boolean(),
  status: v.picklist(serverStatuses),
  lastSeenAt: v.nullable(Timestamp),
  /** Set when the hub saw something it will not merge silently (e.g. two machines with one machine id). */
  flag: v.nullable(v.picklist(serverFlags)),
  flaggedAt: v.nullable(Timestamp),
  /** The daemon key secrets are sealed to; null until a daemon enrolled or said hello. */
  daemonKeyId: v.nullable(v.string()),
  /** Key/value labels placement constraints and spread preferences match (`node.labels.<key>`). */
  labels: v.record(v.string(), v.string()),
  /** The daemon's WireGuard public key (the overlay fabric); null until its daemon reported one. */
  wireguardPublicKey: v.nullable(v.string()),
  /** Addresses the daemon reported the server can be reached at. */
  fabricCandidates: v.array(v.string()),
  /** Set by an admin: where the other servers' fabric reaches this one; wins over the candidates. */
  fabricEndpoint: v.nullable(v.string()),
  /** Set by an admin: servers in one datacenter prefer each other's private addresses. */
  datacenter: v.nullable(v.string()),
  /** Set by an admin: where tcp/udp hostings with bind `datacenter` publish on this server. */
  privateAddress: v.nullable(v.string()),
  ...Timestamps,
});
export type Server = v.InferOutput<typeof Server>;

/** GET /servers/this-machine: Panel's own host as the organization's local server. */
export const thisMachineStates = ['connected', 'connecting', 'external', 'checking', 'no_engine', 'running', 'restarting', 'refused'] as const;
export const ThisMachine = v.object({
  /** False for an organization that does not own this machine's local slot. */
  applies: v.boolean(),
  serverId: v.nullable(v.string()),
  name: v.nullable(v.string()),
  /** connected; connecting (the daemon runs); external (the panel-daemon service runs it, not connected); checking; no_engine; restarting; refused. */
  state: v.picklist(thisMachineStates),
  /** Why this machine is not connected, in words; null when it is. */
  problem: v.nullable(v.string()),
  /** The one command that fixes it, when there is one. */
  fix: v.nullable(v.string()),
});
export type ThisMachine = v.InferOutput<typeof ThisMachine>;
export const ThisMachineQuery = v.object({ organizationId: Uuid });
