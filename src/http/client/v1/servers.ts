import { Elysia } from 'elysia';
import type { AppDeps } from '../../../app.ts';
import { type Server } from '../../../db/schema/index.ts';
import { deleteServer, listServers, loadServer, updateServer } from '../../../domain/servers/service.ts';
import { clientGuard } from '../../plugins/guard.ts';
import { isoOrNull, timestampsOf } from '../../present.ts';
import { IdParams, listEnvelope, NoContent } from '../../../contract/common.ts';
import { errorResponses } from '../../schemas.ts';
import { Server as ServerResponse, ServerListQuery, ServerUpdate } from '../../../contract/servers.ts';

/** The server as GET /servers/:id answers it (also pushed on /ws/client/v1). */
export const presentServer = (row: Server) => ({
  id: row.id,
  organizationId: row.organizationId,
  name: row.name,
  hostname: row.hostname,
  machineId: row.machineId,
  isLocal: row.isLocal,
  status: row.status,
  lastSeenAt: isoOrNull(row.lastSeenAt),
  flag: row.flag,
  flaggedAt: isoOrNull(row.flaggedAt),
  daemonKeyId: row.daemonKeyId,
  labels: row.labels,
  ...timestampsOf(row),
});

export const serverRoutes = (deps: AppDeps) =>
  new Elysia({ prefix: '/servers', detail: { tags: ['servers'] } })
    .use(clientGuard(deps))
    .get(
      '/',
      ({ actor, query }) => {
        const page = listServers(deps.db, actor, query.organizationId, query);
        return { data: page.data.map(presentServer), nextCursor: page.nextCursor };
      },
      {
        query: ServerListQuery,
        response: { 200: listEnvelope(ServerResponse), ...errorResponses('unauthenticated', 'not_found', 'validation_failed') },
        detail: { summary: 'List the servers of an organization' },
      },
    )
    .get('/:id', ({ actor, params }) => presentServer(loadServer(deps.db, actor, params.id)), {
      params: IdParams,
      response: { 200: ServerResponse, ...errorResponses('unauthenticated', 'not_found', 'validation_failed') },
      detail: { summary: 'Read a server' },
    })
    .patch(
      '/:id',
      ({ actor, params, body }) => {
        const row = updateServer(deps.db, actor, params.id, body);
        deps.hub.feed.server(row);
        return presentServer(row);
      },
      {
        params: IdParams,
        body: ServerUpdate,
        response: { 200: ServerResponse, ...errorResponses('unauthenticated', 'forbidden', 'not_found', 'validation_failed') },
        detail: { summary: 'Rename a server or replace its labels (organization admins)' },
      },
    )
    .delete(
      '/:id',
      ({ actor, params, set }) => {
        deps.hub.feed.serverDeleted(deleteServer(deps.db, actor, params.id));
        set.status = 204;
      },
      {
        params: IdParams,
        response: { 204: NoContent, ...errorResponses('unauthenticated', 'forbidden', 'not_found', 'has_dependents', 'validation_failed') },
        detail: { summary: 'Delete a server (409 has_dependents while work is pinned to or running on it)' },
      },
    );
