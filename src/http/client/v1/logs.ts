/**
 * Container logs (issue 19): retained history of one container, a service (every replica) or an
 * environment (every service), named by exactly one of containerId, serviceId, environmentId.
 *   GET /logs            a page of lines, oldest first: the newest `limit` before `cursor` (or
 *                        `until`), or with `direction=forward` the oldest after it
 *   GET /logs/download   the same lines as text/plain, oldest first, to save
 * Live lines come over /ws/client/v1 (topic `logs`). Reads see what daemons sent up to now: the
 * hub's buffered lines are written first.
 */
import { Elysia } from 'elysia';
import * as v from 'valibot';
import type { AppDeps } from '../../../deps.ts';
import { LogDownloadQuery, LogPage, LogQuery, MAX_DOWNLOAD_LINES } from '../../../contract/logs.ts';
import type { LogLine } from '../../../domain/logs/lines.ts';
import { decodeCursor, encodeCursor, type LogFilter, pageBackward, pageForward } from '../../../domain/logs/query.ts';
import { loadTarget, targetOf } from '../../../domain/logs/targets.ts';
import { DomainError } from '../../../lib/errors.ts';
import { clientGuard } from '../../plugins/guard.ts';
import { errorResponses } from '../../schemas.ts';

export const presentLogLine = (line: LogLine) => ({
  at: new Date(line.at).toISOString(),
  stream: line.stream,
  text: line.text,
  serviceId: line.serviceId,
  containerId: line.containerId,
  ordinal: line.ordinal,
  containerName: line.containerName,
});

type FilterInput = v.InferOutput<typeof LogDownloadQuery>;

function filterOf(deps: AppDeps, actor: Parameters<typeof loadTarget>[1], query: FilterInput): LogFilter {
  const target = loadTarget(deps.db, actor, targetOf(query));
  if (query.since !== undefined && query.until !== undefined && query.since > query.until) throw new DomainError('validation_failed', 'since must not be after until', 'since');
  // What daemons sent moments ago is still buffered: write it so the read sees it.
  deps.hub.observe.logs.flush();
  return { serviceIds: target.serviceIds, containerId: target.containerId, since: query.since, until: query.until, stream: query.stream, text: query.q };
}

export const logRoutes = (deps: AppDeps) =>
  new Elysia({ prefix: '/logs', detail: { tags: ['logs'] } })
    .use(clientGuard(deps))
    .get(
      '/',
      ({ actor, query }) => {
        const filter = filterOf(deps, actor, query);
        const cursor = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
        if (cursor === null) throw new DomainError('validation_failed', 'cursor is not one this API gave', 'cursor');
        const limit = query.limit ?? 500;
        const page = query.direction === 'forward' ? pageForward(deps.db, filter, limit, cursor) : pageBackward(deps.db, filter, limit, cursor);
        return { data: page.lines.map(presentLogLine), nextCursor: page.nextCursor ? encodeCursor(page.nextCursor) : null, complete: page.complete };
      },
      {
        query: LogQuery,
        response: { 200: LogPage, ...errorResponses('unauthenticated', 'not_found', 'validation_failed') },
        role: 'member',
        detail: {
          summary: 'Read retained container logs of a container, a service or an environment',
          description:
            'Exactly one of containerId, serviceId and environmentId. Lines are oldest first. Backward (default): the newest `limit` lines ' +
            '(default 500, at most 5000) before `cursor` or within since/until; forward: the oldest after it. History outlives redeploys ' +
            'and recreated containers and is bounded per organization by size and age; lines sampled away are marked (stream `panel`).',
        },
      },
    )
    .get(
      '/download',
      ({ actor, query }) => {
        const filter = filterOf(deps, actor, query);
        const encoder = new TextEncoder();
        let cursor: ReturnType<typeof decodeCursor> | undefined;
        let sent = 0;
        const body = new ReadableStream<Uint8Array>({
          pull(controller) {
            const page = pageForward(deps.db, filter, 2_000, cursor ?? undefined);
            const text = page.lines.map((line) => `${new Date(line.at).toISOString()} ${line.containerName} ${line.stream} ${line.text}\n`).join('');
            if (text) controller.enqueue(encoder.encode(text));
            sent += page.lines.length;
            cursor = page.nextCursor;
            if (!page.nextCursor || sent >= MAX_DOWNLOAD_LINES) controller.close();
          },
        });
        const name = `logs-${'serviceId' in query && query.serviceId ? 'service' : query.containerId ? 'container' : 'environment'}-${new Date().toISOString().replace(/[:.]/g, '-')}.txt`;
        return new Response(body, { headers: { 'content-type': 'text/plain; charset=utf-8', 'content-disposition': `attachment; filename="${name}"` } });
      },
      {
        query: LogDownloadQuery,
        response: { 200: v.string(), ...errorResponses('unauthenticated', 'not_found', 'validation_failed') },
        role: 'member',
        detail: {
          summary: 'Download retained container logs as text',
          description: `text/plain, oldest first, one line each: time, container name, stream, text. At most ${MAX_DOWNLOAD_LINES.toLocaleString('en-US')} lines per download; narrow since/until for more.`,
        },
      },
    );
