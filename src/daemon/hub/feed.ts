/**
 * The change feed, published in-process and read by /ws/client/v1 subscribers: every change to
 * an environment's deployment and container rows (from the deploy endpoints and the hub), and
 * every change to an organization's servers (connected, disconnected, enrolled, renamed,
 * deleted). One feed per hub (the hub is shared by the TCP and unix-socket app instances), so a
 * report that arrives over the local socket reaches browsers connected over TCP.
 */
import type { Container, Deployment, Server } from '../../db/schema/index.ts';

export type ChangeEvent =
  | { type: 'deployment'; environmentId: string; deployment: Deployment }
  | { type: 'container'; environmentId: string; container: Container };

export type ServerEvent = { type: 'server'; server: Server } | { type: 'serverDeleted'; server: Server };

export type ChangeListener = (event: ChangeEvent) => void;
export type ServerListener = (event: ServerEvent) => void;

/** Listeners by the id they listen to; a failing listener is reported, never stops the others. */
export class Listeners<Event> {
  private readonly byKey = new Map<string, Set<(event: Event) => void>>();

  constructor(private readonly onListenerError: (error: unknown) => void) {}

  add(key: string, listener: (event: Event) => void): () => void {
    let set = this.byKey.get(key);
    if (!set) this.byKey.set(key, (set = new Set()));
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0 && this.byKey.get(key) === set) this.byKey.delete(key);
    };
  }

  has(key: string): boolean {
    return this.byKey.has(key);
  }

  publish(key: string, event: Event): void {
    for (const listener of [...(this.byKey.get(key) ?? [])]) {
      try {
        listener(event);
      } catch (error) {
        this.onListenerError(error);
      }
    }
  }

  get size(): number {
    let count = 0;
    for (const set of this.byKey.values()) count += set.size;
    return count;
  }
}

export class ChangeFeed {
  private readonly environments: Listeners<ChangeEvent>;
  private readonly organizations: Listeners<ServerEvent>;

  constructor(onListenerError: (error: unknown) => void = () => {}) {
    this.environments = new Listeners(onListenerError);
    this.organizations = new Listeners(onListenerError);
  }

  /** Listens to one environment; the returned function stops listening. */
  subscribe(environmentId: string, listener: ChangeListener): () => void {
    return this.environments.add(environmentId, listener);
  }

  /** Listens to one organization's servers; the returned function stops listening. */
  subscribeServers(organizationId: string, listener: ServerListener): () => void {
    return this.organizations.add(organizationId, listener);
  }

  publish(event: ChangeEvent): void {
    this.environments.publish(event.environmentId, event);
  }

  deployment(deployment: Deployment): void {
    this.publish({ type: 'deployment', environmentId: deployment.environmentId, deployment });
  }

  containers(environmentId: string, rows: readonly Container[]): void {
    for (const row of rows) this.publish({ type: 'container', environmentId, container: row });
  }

  /** A server row as it is now (connected, disconnected, enrolled or renamed). */
  server(row: Server): void {
    this.organizations.publish(row.organizationId, { type: 'server', server: row });
  }

  serverDeleted(row: Server): void {
    this.organizations.publish(row.organizationId, { type: 'serverDeleted', server: row });
  }

  /** Subscriptions open right now (tests and diagnostics). */
  get size(): number {
    return this.environments.size + this.organizations.size;
  }
}
