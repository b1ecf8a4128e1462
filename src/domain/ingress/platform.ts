/**
 * The rows of a server's ingress, made on first need: the organization's platform project
 * (`component = hosting-ingress`, in its `panel` workspace), one environment per server pinned
 * to it, and that environment's service `caddy`, whose container has role `ingress`. Its
 * Compose document is generated at each deploy (src/ingress/compose.ts), never stored: Panel
 * alone changes or deploys any of it.
 */
import { and, eq } from 'drizzle-orm';
import { INGRESS_SERVICE, ingressComposeYaml } from '../../ingress/compose.ts';
import { environment, type Environment, project, type Project, type Server, service, workspace } from '../../db/schema/index.ts';
import type { Queryable } from '../shared/database.ts';

export const INGRESS_COMPONENT = 'hosting-ingress';

export interface IngressRows {
  project: Project;
  environment: Environment;
  serviceId: string;
  /** The compiled runtime document of this server's ingress. */
  yaml: string;
}

function platformProject(db: Queryable, organizationId: string): Project {
  const panel = db.select({ id: workspace.id }).from(workspace).where(and(eq(workspace.organizationId, organizationId), eq(workspace.kind, 'panel'))).get();
  if (!panel) throw new Error(`organization ${organizationId} has no panel workspace`);
  const existing = db.select().from(project).where(and(eq(project.workspaceId, panel.id), eq(project.component, INGRESS_COMPONENT))).get();
  if (existing) return existing;
  return db
    .insert(project)
    .values({
      organizationId,
      workspaceId: panel.id,
      name: INGRESS_COMPONENT,
      component: INGRESS_COMPONENT,
      description: 'The ingress (Caddy) of each server with hostings; Panel deploys and configures it',
      metadata: { type: 'system' },
      options: { containerNaming: 'uuid' },
    })
    .returning()
    .get();
}

/** Environment names allow [A-Za-z0-9 ._/-]; the server id keeps them unique whatever the server is called. */
const environmentName = (server: Server) => `${server.name.replace(/[^A-Za-z0-9 ._/-]/g, '-').slice(0, 200)} ${server.id.slice(0, 8)}`;

/** The server's ingress environment and service, made when missing, and the document to run. */
export function ensureIngressRows(db: Queryable, server: Server, image: string): IngressRows {
  const owner = platformProject(db, server.organizationId);
  let env = db.select().from(environment).where(and(eq(environment.projectId, owner.id), eq(environment.serverId, server.id))).get();
  env ??= db
    .insert(environment)
    .values({ projectId: owner.id, serverId: server.id, name: environmentName(server), description: `Ingress of server ${server.name}` })
    .returning()
    .get();
  let serviceRow = db.select({ id: service.id }).from(service).where(and(eq(service.environmentId, env.id), eq(service.composeServiceName, INGRESS_SERVICE))).get();
  serviceRow ??= db.insert(service).values({ environmentId: env.id, composeServiceName: INGRESS_SERVICE, name: INGRESS_SERVICE }).returning({ id: service.id }).get();
  const yaml = ingressComposeYaml({ image, organizationId: server.organizationId, projectId: owner.id, environmentId: env.id, serviceId: serviceRow.id });
  return { project: owner, environment: env, serviceId: serviceRow.id, yaml };
}
