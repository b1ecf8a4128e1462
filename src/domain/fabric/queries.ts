import { and, asc, eq, inArray, ne, type SQL, sql } from 'drizzle-orm';
import type { FabricSubnet } from '../../compose/compile.ts';
import { type DaemonCommand, daemonCommand, type FabricMemberRow, fabricMember, fabricSubnet, type JsonObject, server } from '../../db/schema/index.ts';
import { isOpenCommand } from '../commands/service.ts';
import type { Queryable } from '../shared/database.ts';

export function membersOf(db: Queryable, organizationId: string): FabricMemberRow[] {
  return db.select().from(fabricMember).where(eq(fabricMember.organizationId, organizationId)).orderBy(asc(fabricMember.serverId)).all();
}

export function findMember(db: Queryable, serverId: string): FabricMemberRow | undefined {
  return db.select().from(fabricMember).where(eq(fabricMember.serverId, serverId)).get();
}

export function insertMember(db: Queryable, values: typeof fabricMember.$inferInsert): FabricMemberRow {
  return db.insert(fabricMember).values(values).returning().get();
}

export function updateMember(db: Queryable, serverId: string, changes: Partial<typeof fabricMember.$inferInsert>): FabricMemberRow | undefined {
  return db.update(fabricMember).set(changes).where(eq(fabricMember.serverId, serverId)).returning().get();
}

export function deleteMembers(db: Queryable, serverIds: readonly string[]): void {
  if (serverIds.length > 0) db.delete(fabricMember).where(inArray(fabricMember.serverId, [...serverIds])).run();
}

/** Servers of the organization whose daemon reported a WireGuard key: the fabric's members while it is on. */
export function keyedServersOf(db: Queryable, organizationId: string) {
  return db
    .select({
      id: server.id,
      name: server.name,
      publicKey: server.wireguardPublicKey,
      candidates: server.fabricCandidates,
      endpoint: server.fabricEndpoint,
      datacenter: server.datacenter,
    })
    .from(server)
    .where(eq(server.organizationId, organizationId))
    .orderBy(asc(server.id))
    .all()
    .filter((row): row is typeof row & { publicKey: string } => row.publicKey !== null);
}

/** The `state` of the `fabric` command that asks the daemon for a new key pair. */
export const ROTATE_KEY_STATE = 'rotate-key';

/** A server's open fabric commands: those carrying a configuration (`up`, `down`), or the key rotations. */
function openFabric(serverId: string, what: 'configuration' | 'key rotation'): SQL | undefined {
  const state = sql`json_extract(${daemonCommand.payload}, '$.state')`;
  return and(
    eq(daemonCommand.serverId, serverId),
    eq(daemonCommand.kind, 'fabric'),
    isOpenCommand(),
    what === 'key rotation' ? sql`${state} = ${ROTATE_KEY_STATE}` : sql`${state} IS NOT ${ROTATE_KEY_STATE}`,
  );
}

/** The open configuration commands of a server (`up`, `down`), oldest first. */
export function openFabricCommandsOf(db: Queryable, serverId: string): DaemonCommand[] {
  return db.select().from(daemonCommand).where(openFabric(serverId, 'configuration')).orderBy(asc(daemonCommand.id)).all();
}

/** The key rotation an admin asked for that the server's daemon has not done yet, if any. */
export function openKeyRotationOf(db: Queryable, serverId: string): DaemonCommand | undefined {
  return db.select().from(daemonCommand).where(openFabric(serverId, 'key rotation')).orderBy(asc(daemonCommand.id)).get();
}

/**
 * A newer configuration replaces whatever configuration the server has not finished: those
 * commands expire (payload cleared) and are never delivered again. One the daemon is running
 * still finishes there; its result no longer counts, and the newer command follows it. A key
 * rotation is not a configuration: it stays.
 */
export function supersedeFabricCommands(db: Queryable, serverId: string, now: Date): void {
  db.update(daemonCommand)
    .set({ status: 'expired', error: 'superseded: a newer fabric configuration replaced it', payload: null, finishedAt: now })
    .where(openFabric(serverId, 'configuration'))
    .run();
}

export function insertFabricCommand(db: Queryable, serverId: string, payload: JsonObject, expiresAt: Date): DaemonCommand {
  return db.insert(daemonCommand).values({ serverId, deploymentId: null, kind: 'fabric', payload, status: 'queued', expiresAt }).returning().get();
}

const toSubnet = (row: typeof fabricSubnet.$inferSelect): FabricSubnet => ({ network: row.network, serverId: row.serverId, subnet: row.subnet, hosts: row.hosts });

export function subnetsOfEnvironment(db: Queryable, environmentId: string): FabricSubnet[] {
  return db.select().from(fabricSubnet).where(eq(fabricSubnet.environmentId, environmentId)).orderBy(asc(fabricSubnet.id)).all().map(toSubnet);
}

/** The subnets every other environment of the organization holds. */
export function subnetsTakenElsewhere(db: Queryable, organizationId: string, environmentId: string): string[] {
  return db
    .select({ subnet: fabricSubnet.subnet })
    .from(fabricSubnet)
    .where(and(eq(fabricSubnet.organizationId, organizationId), ne(fabricSubnet.environmentId, environmentId)))
    .all()
    .map((row) => row.subnet);
}

export function organizationHasSubnets(db: Queryable, organizationId: string): boolean {
  return db.select({ id: fabricSubnet.id }).from(fabricSubnet).where(eq(fabricSubnet.organizationId, organizationId)).limit(1).get() !== undefined;
}

/** The environment's subnets become exactly `subnets` (the deploy's plan): the others are freed. */
export function replaceEnvironmentSubnets(db: Queryable, organizationId: string, environmentId: string, subnets: readonly FabricSubnet[]): void {
  db.delete(fabricSubnet).where(eq(fabricSubnet.environmentId, environmentId)).run();
  if (subnets.length === 0) return;
  db.insert(fabricSubnet)
    .values(subnets.map((entry) => ({ organizationId, environmentId, network: entry.network, serverId: entry.serverId, subnet: entry.subnet, hosts: entry.hosts })))
    .run();
}
