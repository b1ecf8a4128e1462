/**
 * Writes that change what a server's ingress serves, each as one use case: commit the change
 * and the ingress of the servers concerned in one transaction (a write whose ingress cannot be
 * prepared, a key that no longer opens, changes nothing), then notify: subscribers hear of the
 * ingress deployments and each server's daemon gets its command. Nobody hears of a change that
 * rolled back. Deploy, stop and destroy do the same in src/domain/deploy/deploy.ts.
 */
import type { Db } from '../../db/client.ts';
import type { Hosting, Organization, Tls } from '../../db/schema/index.ts';
import type { Actor } from '../actor.ts';
import { deleteCertificate, updateCertificate } from '../certificates/service.ts';
import { type SavedCompose, writeEnvironmentCompose, writeProjectCompose } from '../compose/service.ts';
import { updateEnvironment } from '../environments/service.ts';
import { createHosting, deleteHosting, loadHosting, updateHosting } from '../hostings/service.ts';
import { announceEnqueued, type Notifier } from '../notify.ts';
import { ACME_FIELDS, updateOrganization } from '../organizations/service.ts';
import { updateProject } from '../projects/service.ts';
import type { Queryable } from '../shared/database.ts';
import { ingressServersOf, routingServersOfEnvironment, routingServersOfProject, serversPinning, serversRunning } from './queries.ts';
import { type IngressContext, refreshIngress } from './service.ts';

export interface IngressWriteContext extends Omit<IngressContext, 'db'> {
  db: Db;
  notify: Notifier;
}

/** What a write did and which servers' ingress it concerns. */
interface Written<T> {
  result: T;
  servers: Iterable<string>;
}

function writeWithIngress<T>(ctx: IngressWriteContext, write: (tx: Queryable) => Written<T>): T {
  const { result, enqueued } = ctx.db.transaction((tx) => {
    const done = write(tx);
    return { result: done.result, enqueued: refreshIngress({ ...ctx, db: tx }, done.servers) };
  });
  for (const entry of enqueued) announceEnqueued(ctx.notify, entry);
  return result;
}

/** The ACME settings decide certificates on every server with an ingress; other fields none. */
export const changeOrganization = (
  ctx: IngressWriteContext,
  actor: Actor,
  id: string,
  changes: Parameters<typeof updateOrganization>[3],
  logCeiling: Parameters<typeof updateOrganization>[4],
): Organization =>
  writeWithIngress(ctx, (tx) => ({
    result: updateOrganization(tx, actor, id, changes, logCeiling),
    servers: ACME_FIELDS.some((field) => changes[field] !== undefined) ? ingressServersOf(tx, id) : [],
  }));

export const changeProject = (ctx: IngressWriteContext, actor: Actor, id: string, changes: Parameters<typeof updateProject>[3]) =>
  writeWithIngress(ctx, (tx) => ({ result: updateProject(tx, actor, id, changes), servers: routingServersOfProject(tx, id) }));

export const changeEnvironment = (ctx: IngressWriteContext, actor: Actor, id: string, changes: Parameters<typeof updateEnvironment>[3]) =>
  writeWithIngress(ctx, (tx) => ({ result: updateEnvironment(tx, actor, id, changes), servers: routingServersOfEnvironment(tx, id) }));

export const saveProjectCompose = (ctx: IngressWriteContext, actor: Actor, id: string, input: Parameters<typeof writeProjectCompose>[3]): SavedCompose =>
  writeWithIngress(ctx, (tx) => ({ result: writeProjectCompose(tx, actor, id, input), servers: routingServersOfProject(tx, id) }));

export const saveEnvironmentCompose = (ctx: IngressWriteContext, actor: Actor, id: string, input: Parameters<typeof writeEnvironmentCompose>[3]): SavedCompose =>
  writeWithIngress(ctx, (tx) => ({ result: writeEnvironmentCompose(tx, actor, id, input), servers: routingServersOfEnvironment(tx, id) }));

/** The servers pinning the certificate serve the new chain or key. */
export const changeCertificate = (ctx: IngressWriteContext, actor: Actor, id: string, changes: Parameters<typeof updateCertificate>[3]): Tls =>
  writeWithIngress(ctx, (tx) => ({ result: updateCertificate({ ...ctx, db: tx }, actor, id, changes), servers: serversPinning(tx, id) }));

/** Hostings that pinned it fall back to an internal certificate on the servers serving them. */
export const removeCertificate = (ctx: IngressWriteContext, actor: Actor, id: string): void =>
  writeWithIngress(ctx, (tx) => {
    const servers = serversPinning(tx, id);
    deleteCertificate(tx, actor, id);
    return { result: undefined, servers };
  });

/** A hosting write concerns the servers running its service before and after (a move between services included). */
function hostingWrite(ctx: IngressWriteContext, serviceIdsBefore: (tx: Queryable) => string[], write: (tx: Queryable) => Hosting): Hosting {
  return writeWithIngress(ctx, (tx) => {
    const before = serviceIdsBefore(tx);
    const servers = serversRunning(tx, before);
    const row = write(tx);
    return { result: row, servers: [...servers, ...serversRunning(tx, [...before, row.serviceId])] };
  });
}

export const addHosting = (ctx: IngressWriteContext, actor: Actor, input: Parameters<typeof createHosting>[2]): Hosting =>
  hostingWrite(ctx, () => [input.serviceId], (tx) => createHosting(tx, actor, input));

export const changeHosting = (ctx: IngressWriteContext, actor: Actor, id: string, changes: Parameters<typeof updateHosting>[3]): Hosting =>
  hostingWrite(ctx, (tx) => [loadHosting(tx, actor, id).serviceId], (tx) => updateHosting(tx, actor, id, changes));

export const removeHosting = (ctx: IngressWriteContext, actor: Actor, id: string): void =>
  writeWithIngress(ctx, (tx) => {
    const servers = serversRunning(tx, [loadHosting(tx, actor, id).serviceId]);
    deleteHosting(tx, actor, id);
    return { result: undefined, servers };
  });
