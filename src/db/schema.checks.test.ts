/**
 * CHECK constraints of the data model (enumerations, formats, exactly-one parents, JSON objects,
 * booleans, ranges), proven against a real migrated SQLite database with raw SQL.
 */
import type { Database } from 'bun:sqlite';
import { beforeEach, describe, expect, test } from 'bun:test';
import { insertHosting, insertRow, openMigratedDatabase, seedTree, type SeededTree, updateRow } from '../../test/db.ts';

let sqlite: Database;
let tree: SeededTree;

beforeEach(() => {
  sqlite = openMigratedDatabase();
  tree = seedTree(sqlite);
});

/** The error SQLite raises for a named CHECK constraint. */
const check = (name: string) => new RegExp(`CHECK constraint failed: ${name}$`);

const SEALED = 'pnsecret.v1.k1.c2VhbGVk';

describe('exactly-one parent rules', () => {
  test('variable has exactly one scope parent', () => {
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
      insertRow(sqlite, 'variable', { [column]: parentId, key: 'ONE' });
    }
    const refused = check('variable_exactly_one_scope');
    expect(() => insertRow(sqlite, 'variable', { key: 'NONE' })).toThrow(refused);
    expect(() =>
      insertRow(sqlite, 'variable', { service_id: tree.serviceId, server_id: tree.serverId, key: 'TWO' }),
    ).toThrow(refused);
    const variableId = insertRow(sqlite, 'variable', { project_id: tree.projectId, key: 'MOVED' });
    expect(() => updateRow(sqlite, 'variable', variableId, { environment_id: tree.environmentId })).toThrow(refused);
  });

  test('marker tags exactly one entity', () => {
    const tagId = insertRow(sqlite, 'tag', { organization_id: tree.organizationId, name: 'critical' });
    const refused = check('marker_exactly_one_entity');
    insertRow(sqlite, 'marker', { tag_id: tagId, project_id: tree.projectId });
    expect(() => insertRow(sqlite, 'marker', { tag_id: tagId })).toThrow(refused);
    expect(() =>
      insertRow(sqlite, 'marker', { tag_id: tagId, server_id: tree.serverId, service_id: tree.serviceId }),
    ).toThrow(refused);
  });
});

describe('container rules', () => {
  const container = (values: Record<string, string | number | null>) =>
    insertRow(sqlite, 'container', {
      service_id: tree.serviceId,
      server_id: tree.serverId,
      container_name: 'web-1',
      compose_service_name: 'web',
      ...values,
    });

  test('container ordinal is at least 1', () => {
    container({ ordinal: 1 });
    expect(() => container({ ordinal: 0, container_name: 'web-0' })).toThrow(check('container_ordinal_at_least_one'));
    expect(() => container({ ordinal: -3 })).toThrow(check('container_ordinal_at_least_one'));
    expect(() => container({ ordinal: 1.5 })).toThrow(check('container_ordinal_at_least_one'));
  });

  test('ingress containers have ordinal 1', () => {
    container({ role: 'ingress', ordinal: 1, container_name: 'web-in' });
    expect(() => container({ role: 'ingress', ordinal: 2 })).toThrow(check('container_ingress_ordinal_is_one'));
  });

  test('container status is one of the allowed states, pending by default', () => {
    const states = ['pending', 'created', 'running', 'paused', 'restarting', 'removing', 'exited', 'dead', 'unknown'];
    states.forEach((status, index) => container({ status, ordinal: index + 1 }));
    expect(() => container({ status: 'stopped', ordinal: 99 })).toThrow(check('container_status_is_valid'));
    const id = container({ ordinal: 50 });
    expect(sqlite.query('SELECT status, role, ordinal FROM container WHERE id = ?').get(id)).toEqual({
      status: 'pending',
      role: 'service',
      ordinal: 50,
    });
  });

  test('container role is service, ingress or panel', () => {
    container({ role: 'service', ordinal: 1 });
    container({ role: 'ingress', ordinal: 1 });
    container({ role: 'panel', ordinal: 1 });
    expect(() => container({ role: 'proxy', ordinal: 1 })).toThrow(check('container_role_is_valid'));
  });
});

describe('enumerations', () => {
  test('workspace kind is user or panel, user by default', () => {
    const id = insertRow(sqlite, 'workspace', { organization_id: tree.organizationId, name: 'Team' });
    expect(sqlite.query('SELECT kind FROM workspace WHERE id = ?').get(id)).toEqual({ kind: 'user' });
    expect(() =>
      insertRow(sqlite, 'workspace', { organization_id: tree.organizationId, name: 'X', kind: 'system' }),
    ).toThrow(check('workspace_kind_is_valid'));
  });

  test('project component is one of the platform values or null', () => {
    const project = (name: string, component: string | null) =>
      insertRow(sqlite, 'project', { organization_id: tree.organizationId, workspace_id: tree.workspaceId, name, component });
    for (const component of ['hosting-ingress', 'managed-ingress', 'managed-ha', 'panel']) project(component, component);
    project('user project', null);
    expect(() => project('bad', 'ingress')).toThrow(check('project_component_is_valid'));
  });

  test('hosting protocol is http, tcp, udp or null', () => {
    for (const protocol of ['http', 'tcp', 'udp', null]) insertHosting(sqlite, tree.serviceId, { protocol });
    expect(() => insertHosting(sqlite, tree.serviceId, { protocol: 'HTTP' })).toThrow(check('hosting_protocol_is_valid'));
  });

  test('principal kind and provider are consistent', () => {
    const principal = (kind: string, provider: string) =>
      insertRow(sqlite, 'principal', {
        organization_id: tree.organizationId,
        kind,
        provider,
        username: 'app',
        applied_username: 'app',
      });
    principal('system', 'server');
    for (const engine of ['postgres', 'mysql', 'redis', 'clickhouse']) principal('database', engine);
    expect(() => principal('system', 'postgres')).toThrow(check('principal_provider_matches_kind'));
    expect(() => principal('database', 'server')).toThrow(check('principal_provider_matches_kind'));
    expect(() => principal('human', 'server')).toThrow(/CHECK constraint failed: principal_kind_is_valid/);
    expect(() => principal('database', 'mongodb')).toThrow(check('principal_provider_is_valid'));
  });

  test('membership role, server status, ip scope, managed engine and deployment kind/status are enumerated', () => {
    const userId = insertRow(sqlite, 'user', { email: 'ada@example.com' });
    const orgId = tree.organizationId;
    expect(() => insertRow(sqlite, 'membership', { organization_id: orgId, user_id: userId, role: 'root' })).toThrow(
      check('membership_role_is_valid'),
    );
    expect(() => insertRow(sqlite, 'server', { organization_id: orgId, name: 'n', status: 'up' })).toThrow(
      check('server_status_is_valid'),
    );
    expect(() => insertRow(sqlite, 'ip', { organization_id: orgId, address: '10.0.0.1', scope: 'private' })).toThrow(
      check('ip_scope_is_valid'),
    );
    expect(() => insertRow(sqlite, 'managed', { organization_id: orgId, name: 'm', engine: 'mongodb' })).toThrow(
      check('managed_engine_is_valid'),
    );
    const deployment = (kind: string, status: string) =>
      insertRow(sqlite, 'deployment', { environment_id: tree.environmentId, kind, status, desired_generation: 1 });
    deployment('deploy', 'queued');
    expect(() => deployment('restart', 'queued')).toThrow(check('deployment_kind_is_valid'));
    expect(() => deployment('stop', 'done')).toThrow(check('deployment_status_is_valid'));
  });

  test('server labels are a JSON object, {} by default', () => {
    const orgId = tree.organizationId;
    const id = insertRow(sqlite, 'server', { organization_id: orgId, name: 'labelled' });
    expect(sqlite.query('SELECT labels FROM server WHERE id = ?').get(id)).toEqual({ labels: '{}' });
    expect(() => insertRow(sqlite, 'server', { organization_id: orgId, name: 'n', labels: '["disk"]' })).toThrow(check('server_labels_is_json_object'));
    expect(() => insertRow(sqlite, 'server', { organization_id: orgId, name: 'n', labels: 'disk=ssd' })).toThrow(check('server_labels_is_json_object'));
  });
});

describe('formats and ranges', () => {
  test('environment generation is an integer >= 0, 0 by default', () => {
    const id = insertRow(sqlite, 'environment', { project_id: tree.projectId, name: 'staging' });
    expect(sqlite.query('SELECT generation FROM environment WHERE id = ?').get(id)).toEqual({ generation: 0 });
    updateRow(sqlite, 'environment', id, { generation: 1 });
    expect(() => updateRow(sqlite, 'environment', id, { generation: -1 })).toThrow(
      check('environment_generation_non_negative'),
    );
  });

  test('workspace and service names match ^[A-Za-z0-9 ._-]+$ with 1-255 chars', () => {
    const workspace = (name: string) => insertRow(sqlite, 'workspace', { organization_id: tree.organizationId, name });
    workspace('Team A_1.x-y');
    for (const bad of ['', 'a/b', 'naïve', 'tab\there', 'x'.repeat(256)]) {
      expect(() => workspace(bad)).toThrow(check('workspace_name_format'));
    }
    workspace('x'.repeat(255));
    const service = (name: string, key: string) =>
      insertRow(sqlite, 'service', { environment_id: tree.environmentId, compose_service_name: key, name });
    service('Web server', 'api');
    expect(() => service('web/1', 'worker')).toThrow(check('service_name_format'));
    expect(() => service('ok', '')).toThrow(check('service_compose_service_name_length'));
  });

  test('environment name matches ^[A-Za-z0-9 ._/-]+$ with 1-255 chars', () => {
    const environment = (name: string) => insertRow(sqlite, 'environment', { project_id: tree.projectId, name });
    environment('feature/login-v2');
    for (const bad of ['', 'a:b', 'x'.repeat(256)]) {
      expect(() => environment(bad)).toThrow(check('environment_name_format'));
    }
  });

  test('variable key matches ^[A-Za-z_][A-Za-z0-9_]*$ with 1-255 chars', () => {
    const variable = (key: string) => insertRow(sqlite, 'variable', { project_id: tree.projectId, key });
    variable('_PRIVATE');
    variable('Db_Host2');
    variable('K'.repeat(255));
    for (const bad of ['', '2FA', 'DB-HOST', 'DB HOST', 'ÄPFEL', 'K'.repeat(256)]) {
      expect(() => variable(bad)).toThrow(check('variable_key_format'));
    }
  });

  test('binding key_prefix (1-64) and database_name (1-63) match ^[A-Za-z_][A-Za-z0-9_]*$', () => {
    const principalId = insertRow(sqlite, 'principal', {
      organization_id: tree.organizationId,
      kind: 'database',
      provider: 'postgres',
      username: 'app',
      applied_username: 'app',
    });
    let emitted = 0;
    const binding = (keyPrefix: string, databaseName: string) =>
      insertRow(sqlite, 'binding', {
        principal_id: principalId,
        service_id: tree.serviceId,
        key_prefix: keyPrefix,
        database_name: databaseName,
        is_emit_engine_defaults: emitted++ === 0 ? 1 : 0,
      });
    binding('P'.repeat(64), 'd'.repeat(63));
    expect(() => binding('P'.repeat(65), 'app')).toThrow(check('binding_key_prefix_format'));
    expect(() => binding('1DB', 'app')).toThrow(check('binding_key_prefix_format'));
    expect(() => binding('DB', 'd'.repeat(64))).toThrow(check('binding_database_name_format'));
    expect(() => binding('DB', 'my-db')).toThrow(check('binding_database_name_format'));
    const id = insertRow(sqlite, 'binding', { principal_id: principalId, service_id: tree.serviceId, database_name: 'x', is_emit_engine_defaults: 0 });
    expect(sqlite.query('SELECT key_prefix FROM binding WHERE id = ?').get(id)).toEqual({ key_prefix: 'DATABASE' });
  });

  test('principal username and applied_username match ^[A-Za-z_][A-Za-z0-9_-]*$ with 1-255 chars', () => {
    const principal = (username: string, appliedUsername: string) =>
      insertRow(sqlite, 'principal', {
        organization_id: tree.organizationId,
        kind: 'system',
        provider: 'server',
        username,
        applied_username: appliedUsername,
      });
    principal('shop-web', 'shop-web_a1B2c3D4e5F');
    expect(() => principal('-shop', 'shop')).toThrow(check('principal_username_format'));
    expect(() => principal('shop', 'shop.web')).toThrow(check('principal_applied_username_format'));
    expect(() => principal('u'.repeat(256), 'shop')).toThrow(check('principal_username_format'));
  });

  test('tag color is #rgb or #rrggbb, or null', () => {
    const tag = (name: string, color: string | null) =>
      insertRow(sqlite, 'tag', { organization_id: tree.organizationId, name, color });
    tag('a', '#fA0');
    tag('b', '#00ff7F');
    tag('c', null);
    for (const bad of ['fa0', '#fa', '#ggg', '#00ff7f0', 'red', '']) {
      expect(() => tag(`bad ${bad}`, bad)).toThrow(check('tag_color_format'));
    }
  });

  test('managed port is within 1-65535 and options.databases is an array', () => {
    const managed = (port: number | null, options: string | null = null) =>
      insertRow(sqlite, 'managed', { organization_id: tree.organizationId, name: 'pg', engine: 'postgres', port, options });
    managed(5432, JSON.stringify({ databases: ['app'] }));
    managed(null);
    expect(() => managed(0)).toThrow(check('managed_port_range'));
    expect(() => managed(65536)).toThrow(check('managed_port_range'));
    expect(() => managed(5432, JSON.stringify({ databases: 'app' }))).toThrow(check('managed_options_databases_is_array'));
  });
});

describe('column conventions', () => {
  test('ids are UUID v7', () => {
    const organization = (id: string) => insertRow(sqlite, 'organization', { id, name: 'X' });
    organization('01936b2e-7c4a-7b3e-8f00-0123456789ab');
    for (const bad of [
      '01936b2e-7c4a-4b3e-8f00-0123456789ab', // v4
      '01936B2E-7C4A-7B3E-8F00-0123456789AB', // upper case
      '01936b2e-7c4a-7b3e-cf00-0123456789ab', // wrong variant
      '01936b2e7c4a7b3e8f000123456789ab', // no dashes
      'org-1',
    ]) {
      expect(() => organization(bad)).toThrow(check('organization_id_is_uuid_v7'));
    }
  });

  test('metadata and options hold a JSON object or null', () => {
    const service = (key: string, metadata: string | null, options: string | null = null) =>
      insertRow(sqlite, 'service', { environment_id: tree.environmentId, compose_service_name: key, metadata, options });
    service('a', '{"team":"shop"}', '{}');
    service('b', null);
    for (const bad of ['[1,2]', '"text"', '42', 'null', '{not json']) {
      expect(() => service(`bad-${bad}`, bad)).toThrow(check('service_metadata_is_json_object'));
      expect(() => service(`bad-${bad}`, null, bad)).toThrow(check('service_options_is_json_object'));
    }
  });

  test('booleans hold 0 or 1', () => {
    expect(() => insertRow(sqlite, 'variable', { project_id: tree.projectId, key: 'K', is_literal: 2 })).toThrow(
      check('variable_is_literal_is_boolean'),
    );
    const id = insertRow(sqlite, 'variable', { project_id: tree.projectId, key: 'K' });
    expect(sqlite.query('SELECT value, is_secret, is_literal, is_for_build, is_for_runtime FROM variable WHERE id = ?').get(id)).toEqual({
      value: '',
      is_secret: 0,
      is_literal: 0,
      is_for_build: 0,
      is_for_runtime: 1,
    });
  });

  test('secrets are stored sealed, never as plaintext', () => {
    insertRow(sqlite, 'variable', { project_id: tree.projectId, key: 'TOKEN', is_secret: 1, value: SEALED });
    insertRow(sqlite, 'variable', { project_id: tree.projectId, key: 'PLAIN', is_secret: 0, value: 'hello' });
    expect(() =>
      insertRow(sqlite, 'variable', { project_id: tree.projectId, key: 'LEAK', is_secret: 1, value: 'hunter2' }),
    ).toThrow(check('variable_secret_value_is_sealed'));
    const principal = (password: string | null) =>
      insertRow(sqlite, 'principal', {
        organization_id: tree.organizationId,
        kind: 'database',
        provider: 'mysql',
        username: 'app',
        applied_username: 'app',
        password,
      });
    principal(SEALED);
    principal(null);
    expect(() => principal('hunter2')).toThrow(check('principal_password_is_sealed'));
    const tls = (privateKey: string) =>
      insertRow(sqlite, 'tls', { organization_id: tree.organizationId, name: 'wild', certificate: 'PEM', private_key: privateKey });
    tls(SEALED);
    expect(() => tls('-----BEGIN PRIVATE KEY-----')).toThrow(check('tls_private_key_is_sealed'));
  });
});
