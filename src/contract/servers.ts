/** Servers: machines running the Panel daemon. Enrolled by their daemon, never created here. */
import * as v from 'valibot';
import { ListQuery, strict, Text, Timestamp, Timestamps, Uuid } from './common.ts';
import { serverFlags, serverStatuses } from './enums.ts';

export const ServerUpdate = strict({ name: v.optional(Text(255)) });
export type ServerUpdate = v.InferInput<typeof ServerUpdate>;
export const ServerListQuery = v.object({ organizationId: Uuid, ...ListQuery });

export const Server = v.object({
  id: v.string(),
  organizationId: v.string(),
  name: v.string(),
  hostname: v.nullable(v.string()),
  machineId: v.nullable(v.string()),
  isLocal: v.boolean(),
  status: v.picklist(serverStatuses),
  lastSeenAt: v.nullable(Timestamp),
  /** Set when the hub saw something it will not merge silently (e.g. two machines with one machine id). */
  flag: v.nullable(v.picklist(serverFlags)),
  flaggedAt: v.nullable(Timestamp),
  /** The daemon key secrets are sealed to; null until a daemon enrolled or said hello. */
  daemonKeyId: v.nullable(v.string()),
  ...Timestamps,
});
export type Server = v.InferOutput<typeof Server>;
