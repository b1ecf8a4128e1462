import { eq } from 'drizzle-orm';
import { environment, hosting, organization, project, server, service, workspace } from '../../db/schema/index.ts';
import { validationFailed } from '../../lib/errors.ts';
import type { Queryable } from '../shared/database.ts';

/** The seven scope parents a variable hangs off, as API field names (widest first, server last). */
export const VARIABLE_SCOPES = [
  'organizationId',
  'workspaceId',
  'projectId',
  'environmentId',
  'serviceId',
  'hostingId',
  'serverId',
] as const;
export type VariableScope = (typeof VARIABLE_SCOPES)[number];

export type ScopeFields = Partial<Record<VariableScope, string | null>>;

export interface ScopeRef {
  scope: VariableScope;
  id: string;
}

export interface Picked<K extends string> {
  name: K;
  id: string;
}

/**
 * Exactly one of `names` must be set (scope fields of a variable, list filters). None: 422 with
 * path `noneLabel`; two or more: 422 naming the second one given (in the order of `names`).
 */
export function pickExactlyOne<K extends string>(fields: Partial<Record<K, string | null>>, names: readonly K[], noneLabel: string): Picked<K> {
  const given = names.filter((name) => typeof fields[name] === 'string');
  if (given.length === 0) throw validationFailed(`exactly one of ${names.join(', ')} is required`, noneLabel);
  if (given.length > 1) throw validationFailed(`only one of ${names.join(', ')} may be given, not both ${given[0]} and ${given[1]}`, given[1]);
  const name = given[0]!;
  return { name, id: fields[name] as string };
}

/** The one scope of a variable (path `scope` when none is given). */
export function pickScope(fields: ScopeFields): ScopeRef {
  const { name, id } = pickExactlyOne(fields, VARIABLE_SCOPES, 'scope');
  return { scope: name, id };
}

/**
 * The organization a scope parent belongs to, resolved through its parent chain
 * (hosting > service > environment > project > organization); undefined when the parent does not exist.
 */
export function organizationOfScope(db: Queryable, { scope, id }: ScopeRef): string | undefined {
  const organizationId = project.organizationId;
  switch (scope) {
    case 'organizationId':
      return db.select({ organizationId: organization.id }).from(organization).where(eq(organization.id, id)).get()?.organizationId;
    case 'workspaceId':
      return db.select({ organizationId: workspace.organizationId }).from(workspace).where(eq(workspace.id, id)).get()?.organizationId;
    case 'projectId':
      return db.select({ organizationId }).from(project).where(eq(project.id, id)).get()?.organizationId;
    case 'environmentId':
      return db
        .select({ organizationId })
        .from(environment)
        .innerJoin(project, eq(project.id, environment.projectId))
        .where(eq(environment.id, id))
        .get()?.organizationId;
    case 'serviceId':
      return db
        .select({ organizationId })
        .from(service)
        .innerJoin(environment, eq(environment.id, service.environmentId))
        .innerJoin(project, eq(project.id, environment.projectId))
        .where(eq(service.id, id))
        .get()?.organizationId;
    case 'hostingId':
      return db
        .select({ organizationId })
        .from(hosting)
        .innerJoin(service, eq(service.id, hosting.serviceId))
        .innerJoin(environment, eq(environment.id, service.environmentId))
        .innerJoin(project, eq(project.id, environment.projectId))
        .where(eq(hosting.id, id))
        .get()?.organizationId;
    case 'serverId':
      return db.select({ organizationId: server.organizationId }).from(server).where(eq(server.id, id)).get()?.organizationId;
  }
}

/** Readable name of a scope field for error messages: `serviceId` -> `service`. */
export const scopeLabel = (scope: VariableScope) => scope.slice(0, -2);
