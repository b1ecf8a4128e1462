/**
 * Watches the engine's container events for Panel's containers and tells the rest of the agent:
 * a container started (follow its logs, read its new pid), one is gone for good, or a project's
 * containers changed state (a crash, an OOM kill, a restart, a health check turning): the hub
 * then gets a `report` on the daemon's own account, so container rows and the events feed follow
 * what happens between deploys. The stream is reopened with backoff when the engine goes away,
 * and a resync runs after every (re)connect to catch what happened meanwhile.
 */
import type { Logger } from '../../lib/logger.ts';
import type { ContainerDirectory, KnownContainer } from './containers.ts';
import type { DockerEngine } from './engine.ts';

export interface ContainerEventHandlers {
  started(container: KnownContainer): void;
  removed(containerId: string): void;
  /** A container of the Compose project changed state. */
  changed(project: string): void;
  /** The stream (re)connected: events may have been missed. */
  resync(): void;
}

/** Actions that change what a report would say. */
const STATE_ACTIONS = new Set(['create', 'start', 'restart', 'die', 'stop', 'kill', 'oom', 'pause', 'unpause', 'destroy']);

export interface ContainerEventsOptions {
  engine: DockerEngine;
  directory: ContainerDirectory;
  handlers: ContainerEventHandlers;
  logger: Logger;
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

const abortableSleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
  });

export async function watchContainerEvents(options: ContainerEventsOptions, signal: AbortSignal): Promise<void> {
  const { engine, directory, handlers, logger, sleep = abortableSleep } = options;
  let failures = 0;
  while (!signal.aborted) {
    try {
      const events = engine.events(signal);
      handlers.resync();
      for await (const event of events) {
        failures = 0;
        const id = event.Actor?.ID;
        if (event.Type !== 'container' || !id) continue;
        const action = event.Action.split(':')[0]!;
        const project = event.Actor.Attributes?.['com.docker.compose.project'];
        if (action === 'start') {
          const container = await directory.refresh(id);
          if (container?.running) handlers.started(container);
        } else if (action === 'destroy') {
          directory.forget(id);
          handlers.removed(id);
        }
        if (project && (STATE_ACTIONS.has(action) || action === 'health_status')) handlers.changed(project);
      }
    } catch (error) {
      if (signal.aborted) return;
      if (failures++ === 0) logger.warn('the engine event stream ended; retrying', { error: (error as Error).message });
    }
    await sleep(Math.min(30_000, 1_000 * 2 ** Math.min(failures, 5)), signal);
  }
}
