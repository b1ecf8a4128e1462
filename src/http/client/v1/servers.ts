import { Elysia } from 'elysia';
import * as v from 'valibot';
import type { AppDeps } from '../../../app.ts';
import { type Server, serverFlags, serverStatuses } from '../../../db/schema/index.ts';
import { LABEL_KEY, LABEL_VALUE, MAX_SERVER_LABELS } from '../../../compose/planner/labels.ts';
import { deleteServer, listServers, loadServer, updateServer } from '../../../domain/servers/service.ts';
import { describeThisMachine } from '../../../domain/servers/this-machine.ts';
import { clientGuard } from '../../plugins/guard.ts';
import { isoOrNull, timestampsOf } from '../../present.ts';
import { errorResponses, IdParams, ListQuery, listEnvelope, NoContent, refuseArrays, Uuid } from '../../schemas.ts';

/** Key/value labels the planner matches (`node.labels.<key>`); tags stay tags. */
const Labels = v.pipe(
  refuseArrays(
    v.record(
      v.pipe(v.string(), v.regex(LABEL_KEY, 'label keys are letters, digits, ".", "_" or "-", starting with a letter or digit, at most 63')),
      v.pipe(v.string(), v.regex(LABEL_VALUE, 'label values are 1-255 characters without control characters or surrounding spaces')),
    ),
  ),
  v.check((labels) => Object.keys(labels).length <= MAX_SERVER_LABELS, `at most ${MAX_SERVER_LABELS} labels`),
);

/** Servers are enrolled by their daemon, not created here. */
const UpdateBody = v.strictObject(
  {
    name: v.optional(v.pipe(v.string(), v.minLength(1, 'must not be empty'), v.maxLength(255, 'must be at most 255 characters'))),
    /** Replaces the server's whole label set. */
    labels: v.optional(Labels),
  },
  'unknown field',
);

const ServerSchema = v.object({
  id: v.string(),
  organizationId: v.string(),
  name: v.string(),
  hostname: v.nullable(v.string()),
  machineId: v.nullable(v.string()),
  isLocal: v.boolean(),
  status: v.picklist(serverStatuses),
  lastSeenAt: v.nullable(v.string()),
  /** Set when the hub saw something it will not merge silently (e.g. two machines with one machine id). */
  flag: v.nullable(v.picklist(serverFlags)),
  flaggedAt: v.nullable(v.string()),
  /** The daemon key secrets are sealed to; null until a daemon enrolled or said hello. */
  daemonKeyId: v.nullable(v.string()),
  /** Key/value labels placement constraints and spread preferences match (`node.labels.<key>`). */
  labels: v.record(v.string(), v.string()),
  createdAt: v.string(),
  updatedAt: v.string(),
});

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

const ThisMachineSchema = v.object({
  /** False for an organization that does not own this machine's local slot. */
  applies: v.boolean(),
  serverId: v.nullable(v.string()),
  name: v.nullable(v.string()),
  state: v.picklist(['connected', 'connecting', 'external', 'checking', 'no_engine', 'running', 'restarting', 'refused']),
  /** Why this machine is not connected, in words; null when it is. */
  problem: v.nullable(v.string()),
  /** The one command that fixes it, when there is one. */
  fix: v.nullable(v.string()),
});

export const serverRoutes = (deps: AppDeps) =>
  new Elysia({ prefix: '/servers', detail: { tags: ['servers'] } })
    .use(clientGuard(deps))
    .get(
      '/this-machine',
      ({ actor, query }) =>
        describeThisMachine(actor, query.organizationId, {
          ...deps.hub.localSlot(),
          isConnected: (serverId) => deps.hub.isConnected(serverId),
          supervised: deps.localDaemon?.status(),
        }),
      {
        query: v.object({ organizationId: Uuid }),
        response: { 200: ThisMachineSchema, ...errorResponses('unauthenticated', 'not_found', 'validation_failed') },
        detail: {
          summary: "Whether Panel's own host is connected as the organization's local server; if not, why and the command that fixes it",
        },
      },
    )
    .get(
      '/',
      ({ actor, query }) => {
        const page = listServers(deps.db, actor, query.organizationId, query);
        return { data: page.data.map(presentServer), nextCursor: page.nextCursor };
      },
      {
        query: v.object({ organizationId: Uuid, ...ListQuery }),
        response: { 200: listEnvelope(ServerSchema), ...errorResponses('unauthenticated', 'not_found', 'validation_failed') },
        detail: { summary: 'List the servers of an organization' },
      },
    )
    .get('/:id', ({ actor, params }) => presentServer(loadServer(deps.db, actor, params.id)), {
      params: IdParams,
      response: { 200: ServerSchema, ...errorResponses('unauthenticated', 'not_found', 'validation_failed') },
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
        body: UpdateBody,
        response: { 200: ServerSchema, ...errorResponses('unauthenticated', 'forbidden', 'not_found', 'validation_failed') },
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
