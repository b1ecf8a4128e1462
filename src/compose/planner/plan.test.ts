/**
 * The pure planner, case by case: each refusal, each constraint form, spread, the cap per
 * server, global mode, colocation, host ports, stickiness, an offline anchor, scaling down and
 * the overlay fabric. A case gives a document, and optionally the anchor, servers, previous
 * placement, options.instances and the fabric; it expects every service's replicas (the server
 * of ordinal 1, 2, ...) or a refusal's code, status and path.
 *
 * The fleet: h1 (the anchor) disk=hdd zone=a; h2 disk=ssd zone=a; h3 disk=ssd zone=b;
 * h4 disk=ssd zone=c, not connected.
 */
import { describe, expect, test } from 'bun:test';
import { DomainError } from '../../lib/errors.ts';
import { parseComposeText } from '../document.ts';
import { type Placement, type PlannerInput, type PlannerServer, planPlacement, type PreviousReplica } from './plan.ts';

const server = (name: string, labels: Record<string, string>, connected = true): PlannerServer => ({
  id: `id-${name}`,
  name,
  hostname: `host-${name}`,
  labels,
  connected,
});

const FLEET: PlannerServer[] = [
  server('h1', { disk: 'hdd', zone: 'a' }),
  server('h2', { disk: 'ssd', zone: 'a' }),
  server('h3', { disk: 'ssd', zone: 'b' }),
  server('h4', { disk: 'ssd', zone: 'c' }, false),
];

interface Case {
  name: string;
  yaml: string;
  anchor?: string;
  servers?: PlannerServer[];
  /** `service.ordinal` → server name. */
  previous?: Record<string, string>;
  instances?: Record<string, number>;
  /** true: on and ready everywhere; a list: on, and not ready on these servers. */
  fabric?: boolean | string[];
  /** Per service, the server name of each ordinal (ordinals 1..n unless `ordinals` says otherwise). */
  expect?: Record<string, string[]>;
  /** Global services: ordinal → server name. */
  ordinals?: Record<string, Record<number, string>>;
  servers_used?: string[];
  refusal?: { code: string; status: number; path: string; message?: RegExp };
  warning?: RegExp;
}

function inputOf(c: Case): PlannerInput {
  const servers = c.servers ?? FLEET;
  const idOf = (name: string) => servers.find((candidate) => candidate.name === name)!.id;
  const previous: PreviousReplica[] = Object.entries(c.previous ?? {}).map(([at, name]) => {
    const [service, ordinal] = at.split('.') as [string, string];
    return { service, ordinal: Number(ordinal), serverId: idOf(name) };
  });
  return {
    document: parseComposeText(c.yaml).data,
    instances: new Map(Object.entries(c.instances ?? {})),
    servers,
    anchorServerId: idOf(c.anchor ?? 'h1'),
    previous,
    fabric: {
      enabled: c.fabric !== undefined && c.fabric !== false,
      unready: new Map(Array.isArray(c.fabric) ? c.fabric.map((name) => [idOf(name), 'the daemon has not applied the configuration yet']) : []),
    },
  };
}

const nameOf = (id: string) => id.replace(/^id-/, '');

function replicasByName(placement: Placement): Record<string, string[]> {
  return Object.fromEntries([...placement.services].map(([key, replicas]) => [key, replicas.map((replica) => nameOf(replica.serverId))]));
}

function refusalOf(input: PlannerInput): DomainError {
  try {
    planPlacement(input);
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  throw new Error('the planner placed what it should have refused');
}

const CASES: Case[] = [
  // Anchored services
  { name: 'a service without replicas or placement runs on the anchor', yaml: 'services: {web: {image: a}}', expect: { web: ['h1'] } },
  { name: 'the anchor is whichever server the environment resolves to', anchor: 'h3', yaml: 'services: {web: {image: a}}', expect: { web: ['h3'] } },
  { name: 'options.instances of an anchored service: all on the anchor', yaml: 'services: {web: {image: a}}', instances: { web: 3 }, expect: { web: ['h1', 'h1', 'h1'] } },
  {
    name: 'scale is instances on the anchor; options.instances then goes unused, with a warning',
    yaml: 'services: {web: {image: a, scale: 2}}',
    instances: { web: 3 },
    expect: { web: ['h1', 'h1'] },
    warning: /services\.web: options\.instances \(3\) is not used; the document sets scale/,
  },
  { name: 'anchor offline: anchored services still go to it (the command waits)', anchor: 'h4', yaml: 'services: {web: {image: a}}', expect: { web: ['h4'] } },
  {
    name: 'no server connected: anchored services are placed all the same',
    servers: FLEET.map((candidate) => ({ ...candidate, connected: false })),
    yaml: 'services: {web: {image: a}}',
    expect: { web: ['h1'] },
  },

  // Replicated services and the default spread
  { name: 'replicas: 1 without placement prefers the anchor', yaml: 'services: {web: {image: a, deploy: {replicas: 1}}}', expect: { web: ['h1'] } },
  { name: 'replicas spread over connected servers, anchor first', yaml: 'services: {web: {image: a, deploy: {replicas: 3}}}', expect: { web: ['h1', 'h2', 'h3'] } },
  { name: 'more replicas than servers: round after round', yaml: 'services: {web: {image: a, deploy: {replicas: 5}}}', expect: { web: ['h1', 'h2', 'h3', 'h1', 'h2'] } },
  {
    name: 'the lightest server of the plan breaks ties after the anchor',
    yaml: 'services: {db: {image: a, deploy: {placement: {constraints: [node.hostname == host-h2]}}}, web: {image: a, deploy: {replicas: 2}}}',
    expect: { db: ['h2'], web: ['h1', 'h3'] },
  },
  { name: 'replicas: 0 places nothing', yaml: 'services: {web: {image: a, deploy: {replicas: 0}}}', expect: { web: [] }, servers_used: [] },
  {
    name: 'a scheduled service ignores options.instances, with a warning',
    yaml: 'services: {web: {image: a, deploy: {replicas: 2}}}',
    instances: { web: 5 },
    expect: { web: ['h1', 'h2'] },
    warning: /options\.instances \(5\) is not used; the document sets deploy\.replicas or placement/,
  },

  // max_replicas_per_node
  { name: 'replicas 3, at most 1 per server: one on each host', yaml: 'services: {web: {image: a, deploy: {replicas: 3, placement: {max_replicas_per_node: 1}}}}', expect: { web: ['h1', 'h2', 'h3'] } },
  { name: 'replicas 5, at most 2 per server', yaml: 'services: {web: {image: a, deploy: {replicas: 5, placement: {max_replicas_per_node: 2}}}}', expect: { web: ['h1', 'h2', 'h3', 'h1', 'h2'] } },
  {
    name: 'replicas 4, at most 1 per server, 3 connected: max_replicas_per_node_exceeded',
    yaml: 'services: {web: {image: a, deploy: {replicas: 4, placement: {max_replicas_per_node: 1}}}}',
    refusal: { code: 'max_replicas_per_node_exceeded', status: 422, path: 'services.web.deploy.placement.max_replicas_per_node', message: /asks for 4 replicas at most 1 per server, but only 3 servers are eligible \(h1, h2, h3\)/ },
  },
  {
    name: 'the cap with a constraint: 3 on ssd at most 1 each, 2 ssd servers connected',
    yaml: 'services: {web: {image: a, deploy: {replicas: 3, placement: {max_replicas_per_node: 1, constraints: [node.labels.disk == ssd]}}}}',
    refusal: { code: 'max_replicas_per_node_exceeded', status: 422, path: 'services.web.deploy.placement.max_replicas_per_node' },
  },
  { name: 'max_replicas_per_node: 0 is no cap (as in Swarm)', yaml: 'services: {web: {image: a, deploy: {replicas: 4, placement: {max_replicas_per_node: 0, constraints: [node.hostname == host-h2]}}}}', expect: { web: ['h2', 'h2', 'h2', 'h2'] } },

  // Constraints
  { name: 'node.labels.<key> == value', yaml: 'services: {db: {image: a, deploy: {placement: {constraints: [node.labels.disk == ssd]}}}}', expect: { db: ['h2'] } },
  { name: 'node.labels.<key> != value', yaml: 'services: {db: {image: a, deploy: {placement: {constraints: [node.labels.disk != ssd]}}}}', expect: { db: ['h1'] } },
  { name: 'node.hostname == value', yaml: 'services: {db: {image: a, deploy: {placement: {constraints: ["node.hostname==host-h3"]}}}}', expect: { db: ['h3'] } },
  { name: 'node.hostname != value', yaml: 'services: {db: {image: a, deploy: {replicas: 2, placement: {constraints: [node.hostname != host-h1]}}}}', expect: { db: ['h2', 'h3'] } },
  { name: 'node.id == value', yaml: 'services: {db: {image: a, deploy: {placement: {constraints: [node.id == id-h2]}}}}', expect: { db: ['h2'] } },
  { name: 'node.id != value', yaml: 'services: {db: {image: a, deploy: {replicas: 2, placement: {max_replicas_per_node: 1, constraints: [node.id != id-h2]}}}}', expect: { db: ['h1', 'h3'] } },
  { name: 'a label a server lacks is "not equal" to any value', yaml: 'services: {db: {image: a, deploy: {replicas: 3, placement: {max_replicas_per_node: 1, constraints: [node.labels.gpu != yes]}}}}', expect: { db: ['h1', 'h2', 'h3'] } },
  { name: 'constraints combine with AND', yaml: 'services: {db: {image: a, deploy: {placement: {constraints: [node.labels.disk == ssd, node.labels.zone == b]}}}}', expect: { db: ['h3'] } },
  {
    name: 'a label value no connected server has: constraint_unsatisfiable at that constraint',
    yaml: 'services: {db: {image: a, deploy: {placement: {constraints: [node.labels.disk == ssd, node.labels.gpu == yes]}}}}',
    refusal: { code: 'constraint_unsatisfiable', status: 422, path: 'services.db.deploy.placement.constraints.1', message: /no connected server satisfies node\.labels\.gpu == yes \(connected: h1, h2, h3\)/ },
  },
  {
    name: 'constraints each satisfiable but not together: refused at the list',
    yaml: 'services: {db: {image: a, deploy: {placement: {constraints: [node.labels.disk == hdd, node.labels.zone == b]}}}}',
    refusal: { code: 'constraint_unsatisfiable', status: 422, path: 'services.db.deploy.placement.constraints', message: /node\.labels\.disk == hdd and node\.labels\.zone == b/ },
  },
  {
    name: 'only a disconnected server satisfies it: constraint_unsatisfiable',
    yaml: 'services: {db: {image: a, deploy: {placement: {constraints: [node.labels.zone == c]}}}}',
    refusal: { code: 'constraint_unsatisfiable', status: 422, path: 'services.db.deploy.placement.constraints.0' },
  },
  {
    name: 'no server connected and a scheduled service: no_eligible_server (409)',
    servers: FLEET.map((candidate) => ({ ...candidate, connected: false })),
    yaml: 'services: {web: {image: a}, db: {image: a, deploy: {replicas: 1}}}',
    refusal: { code: 'no_eligible_server', status: 409, path: 'services.db', message: /none of the organization's servers is connected/ },
  },
  {
    name: 'anchor offline: a scheduled service goes to a connected server, anchored ones to the anchor',
    anchor: 'h4',
    yaml: 'services: {web: {image: a}, api: {image: a, deploy: {replicas: 1}}}',
    expect: { web: ['h4'], api: ['h1'] },
    servers_used: ['h4', 'h1'],
  },

  // Spread preferences
  { name: 'spread over node.labels.zone: one replica per zone first', yaml: 'services: {web: {image: a, deploy: {replicas: 2, placement: {preferences: [{spread: node.labels.zone}]}}}}', expect: { web: ['h1', 'h3'] } },
  { name: 'spread with more replicas than zones evens the zones out', yaml: 'services: {web: {image: a, deploy: {replicas: 4, placement: {preferences: [{spread: node.labels.zone}]}}}}', expect: { web: ['h1', 'h3', 'h2', 'h3'] } },
  {
    name: 'servers without the spread label form one group',
    servers: [server('h1', {}), server('h2', {}), server('h3', { rack: 'r1' })],
    yaml: 'services: {web: {image: a, deploy: {replicas: 2, placement: {preferences: [{spread: node.labels.rack}]}}}}',
    expect: { web: ['h1', 'h3'] },
  },
  {
    name: 'spread within constraints',
    yaml: 'services: {web: {image: a, deploy: {replicas: 2, placement: {constraints: [node.labels.disk == ssd], preferences: [{spread: node.labels.zone}]}}}}',
    expect: { web: ['h2', 'h3'] },
  },

  // Global mode
  { name: 'global: one replica on every connected server', yaml: 'services: {agent: {image: a, deploy: {mode: global}}}', expect: { agent: ['h1', 'h2', 'h3'] } },
  { name: 'global with a constraint', yaml: 'services: {agent: {image: a, deploy: {mode: global, placement: {constraints: [node.labels.disk == ssd]}}}}', expect: { agent: ['h2', 'h3'] } },
  {
    name: 'global keeps each server its previous ordinal; a new server gets the lowest free one',
    yaml: 'services: {agent: {image: a, deploy: {mode: global}}}',
    previous: { 'agent.1': 'h3', 'agent.2': 'h1' },
    ordinals: { agent: { 1: 'h3', 2: 'h1', 3: 'h2' } },
  },
  {
    name: 'global with no server satisfying: constraint_unsatisfiable',
    yaml: 'services: {agent: {image: a, deploy: {mode: global, placement: {constraints: [node.labels.disk == nvme]}}}}',
    refusal: { code: 'constraint_unsatisfiable', status: 422, path: 'services.agent.deploy.placement.constraints.0' },
  },
  {
    name: 'global on a port another service holds on one server: host_port_conflict',
    yaml: 'services: {web: {image: a, ports: ["80:80"]}, agent: {image: a, ports: ["80:8080"], deploy: {mode: global}}}',
    refusal: { code: 'host_port_conflict', status: 422, path: 'services.agent.ports', message: /services\.agent and services\.web both publish host port 80:8080 on server h1/ },
  },

  // Stickiness and scaling
  { name: 'sticky: a replica stays on the server it ran on', yaml: 'services: {web: {image: a, deploy: {replicas: 1}}}', previous: { 'web.1': 'h3' }, expect: { web: ['h3'] } },
  {
    name: 'sticky beats spread: replicas stay, new ones go where the rules say',
    yaml: 'services: {web: {image: a, deploy: {replicas: 3}}}',
    previous: { 'web.1': 'h2', 'web.2': 'h2' },
    expect: { web: ['h2', 'h2', 'h1'] },
  },
  {
    name: 'a constraint forbids the previous server: the replica moves, with a warning',
    yaml: 'services: {web: {image: a, deploy: {placement: {constraints: [node.labels.disk == ssd]}}}}',
    previous: { 'web.1': 'h1' },
    expect: { web: ['h2'] },
    warning: /services\.web replica 1 moves from server h1 to h2$/,
  },
  {
    name: 'the previous server is disconnected: the replica moves, and the warning says why',
    yaml: 'services: {web: {image: a, deploy: {replicas: 1}}}',
    previous: { 'web.1': 'h4' },
    expect: { web: ['h1'] },
    warning: /replica 1 moves from server h4 to h1 \(h4 is not connected\)/,
  },
  {
    name: 'the cap forbids keeping both replicas where they were: one moves',
    yaml: 'services: {web: {image: a, deploy: {replicas: 2, placement: {max_replicas_per_node: 1}}}}',
    previous: { 'web.1': 'h3', 'web.2': 'h3' },
    expect: { web: ['h3', 'h1'] },
  },
  { name: 'scale down to 1: ordinal 1 stays, the others are dropped', yaml: 'services: {web: {image: a, deploy: {replicas: 1}}}', previous: { 'web.1': 'h2', 'web.2': 'h1', 'web.3': 'h3' }, expect: { web: ['h2'] }, servers_used: ['h2'] },
  { name: 'scale up again: the kept replica stays, new ones spread', yaml: 'services: {web: {image: a, deploy: {replicas: 3}}}', previous: { 'web.1': 'h2' }, expect: { web: ['h2', 'h1', 'h3'] } },
  { name: 'anchored services follow a changed anchor', anchor: 'h2', yaml: 'services: {web: {image: a}}', previous: { 'web.1': 'h1' }, expect: { web: ['h2'] } },

  // Colocation
  {
    name: 'network_mode: service:<name> follows its target to the labelled server',
    yaml: 'services: {app: {image: a, deploy: {placement: {constraints: [node.labels.disk == ssd]}}}, sidecar: {image: a, network_mode: "service:app"}}',
    expect: { app: ['h2'], sidecar: ['h2'] },
  },
  {
    name: 'a dependent written before its target is placed after it',
    yaml: 'services: {sidecar: {image: a, pid: "service:app"}, app: {image: a, deploy: {placement: {constraints: [node.hostname == host-h3]}}}}',
    expect: { sidecar: ['h3'], app: ['h3'] },
  },
  {
    name: 'an anchored dependent of a replicated target prefers the anchor among its servers',
    yaml: 'services: {app: {image: a, deploy: {replicas: 3}}, sidecar: {image: a, ipc: "service:app"}}',
    expect: { app: ['h1', 'h2', 'h3'], sidecar: ['h1'] },
  },
  {
    name: 'volumes_from colocates too; chains stay together',
    yaml: 'services: {a: {image: a, deploy: {placement: {constraints: [node.labels.zone == b]}}}, b: {image: a, volumes_from: ["a:ro"]}, c: {image: a, ipc: "service:b"}}',
    expect: { a: ['h3'], b: ['h3'], c: ['h3'] },
  },
  {
    name: "a dependent whose own constraint excludes its target's server: colocation_conflict",
    yaml: 'services: {app: {image: a, deploy: {placement: {constraints: [node.labels.disk == ssd]}}}, sidecar: {image: a, network_mode: "service:app", deploy: {placement: {constraints: [node.labels.disk == hdd]}}}}',
    refusal: { code: 'colocation_conflict', status: 422, path: 'services.sidecar.network_mode', message: /needs a container of app on its server, but app runs on h2/ },
  },
  {
    name: 'a target with no replicas: colocation_conflict',
    yaml: 'services: {app: {image: a, deploy: {replicas: 0}}, sidecar: {image: a, network_mode: "service:app"}}',
    refusal: { code: 'colocation_conflict', status: 422, path: 'services.sidecar.network_mode', message: /app runs on no server/ },
  },
  {
    name: 'two targets on different servers: colocation_conflict',
    yaml: 'services: {a: {image: a, deploy: {placement: {constraints: [node.hostname == host-h2]}}}, b: {image: a, deploy: {placement: {constraints: [node.hostname == host-h3]}}}, c: {image: a, network_mode: "service:a", pid: "service:b"}}',
    refusal: { code: 'colocation_conflict', status: 422, path: 'services.c.pid' },
  },
  {
    name: 'a dependent with more replicas per server than its target has servers: colocation_conflict',
    yaml: 'services: {app: {image: a, deploy: {placement: {constraints: [node.hostname == host-h2]}}}, sidecar: {image: a, network_mode: "service:app", deploy: {replicas: 2, placement: {max_replicas_per_node: 1}}}}',
    refusal: { code: 'colocation_conflict', status: 422, path: 'services.sidecar.network_mode', message: /must share servers with app, which leaves h2/ },
  },
  {
    name: 'colocation naming a service the document lacks is a document error',
    yaml: 'services: {sidecar: {image: a, network_mode: "service:ghost"}}',
    refusal: { code: 'compose_invalid', status: 422, path: 'services.sidecar.network_mode' },
  },
  {
    name: 'colocation in a cycle is a document error',
    yaml: 'services: {a: {image: a, pid: "service:b"}, b: {image: a, ipc: "service:a"}}',
    refusal: { code: 'compose_invalid', status: 422, path: 'services.b.ipc', message: /cycle/ },
  },

  // Host ports
  { name: 'replicas publishing a fixed port land on distinct servers', yaml: 'services: {web: {image: a, ports: ["8080:80"], deploy: {replicas: 3}}}', expect: { web: ['h1', 'h2', 'h3'] } },
  {
    name: 'more replicas publishing a fixed port than servers: host_port_conflict',
    yaml: 'services: {web: {image: a, ports: ["8080:80"], deploy: {replicas: 4}}}',
    refusal: { code: 'host_port_conflict', status: 422, path: 'services.web.ports', message: /replicas publishing one host port need distinct servers/ },
  },
  {
    name: 'two anchored services on one host port: host_port_conflict',
    yaml: 'services: {web: {image: a, ports: ["80:80"]}, api: {image: a, ports: [{target: 8080, published: 80}]}}',
    refusal: { code: 'host_port_conflict', status: 422, path: 'services.api.ports', message: /services\.api and services\.web both publish host port 80:8080\/tcp on server h1/ },
  },
  {
    name: 'an anchored service with several instances on a fixed port: host_port_conflict',
    yaml: 'services: {web: {image: a, ports: ["127.0.0.1:8080:80"]}}',
    instances: { web: 2 },
    refusal: { code: 'host_port_conflict', status: 422, path: 'services.web.ports', message: /runs 2 instances on server h1 and publishes host port 127\.0\.0\.1:8080:80/ },
  },
  { name: 'one port number on tcp and udp does not collide', yaml: 'services: {dns: {image: a, ports: ["53:53/udp"]}, web: {image: a, ports: ["53:53"]}}', expect: { dns: ['h1'], web: ['h1'] } },
  { name: 'one port on two distinct addresses does not collide', yaml: 'services: {a: {image: a, ports: ["127.0.0.1:8080:80"]}, b: {image: a, ports: ["127.0.0.2:8080:80"]}}', expect: { a: ['h1'], b: ['h1'] } },
  {
    name: 'a port on every address collides with the same port on one address',
    yaml: 'services: {a: {image: a, ports: ["8080:80"]}, b: {image: a, ports: ["[::1]:8080:80"]}}',
    refusal: { code: 'host_port_conflict', status: 422, path: 'services.b.ports' },
  },
  {
    name: 'a scheduled service avoids a server where another service holds its port',
    yaml: 'services: {web: {image: a, ports: ["80:80"]}, api: {image: a, ports: ["80:8080"], deploy: {replicas: 1}}}',
    expect: { web: ['h1'], api: ['h2'] },
  },
  {
    name: 'a host range for one container port: one replica per port of it on a server',
    yaml: 'services: {web: {image: a, ports: ["8000-8001:80"], deploy: {replicas: 2, placement: {constraints: [node.hostname == host-h1]}}}}',
    expect: { web: ['h1', 'h1'] },
  },
  {
    name: 'a host range too small for the replicas on the only server: host_port_conflict',
    yaml: 'services: {web: {image: a, ports: ["8000-8001:80"], deploy: {replicas: 3, placement: {constraints: [node.hostname == host-h1]}}}}',
    refusal: { code: 'host_port_conflict', status: 422, path: 'services.web.ports' },
  },
  { name: 'container-only ports and interpolated ones take no fixed host port', yaml: 'services: {a: {image: a, ports: ["80", "${PORT}:80"]}, b: {image: a, ports: ["80"]}}', instances: { a: 2 }, expect: { a: ['h1', 'h1'], b: ['h1'] } },

  // The overlay fabric
  {
    name: 'a plan spanning servers on an overlay network needs the fabric: turbofabric_required',
    yaml: 'services: {web: {image: a, networks: [mesh], deploy: {replicas: 2}}}\nnetworks: {mesh: {driver: overlay}}',
    refusal: { code: 'turbofabric_required', status: 422, path: 'networks.mesh.driver', message: /network mesh, whose driver is overlay, has services on 2 servers \(h1, h2\).*overlay fabric, which is off/ },
  },
  {
    name: 'with the fabric on but not converged on a server of the network: turbofabric_required naming it and why',
    fabric: ['h2', 'h3'],
    yaml: 'services: {web: {image: a, networks: [mesh], deploy: {replicas: 2}}}\nnetworks: {mesh: {driver: overlay}}',
    refusal: {
      code: 'turbofabric_required',
      status: 422,
      path: 'networks.mesh.driver',
      message: /not ready on h2 \(h2: the daemon has not applied the configuration yet\)/,
    },
  },
  {
    name: 'a server that is not ready does not matter when the network does not span it',
    fabric: ['h3'],
    yaml: 'services: {web: {image: a, networks: [mesh], deploy: {replicas: 2}}, other: {image: a, deploy: {placement: {constraints: [node.hostname == host-h3]}}}}\nnetworks: {mesh: {driver: overlay}}',
    expect: { web: ['h1', 'h2'], other: ['h3'] },
  },
  {
    name: 'an overlay network whose services share one server needs no fabric, though the plan spans servers',
    yaml: 'services: {db: {image: a, networks: [mesh]}, api: {image: a, networks: [mesh]}, web: {image: a, deploy: {replicas: 2}}}\nnetworks: {mesh: {driver: overlay}}',
    expect: { db: ['h1'], api: ['h1'], web: ['h1', 'h2'] },
  },
  {
    name: 'an overlay default network counts for services naming no network',
    yaml: 'services: {web: {image: a, deploy: {replicas: 2}}}\nnetworks: {default: {driver: overlay}}',
    refusal: { code: 'turbofabric_required', status: 422, path: 'networks.default.driver' },
  },
  {
    name: 'an overlay network on a one-server plan needs no fabric',
    yaml: 'services: {web: {image: a, networks: [mesh], deploy: {replicas: 2, placement: {constraints: [node.hostname == host-h2]}}}}\nnetworks: {mesh: {driver: overlay}}',
    expect: { web: ['h2', 'h2'] },
  },
  {
    name: 'with the fabric on, a spanning plan may use overlay networks',
    fabric: true,
    yaml: 'services: {web: {image: a, networks: [mesh], deploy: {replicas: 2}}}\nnetworks: {mesh: {driver: overlay}}',
    expect: { web: ['h1', 'h2'] },
  },
  { name: 'a spanning plan on bridge networks needs no fabric', yaml: 'services: {web: {image: a, deploy: {replicas: 2}}}\nnetworks: {default: {driver: bridge}}', expect: { web: ['h1', 'h2'] } },

  // What the planner cannot honour is a document error
  { name: 'a job mode', yaml: 'services: {job: {image: a, deploy: {mode: replicated-job}}}', refusal: { code: 'compose_invalid', status: 422, path: 'services.job.deploy.mode' } },
  { name: 'node.role (Swarm only)', yaml: 'services: {a: {image: a, deploy: {placement: {constraints: [node.role == manager]}}}}', refusal: { code: 'compose_invalid', status: 422, path: 'services.a.deploy.placement.constraints.0', message: /node\.role is not something Panel places on/ } },
  { name: 'a constraint without an operator', yaml: 'services: {a: {image: a, deploy: {placement: {constraints: [node.labels.disk]}}}}', refusal: { code: 'compose_invalid', status: 422, path: 'services.a.deploy.placement.constraints.0' } },
  { name: 'a preference other than spread', yaml: 'services: {a: {image: a, deploy: {placement: {preferences: [{pack: node.labels.zone}]}}}}', refusal: { code: 'compose_invalid', status: 422, path: 'services.a.deploy.placement.preferences.0' } },
  { name: 'an interpolated replica count', yaml: 'services: {a: {image: a, deploy: {replicas: "${N}"}}}', refusal: { code: 'compose_invalid', status: 422, path: 'services.a.deploy.replicas', message: /before Compose interpolates/ } },
  { name: 'more replicas than the cap', yaml: 'services: {a: {image: a, deploy: {replicas: 101}}}', refusal: { code: 'compose_invalid', status: 422, path: 'services.a.deploy.replicas' } },
];

describe('planPlacement', () => {
  for (const c of CASES) {
    test(c.name, () => {
      const input = inputOf(c);
      if (c.refusal) {
        const error = refusalOf(input);
        const actual: { code: string; status: number; path?: string } = { code: error.code, status: error.status, path: error.path };
        expect(actual).toEqual({ code: c.refusal.code, status: c.refusal.status, path: c.refusal.path });
        if (c.refusal.message) expect(error.message).toMatch(c.refusal.message);
        return;
      }
      const placement = planPlacement(input);
      if (c.expect) expect(replicasByName(placement)).toEqual(c.expect);
      for (const [key, ordinals] of Object.entries(c.ordinals ?? {})) {
        expect(Object.fromEntries(placement.services.get(key)!.map((replica) => [replica.ordinal, nameOf(replica.serverId)]))).toEqual(ordinals);
      }
      if (c.servers_used) expect(placement.servers.map(nameOf)).toEqual(c.servers_used);
      if (c.warning) expect(placement.warnings.some((warning) => c.warning!.test(warning))).toBe(true);
    });
  }

  test('at least 40 cases', () => expect(CASES.length).toBeGreaterThanOrEqual(40));
});

describe('the placement as the compiler reads it', () => {
  const input = inputOf({
    name: 'mixed',
    anchor: 'h2',
    yaml: 'services: {web: {image: a, deploy: {replicas: 3, placement: {max_replicas_per_node: 1}}}, db: {image: a}, cache: {image: a, deploy: {replicas: 2, placement: {constraints: [node.hostname == host-h3]}}}}',
  });

  test('servers: the anchor first, then the organization order; byServer lists the ordinals of each service', () => {
    const placement = planPlacement(input);
    expect(placement.servers.map(nameOf)).toEqual(['h2', 'h1', 'h3']);
    const byServer = Object.fromEntries([...placement.byServer].map(([id, here]) => [nameOf(id), Object.fromEntries(here)]));
    expect(byServer).toEqual({ h1: { web: [2] }, h2: { web: [1], db: [1] }, h3: { web: [3], cache: [1, 2] } });
  });

  test('spanning: each overlay network with services on several servers, with those servers', () => {
    const placement = planPlacement(
      inputOf({
        name: 'spanning',
        fabric: true,
        yaml: 'services: {web: {image: a, networks: [front, back], deploy: {replicas: 2}}, db: {image: a, networks: [back, local]}}\nnetworks: {front: {driver: overlay}, back: {driver: overlay}, local: {driver: overlay}}',
      }),
    );
    expect(Object.fromEntries([...placement.spanning].map(([network, ids]) => [network, ids.map(nameOf)]))).toEqual({ front: ['h1', 'h2'], back: ['h1', 'h2'] });
  });

  test('deterministic: the same input plans the same, and the input is not changed', () => {
    const before = structuredClone(input);
    const first = planPlacement(input);
    expect(planPlacement(input)).toEqual(first);
    expect(input).toEqual(before);
  });
});
