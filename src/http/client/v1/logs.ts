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
import type { AppDeps } from '../../../app.ts';
import { LINE_STREAMS, type LogLine } from '../../../domain/logs/lines.ts';
import { decodeCursor, encodeCursor, type LogFilter, pageBackward, pageForward } from '../../../domain/logs/query.ts';
import { loadTarget, targetOf } from '../../../domain/logs/targets.ts';
import { DomainError } from '../../../lib/errors.ts';
import { clientGuard } from '../../plugins/guard.ts';
import { errorResponses, Uuid } from '../../schemas.ts';

export const MAX_LOG_PAGE = 5_000;
export const MAX_DOWNLOAD_LINES = 200_000;

/** An ISO 8601 time, as epoch milliseconds. */
export const IsoTime = v.pipe(
  v.string(),
  v.maxLength(40),
  v.check((text) => /^\d{4}-\d\d-\d\dT/.test(text) && !Number.isNaN(Date.parse(text)), 'must be an ISO 8601 time like 2026-01-01T12:00:00Z'),
  v.transform((text) => Date.parse(text)),
);

/** Exactly one of them names what is read (checked by the domain). */
export const TargetQuery = {
  containerId: v.optional(Uuid),
  serviceId: v.optional(Uuid),
  environmentId: v.optional(Uuid),
};

const FilterQuery = {
  ...TargetQuery,
  since: v.optional(IsoTime),
  until: v.optional(IsoTime),
  stream: v.optional(v.picklist(['stdout', 'stderr'], 'must be stdout or stderr')),
  /** Case-insensitive text the line must contain. */
  q: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(200, 'must be at most 200 characters'))),
};

const LogQuery = v.object({
  ...FilterQuery,
  limit: v.optional(v.pipe(v.string(), v.regex(/^\d{1,4}$/, `must be a number from 1 to ${MAX_LOG_PAGE}`), v.transform(Number), v.minValue(1), v.maxValue(MAX_LOG_PAGE))),
  cursor: v.optional(v.pipe(v.string(), v.maxLength(64))),
  direction: v.optional(v.picklist(['backward', 'forward'])),
});

export const LogLineSchema = v.object({
  at: v.string(),
  stream: v.picklist(LINE_STREAMS),
  text: v.string(),
  serviceId: v.string(),
  /** The container row; null when it was deleted since. */
  containerId: v.nullable(v.string()),
  ordinal: v.number(),
  containerName: v.string(),
});

const LogPageSchema = v.object({
  data: v.array(LogLineSchema),
  /** Continue with `cursor` (same direction); null at the end. */
  nextCursor: v.nullable(v.string()),
  /** False when the page stopped at the scan bound before `limit` lines (keep paging). */
  complete: v.boolean(),
});

export const presentLogLine = (line: LogLine) => ({
  at: new Date(line.at).toISOString(),
  stream: line.stream,
  text: line.text,
  serviceId: line.serviceId,
  containerId: line.containerId,
  ordinal: line.ordinal,
  containerName: line.containerName,
});

type FilterInput = v.InferOutput<v.ObjectSchema<typeof FilterQuery, undefined>>;

function filterOf(deps: AppDeps, actor: Parameters<typeof loadTarget>[1], query: FilterInput): LogFilter {
  const target = loadTarget(deps.db, actor, targetOf(query));
  if (query.since !== undefined && query.until !== undefined && query.since > query.until) throw new DomainError('validation_failed', 422, 'since must not be after until', 'since');
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
        if (cursor === null) throw new DomainError('validation_failed', 422, 'cursor is not one this API gave', 'cursor');
        const limit = query.limit ?? 500;
        const page = query.direction === 'forward' ? pageForward(deps.db, filter, limit, cursor) : pageBackward(deps.db, filter, limit, cursor);
        return { data: page.lines.map(presentLogLine), nextCursor: page.nextCursor ? encodeCursor(page.nextCursor) : null, complete: page.complete };
      },
      {
        query: LogQuery,
        response: { 200: LogPageSchema, ...errorResponses(401, 404, 422) },
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
        query: v.object(FilterQuery),
        response: { 200: v.string(), ...errorResponses(401, 404, 422) },
        detail: {
          summary: 'Download retained container logs as text',
          description: `text/plain, oldest first, one line each: time, container name, stream, text. At most ${MAX_DOWNLOAD_LINES.toLocaleString('en-US')} lines per download; narrow since/until for more.`,
        },
      },
    );
