import { Elysia } from 'elysia';
import * as v from 'valibot';
import type { AppDeps } from '../../../app.ts';
import { type Hosting, hostingProtocols, ipScopes } from '../../../db/schema/index.ts';
import { createHosting, deleteHosting, listHostings, loadHosting, updateHosting } from '../../../domain/hostings/service.ts';
import { clientGuard } from '../../plugins/guard.ts';
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
      pathPrefix: v.optional(v.pipe(v.string(), v.maxLength(1024, 'must be at most 1024 characters'), v.regex(/^\//, "must start with '/'"))),
      targetPort: v.optional(Port),
      protocol: v.optional(v.picklist(hostingProtocols, 'must be http, tcp or udp')),
      ports: v.optional(v.pipe(v.array(PortMapping), v.maxLength(100, 'at most 100 ports'))),
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
  createdAt: v.string(),
  updatedAt: v.string(),
});

const present = (row: Hosting) => ({
  id: row.id,
  serviceId: row.serviceId,
  tlsId: row.tlsId,
  ipId: row.ipId,
  name: row.name,
  description: row.description,
  protocol: row.protocol,
  metadata: row.metadata,
  options: row.options,
  ...timestampsOf(row),
});

export const hostingRoutes = (deps: AppDeps) =>
  new Elysia({ prefix: '/hostings', detail: { tags: ['hostings'] } })
    .use(clientGuard(deps))
    .post(
      '/',
      ({ actor, body, set }) => {
        set.status = 201;
        return present(createHosting(deps.db, actor, body));
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
        return { data: page.data.map(present), nextCursor: page.nextCursor };
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
    .patch('/:id', ({ actor, params, body }) => present(updateHosting(deps.db, actor, params.id, body)), {
      params: IdParams,
      body: UpdateBody,
      response: { 200: HostingSchema, ...errorResponses('unauthenticated', 'forbidden', 'not_found', 'hostname_in_use', 'validation_failed') },
      detail: { summary: 'Change a hosting (options replace the stored ones whole)' },
    })
    .delete(
      '/:id',
      ({ actor, params, set }) => {
        deleteHosting(deps.db, actor, params.id);
        set.status = 204;
      },
      {
        params: IdParams,
        response: { 204: NoContent, ...errorResponses('unauthenticated', 'forbidden', 'not_found', 'validation_failed') },
        detail: { summary: 'Delete a hosting with its hostnames and variables' },
      },
    );
