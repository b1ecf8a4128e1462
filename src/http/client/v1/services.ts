import { Elysia } from 'elysia';
import type { AppDeps } from '../../../app.ts';
import type { Service } from '../../../db/schema/index.ts';
import { deleteService, listServices, loadService, updateService } from '../../../domain/services/service.ts';
import { clientGuard } from '../../plugins/guard.ts';
import { timestampsOf } from '../../present.ts';
import { IdParams, listEnvelope, NoContent } from '../../../contract/common.ts';
import { errorResponses } from '../../schemas.ts';
import { Service as ServiceResponse, ServiceListQuery, ServiceUpdate } from '../../../contract/services.ts';

const present = (row: Service) => ({
  id: row.id,
  environmentId: row.environmentId,
  name: row.name ?? row.composeServiceName,
  description: row.description,
  composeServiceName: row.composeServiceName,
  metadata: row.metadata,
  options: row.options,
  ...timestampsOf(row),
});

export const serviceRoutes = (deps: AppDeps) =>
  new Elysia({ prefix: '/services', detail: { tags: ['services'] } })
    .use(clientGuard(deps))
    .get(
      '/',
      ({ actor, query }) => {
        const page = listServices(deps.db, actor, query.environmentId, query);
        return { data: page.data.map(present), nextCursor: page.nextCursor };
      },
      {
        query: ServiceListQuery,
        response: { 200: listEnvelope(ServiceResponse), ...errorResponses('unauthenticated', 'not_found', 'validation_failed') },
        detail: { summary: 'List the services of an environment' },
      },
    )
    .get('/:id', ({ actor, params }) => present(loadService(deps.db, actor, params.id)), {
      params: IdParams,
      response: { 200: ServiceResponse, ...errorResponses('unauthenticated', 'not_found', 'validation_failed') },
      detail: { summary: 'Read a service' },
    })
    .patch('/:id', ({ actor, params, body }) => present(updateService(deps.db, actor, params.id, body)), {
      params: IdParams,
      body: ServiceUpdate,
      response: { 200: ServiceResponse, ...errorResponses('unauthenticated', 'forbidden', 'not_found', 'validation_failed') },
      detail: { summary: 'Change the name, description, metadata or options of a service' },
    })
    .delete(
      '/:id',
      ({ actor, params, set }) => {
        deleteService(deps.db, actor, params.id);
        set.status = 204;
      },
      {
        params: IdParams,
        response: { 204: NoContent, ...errorResponses('unauthenticated', 'forbidden', 'not_found', 'has_dependents', 'validation_failed') },
        detail: { summary: 'Delete a service (409 has_dependents while bindings, tenancies, hostings or containers hold it)' },
      },
    );
