/**
 * The change feed: every change to an environment's deployments and container rows, published
 * in-process by the deploy endpoints and the hub, and read by /ws/client/v1 subscribers. One
 * feed per hub (the hub is shared by the TCP and unix-socket app instances), so a report that
 * arrives over the local socket reaches browsers connected over TCP.
 */
import type { Container, Deployment } from '../../db/schema/index.ts';

export type ChangeEvent =
  | { type: 'deployment'; environmentId: string; deployment: Deployment }
  | { type: 'container'; environmentId: string; container: Container };

export type ChangeListener = (event: ChangeEvent) => void;

export class ChangeFeed {
  private readonly listeners = new Map<string, Set<ChangeListener>>();

  constructor(private readonly onListenerError: (error: unknown) => void = () => {}) {}

  /** Listens to one environment; the returned function stops listening. */
  subscribe(environmentId: string, listener: ChangeListener): () => void {
    let set = this.listeners.get(environmentId);
    if (!set) this.listeners.set(environmentId, (set = new Set()));
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0 && this.listeners.get(environmentId) === set) this.listeners.delete(environmentId);
    };
  }

  publish(event: ChangeEvent): void {
    const set = this.listeners.get(event.environmentId);
    if (!set) return;
    for (const listener of [...set]) {
      try {
        listener(event);
      } catch (error) {
        this.onListenerError(error);
      }
    }
  }

  deployment(deployment: Deployment): void {
    this.publish({ type: 'deployment', environmentId: deployment.environmentId, deployment });
  }

  containers(environmentId: string, rows: readonly Container[]): void {
    for (const row of rows) this.publish({ type: 'container', environmentId, container: row });
  }

  /** Subscriptions open right now (tests and diagnostics). */
  get size(): number {
    let count = 0;
    for (const set of this.listeners.values()) count += set.size;
    return count;
  }
}
