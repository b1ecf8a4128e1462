/**
 * Parent rows for client API tests, inserted directly with drizzle (the routes that create them
 * are tested elsewhere), plus a two-organization setup: the caller's organization with an owner,
 * an admin and a member, and a stranger's organization whose ids must answer 404.
 */
import { sealSecret } from '../src/crypto/index.ts';
import {
  environment,
  hosting,
  managed,
  type ManagedEngine,
  principal,
  project,
  server,
  service,
  workspace,
} from '../src/db/schema/index.ts';
import { principalPasswordOwner } from '../src/domain/variables/secrets.ts';
import { newId } from '../src/lib/ids.ts';
import type { TestApp } from './harness.ts';
import { addMember, createOwner, type TestCaller } from './identity.ts';

let sequence = 0;
const unique = (prefix: string) => `${prefix}${++sequence}`;

/** One row of every scope parent a variable can hang off, in one organization. */
export interface SeededTree {
  organizationId: string;
  workspaceId: string;
  projectId: string;
  environmentId: string;
  serviceId: string;
  hostingId: string;
  serverId: string;
}

export function seedService(t: TestApp, environmentId: string): string {
  return t.db.insert(service).values({ environmentId, composeServiceName: unique('svc') }).returning().get().id;
}

export function seedTree(t: TestApp, organizationId: string): SeededTree {
  const workspaceId = t.db.insert(workspace).values({ organizationId, name: unique('ws') }).returning().get().id;
  const projectId = t.db.insert(project).values({ organizationId, workspaceId, name: unique('project') }).returning().get().id;
  const environmentId = t.db.insert(environment).values({ projectId, name: 'production' }).returning().get().id;
  const serviceId = seedService(t, environmentId);
  const hostingId = t.db.insert(hosting).values({ serviceId }).returning().get().id;
  const serverId = t.db.insert(server).values({ organizationId, name: unique('node') }).returning().get().id;
  return { organizationId, workspaceId, projectId, environmentId, serviceId, hostingId, serverId };
}

export interface ManagedSeed {
  engine?: ManagedEngine;
  databases?: string[];
  host?: string | null;
  port?: number | null;
}

export function seedManaged(t: TestApp, organizationId: string, seed: ManagedSeed = {}) {
  return t.db
    .insert(managed)
    .values({
      organizationId,
      name: unique('cluster'),
      engine: seed.engine ?? 'postgres',
      host: seed.host === undefined ? 'db.internal' : seed.host,
      port: seed.port === undefined ? 5432 : seed.port,
      options: { databases: seed.databases ?? ['app', 'analytics'] },
    })
    .returning()
    .get();
}

/** A database user of a cluster, with its password sealed the way the API seals it. */
export function seedDatabasePrincipal(
  t: TestApp,
  cluster: { id: string; organizationId: string; engine: ManagedEngine },
  opts: { username?: string; password?: string | null } = {},
) {
  const id = newId();
  const username = opts.username ?? unique('user');
  const password = opts.password === undefined ? 'db-password' : opts.password;
  return t.db
    .insert(principal)
    .values({
      id,
      organizationId: cluster.organizationId,
      managedId: cluster.id,
      kind: 'database',
      provider: cluster.engine,
      username,
      appliedUsername: username,
      password: password === null ? null : sealSecret(t.deps.keyring, password, principalPasswordOwner(id)),
    })
    .returning()
    .get();
}

export function seedSystemPrincipal(t: TestApp, organizationId: string) {
  const username = unique('www');
  return t.db
    .insert(principal)
    .values({ organizationId, kind: 'system', provider: 'server', username, appliedUsername: username })
    .returning()
    .get();
}

export interface Tenants {
  owner: TestCaller;
  admin: TestCaller;
  member: TestCaller;
  /** Owner of another organization. */
  stranger: TestCaller;
  tree: SeededTree;
  /** The stranger's tree: every id here must answer 404 to the caller. */
  foreign: SeededTree;
}

export function seedTenants(t: TestApp): Tenants {
  const owner = createOwner(t);
  const stranger = createOwner(t);
  return {
    owner,
    admin: addMember(t, owner.organizationId, 'admin'),
    member: addMember(t, owner.organizationId, 'member'),
    stranger,
    tree: seedTree(t, owner.organizationId),
    foreign: seedTree(t, stranger.organizationId),
  };
}
