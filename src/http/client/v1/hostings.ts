import { Elysia } from 'elysia';
import * as v from 'valibot';
import type { AppDeps } from '../../../app.ts';
import { type Hosting, hostingProtocols, ipScopes } from '../../../db/schema/index.ts';
import { createHosting, deleteHosting, listHostings, loadHosting, updateHosting } from '../../../domain/hostings/service.ts';
import { serversRunning } from '../../../domain/ingress/queries.ts';
import { type HostingLiveState, liveStatesOf } from '../../../domain/ingress/state.ts';
import type { Queryable } from '../../../domain/shared/database.ts';
import { TLS_MODES } from '../../../compose/x-panel.ts';
import { clientGuard } from '../../plugins/guard.ts';
import { LiveSchema, presentLive } from './hosting-state.ts';
import { writeWithIngress } from './ingress-refresh.ts';
import { timestampsOf } from '../../present.ts';
import {
  Description,
  errorResponses,
  IdParams,
  JsonColumn,
  JsonObject,
  ListQuery,
  listEnvelope,
  NoContent,
  refuseArrays,
  Uuid,
} from '../../schemas.ts';

const DNS_LABEL = '[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?';
/** A DNS name (IDNs as punycode), optionally a `*.` wildcard. */
const Hostname = v.pipe(
  v.string(),
  v.maxLength(253, 'must be at most 253 characters'),
  v.regex(new RegExp(`^(?:\\*\\.)?(?:${DNS_LABEL}\\.)*${DNS_LABEL}$`), 'must be a DNS name'),
);
const Port = v.pipe(v.number(), v.integer('must be an integer'), v.minValue(1, 'must be 1 to 65535'), v.maxValue(65535, 'must be 1 to 65535'));
const PortMapping = refuseArrays(
  v.strictObject({ published: Port, target: Port, protocol: v.optional(v.picklist(['tcp', 'udp'], 'must be tcp or udp')) }, 'unknown field'),
);

const HostingOptions = refuseArrays(
  v.strictObject(
    {
      /** Unique per organization (case-insensitive) whatever the path prefix. */
      hostnames: v.optional(v.pipe(v.array(Hostname), v.maxLength(100, 'at most 100 hostnames'))),
      pathPrefix: v.optional(v.pipe(v.string(), v.maxLength(1024, 'must be at most 1024 characters'), v.regex(/^\/[^\s*]*$/, "must start with '/' and hold no '*' or spaces"))),
      targetPort: v.optional(Port),
      protocol: v.optional(v.picklist(hostingProtocols, 'must be http, tcp or udp')),
      ports: v.optional(v.pipe(v.array(PortMapping), v.maxLength(100, 'at most 100 ports'))),
      /** http: where the certificate comes from when no tlsId is set (auto: ACME when the organization opted in, else internal; none: plain http). */
      tls: v.optional(v.picklist(TLS_MODES, 'must be auto, internal or none')),
      /** `public` is required when an ipId is set. */
      bind: v.optional(v.picklist(ipScopes, 'must be public, datacenter or local')),
      /** Reverse-proxy toggles, each on or off. */
      proxy: v.optional(refuseArrays(v.record(v.pipe(v.string(), v.regex(/^[A-Za-z][A-Za-z0-9]*$/, 'must be a camelCase name')), v.boolean()))),
      /** Hints for the web tier (free-form). */
      web: v.optional(JsonObject),
    },
    'unknown option',
  ),
);

const Fields = {
  name: v.optional(v.nullable(v.pipe(v.string(), v.minLength(1, 'must not be empty'), v.maxLength(255, 'must be at most 255 characters')))),
  description: v.optional(v.nullable(Description)),
  /** Reconcile provenance keys (composeOwned, composeServiceName, ...) are kept from clients. */
  metadata: v.optional(v.nullable(JsonObject)),
  options: v.optional(v.nullable(HostingOptions)),
  /** A certificate of the organization's TLS library; null lets the proxy self-sign. */
  tlsId: v.optional(v.nullable(Uuid)),
  /** A public ip of the organization; needs options.bind = public. */
  ipId: v.optional(v.nullable(Uuid)),
};
const CreateBody = v.strictObject({ serviceId: Uuid, ...Fields }, 'unknown field');
const UpdateBody = v.strictObject(Fields, 'unknown field');

const HostingSchema = v.object({
  id: v.string(),
  serviceId: v.string(),
  tlsId: v.nullable(v.string()),
  ipId: v.nullable(v.string()),
  name: v.nullable(v.string()),
  description: v.nullable(v.string()),
  /** Mirror of options.protocol; null reads as http. */
  protocol: v.nullable(v.picklist(hostingProtocols)),
  metadata: JsonColumn,
  options: JsonColumn,
  /** What the servers' ingress does with it now (read-only). */
  live: LiveSchema,
  createdAt: v.string(),
  updatedAt: v.string(),
});

const presentRow = (row: Hosting, live: HostingLiveState | undefined) => ({
  id: row.id,
  serviceId: row.serviceId,
  tlsId: row.tlsId,
  ipId: row.ipId,
  name: row.name,
  description: row.description,
  protocol: row.protocol,
  metadata: row.metadata,
  options: row.options,
  live: presentLive(row, live),
  ...timestampsOf(row),
});

export const hostingRoutes = (deps: AppDeps) => {
  const present = (row: Hosting) => presentRow(row, liveStatesOf(deps.db, [row]).get(row.id));
  /** The write, then the ingress of every server running the service (before and after). */
  const withIngress = (serviceIds: () => string[], write: (tx: Queryable) => Hosting) =>
    writeWithIngress(deps, (tx) => {
      const before = serversRunning(tx, serviceIds());
      const row = write(tx);
      return { result: row, servers: [...before, ...serversRunning(tx, [...serviceIds(), row.serviceId])] };
    });
  return new Elysia({ prefix: '/hostings', detail: { tags: ['hostings'] } })
    .use(clientGuard(deps))
    .post(
      '/',
      ({ actor, body, set }) => {
        set.status = 201;
        return present(withIngress(() => [body.serviceId], (tx) => createHosting(tx, actor, body)));
      },
      {
        body: CreateBody,
        response: { 201: HostingSchema, ...errorResponses('unauthenticated', 'forbidden', 'not_found', 'hostname_in_use', 'validation_failed') },
        detail: { summary: 'Create a routing entry for a service' },
      },
    )
    .get(
      '/',
      ({ actor, query }) => {
        const page = listHostings(deps.db, actor, query.serviceId, query);
        const live = liveStatesOf(deps.db, page.data);
        return { data: page.data.map((row) => presentRow(row, live.get(row.id))), nextCursor: page.nextCursor };
      },
      {
        query: v.object({ serviceId: Uuid, ...ListQuery }),
        response: { 200: listEnvelope(HostingSchema), ...errorResponses('unauthenticated', 'not_found', 'validation_failed') },
        detail: { summary: 'List the hostings of a service' },
      },
    )
    .get('/:id', ({ actor, params }) => present(loadHosting(deps.db, actor, params.id)), {
      params: IdParams,
      response: { 200: HostingSchema, ...errorResponses('unauthenticated', 'not_found', 'validation_failed') },
      detail: { summary: 'Read a hosting' },
    })
    .patch('/:id', ({ actor, params, body }) => present(withIngress(() => [loadHosting(deps.db, actor, params.id).serviceId], (tx) => updateHosting(tx, actor, params.id, body))), {
      params: IdParams,
      body: UpdateBody,
      response: { 200: HostingSchema, ...errorResponses('unauthenticated', 'forbidden', 'not_found', 'hostname_in_use', 'validation_failed') },
      detail: { summary: 'Change a hosting (options replace the stored ones whole)' },
    })
    .delete(
      '/:id',
      ({ actor, params, set }) => {
        writeWithIngress(deps, (tx) => {
          const { serviceId } = loadHosting(tx, actor, params.id);
          const servers = serversRunning(tx, [serviceId]);
          deleteHosting(tx, actor, params.id);
          return { result: undefined, servers };
        });
        set.status = 204;
      },
      {
        params: IdParams,
        response: { 204: NoContent, ...errorResponses('unauthenticated', 'forbidden', 'not_found', 'validation_failed') },
        detail: { summary: 'Delete a hosting with its hostnames and variables' },
      },
    );
};
