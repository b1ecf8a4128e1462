/**
 * After a write that can change what a server's ingress serves, the ingress of the servers
 * concerned is refreshed (src/domain/ingress/service.ts) in the same transaction, so a write
 * whose ingress cannot be prepared (a key that no longer opens) changes nothing; then the new
 * commands are handed to the hub.
 */
import type { AppDeps } from '../../../deps.ts';
import type { Enqueued } from '../../../domain/deployments/service.ts';
import { refreshIngress } from '../../../domain/ingress/service.ts';
import { announceEnqueued } from '../../../domain/notify.ts';
import type { Queryable } from '../../../domain/shared/database.ts';

/** Hands new commands to the hub and tells subscribers about the new rows. */
export const announce = (deps: AppDeps, enqueued: Enqueued): void => announceEnqueued(deps.hub.notifier, enqueued);

/** What a write did and which servers' ingress it concerns. */
export interface IngressWrite<T> {
  result: T;
  servers: Iterable<string>;
}

export function writeWithIngress<T>(deps: AppDeps, write: (tx: Queryable) => IngressWrite<T>): T {
  const { result, enqueued } = deps.db.transaction((tx) => {
    const done = write(tx);
    return { result: done.result, enqueued: refreshIngress({ ...deps, db: tx, config: deps.config }, done.servers) };
  });
  for (const entry of enqueued) announce(deps, entry);
  return result;
}
