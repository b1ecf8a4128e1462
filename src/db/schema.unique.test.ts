/**
 * Uniqueness rules of the data model, proven against a real migrated SQLite database with raw SQL:
 * each test shows the valid case passes and the violation is refused by the database itself.
 */
import type { Database } from 'bun:sqlite';
import { beforeEach, describe, expect, test } from 'bun:test';
import {
  insertDatabasePrincipal,
  insertHosting,
  insertRow,
  openMigratedDatabase,
  seedTree,
  type SeededTree,
  updateRow,
} from '../../test/db.ts';

let sqlite: Database;
let tree: SeededTree;

beforeEach(() => {
  sqlite = openMigratedDatabase();
  tree = seedTree(sqlite);
});

const UNIQUE = /UNIQUE constraint failed/;

describe('uniqueness rules', () => {
  test('project name is unique per organization after trim and case-fold', () => {
    const project = (name: string, organizationId = tree.organizationId, workspaceId = tree.workspaceId) =>
      insertRow(sqlite, 'project', { organization_id: organizationId, workspace_id: workspaceId, name });

    expect(() => project('  shop ')).toThrow(UNIQUE); // seeded 'Shop'
    expect(() => project('SHOP')).toThrow(UNIQUE);
    project('Shop 2');
    // Names may repeat across organizations (seedTree names its project 'Shop' again)...
    const other = seedTree(sqlite);
    expect(() => project(' SHOP', other.organizationId, other.workspaceId)).toThrow(UNIQUE);
    // ...and unnamed projects never collide.
    insertRow(sqlite, 'project', { organization_id: tree.organizationId, workspace_id: tree.workspaceId });
    insertRow(sqlite, 'project', { organization_id: tree.organizationId, workspace_id: tree.workspaceId });
    // Renaming onto a taken name is refused too.
    const renamed = project('Storefront');
    expect(() => updateRow(sqlite, 'project', renamed, { name: 'shop 2' })).toThrow(UNIQUE);
  });

  test('tag name is unique per organization after lower-casing and trimming', () => {
    const tag = (name: string, organizationId = tree.organizationId) =>
      insertRow(sqlite, 'tag', { organization_id: organizationId, name });
    tag('Production');
    expect(() => tag(' production  ')).toThrow(UNIQUE);
    expect(() => tag('PRODUCTION')).toThrow(UNIQUE);
    tag('staging');
    tag('production', seedTree(sqlite).organizationId);
  });

  test('compose_service_name is unique per environment', () => {
    const service = (composeServiceName: string, environmentId = tree.environmentId) =>
      insertRow(sqlite, 'service', { environment_id: environmentId, compose_service_name: composeServiceName });
    expect(() => service('web')).toThrow(UNIQUE); // seeded 'web'
    service('worker');
    const staging = insertRow(sqlite, 'environment', { project_id: tree.projectId, name: 'staging' });
    service('web', staging);
  });

  test('hostname is unique per routing organization, case-insensitively', () => {
    const hostingId = insertHosting(sqlite, tree.serviceId);
    const otherHostingId = insertHosting(sqlite, tree.serviceId);
    const hostname = (name: string, hosting = hostingId, organizationId = tree.organizationId) =>
      insertRow(sqlite, 'hostname', { hosting_id: hosting, routing_organization_id: organizationId, hostname: name });

    hostname('shop.example.com');
    // Regardless of path prefix: a second hosting of the same organization cannot take it either.
    expect(() => hostname('shop.example.com', otherHostingId)).toThrow(UNIQUE);
    expect(() => hostname('Shop.Example.COM', otherHostingId)).toThrow(UNIQUE);
    hostname('api.example.com', otherHostingId);

    const other = seedTree(sqlite);
    hostname('shop.example.com', insertHosting(sqlite, other.serviceId), other.organizationId);
  });

  test('tenancy (principal_id, service_id) pair is unique', () => {
    const principalId = insertRow(sqlite, 'principal', {
      organization_id: tree.organizationId,
      kind: 'system',
      provider: 'server',
      username: 'shop',
      applied_username: 'shop',
    });
    insertRow(sqlite, 'tenancy', { principal_id: principalId, service_id: tree.serviceId });
    expect(() => insertRow(sqlite, 'tenancy', { principal_id: principalId, service_id: tree.serviceId })).toThrow(
      UNIQUE,
    );
    const worker = insertRow(sqlite, 'service', { environment_id: tree.environmentId, compose_service_name: 'worker' });
    insertRow(sqlite, 'tenancy', { principal_id: principalId, service_id: worker });
  });

  test('container (service_id, role, ordinal) is unique', () => {
    const container = (role: string, ordinal: number) =>
      insertRow(sqlite, 'container', {
        service_id: tree.serviceId,
        server_id: tree.serverId,
        container_name: `web-${role}-${ordinal}`,
        compose_service_name: 'web',
        role,
        ordinal,
      });
    container('service', 1);
    container('service', 2);
    container('ingress', 1);
    expect(() => container('service', 2)).toThrow(UNIQUE);
    expect(() => container('ingress', 1)).toThrow(UNIQUE);
  });

  test('container_id is unique per server when not null', () => {
    let ordinal = 0;
    const container = (containerId: string | null, serverId = tree.serverId) =>
      insertRow(sqlite, 'container', {
        service_id: tree.serviceId,
        server_id: serverId,
        container_name: `web-${++ordinal}`,
        compose_service_name: 'web',
        ordinal,
        container_id: containerId,
      });
    container('4f1c0a');
    expect(() => container('4f1c0a')).toThrow(UNIQUE);
    // Pre-allocated rows (null container_id) never collide.
    container(null);
    container(null);
    const otherServer = insertRow(sqlite, 'server', { organization_id: tree.organizationId, name: 'node-2' });
    container('4f1c0a', otherServer);
  });

  test('binding key_prefix is unique per service', () => {
    const principalId = insertDatabasePrincipal(sqlite, tree.organizationId);
    const binding = (keyPrefix: string, serviceId = tree.serviceId) =>
      insertRow(sqlite, 'binding', {
        principal_id: principalId,
        service_id: serviceId,
        database_name: 'app',
        key_prefix: keyPrefix,
        is_emit_engine_defaults: 0,
      });
    binding('DATABASE');
    expect(() => binding('DATABASE')).toThrow(UNIQUE);
    binding('ANALYTICS_DB');
    const worker = insertRow(sqlite, 'service', { environment_id: tree.environmentId, compose_service_name: 'worker' });
    binding('DATABASE', worker);
  });

  test('at most one is_emit_engine_defaults binding per service', () => {
    const principalId = insertDatabasePrincipal(sqlite, tree.organizationId);
    const binding = (keyPrefix: string, isEmitEngineDefaults: number) =>
      insertRow(sqlite, 'binding', {
        principal_id: principalId,
        service_id: tree.serviceId,
        database_name: 'app',
        key_prefix: keyPrefix,
        is_emit_engine_defaults: isEmitEngineDefaults,
      });
    const first = binding('DATABASE', 1);
    expect(() => binding('REPLICA', 1)).toThrow(UNIQUE);
    const second = binding('REPLICA', 0);
    binding('CACHE', 0);
    expect(() => updateRow(sqlite, 'binding', second, { is_emit_engine_defaults: 1 })).toThrow(UNIQUE);
    updateRow(sqlite, 'binding', first, { is_emit_engine_defaults: 0 });
    updateRow(sqlite, 'binding', second, { is_emit_engine_defaults: 1 });
  });

  test('at most one panel workspace per organization', () => {
    const workspace = (name: string, kind: string, organizationId = tree.organizationId) =>
      insertRow(sqlite, 'workspace', { organization_id: organizationId, name, kind });
    workspace('TurboPanel', 'panel');
    expect(() => workspace('Machine', 'panel')).toThrow(UNIQUE);
    workspace('Team A', 'user');
    workspace('Team B', 'user');
    workspace('TurboPanel', 'panel', seedTree(sqlite).organizationId);
  });

  test('at most one project per workspace per component', () => {
    const project = (name: string, component: string | null) =>
      insertRow(sqlite, 'project', {
        organization_id: tree.organizationId,
        workspace_id: tree.workspaceId,
        name,
        component,
      });
    project('Ingress', 'hosting-ingress');
    expect(() => project('Ingress 2', 'hosting-ingress')).toThrow(UNIQUE);
    project('Managed ingress', 'managed-ingress');
    // User projects (component null) are not limited.
    project('App 1', null);
    project('App 2', null);
  });

  test('workspace name is unique per organization', () => {
    expect(() => insertRow(sqlite, 'workspace', { organization_id: tree.organizationId, name: 'Default' })).toThrow(
      UNIQUE,
    );
    insertRow(sqlite, 'workspace', { organization_id: tree.organizationId, name: 'Other' });
    insertRow(sqlite, 'workspace', { organization_id: seedTree(sqlite).organizationId, name: 'Other' });
  });

  test('variable key is unique per scope parent, at every scope', () => {
    const hostingId = insertHosting(sqlite, tree.serviceId);
    const scopes: Record<string, string> = {
      organization_id: tree.organizationId,
      workspace_id: tree.workspaceId,
      project_id: tree.projectId,
      environment_id: tree.environmentId,
      service_id: tree.serviceId,
      hosting_id: hostingId,
      server_id: tree.serverId,
    };
    for (const [column, parentId] of Object.entries(scopes)) {
      insertRow(sqlite, 'variable', { [column]: parentId, key: 'PORT', value: '8080' });
      expect(() => insertRow(sqlite, 'variable', { [column]: parentId, key: 'PORT', value: '9090' })).toThrow(UNIQUE);
      insertRow(sqlite, 'variable', { [column]: parentId, key: 'port', value: '8080' }); // keys are case-sensitive
    }
    // The same key at another parent of the same scope is fine.
    const other = seedTree(sqlite);
    insertRow(sqlite, 'variable', { service_id: other.serviceId, key: 'PORT', value: '8080' });
  });

  test('marker applies a tag at most once per entity', () => {
    const tagId = insertRow(sqlite, 'tag', { organization_id: tree.organizationId, name: 'critical' });
    const otherTagId = insertRow(sqlite, 'tag', { organization_id: tree.organizationId, name: 'beta' });
    const entities: Record<string, string> = {
      server_id: tree.serverId,
      workspace_id: tree.workspaceId,
      project_id: tree.projectId,
      environment_id: tree.environmentId,
      service_id: tree.serviceId,
      datacenter_id: insertRow(sqlite, 'datacenter', { organization_id: tree.organizationId, name: 'fra1' }),
      storage_id: insertRow(sqlite, 'storage', { organization_id: tree.organizationId, name: 'backups', kind: 's3' }),
    };
    for (const [column, entityId] of Object.entries(entities)) {
      insertRow(sqlite, 'marker', { tag_id: tagId, [column]: entityId });
      expect(() => insertRow(sqlite, 'marker', { tag_id: tagId, [column]: entityId })).toThrow(UNIQUE);
      insertRow(sqlite, 'marker', { tag_id: otherTagId, [column]: entityId });
    }
  });
});

describe('uniqueness of the referenced records', () => {
  test('user email is unique case-insensitively', () => {
    insertRow(sqlite, 'user', { email: 'Ada@example.com' });
    expect(() => insertRow(sqlite, 'user', { email: 'ada@EXAMPLE.com' })).toThrow(UNIQUE);
    insertRow(sqlite, 'user', { email: 'grace@example.com' });
  });

  test('membership (organization_id, user_id) pair is unique', () => {
    const userId = insertRow(sqlite, 'user', { email: 'ada@example.com' });
    insertRow(sqlite, 'membership', { organization_id: tree.organizationId, user_id: userId, role: 'owner' });
    expect(() =>
      insertRow(sqlite, 'membership', { organization_id: tree.organizationId, user_id: userId, role: 'member' }),
    ).toThrow(UNIQUE);
  });

  test('session token_hash is unique', () => {
    const userId = insertRow(sqlite, 'user', { email: 'ada@example.com' });
    const session = () => insertRow(sqlite, 'session', { user_id: userId, token_hash: 'h1', expires_at: 1 });
    session();
    expect(session).toThrow(UNIQUE);
  });

  test('at most one local server in the whole installation', () => {
    insertRow(sqlite, 'server', { organization_id: tree.organizationId, name: 'local', is_local: 1 });
    expect(() =>
      insertRow(sqlite, 'server', { organization_id: seedTree(sqlite).organizationId, name: 'local', is_local: 1 }),
    ).toThrow(UNIQUE);
    insertRow(sqlite, 'server', { organization_id: tree.organizationId, name: 'remote', is_local: 0 });
  });

  test('server machine_id is unique per organization when not null', () => {
    const server = (name: string, machineId: string | null) =>
      insertRow(sqlite, 'server', { organization_id: tree.organizationId, name, machine_id: machineId });
    server('a', 'm-1');
    expect(() => server('b', 'm-1')).toThrow(UNIQUE);
    server('c', null);
    server('d', null);
  });

  test('replica ordinal is unique per managed cluster', () => {
    const managedId = insertRow(sqlite, 'managed', { organization_id: tree.organizationId, name: 'pg', engine: 'postgres' });
    insertRow(sqlite, 'replica', { managed_id: managedId, server_id: tree.serverId, ordinal: 1 });
    expect(() => insertRow(sqlite, 'replica', { managed_id: managedId, server_id: tree.serverId, ordinal: 1 })).toThrow(
      UNIQUE,
    );
    insertRow(sqlite, 'replica', { managed_id: managedId, server_id: tree.serverId, ordinal: 2 });
  });

  test('consumed challenge id can be redeemed once', () => {
    const consume = () => insertRow(sqlite, 'consumed_challenge', { id: 'challenge-1', purpose: 'pn2fa', expires_at: 1 });
    consume();
    expect(consume).toThrow(/UNIQUE constraint failed|PRIMARY KEY/);
  });
});
