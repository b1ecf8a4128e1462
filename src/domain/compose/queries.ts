import { asc, eq, inArray } from 'drizzle-orm';
import {
  type Environment,
  environment,
  type Hosting,
  hosting,
  type NewService,
  repository,
  type Service,
  service,
} from '../../db/schema/index.ts';
import type { Queryable } from '../shared/database.ts';

/** Every environment of a project (a base save reconciles them all), oldest first. */
export function environmentsOfProject(db: Queryable, projectId: string): Environment[] {
  return db.select().from(environment).where(eq(environment.projectId, projectId)).orderBy(asc(environment.id)).all();
}

/** Every service row of an environment, oldest first. */
export function servicesOfEnvironment(db: Queryable, environmentId: string): Service[] {
  return db.select().from(service).where(eq(service.environmentId, environmentId)).orderBy(asc(service.id)).all();
}

/** The hostings of some services, oldest first (ids are time-ordered). */
export function hostingsOfServices(db: Queryable, serviceIds: readonly string[]): Hosting[] {
  if (serviceIds.length === 0) return [];
  return db.select().from(hosting).where(inArray(hosting.serviceId, [...serviceIds])).orderBy(asc(hosting.id)).all();
}

export function insertService(db: Queryable, values: NewService): Service {
  return db.insert(service).values(values).returning().get();
}

export function findRepositoryOrganization(db: Queryable, id: string): string | undefined {
  return db.select({ organizationId: repository.organizationId }).from(repository).where(eq(repository.id, id)).get()?.organizationId;
}
