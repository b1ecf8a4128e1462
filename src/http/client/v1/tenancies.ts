import { Elysia } from 'elysia';
import * as v from 'valibot';
import type { AppDeps } from '../../../app.ts';
import type { Tenancy } from '../../../db/schema/index.ts';
import { createTenancy, deleteTenancy, getTenancy, listTenancies } from '../../../domain/tenancies/service.ts';
import { clientGuard } from '../../plugins/guard.ts';
import { timestampsOf } from '../../present.ts';
import { IdParams, listEnvelope, NoContent, Uuid } from '../../../contract/common.ts';
import { errorResponses } from '../../schemas.ts';
import { Tenancy as TenancyResponse, TenancyListQuery } from '../../../contract/principals.ts';

const present = (row: Tenancy) => ({ id: row.id, principalId: row.principalId, serviceId: row.serviceId, ...timestampsOf(row) });

export const tenancyRoutes = (deps: AppDeps) =>
  new Elysia({ prefix: '/tenancies', detail: { tags: ['tenancies'] } })
    .use(clientGuard(deps))
    .post(
      '/',
      ({ actor, body, set }) => {
        set.status = 201;
        return present(createTenancy(deps.db, actor, body));
      },
      {
        body: v.strictObject({ principalId: Uuid, serviceId: Uuid }, 'unknown field'),
        response: { 201: TenancyResponse, ...errorResponses('unauthenticated', 'forbidden', 'not_found', 'tenancy_exists', 'validation_failed') },
        detail: { summary: 'Make a service run as a system principal' },
      },
    )
    .get(
      '/',
      ({ actor, query }) => {
        const page = listTenancies(deps.db, actor, query);
        return { data: page.data.map(present), nextCursor: page.nextCursor };
      },
      {
        query: TenancyListQuery,
        response: { 200: listEnvelope(TenancyResponse), ...errorResponses('unauthenticated', 'not_found', 'validation_failed') },
        detail: { summary: 'List tenancies by exactly one of serviceId, principalId' },
      },
    )
    .get('/:id', ({ actor, params }) => present(getTenancy(deps.db, actor, params.id)), {
      params: IdParams,
      response: { 200: TenancyResponse, ...errorResponses('unauthenticated', 'not_found', 'validation_failed') },
      detail: { summary: 'Read a tenancy' },
    })
    .delete(
      '/:id',
      ({ actor, params, set }) => {
        deleteTenancy(deps.db, actor, params.id);
        set.status = 204;
      },
      {
        params: IdParams,
        response: { 204: NoContent, ...errorResponses('unauthenticated', 'forbidden', 'not_found', 'validation_failed') },
        detail: { summary: 'Remove a tenancy' },
      },
    );
