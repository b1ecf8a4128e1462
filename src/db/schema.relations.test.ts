/**
 * Foreign-key actions (restrict / cascade / set null exactly as the spec's tables say) and the
 * triggers of migration 0001_add_triggers, proven against a real migrated SQLite database.
 */
import type { Database } from 'bun:sqlite';
import { beforeEach, describe, expect, test } from 'bun:test';
import {
  countRows,
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

const FOREIGN_KEY = /FOREIGN KEY constraint failed/;
const remove = (table: string, id: string) => sqlite.prepare(`DELETE FROM "${table}" WHERE id = ?`).run(id);
const exists = (table: string, id: string) =>
  sqlite.prepare(`SELECT 1 FROM "${table}" WHERE id = ?`).get(id) !== null;

/** child.column -> parent: ON DELETE action. Spec tables verbatim; referenced records per their file comments. */
const EXPECTED_FOREIGN_KEYS: Record<string, string> = {
  'workspace.organization_id': 'organization CASCADE',
  'project.workspace_id': 'workspace RESTRICT',
  'project.organization_id': 'organization CASCADE',
  'project.repository_id': 'repository RESTRICT',
  'environment.project_id': 'project RESTRICT',
  'environment.server_id': 'server RESTRICT',
  'fabric_member.organization_id': 'organization CASCADE',
  'fabric_member.server_id': 'server CASCADE',
  'fabric_subnet.environment_id': 'environment CASCADE',
  'fabric_subnet.organization_id': 'organization CASCADE',
  'fabric_subnet.server_id': 'server CASCADE',
  'service.environment_id': 'environment RESTRICT',
  'hosting.service_id': 'service RESTRICT',
  'hosting.tls_id': 'tls SET NULL',
  'hosting.ip_id': 'ip SET NULL',
  'hostname.hosting_id': 'hosting CASCADE',
  'hostname.routing_organization_id': 'organization CASCADE',
  'container.service_id': 'service RESTRICT',
  'container.server_id': 'server RESTRICT',
  'variable.organization_id': 'organization CASCADE',
  'variable.workspace_id': 'workspace CASCADE',
  'variable.project_id': 'project CASCADE',
  'variable.environment_id': 'environment CASCADE',
  'variable.service_id': 'service CASCADE',
  'variable.hosting_id': 'hosting CASCADE',
  'variable.server_id': 'server CASCADE',
  'variable.binding_id': 'binding CASCADE',
  'principal.organization_id': 'organization CASCADE',
  'principal.project_id': 'project CASCADE',
  'principal.managed_id': 'managed CASCADE',
  'tenancy.principal_id': 'principal CASCADE',
  'tenancy.service_id': 'service RESTRICT',
  'binding.principal_id': 'principal CASCADE',
  'binding.service_id': 'service RESTRICT',
  'tag.organization_id': 'organization CASCADE',
  'marker.tag_id': 'tag CASCADE',
  'marker.server_id': 'server CASCADE',
  'marker.workspace_id': 'workspace CASCADE',
  'marker.project_id': 'project CASCADE',
  'marker.environment_id': 'environment CASCADE',
  'marker.service_id': 'service CASCADE',
  'marker.datacenter_id': 'datacenter CASCADE',
  'marker.storage_id': 'storage CASCADE',
  // Referenced records (the spec shows no fields for them).
  'membership.organization_id': 'organization CASCADE',
  'membership.user_id': 'user CASCADE',
  'session.user_id': 'user CASCADE',
  'server.organization_id': 'organization CASCADE',
  'repository.organization_id': 'organization CASCADE',
  'tls.organization_id': 'organization CASCADE',
  'certificate_authority.organization_id': 'organization CASCADE',
  'server_certificate_authority.server_id': 'server CASCADE',
  'server_certificate_authority.authority_id': 'certificate_authority CASCADE',
  'ingress_route.server_id': 'server CASCADE',
  'ingress_route.hosting_id': 'hosting CASCADE',
  'ingress_certificate.server_id': 'server CASCADE',
  'ingress_certificate.hosting_id': 'hosting CASCADE',
  'ip.organization_id': 'organization CASCADE',
  'datacenter.organization_id': 'organization CASCADE',
  'storage.organization_id': 'organization CASCADE',
  'managed.organization_id': 'organization CASCADE',
  'replica.managed_id': 'managed CASCADE',
  'replica.server_id': 'server RESTRICT',
  'deployment.environment_id': 'environment CASCADE',
  'deployment.server_id': 'server SET NULL',
  'api_token.organization_id': 'organization CASCADE',
  'api_token.user_id': 'user CASCADE',
  // Identity (migration 0003_add_identity_tables).
  'user_totp.user_id': 'user CASCADE',
  'recovery_code.user_id': 'user CASCADE',
  'passkey.user_id': 'user CASCADE',
  'oauth_identity.user_id': 'user CASCADE',
  'invitation.organization_id': 'organization CASCADE',
  'invitation.invited_by_user_id': 'user CASCADE',
  'invitation.accepted_by_user_id': 'user SET NULL',
  // Daemons (migration 0005_add_daemon_tables).
  'join_token.organization_id': 'organization CASCADE',
  'join_token.created_by_user_id': 'user CASCADE',
  'join_token.server_id': 'server SET NULL',
  'join_token.replaces_server_id': 'server CASCADE',
  'daemon_command.server_id': 'server CASCADE',
  'daemon_command.deployment_id': 'deployment CASCADE',
};

describe('foreign keys', () => {
  test('every foreign key has exactly the ON DELETE action of the data model', () => {
    const tables = sqlite
      .query<{ name: string }, []>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '\\_\\_%' ESCAPE '\\'")
      .all();
    const actual: Record<string, string> = {};
    for (const { name } of tables) {
      const keys = sqlite
        .query<{ table: string; from: string; to: string; on_delete: string }, []>(`PRAGMA foreign_key_list("${name}")`)
        .all();
      for (const key of keys) {
        expect(key.to).toBe('id');
        actual[`${name}.${key.from}`] = `${key.table} ${key.on_delete}`;
      }
    }
    expect(actual).toEqual(EXPECTED_FOREIGN_KEYS);
  });

  test('restrict parents cannot be deleted while a child exists', () => {
    const repositoryId = insertRow(sqlite, 'repository', { organization_id: tree.organizationId, name: 'r', url: 'https://git.example/r' });
    updateRow(sqlite, 'project', tree.projectId, { repository_id: repositoryId });
    updateRow(sqlite, 'environment', tree.environmentId, { server_id: tree.serverId });
    const hostingId = insertHosting(sqlite, tree.serviceId);

    expect(() => remove('workspace', tree.workspaceId)).toThrow(FOREIGN_KEY);
    expect(() => remove('repository', repositoryId)).toThrow(FOREIGN_KEY);
    expect(() => remove('project', tree.projectId)).toThrow(FOREIGN_KEY);
    expect(() => remove('environment', tree.environmentId)).toThrow(FOREIGN_KEY);
    expect(() => remove('service', tree.serviceId)).toThrow(FOREIGN_KEY); // hosting
    expect(() => remove('server', tree.serverId)).toThrow(FOREIGN_KEY); // environment pin

    // Tearing down bottom-up succeeds.
    remove('hosting', hostingId);
    remove('service', tree.serviceId);
    remove('environment', tree.environmentId);
    remove('project', tree.projectId);
    remove('repository', repositoryId);
    remove('workspace', tree.workspaceId);
    remove('server', tree.serverId);
  });

  test('a service or server with containers cannot be deleted', () => {
    insertRow(sqlite, 'container', {
      service_id: tree.serviceId,
      server_id: tree.serverId,
      container_name: 'web-1',
      compose_service_name: 'web',
    });
    expect(() => remove('service', tree.serviceId)).toThrow(FOREIGN_KEY);
    expect(() => remove('server', tree.serverId)).toThrow(FOREIGN_KEY);
  });

  test('deleting a service that has bindings is refused', () => {
    const principalId = insertDatabasePrincipal(sqlite, tree.organizationId);
    const bindingId = insertRow(sqlite, 'binding', { principal_id: principalId, service_id: tree.serviceId, database_name: 'app' });
    expect(() => remove('service', tree.serviceId)).toThrow(FOREIGN_KEY);
    remove('binding', bindingId);
    remove('service', tree.serviceId);
  });

  test('deleting a service that has tenancy edges is refused', () => {
    const principalId = insertRow(sqlite, 'principal', {
      organization_id: tree.organizationId,
      kind: 'system',
      provider: 'server',
      username: 'shop',
      applied_username: 'shop',
    });
    const tenancyId = insertRow(sqlite, 'tenancy', { principal_id: principalId, service_id: tree.serviceId });
    expect(() => remove('service', tree.serviceId)).toThrow(FOREIGN_KEY);
    remove('tenancy', tenancyId);
    remove('service', tree.serviceId);
  });

  test('a principal takes its bindings, their system-owned variables and its tenancies with it', () => {
    const principalId = insertDatabasePrincipal(sqlite, tree.organizationId);
    const bindingId = insertRow(sqlite, 'binding', { principal_id: principalId, service_id: tree.serviceId, database_name: 'app' });
    const variableId = insertRow(sqlite, 'variable', { service_id: tree.serviceId, binding_id: bindingId, key: 'DATABASE_URL' });
    const tenancyId = insertRow(sqlite, 'tenancy', { principal_id: principalId, service_id: tree.serviceId });
    remove('principal', principalId);
    expect([exists('binding', bindingId), exists('variable', variableId), exists('tenancy', tenancyId)]).toEqual([
      false,
      false,
      false,
    ]);
  });

  test('a hosting takes its hostnames and hosting-scope variables with it', () => {
    const hostingId = insertHosting(sqlite, tree.serviceId);
    const hostnameId = insertRow(sqlite, 'hostname', {
      hosting_id: hostingId,
      routing_organization_id: tree.organizationId,
      hostname: 'shop.example.com',
    });
    const variableId = insertRow(sqlite, 'variable', { hosting_id: hostingId, key: 'UPSTREAM' });
    remove('hosting', hostingId);
    expect([exists('hostname', hostnameId), exists('variable', variableId)]).toEqual([false, false]);
  });

  test('deleting a tag removes its markers', () => {
    const tagId = insertRow(sqlite, 'tag', { organization_id: tree.organizationId, name: 'critical' });
    insertRow(sqlite, 'marker', { tag_id: tagId, service_id: tree.serviceId });
    insertRow(sqlite, 'marker', { tag_id: tagId, server_id: tree.serverId });
    remove('tag', tagId);
    expect(countRows(sqlite, 'marker')).toBe(0);
  });

  test('deleting a certificate, an ip or a server clears the references that are set null', () => {
    const tlsId = insertRow(sqlite, 'tls', { organization_id: tree.organizationId, name: 'wild', certificate: 'PEM', private_key: 'pnsecret.v1.k.x' });
    const ipId = insertRow(sqlite, 'ip', { organization_id: tree.organizationId, address: '203.0.113.7', scope: 'public' });
    const hostingId = insertHosting(sqlite, tree.serviceId, { tls_id: tlsId, ip_id: ipId });
    const spareServer = insertRow(sqlite, 'server', { organization_id: tree.organizationId, name: 'spare' });
    const deploymentId = insertRow(sqlite, 'deployment', {
      environment_id: tree.environmentId,
      server_id: spareServer,
      kind: 'deploy',
      desired_generation: 1,
    });
    remove('tls', tlsId);
    remove('ip', ipId);
    remove('server', spareServer);
    expect(sqlite.query('SELECT tls_id, ip_id FROM hosting WHERE id = ?').get(hostingId)).toEqual({ tls_id: null, ip_id: null });
    expect(sqlite.query('SELECT server_id FROM deployment WHERE id = ?').get(deploymentId)).toEqual({ server_id: null });
  });

  test('deleting an organization cascades to what it owns once restricted children are gone', () => {
    const userId = insertRow(sqlite, 'user', { email: 'ada@example.com' });
    insertRow(sqlite, 'membership', { organization_id: tree.organizationId, user_id: userId, role: 'owner' });
    insertRow(sqlite, 'tag', { organization_id: tree.organizationId, name: 'critical' });
    insertRow(sqlite, 'variable', { organization_id: tree.organizationId, key: 'TZ', value: 'UTC' });
    // Environments restrict their project, so the API tears those down first.
    expect(() => remove('organization', tree.organizationId)).toThrow(FOREIGN_KEY);
    remove('service', tree.serviceId);
    remove('environment', tree.environmentId);
    remove('organization', tree.organizationId);
    for (const table of ['workspace', 'project', 'server', 'membership', 'tag', 'variable']) {
      expect(`${table}: ${countRows(sqlite, table)}`).toBe(`${table}: 0`);
    }
    expect(exists('user', userId)).toBe(true);
  });
});

describe('organization consistency triggers', () => {
  test('project organization_id must equal its workspace organization', () => {
    const other = seedTree(sqlite);
    const refused = /project.organization_id must equal the organization of its workspace/;
    expect(() =>
      insertRow(sqlite, 'project', { organization_id: other.organizationId, workspace_id: tree.workspaceId, name: 'X' }),
    ).toThrow(refused);
    expect(() => updateRow(sqlite, 'project', tree.projectId, { organization_id: other.organizationId })).toThrow(refused);
    expect(() => updateRow(sqlite, 'project', tree.projectId, { workspace_id: other.workspaceId })).toThrow(refused);
    // Moving a project within its organization is fine; a missing workspace is a foreign-key error.
    const sibling = insertRow(sqlite, 'workspace', { organization_id: tree.organizationId, name: 'Sibling' });
    updateRow(sqlite, 'project', tree.projectId, { workspace_id: sibling });
    expect(() =>
      insertRow(sqlite, 'project', { organization_id: tree.organizationId, workspace_id: '01936b2e-7c4a-7b3e-8f00-0123456789ab' }),
    ).toThrow(FOREIGN_KEY);
  });

  test('a workspace with projects cannot move to another organization', () => {
    const other = seedTree(sqlite);
    expect(() => updateRow(sqlite, 'workspace', tree.workspaceId, { organization_id: other.organizationId })).toThrow(
      /workspace.organization_id cannot change while the workspace has projects/,
    );
    const empty = insertRow(sqlite, 'workspace', { organization_id: tree.organizationId, name: 'Empty' });
    updateRow(sqlite, 'workspace', empty, { organization_id: other.organizationId });
  });

  test('hostname routing_organization_id must equal its hosting organization', () => {
    const other = seedTree(sqlite);
    const hostingId = insertHosting(sqlite, tree.serviceId);
    const refused = /hostname.routing_organization_id must equal the organization of its hosting/;
    expect(() =>
      insertRow(sqlite, 'hostname', { hosting_id: hostingId, routing_organization_id: other.organizationId, hostname: 'a.example' }),
    ).toThrow(refused);
    const id = insertRow(sqlite, 'hostname', { hosting_id: hostingId, routing_organization_id: tree.organizationId, hostname: 'a.example' });
    expect(() => updateRow(sqlite, 'hostname', id, { routing_organization_id: other.organizationId })).toThrow(refused);
  });
});
