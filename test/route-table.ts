/**
 * The client route table as tests walk it (test/tenancy.security.test.ts,
 * test/route-contract.security.test.ts): every route of the built app under /api/client/v1 with
 * its id slots, one seeded row of every resource kind per organization, and request bodies and
 * queries generated from each route's own valibot schemas, so a route added later is covered
 * without editing a test.
 *
 * - `:id` takes the id of the kind its path segment names (`/projects/:id` -> project, kebab-case
 *   and plurals folded: `api-tokens` -> api_token, `tenancies` -> tenancy); `:fooId` names its kind.
 * - Body and query fields named `<kind>Id` (or `<kind>Ids`, arrays; a role may come first:
 *   `replacesServerId` is a server) are id slots; every other required field gets a sample value
 *   generated from the route's schema, and the request must pass that schema.
 */
import type { Database } from 'bun:sqlite';
import * as v from 'valibot';
import { hashRecoveryCode } from '../src/auth/recovery-codes.ts';
import { hashToken, newOpaqueToken } from '../src/auth/token.ts';
import { sealSecret } from '../src/crypto/index.ts';
import { newId } from '../src/lib/ids.ts';
import { serverCertificate } from './certificates.ts';
import { insertRow } from './db.ts';
import type { TestApp } from './harness.ts';
import { createOwner, type TestCaller } from './identity.ts';

export const PREFIX = '/api/client/v1';
/** Tables that hold no resource of an organization (bookkeeping and counters). */
export const UNSEEDED_TABLES = new Set(['__panel_migrations', 'consumed_challenge', 'rate_limit']);

export type Ids = Map<string, string>;
export interface Party {
  caller: TestCaller;
  bearer: Record<string, string>;
  ids: Ids;
}

/** One row of every resource kind in the caller's organization; returns kind -> id. */
export function seedOrganization(t: TestApp, caller: TestCaller): Ids {
  const sqlite = t.sqlite;
  const org = caller.organizationId;
  const ids: Ids = new Map([
    ['organization', org],
    ['user', caller.userId],
  ]);
  const only = (sql: string, ...args: string[]) => (sqlite.query(sql).get(...args) as { id: string }).id;
  ids.set('membership', only('SELECT id FROM membership WHERE user_id = ? AND organization_id = ?', caller.userId, org));
  ids.set('session', only('SELECT id FROM session WHERE user_id = ?', caller.userId));
  const add = (kind: string, values: Record<string, string | number | null>, as = kind) => {
    const id = insertRow(sqlite, kind, values);
    ids.set(as, id);
    return id;
  };
  const sealed = (table: string, column: string, id: string) => sealSecret(t.deps.keyring, 'sealed value', { table, column, id });

  const workspaceId = add('workspace', { organization_id: org, name: 'Tenancy' });
  const repositoryId = add('repository', { organization_id: org, name: 'repo', url: 'https://git.example/repo' });
  const serverId = add('server', { organization_id: org, name: 'node-1' });
  const projectId = add('project', { organization_id: org, workspace_id: workspaceId, repository_id: repositoryId, name: 'Shop' });
  const environmentId = add('environment', { project_id: projectId, name: 'production', server_id: serverId });
  const serviceId = add('service', { environment_id: environmentId, compose_service_name: 'web' });
  const tlsId = newId();
  const certificate = serverCertificate({ names: ['shop.example'], now: t.clock.now() });
  add('tls', { id: tlsId, organization_id: org, name: 'cert', certificate: certificate.chain, private_key: sealed('tls', 'private_key', tlsId) });
  ids.set('certificate', tlsId);
  const authorityId = newId();
  add('certificate_authority', { id: authorityId, organization_id: org, certificate: certificate.ca.pem, private_key: sealed('certificate_authority', 'private_key', authorityId), not_after: t.clock.now().getTime() + 86_400_000 });
  const ipId = add('ip', { organization_id: org, address: '192.0.2.10', scope: 'public' });
  const hostingId = add('hosting', { service_id: serviceId, tls_id: tlsId, ip_id: ipId, name: 'shop.example' });
  add('hostname', { hosting_id: hostingId, routing_organization_id: org, hostname: `shop-${org}.example` });
  add('container', { service_id: serviceId, server_id: serverId, container_name: 'web-1', compose_service_name: 'web' });
  const serverAuthorityId = newId();
  add('server_certificate_authority', {
    id: serverAuthorityId,
    server_id: serverId,
    authority_id: authorityId,
    certificate: certificate.ca.pem,
    private_key: sealed('server_certificate_authority', 'private_key', serverAuthorityId),
    not_after: t.clock.now().getTime() + 86_400_000,
  });
  add('ingress_route', { server_id: serverId, hosting_id: hostingId, upstreams: 1, containers: 1 });
  add('ingress_certificate', { server_id: serverId, hosting_id: hostingId, hostname: 'shop.example', source: 'internal', status: 'issued' });
  const datacenterId = add('datacenter', { organization_id: org, name: 'fra1' });
  add('storage', { organization_id: org, name: 'backups', kind: 's3' });
  const managedId = add('managed', { organization_id: org, name: 'pg', engine: 'postgres', options: JSON.stringify({ databases: ['app'] }) });
  add('replica', { managed_id: managedId, server_id: serverId });
  const deploymentId = add('deployment', { environment_id: environmentId, kind: 'deploy', desired_generation: 1 });
  add('daemon_command', { server_id: serverId, deployment_id: deploymentId, kind: 'stop', payload: '{}', expires_at: t.clock.now().getTime() + 3_600_000 });
  add('fabric_member', { server_id: serverId, organization_id: org, mesh_address: '10.209.0.1', listen_port: 51820, desired_hash: `sha256:${'0'.repeat(64)}` });
  add('fabric_subnet', { organization_id: org, environment_id: environmentId, server_id: serverId, network: 'mesh', subnet: '10.210.0.0/24' });
  add('join_token', { organization_id: org, created_by_user_id: caller.userId, token_hash: hashToken(newOpaqueToken('pnj')), expires_at: t.clock.now().getTime() + 3_600_000 });
  const systemPrincipalId = add('principal', { organization_id: org, kind: 'system', provider: 'server', username: 'app', applied_username: 'app' });
  const databasePrincipalId = add(
    'principal',
    { organization_id: org, managed_id: managedId, kind: 'database', provider: 'postgres', username: 'dbuser', applied_username: 'dbuser' },
    'database_principal',
  );
  add('tenancy', { principal_id: systemPrincipalId, service_id: serviceId });
  add('binding', { principal_id: databasePrincipalId, service_id: serviceId, database_name: 'app' });
  add('variable', { organization_id: org, key: 'PROBE', value: 'plain' });
  const tagId = add('tag', { organization_id: org, name: 'tenancy' });
  add('marker', { tag_id: tagId, project_id: projectId });
  add('marker', { tag_id: tagId, datacenter_id: datacenterId }, 'datacenter_marker');
  add('invitation', {
    organization_id: org,
    email: `invitee-${org}@example.test`,
    role: 'member',
    invited_by_user_id: caller.userId,
    token_hash: hashToken(newOpaqueToken('pninv')),
    expires_at: t.clock.now().getTime() + 86_400_000,
  });
  const totpId = newId();
  add('user_totp', { id: totpId, user_id: caller.userId, secret: sealed('user_totp', 'secret', totpId) });
  add('recovery_code', { user_id: caller.userId, code_hash: hashRecoveryCode(newOpaqueToken('rc')) });
  add('passkey', { user_id: caller.userId, credential_id: newOpaqueToken('cred'), public_key: 'pQECAyYgASFYIA', name: 'key' });
  add('oauth_identity', { user_id: caller.userId, provider: 'github', subject: newOpaqueToken('gh') });
  return ids;
}

export function party(t: TestApp, opts: { isSuperadmin?: boolean } = {}): Party {
  const caller = createOwner(t, opts);
  const ids = seedOrganization(t, caller);
  const token = newOpaqueToken('pat');
  const tokenId = insertRow(t.sqlite, 'api_token', {
    organization_id: caller.organizationId,
    user_id: caller.userId,
    name: 'probe',
    role: 'owner',
    token_hash: hashToken(token),
  });
  ids.set('api_token', tokenId);
  return { caller, bearer: { authorization: `Bearer ${token}` }, ids };
}

export function userTables(sqlite: Database): string[] {
  return sqlite
    .query<{ name: string }, []>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name")
    .all()
    .map((row) => row.name);
}

export function dump(sqlite: Database): Record<string, unknown[]> {
  return Object.fromEntries(userTables(sqlite).map((table) => [table, sqlite.query(`SELECT * FROM "${table}" ORDER BY rowid`).all()]));
}

/** Rows that mention any of A's ids in any column. */
export function rowsOf(snapshot: Record<string, unknown[]>, ids: Set<string>) {
  return Object.fromEntries(
    Object.entries(snapshot).map(([table, rows]) => [table, rows.filter((row) => Object.values(row as object).some((value) => ids.has(value as string)))]),
  );
}

// ---- id slots and sample values, from the route's schemas -------------------------------------

const snake = (name: string) => name.replace(/-/g, '_').replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** `projects` -> project, `api-tokens` -> api_token, `tenancies` -> tenancy, `managed` -> managed. */
function kindOfSegment(segment: string, known: Ids): string {
  const base = snake(segment);
  for (const candidate of [base, base.replace(/ies$/, 'y'), base.replace(/s$/, '')]) if (known.has(candidate)) return candidate;
  throw new Error(`no seeded resource kind for path segment "${segment}": seed one in test/route-table.ts`);
}

/** `projectId` -> project; a role before the kind is dropped: `replacesServerId` -> server. */
function kindOfField(field: string, known: Ids): string {
  const words = snake(field.replace(/Ids?$/, '')).split('_');
  for (let start = 0; start < words.length; start++) {
    const kind = words.slice(start).join('_');
    if (known.has(kind)) return kind;
  }
  throw new Error(`no seeded resource kind for field "${field}": seed one in test/route-table.ts`);
}

export type Schema = v.GenericSchema & { type: string; [key: string]: unknown };
export const OPTIONAL = new Set(['optional', 'exact_optional', 'nullish', 'undefinedable']);
const isIdField = (name: string) => /[a-z]Ids?$/.test(name);
const valid = (schema: Schema, value: unknown) => v.safeParse(schema, value).success;

const STRINGS = ['tenancy-probe', 'TENANCY_PROBE', 'probe', 'tenancy@example.test', 'correct horse battery staple', '#abcdef', 'https://example.test/probe', '2099-01-01T00:00:00.000Z', '1.0', 'x'];

/** A value that passes `schema` (required entries only for objects). */
export function sample(schema: Schema): unknown {
  const pick = (candidates: unknown[]) => candidates.find((candidate) => valid(schema, candidate));
  switch (schema.type) {
    case 'optional':
    case 'exact_optional':
    case 'nullish':
    case 'undefinedable':
    case 'nullable':
    case 'non_nullable':
    case 'non_optional':
      return sample(schema.wrapped as Schema);
    case 'string':
      return pick([...STRINGS, newId()]);
    case 'number':
      return pick([1, 0, 30, 5432]);
    case 'boolean':
      return false;
    case 'picklist':
      return (schema.options as unknown[])[0];
    case 'enum':
      return Object.values(schema.enum as object)[0];
    case 'literal':
      return schema.literal;
    case 'array':
      return pick([[], [sample(schema.item as Schema)]]);
    case 'record':
      return {};
    case 'object':
    case 'strict_object':
    case 'loose_object':
    case 'object_with_rest':
      return Object.fromEntries(
        Object.entries(schema.entries as Record<string, Schema>)
          .filter(([, entry]) => !OPTIONAL.has(entry.type))
          .map(([key, entry]) => [key, sample(entry)]),
      );
    case 'union':
    case 'variant':
      return pick((schema.options as Schema[]).map(sample));
    default:
      return {};
  }
}

export interface Slot {
  where: 'path' | 'body' | 'query';
  name: string;
  kind: string;
  isArray: boolean;
  required: boolean;
}

export interface RouteShape {
  method: string;
  path: string;
  bodySchema?: Schema;
  querySchema?: Schema;
  paramsSchema?: Schema;
  slots: Slot[];
}

export function shapeOf(route: { method: string; path: string; hooks: unknown }, known: Ids): RouteShape {
  const hooks = route.hooks as { body?: Schema; query?: Schema; params?: Schema };
  const slots: Slot[] = [];
  const segments = route.path.split('/');
  segments.forEach((segment, index) => {
    if (!segment.startsWith(':')) return;
    const name = segment.slice(1);
    if (name === 'id') slots.push({ where: 'path', name, kind: kindOfSegment(segments[index - 1]!, known), isArray: false, required: true });
    else if (isIdField(name)) slots.push({ where: 'path', name, kind: kindOfField(name, known), isArray: false, required: true });
  });
  for (const where of ['body', 'query'] as const) {
    const schema = hooks[where];
    const entries = (schema?.entries ?? {}) as Record<string, Schema>;
    for (const [name, entry] of Object.entries(entries)) {
      if (!isIdField(name)) continue;
      slots.push({ where, name, kind: kindOfField(name, known), isArray: name.endsWith('Ids'), required: !OPTIONAL.has(entry.type) });
    }
  }
  return { method: route.method, path: route.path, bodySchema: hooks.body, querySchema: hooks.query, paramsSchema: hooks.params, slots };
}

/** Slot sets to try: the path and required slots, alone and with each optional slot in turn. */
export function slotSets(shape: RouteShape): Slot[][] {
  const base = shape.slots.filter((slot) => slot.required);
  const optional = shape.slots.filter((slot) => !slot.required);
  const sets = optional.map((slot) => [...base, slot]);
  return base.length > 0 ? [base, ...sets] : sets;
}

export function buildRequest(shape: RouteShape, values: Map<Slot, string>) {
  const idValue = (slot: Slot, id: string) => (slot.isArray ? [id] : id);
  let path = shape.path;
  const params = shape.paramsSchema ? (sample(shape.paramsSchema) as Record<string, unknown>) : {};
  path = path.replace(/:([A-Za-z]+)/g, (_, name: string) => {
    const slot = [...values.keys()].find((candidate) => candidate.where === 'path' && candidate.name === name);
    return encodeURIComponent(slot ? values.get(slot)! : String(params[name] ?? 'probe'));
  });
  const fill = (where: 'body' | 'query', schema?: Schema) => {
    if (!schema || schema.type === 'undefined') return undefined;
    const out = sample(schema) as Record<string, unknown>;
    for (const slot of shape.slots) if (slot.where === where) delete out[slot.name];
    for (const [slot, id] of values) if (slot.where === where) out[slot.name] = idValue(slot, id);
    const parsed = v.safeParse(schema, where === 'query' ? Object.fromEntries(Object.entries(out).map(([k, x]) => [k, String(x)])) : out);
    if (!parsed.success) {
      throw new Error(`cannot build a valid ${where} for ${shape.method} ${shape.path}: ${parsed.issues.map((i) => `${v.getDotPath(i)}: ${i.message}`).join('; ')}`);
    }
    return out;
  };
  const body = fill('body', shape.bodySchema);
  const query = fill('query', shape.querySchema);
  const search = query ? `?${new URLSearchParams(Object.entries(query).map(([k, x]) => [k, String(x)]))}` : '';
  return { path: `${path}${search}`, body };
}
