/**
 * The placement planner (spec, Compose documents 8 and Deploy resolution 2-4; ARCHITECTURE.md
 * §8): a merged document, the organization's servers with their labels and connection state,
 * the anchor and the previous placement in; every replica's server out, or a refusal with the
 * specification's code. Pure and deterministic: the same input gives the same plan.
 *
 * Rules, in the order they apply to each service (colocation targets before the services that
 * share their namespaces, otherwise document order):
 * 1. Anchored services (no deploy.replicas, global mode or placement) run on the anchor, even
 *    while it is disconnected (their command waits for it): the anchor is an anchor, not a cap.
 *    One that shares a namespace with a scheduled service follows it instead.
 * 2. Scheduled services may use any *connected* server: none → no_eligible_server (409).
 *    Constraints filter them: none left → constraint_unsatisfiable. Services they must share
 *    an engine with narrow them further: none left → colocation_conflict.
 * 3. Capacity per server: max_replicas_per_node, and the host ports: a server where another
 *    service of the plan holds a colliding port takes none; replicas publishing a fixed port
 *    take one each (a host range mapped to one container port, one per port of the range).
 *    Too little capacity → max_replicas_per_node_exceeded when the cap is what binds (or
 *    colocation_conflict when only colocation made it bind), else host_port_conflict.
 * 4. Sticky: a replica stays on the server it ran on while that server is still allowed and has
 *    room. The others go, lowest ordinal first, to the server with the fewest replicas of the
 *    service in its group of each spread label (servers without the label form one group), then
 *    the fewest of the service on the server, then the anchor, then the lightest server of the
 *    plan, then the organization's server order. Global services get one replica on every
 *    allowed server, a server keeping its previous ordinal.
 * 5. A `driver: overlay` network whose services are placed on several servers spans them: it
 *    needs the organization's overlay fabric, on and converged on each of those servers;
 *    otherwise turbofabric_required naming the network and the servers. An overlay network
 *    all of whose services share one server needs no fabric (it becomes a plain bridge there).
 */
import { composeInvalid } from '../limits.ts';
import type { JsonObject } from '../values.ts';
import { type Constraint, type PlacementModel, readPlacementModel, type ServicePlacementSpec } from './model.ts';
import { type HostPort, portsCollide } from './ports.ts';
import { placementRefusal } from './refusals.ts';

export interface PlannerServer {
  id: string;
  name: string;
  /** As its daemon announced it; null before the first hello. */
  hostname: string | null;
  labels: Readonly<Record<string, string>>;
  connected: boolean;
}

/** Where a replica ran before this plan (the environment's container rows). */
export interface PreviousReplica {
  service: string;
  ordinal: number;
  serverId: string;
}

export interface PlannerInput {
  /** The merged document (services and networks are read). */
  document: JsonObject;
  /** options.instances of the service rows, by Compose key. */
  instances?: ReadonlyMap<string, number>;
  /** Every server of the organization, in a stable order (the last tie-break). */
  servers: readonly PlannerServer[];
  /** The environment pin or the project default. */
  anchorServerId: string;
  previous: readonly PreviousReplica[];
  /** The organization's overlay fabric: while off, no overlay network may span servers. */
  fabric: FabricReadiness;
}

export interface FabricReadiness {
  enabled: boolean;
  /** Servers where the fabric is not (yet) usable, with the reason; the others are converged members. */
  unready?: ReadonlyMap<string, string>;
}

export interface PlacedReplica {
  ordinal: number;
  serverId: string;
}

export interface Placement {
  anchorServerId: string;
  /** Every service of the document, in document order, with its replicas by ordinal. */
  services: Map<string, PlacedReplica[]>;
  /** The servers running anything: the anchor first, then in the organization's order. */
  servers: string[];
  /** Per server, the ordinals of each service placed there. */
  byServer: Map<string, Map<string, number[]>>;
  /** `driver: overlay` networks whose services run on several servers: those servers, in plan order. */
  spanning: Map<string, string[]>;
  warnings: string[];
}

interface ServerSlot {
  server: PlannerServer;
  index: number;
  isAnchor: boolean;
  /** Replicas of this plan on the server. */
  load: number;
  ports: { port: HostPort; service: string }[];
}

const names = (slots: readonly ServerSlot[]) => slots.map((slot) => slot.server.name).join(', ');

function satisfies(server: PlannerServer, constraint: Constraint): boolean {
  const { attribute } = constraint;
  const actual = attribute.kind === 'id' ? server.id : attribute.kind === 'hostname' ? server.hostname : (server.labels[attribute.key] ?? null);
  const equal = actual !== null && actual === constraint.value;
  return constraint.operator === '==' ? equal : !equal;
}

/** Colocation targets first; otherwise document order. Unknown targets and cycles are document errors. */
function placementOrder(model: PlacementModel): ServicePlacementSpec[] {
  const byKey = new Map(model.services.map((spec) => [spec.key, spec]));
  const order: ServicePlacementSpec[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (spec: ServicePlacementSpec, via: string) => {
    if (state.get(spec.key) === 'done') return;
    if (state.get(spec.key) === 'visiting') throw composeInvalid(`${via}: services share namespaces in a cycle through ${spec.key}`, via);
    state.set(spec.key, 'visiting');
    for (const { target, path } of spec.colocatedWith) {
      const targetSpec = byKey.get(target);
      if (targetSpec === undefined) throw composeInvalid(`${path} names service ${target}, which the document does not have`, path);
      visit(targetSpec, path);
    }
    state.set(spec.key, 'done');
    order.push(spec);
  };
  for (const spec of model.services) visit(spec, `services.${spec.key}`);
  return order;
}

export function planPlacement(input: PlannerInput): Placement {
  return new Planner(input).plan();
}

class Planner {
  private readonly model: PlacementModel;
  private readonly slots: ServerSlot[];
  private readonly anchor: ServerSlot;
  private readonly connected: ServerSlot[];
  private readonly previous = new Map<string, Map<number, string>>();
  private readonly placed = new Map<string, PlacedReplica[]>();
  private readonly slotById: Map<string, ServerSlot>;
  private readonly warnings: string[];

  constructor(private readonly input: PlannerInput) {
    this.model = readPlacementModel(input.document, input.instances);
    this.warnings = [...this.model.warnings];
    this.slots = input.servers.map((server, index) => ({ server, index, isAnchor: server.id === input.anchorServerId, load: 0, ports: [] }));
    this.slotById = new Map(this.slots.map((slot) => [slot.server.id, slot]));
    const anchor = this.slotById.get(input.anchorServerId);
    if (anchor === undefined) throw new Error('the anchor server is not among the servers given to the planner');
    this.anchor = anchor;
    this.connected = this.slots.filter((slot) => slot.server.connected);
    for (const { service, ordinal, serverId } of input.previous) {
      let ordinals = this.previous.get(service);
      if (ordinals === undefined) this.previous.set(service, (ordinals = new Map()));
      ordinals.set(ordinal, serverId);
    }
  }

  plan(): Placement {
    for (const spec of placementOrder(this.model)) this.placed.set(spec.key, this.placeService(spec));
    const services = new Map(this.model.services.map((spec) => [spec.key, this.placed.get(spec.key)!]));
    const byServer = new Map<string, Map<string, number[]>>();
    for (const [key, replicas] of services) {
      for (const { ordinal, serverId } of replicas) {
        let here = byServer.get(serverId);
        if (here === undefined) byServer.set(serverId, (here = new Map()));
        const ordinals = here.get(key);
        if (ordinals === undefined) here.set(key, [ordinal]);
        else ordinals.push(ordinal);
      }
    }
    const rank = (id: string) => (id === this.anchor.server.id ? -1 : this.slotById.get(id)!.index);
    const servers = [...byServer.keys()].sort((a, b) => rank(a) - rank(b));
    const spanning = this.spanningNetworks(servers, byServer);
    this.requireFabric(spanning);
    this.noteMoves(services);
    return { anchorServerId: this.anchor.server.id, services, servers, byServer, spanning, warnings: this.warnings };
  }

  private placeService(spec: ServicePlacementSpec): PlacedReplica[] {
    const path = `services.${spec.key}`;
    if (!spec.scheduled) return this.placeAnchored(spec, path);
    if (this.connected.length === 0) {
      throw placementRefusal('no_eligible_server', `${path} can be placed on no server: none of the organization's servers is connected`, path);
    }
    const satisfying = this.connected.filter((slot) => spec.constraints.every((constraint) => satisfies(slot.server, constraint)));
    if (satisfying.length === 0) throw this.unsatisfiable(spec, path);
    const allowed = this.colocated(spec, satisfying, path);
    return spec.mode === 'global' ? this.placeGlobal(spec, allowed, path) : this.placeReplicated(spec, satisfying, allowed, path);
  }

  /** The anchor, or the one server every colocation target runs on. */
  private placeAnchored(spec: ServicePlacementSpec, path: string): PlacedReplica[] {
    let slot = this.anchor;
    if (spec.colocatedWith.length > 0) {
      const shared = this.colocated(spec, this.slots, path);
      const previous = this.previous.get(spec.key)?.get(1);
      slot = shared.find((candidate) => candidate.isAnchor) ?? shared.find((candidate) => candidate.server.id === previous) ?? this.firstTargetServer(spec, shared);
    }
    if (spec.replicas === 0) return [];
    const capacity = this.portCapacity(spec);
    if (spec.replicas > capacity) {
      const port = spec.ports.find((candidate) => candidate.perServer === capacity)!;
      throw placementRefusal(
        'host_port_conflict',
        `${path} runs ${spec.replicas} instances on server ${slot.server.name} and publishes host port ${port.text}: one server holds ${capacity} of them. Publish no fixed port, or give the service deploy.replicas with max_replicas_per_node: ${capacity} to spread it`,
        `${path}.ports`,
      );
    }
    this.assertPortsFree(spec, slot, path);
    const replicas = Array.from({ length: spec.replicas }, (_, i) => ({ ordinal: i + 1, serverId: slot.server.id }));
    this.take(spec, slot, spec.replicas);
    return replicas;
  }

  private firstTargetServer(spec: ServicePlacementSpec, shared: readonly ServerSlot[]): ServerSlot {
    const first = this.placed.get(spec.colocatedWith[0]!.target)!;
    const ids = new Set(shared.map((slot) => slot.server.id));
    return this.slotById.get(first.find((replica) => ids.has(replica.serverId))!.serverId)!;
  }

  /** `candidates` narrowed to the servers running every colocation target; colocation_conflict when none. */
  private colocated(spec: ServicePlacementSpec, candidates: readonly ServerSlot[], path: string): ServerSlot[] {
    let allowed = [...candidates];
    for (const { target, path: via } of spec.colocatedWith) {
      const targetServers = new Set(this.placed.get(target)!.map((replica) => replica.serverId));
      allowed = allowed.filter((slot) => targetServers.has(slot.server.id));
      if (allowed.length > 0) continue;
      const where = targetServers.size === 0 ? 'runs on no server' : `runs on ${names(this.slots.filter((slot) => targetServers.has(slot.server.id)))}`;
      const among = spec.scheduled ? ` and none of them is among the servers ${path} may use (${names(candidates)})` : ' together with the other services it shares namespaces with';
      throw placementRefusal('colocation_conflict', `${via} needs a container of ${target} on its server, but ${target} ${where}${among}`, via);
    }
    return allowed;
  }

  private unsatisfiable(spec: ServicePlacementSpec, path: string) {
    const alone = spec.constraints.find((constraint) => !this.connected.some((slot) => satisfies(slot.server, constraint)));
    const at = alone?.path ?? `${path}.deploy.placement.constraints`;
    const what = alone ? alone.text : spec.constraints.map((constraint) => constraint.text).join(' and ');
    return placementRefusal('constraint_unsatisfiable', `${path}: no connected server satisfies ${what} (connected: ${names(this.connected)})`, at);
  }

  /** How many replicas of the service one server can hold for its own ports (Infinity without fixed ports). */
  private portCapacity(spec: ServicePlacementSpec): number {
    return spec.ports.reduce((capacity, port) => Math.min(capacity, port.perServer), Number.POSITIVE_INFINITY);
  }

  /** The first port another service of the plan already holds on the server, or undefined. */
  private portClash(spec: ServicePlacementSpec, slot: ServerSlot): { mine: HostPort; theirs: { port: HostPort; service: string } } | undefined {
    for (const mine of spec.ports) {
      const theirs = slot.ports.find((held) => portsCollide(held.port, mine));
      if (theirs) return { mine, theirs };
    }
    return undefined;
  }

  private assertPortsFree(spec: ServicePlacementSpec, slot: ServerSlot, path: string): void {
    const clash = this.portClash(spec, slot);
    if (clash === undefined) return;
    throw placementRefusal(
      'host_port_conflict',
      `${path} and services.${clash.theirs.service} both publish host port ${clash.mine.text} on server ${slot.server.name}; one server binds a port once`,
      `${path}.ports`,
    );
  }

  private take(spec: ServicePlacementSpec, slot: ServerSlot, count: number): void {
    slot.load += count;
    for (const port of spec.ports) slot.ports.push({ port, service: spec.key });
  }

  private placeGlobal(spec: ServicePlacementSpec, allowed: readonly ServerSlot[], path: string): PlacedReplica[] {
    for (const slot of allowed) this.assertPortsFree(spec, slot, path);
    const previous = this.previous.get(spec.key) ?? new Map<number, string>();
    const ordinalOf = new Map<string, number>();
    const used = new Set<number>();
    for (const [ordinal, serverId] of [...previous].sort(([a], [b]) => a - b)) {
      if (allowed.some((slot) => slot.server.id === serverId) && !ordinalOf.has(serverId)) {
        ordinalOf.set(serverId, ordinal);
        used.add(ordinal);
      }
    }
    let next = 1;
    const replicas = allowed.map((slot) => {
      let ordinal = ordinalOf.get(slot.server.id);
      if (ordinal === undefined) {
        while (used.has(next)) next++;
        ordinal = next;
        used.add(ordinal);
      }
      this.take(spec, slot, 1);
      return { ordinal, serverId: slot.server.id };
    });
    return replicas.sort((a, b) => a.ordinal - b.ordinal);
  }

  private placeReplicated(spec: ServicePlacementSpec, satisfying: readonly ServerSlot[], allowed: readonly ServerSlot[], path: string): PlacedReplica[] {
    if (spec.replicas === 0) return [];
    const ownPorts = this.portCapacity(spec);
    const perNode = spec.maxPerNode ?? Number.POSITIVE_INFINITY;
    // Indexed by slot.index: room left for the service, and its replicas there.
    const room: number[] = [];
    const count: number[] = [];
    let total = 0;
    for (const slot of allowed) {
      room[slot.index] = this.portClash(spec, slot) ? 0 : Math.min(perNode, ownPorts);
      count[slot.index] = 0;
      total += room[slot.index]!;
    }
    if (total < spec.replicas) throw this.tooLittleRoom(spec, satisfying, allowed, path);

    const groups = spec.spread.map(() => new Map<string, number>());
    const groupOf = (slot: ServerSlot, i: number) => slot.server.labels[spec.spread[i]!] ?? '\u0000';
    const assign = (ordinal: number, slot: ServerSlot): PlacedReplica => {
      count[slot.index]!++;
      room[slot.index]!--;
      groups.forEach((group, i) => group.set(groupOf(slot, i), (group.get(groupOf(slot, i)) ?? 0) + 1));
      this.take(spec, slot, 1);
      return { ordinal, serverId: slot.server.id };
    };
    /** Fewest in its spread groups, then fewest of the service, the anchor, the lightest, the first. */
    const better = (a: ServerSlot, b: ServerSlot): boolean => {
      for (let i = 0; i < groups.length; i++) {
        const inA = groups[i]!.get(groupOf(a, i)) ?? 0;
        const inB = groups[i]!.get(groupOf(b, i)) ?? 0;
        if (inA !== inB) return inA < inB;
      }
      if (count[a.index] !== count[b.index]) return count[a.index]! < count[b.index]!;
      if (a.isAnchor !== b.isAnchor) return a.isAnchor;
      if (a.load !== b.load) return a.load < b.load;
      return a.index < b.index;
    };

    const replicas: PlacedReplica[] = [];
    const unplaced: number[] = [];
    const previous = this.previous.get(spec.key);
    for (let ordinal = 1; ordinal <= spec.replicas; ordinal++) {
      const slot = this.slotById.get(previous?.get(ordinal) ?? '');
      if (slot !== undefined && (room[slot.index] ?? 0) > 0) replicas.push(assign(ordinal, slot));
      else unplaced.push(ordinal);
    }
    for (const ordinal of unplaced) {
      let best: ServerSlot | undefined;
      for (const slot of allowed) {
        if (room[slot.index]! > 0 && (best === undefined || better(slot, best))) best = slot;
      }
      replicas.push(assign(ordinal, best!));
    }
    return replicas.sort((a, b) => a.ordinal - b.ordinal);
  }

  /** Which rule left too little room: the cap per server, colocation narrowing it, or host ports. */
  private tooLittleRoom(spec: ServicePlacementSpec, satisfying: readonly ServerSlot[], allowed: readonly ServerSlot[], path: string) {
    const asked = `${path} asks for ${spec.replicas} replicas`;
    if (spec.maxPerNode !== null && spec.maxPerNode * allowed.length < spec.replicas) {
      if (spec.maxPerNode * satisfying.length >= spec.replicas) {
        const via = spec.colocatedWith[0]!;
        return placementRefusal(
          'colocation_conflict',
          `${asked} at most ${spec.maxPerNode} per server, but it must share servers with ${via.target}, which leaves ${names(allowed)}`,
          via.path,
        );
      }
      return placementRefusal(
        'max_replicas_per_node_exceeded',
        `${asked} at most ${spec.maxPerNode} per server, but only ${allowed.length} server${allowed.length === 1 ? ' is' : 's are'} eligible (${names(allowed)}): they hold ${spec.maxPerNode * allowed.length}`,
        `${path}.deploy.placement.max_replicas_per_node`,
      );
    }
    const blocked = allowed.map((slot) => ({ slot, clash: this.portClash(spec, slot) })).filter(({ clash }) => clash !== undefined);
    const port = spec.ports.reduce((least, candidate) => (candidate.perServer < least.perServer ? candidate : least));
    const held = blocked.map(({ slot, clash }) => `${clash!.mine.text} is held by services.${clash!.theirs.service} on ${slot.server.name}`);
    return placementRefusal(
      'host_port_conflict',
      `${asked} and publishes host port ${port.text}: replicas publishing one host port need distinct servers, and ${allowed.length - blocked.length} of the eligible servers (${names(allowed)}) can take it${held.length > 0 ? `; ${held.join('; ')}` : ''}`,
      `${path}.ports`,
    );
  }

  /** The overlay networks whose services the plan puts on several servers, with those servers. */
  private spanningNetworks(servers: readonly string[], byServer: Map<string, Map<string, number[]>>): Map<string, string[]> {
    const spanning = new Map<string, string[]>();
    if (servers.length < 2) return spanning;
    for (const network of this.model.overlayNetworks) {
      const members = new Set(this.model.services.filter((spec) => spec.networks.includes(network)).map((spec) => spec.key));
      const here = servers.filter((id) => [...byServer.get(id)!.keys()].some((key) => members.has(key)));
      if (here.length > 1) spanning.set(network, here);
    }
    return spanning;
  }

  /** turbofabric_required: a network spans servers and the fabric is off, or not ready on one of them. */
  private requireFabric(spanning: ReadonlyMap<string, readonly string[]>): void {
    const nameOf = (id: string) => this.slotById.get(id)!.server.name;
    for (const [network, servers] of spanning) {
      const spanned = `network ${network}, whose driver is overlay, has services on ${servers.length} servers (${servers.map(nameOf).join(', ')})`;
      if (!this.input.fabric.enabled) {
        throw placementRefusal(
          'turbofabric_required',
          `${spanned}: containers on different servers can share it only over the organization's overlay fabric, which is off. Keep its services on one server (constraints, or fewer replicas) or turn the fabric on`,
          `networks.${network}.driver`,
        );
      }
      const unready = servers.filter((id) => this.input.fabric.unready?.has(id));
      if (unready.length > 0) {
        const reasons = unready.map((id) => `${nameOf(id)}: ${this.input.fabric.unready!.get(id)}`).join('; ');
        throw placementRefusal(
          'turbofabric_required',
          `${spanned}, and the overlay fabric is not ready on ${unready.map(nameOf).join(', ')} (${reasons}). Deploy again once the fabric view shows them converged`,
          `networks.${network}.driver`,
        );
      }
    }
  }

  /** A warning for each replica that leaves the server it ran on. */
  private noteMoves(services: ReadonlyMap<string, readonly PlacedReplica[]>): void {
    for (const [key, replicas] of services) {
      const previous = this.previous.get(key);
      if (previous === undefined) continue;
      for (const { ordinal, serverId } of replicas) {
        const before = previous.get(ordinal);
        const from = before === undefined ? undefined : this.slotById.get(before);
        if (from === undefined || before === serverId) continue;
        const reason = from.server.connected ? '' : ` (${from.server.name} is not connected)`;
        this.warnings.push(`services.${key} replica ${ordinal} moves from server ${from.server.name} to ${this.slotById.get(serverId)!.server.name}${reason}`);
      }
    }
  }
}

