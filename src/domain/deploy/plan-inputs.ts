/**
 * What the deploy plan reads besides the resource tree: the variable rows of the seven scopes an
 * environment's services resolve through, and the system principals its services run as.
 */
import { and, asc, eq, inArray, or, type SQL } from 'drizzle-orm';
import type { CompilePrincipal } from '../../compose/compile.ts';
import type { VariableRow, VariableScope } from '../../compose/variables.ts';
import { principal, tenancy, type Variable, variable } from '../../db/schema/index.ts';
import type { Queryable } from '../shared/database.ts';

export interface ScopeIds {
  organizationId: string;
  workspaceId: string;
  projectId: string;
  environmentId: string;
  serviceIds: readonly string[];
  hostingIds: readonly string[];
  /** Every server the environment may be placed on (server-scope variables are resolved per server). */
  serverIds: readonly string[];
}

const SCOPE_COLUMNS: [VariableScope, keyof Variable][] = [
  ['organization', 'organizationId'],
  ['workspace', 'workspaceId'],
  ['project', 'projectId'],
  ['environment', 'environmentId'],
  ['service', 'serviceId'],
  ['hosting', 'hostingId'],
  ['server', 'serverId'],
];

export interface LoadedVariables {
  rows: VariableRow[];
  /** Sealed values of the secret rows, by variable id (opened only for delivery). */
  envelopes: Map<string, string>;
}

/** Every variable of the scopes; secret rows come without their value. */
export function variablesFor(db: Queryable, ids: ScopeIds): LoadedVariables {
  const conditions: SQL[] = [
    eq(variable.organizationId, ids.organizationId),
    eq(variable.workspaceId, ids.workspaceId),
    eq(variable.projectId, ids.projectId),
    eq(variable.environmentId, ids.environmentId),
  ];
  if (ids.serverIds.length > 0) conditions.push(inArray(variable.serverId, [...ids.serverIds]));
  if (ids.serviceIds.length > 0) conditions.push(inArray(variable.serviceId, [...ids.serviceIds]));
  if (ids.hostingIds.length > 0) conditions.push(inArray(variable.hostingId, [...ids.hostingIds]));
  const found = db.select().from(variable).where(or(...conditions)).orderBy(asc(variable.id)).all();
  const envelopes = new Map<string, string>();
  const rows = found.map((row): VariableRow => {
    const [scope, column] = SCOPE_COLUMNS.find(([, candidate]) => row[candidate] !== null)!;
    if (row.isSecret) envelopes.set(row.id, row.value);
    return {
      id: row.id,
      key: row.key,
      value: row.isSecret ? null : row.value,
      isSecret: row.isSecret,
      isLiteral: row.isLiteral,
      forBuild: row.isForBuild,
      forRuntime: row.isForRuntime,
      scope,
      scopeId: row[column] as string,
    };
  });
  return { rows, envelopes };
}

const numberOr = (...values: unknown[]): number | null => {
  const found = values.find((value) => typeof value === 'number' && Number.isInteger(value));
  return (found as number | undefined) ?? null;
};

/**
 * The system principals the services run as (their tenancies), by compose alias:
 * metadata.composeAlias, else the username. uid/gid: the operator override in options, else the
 * mirror in metadata. When two principals claim one alias the first tenancy wins, with a warning.
 */
export function principalsFor(db: Queryable, serviceIds: readonly string[], warnings: string[]): Record<string, CompilePrincipal> {
  const principals = new Map<string, CompilePrincipal & { id: string }>();
  const rows =
    serviceIds.length === 0
      ? []
      : db
          .select({ principal })
          .from(tenancy)
          .innerJoin(principal, eq(principal.id, tenancy.principalId))
          .where(and(inArray(tenancy.serviceId, [...serviceIds]), eq(principal.kind, 'system')))
          .orderBy(asc(tenancy.id))
          .all();
  for (const { principal: row } of rows) {
    const alias = typeof row.metadata?.composeAlias === 'string' ? row.metadata.composeAlias : row.username;
    const existing = principals.get(alias);
    if (existing !== undefined) {
      if (existing.id !== row.id) warnings.push(`principals ${existing.id} and ${row.id} both answer to alias ${alias}; ${existing.id} is used`);
      continue;
    }
    principals.set(alias, {
      id: row.id,
      appliedUsername: row.appliedUsername,
      uid: numberOr(row.options?.uid, row.metadata?.uid),
      gid: numberOr(row.options?.gid, row.metadata?.gid),
    });
  }
  return Object.fromEntries([...principals].map(([alias, { id: _id, ...rest }]) => [alias, rest]));
}
