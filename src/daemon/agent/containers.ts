/**
 * What the agent knows of each running Panel container, read once per start with the Engine
 * API's inspect: the slot its platform labels name (environment, service, role, ordinal), its
 * main process (for cgroups and /proc), whether it has a TTY and its network mode.
 */
import { PANEL_LABELS } from '../../compose/naming.ts';
import type { ContainerSlot } from './log-queue.ts';
import type { DockerEngine, EngineInspect } from './engine.ts';

export interface KnownContainer {
  slot: ContainerSlot;
  /** The Compose project (com.docker.compose.project): what a report lists. */
  project: string | null;
  tty: boolean;
  pid: number;
  /** `host` and `none` share or have no network of their own: no per-container traffic. */
  networkMode: string;
  startedAt: number;
  running: boolean;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The slot named by the platform labels, or null when they are missing or malformed. */
export function slotOf(id: string, name: string, labels: Record<string, string> | null): ContainerSlot | null {
  const environmentId = labels?.[PANEL_LABELS.environmentId] ?? '';
  const serviceId = labels?.[PANEL_LABELS.serviceId] ?? '';
  const role = labels?.[PANEL_LABELS.role] ?? 'service';
  const ordinal = Number(labels?.[PANEL_LABELS.ordinal] ?? '1');
  if (!UUID.test(environmentId) || !UUID.test(serviceId) || !/^[a-z]{1,16}$/.test(role) || !Number.isSafeInteger(ordinal) || ordinal < 1) return null;
  return { containerId: id, name: name.replace(/^\//, '').slice(0, 255) || id.slice(0, 12), environmentId, serviceId, role, ordinal };
}

export function toKnownContainer(inspect: EngineInspect): KnownContainer | null {
  const labels = inspect.Config.Labels;
  const slot = slotOf(inspect.Id, inspect.Name, labels);
  if (!slot) return null;
  return {
    slot,
    project: labels?.['com.docker.compose.project'] ?? null,
    tty: inspect.Config.Tty,
    pid: inspect.State.Pid,
    networkMode: inspect.HostConfig.NetworkMode,
    startedAt: Date.parse(inspect.State.StartedAt) || 0,
    running: inspect.State.Running,
  };
}

/** Inspect results by container id, refreshed when a container (re)starts. */
export class ContainerDirectory {
  private readonly known = new Map<string, KnownContainer>();

  constructor(private readonly engine: DockerEngine) {}

  /** Inspects again (after a start, the pid changed); null for a container that is not Panel's or is gone. */
  async refresh(id: string): Promise<KnownContainer | null> {
    try {
      const found = toKnownContainer(await this.engine.inspect(id));
      if (found) this.known.set(id, found);
      else this.known.delete(id);
      return found;
    } catch {
      this.known.delete(id);
      return null;
    }
  }

  async get(id: string): Promise<KnownContainer | null> {
    return this.known.get(id) ?? this.refresh(id);
  }

  forget(id: string): void {
    this.known.delete(id);
  }

  /** The running Panel containers now, inspected where not known yet; forgets the rest. */
  async running(): Promise<KnownContainer[]> {
    const listed = await this.engine.listPanelContainers();
    const ids = new Set(listed.map((container) => container.Id));
    for (const id of this.known.keys()) if (!ids.has(id)) this.known.delete(id);
    const found = await Promise.all(listed.map((container) => this.get(container.Id)));
    return found.filter((container): container is KnownContainer => container !== null && container.running);
  }
}
