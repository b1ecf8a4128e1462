/**
 * Resource series (issue 19): a server's own figures or the containers of a container row, a
 * service or an environment, at a resolution that follows the span asked for.
 */
import * as v from 'valibot';
import { Uuid } from './common.ts';
import { metricResolutions } from './enums.ts';
import { IsoTime, LogTargetQuery } from './logs.ts';

export const MetricsQuery = v.object({ serverId: v.optional(Uuid), ...LogTargetQuery, since: v.optional(IsoTime), until: v.optional(IsoTime) });

const measure = v.nullable(v.number());
export const MetricPoint = v.object({
  at: v.string(),
  /** Cores busy (a server: of cpuCount). */
  cpu: measure,
  cpuCount: measure,
  /** Bytes in use; memoryLimit is a container's limit (null: none) or a server's total. */
  memory: measure,
  memoryLimit: measure,
  /** Bytes per second (null for a container on the host network: it has no traffic of its own). */
  netRx: measure,
  netTx: measure,
  blockRead: measure,
  blockWrite: measure,
  /** Servers: bytes of the file system holding Docker's data. */
  diskUsed: measure,
  diskTotal: measure,
  load1: measure,
  load5: measure,
  load15: measure,
});
export type MetricPoint = v.InferOutput<typeof MetricPoint>;

export const MetricSeries = v.object({
  serverId: v.nullable(v.string()),
  containerId: v.nullable(v.string()),
  serviceId: v.nullable(v.string()),
  ordinal: v.nullable(v.number()),
  name: v.string(),
  points: v.array(MetricPoint),
});
export type MetricSeries = v.InferOutput<typeof MetricSeries>;

export const MetricsAnswer = v.object({ since: v.string(), until: v.string(), resolution: v.picklist(metricResolutions), series: v.array(MetricSeries) });
export type MetricsAnswer = v.InferOutput<typeof MetricsAnswer>;
