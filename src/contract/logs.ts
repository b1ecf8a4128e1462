/**
 * Container logs and deploy logs (issue 19): the history of a container, a service or an
 * environment (exactly one of containerId, serviceId, environmentId), and each deployment's log.
 */
import * as v from 'valibot';
import { Uuid } from './common.ts';
import { logStreams } from './enums.ts';

export const MAX_LOG_PAGE = 5_000;
export const MAX_DOWNLOAD_LINES = 200_000;

/** An ISO 8601 time, read as epoch milliseconds. */
export const IsoTime = v.pipe(
  v.string(),
  v.maxLength(40),
  v.check((text) => /^\d{4}-\d\d-\d\dT/.test(text) && !Number.isNaN(Date.parse(text)), 'must be an ISO 8601 time like 2026-01-01T12:00:00Z'),
  v.transform((text) => Date.parse(text)),
);

/** What the history of some containers is read for: exactly one of them (checked by the domain). */
export const LogTargetQuery = {
  containerId: v.optional(Uuid),
  serviceId: v.optional(Uuid),
  environmentId: v.optional(Uuid),
};

const LogFilterEntries = {
  ...LogTargetQuery,
  since: v.optional(IsoTime),
  until: v.optional(IsoTime),
  stream: v.optional(v.picklist(['stdout', 'stderr'], 'must be stdout or stderr')),
  /** Case-insensitive text the line must contain. */
  q: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(200, 'must be at most 200 characters'))),
};
export const LogDownloadQuery = v.object(LogFilterEntries);

export const LogQuery = v.object({
  ...LogFilterEntries,
  limit: v.optional(v.pipe(v.string(), v.regex(/^\d{1,4}$/, `must be a number from 1 to ${MAX_LOG_PAGE}`), v.transform(Number), v.minValue(1), v.maxValue(MAX_LOG_PAGE))),
  cursor: v.optional(v.pipe(v.string(), v.maxLength(64))),
  direction: v.optional(v.picklist(['backward', 'forward'])),
});

export const LogLine = v.object({
  at: v.string(),
  /** `panel`: a marker of Panel's own, such as lines the daemon sampled away. */
  stream: v.picklist(logStreams),
  text: v.string(),
  serviceId: v.string(),
  /** The container row; null when it was deleted since. */
  containerId: v.nullable(v.string()),
  ordinal: v.number(),
  containerName: v.string(),
});
export type LogLine = v.InferOutput<typeof LogLine>;

export const LogPage = v.object({
  /** Oldest first. */
  data: v.array(LogLine),
  /** Continue with `cursor` (same direction); null at the end. */
  nextCursor: v.nullable(v.string()),
  /** False when the page stopped at the scan bound before `limit` lines (keep paging). */
  complete: v.boolean(),
});
export type LogPage = v.InferOutput<typeof LogPage>;

export const DeploymentLogQuery = v.object({ after: v.optional(v.pipe(v.string(), v.regex(/^\d{1,6}$/, 'must be a line number'), v.transform(Number))) });
export const DeploymentLogLine = v.object({ seq: v.number(), at: v.string(), stream: v.picklist(logStreams), text: v.string() });
export type DeploymentLogLine = v.InferOutput<typeof DeploymentLogLine>;
