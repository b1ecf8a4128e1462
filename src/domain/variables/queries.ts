import { and, eq, inArray, isNull, ne, or } from 'drizzle-orm';
import { type NewVariable, type Variable, variable } from '../../db/schema/index.ts';
import { type PageRequest, pageWindow, toPage } from '../shared/pagination.ts';
import type { Queryable } from '../shared/database.ts';
import type { ScopeRef } from './scope.ts';

const scopeColumn = ({ scope }: ScopeRef) => variable[scope];

export function findVariable(db: Queryable, id: string): Variable | undefined {
  return db.select().from(variable).where(eq(variable.id, id)).get();
}

export function listVariablesOfScope(db: Queryable, ref: ScopeRef, page: PageRequest) {
  const { where, fetch, limit } = pageWindow(variable.id, page, eq(scopeColumn(ref), ref.id));
  return toPage(db.select().from(variable).where(where).orderBy(variable.id).limit(fetch).all(), limit);
}

/**
 * Keys among `keys` already used at the scope parent, ignoring the rows of `exceptBindingId`
 * (a binding re-materializing its own keys does not collide with itself).
 */
export function takenKeys(db: Queryable, ref: ScopeRef, keys: string[], exceptBindingId?: string): string[] {
  if (keys.length === 0) return [];
  const ownRows = exceptBindingId ? or(isNull(variable.bindingId), ne(variable.bindingId, exceptBindingId)) : undefined;
  return db
    .select({ key: variable.key })
    .from(variable)
    .where(and(eq(scopeColumn(ref), ref.id), inArray(variable.key, keys), ownRows))
    .all()
    .map((row) => row.key);
}

export function insertVariables(db: Queryable, rows: NewVariable[]): Variable[] {
  if (rows.length === 0) return [];
  return db.insert(variable).values(rows).returning().all();
}

export function updateVariableRow(db: Queryable, id: string, changes: Partial<NewVariable>): Variable {
  return db.update(variable).set(changes).where(eq(variable.id, id)).returning().get()!;
}

export function deleteVariableRow(db: Queryable, id: string): void {
  db.delete(variable).where(eq(variable.id, id)).run();
}

export function deleteVariablesOfBinding(db: Queryable, bindingId: string): void {
  db.delete(variable).where(eq(variable.bindingId, bindingId)).run();
}
