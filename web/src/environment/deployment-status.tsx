/**
 * What the environment's latest deployment is doing, in words that stay true: queued until its
 * server reconnects (while the daemon is away), being delivered, running with how far it got
 * (containers running, stopped or removed out of how many; the agent reports them while the
 * command runs), or finished. And the containers: those that exist with their state and Docker
 * id, then those a destroy (or someone outside Panel) removed, never shown as merely "exited".
 */
import { useEffect, useState } from 'preact/hooks';
import type { Container, Deployment, Server } from '../deploy-api.ts';

const ACTIVE_WORDS: Record<string, string> = { deploy: 'Deploying', stop: 'Stopping', destroy: 'Destroying' };
const DONE_WORDS: Record<string, string> = { deploy: 'Deployed', stop: 'Stopped', destroy: 'Destroyed' };
const FAILED_WORDS: Record<string, string> = { deploy: 'Deploy failed', stop: 'Stop failed', destroy: 'Destroy failed' };

/** How many of the rows have got where the command takes them, for the progress bar. */
function progressOf(kind: string, rows: Container[]): { done: number; total: number; what: string } {
  if (kind === 'stop') return { done: rows.filter((row) => row.status === 'exited' || row.isRemoved).length, total: rows.length, what: 'stopped' };
  if (kind === 'destroy') return { done: rows.filter((row) => row.isRemoved).length, total: rows.length, what: 'removed' };
  return { done: rows.filter((row) => row.status === 'running').length, total: rows.length, what: 'running' };
}

/** Seconds since `iso`, refreshed every second while `active`. */
function useElapsed(iso: string, active: boolean): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!active) return;
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [active]);
  return Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
}

interface LatestProps {
  deployment: Deployment;
  /** The deployment's server, once the live server list knows it. */
  server: Server | undefined;
  containers: Container[];
}

export function LatestDeployment({ deployment, server, containers }: LatestProps) {
  const { kind, status } = deployment;
  const open = status === 'queued' || status === 'running';
  const elapsed = useElapsed(deployment.createdAt, open);
  const serverName = server?.name ?? 'its server';
  const waiting = status === 'queued' && server !== undefined && server.status !== 'connected';
  let headline: string;
  if (waiting) headline = `${ACTIVE_WORDS[kind] ?? kind}: queued until ${serverName} reconnects`;
  else if (status === 'queued') headline = `${ACTIVE_WORDS[kind] ?? kind}: sending to ${serverName}…`;
  else if (status === 'running') headline = `${ACTIVE_WORDS[kind] ?? kind} on ${serverName}…`;
  else if (status === 'succeeded') headline = `${DONE_WORDS[kind] ?? kind} on ${serverName}`;
  else headline = `${FAILED_WORDS[kind] ?? kind} on ${serverName}`;
  const progress = status === 'running' ? progressOf(kind, containers) : null;

  return (
    <div class="deployment-status" data-deployment-kind={kind}>
      <p>
        <strong data-deployment-status={waiting ? 'waiting' : status}>{headline}</strong>{' '}
        <span class="muted">
          (generation {deployment.desiredGeneration}; {open ? `${elapsed} s so far` : new Date(deployment.updatedAt).toLocaleString()})
        </span>
      </p>
      {waiting && (
        <p class="muted">
          The command waits on Panel and runs as soon as the daemon of {serverName} connects again. Until then the containers below keep the state they last
          reported.
        </p>
      )}
      {progress && progress.total > 0 && (
        <p>
          <progress max={progress.total} value={progress.done} aria-label={`${ACTIVE_WORDS[kind] ?? kind} progress`} />{' '}
          {progress.done} of {progress.total} containers {progress.what}
        </p>
      )}
      {deployment.error && <p class="field-error">{deployment.error}</p>}
    </div>
  );
}

/** A pending row of a deploy that waits for its server reads "queued", not "pending". */
function statusOf(row: Container, waiting: boolean): string {
  return row.status === 'pending' && waiting ? 'queued' : row.status;
}

interface ContainerTableProps {
  containers: Container[];
  /** The latest deploy waits for its server to reconnect. */
  waiting: boolean;
  serverName: (serverId: string) => string | undefined;
}

export function ContainerTable({ containers, waiting, serverName }: ContainerTableProps) {
  const present = containers.filter((row) => !row.isRemoved);
  const removed = containers.filter((row) => row.isRemoved);
  return (
    <>
      {present.length > 0 && (
        <div class="table-scroll">
          <table aria-label="Containers">
            <thead>
              <tr>
                <th scope="col">Service</th>
                <th scope="col">Container</th>
                <th scope="col">Server</th>
                <th scope="col">Status</th>
                <th scope="col">Docker id</th>
              </tr>
            </thead>
            <tbody>
              {present.map((row) => (
                <tr key={row.id} data-container-status={statusOf(row, waiting)}>
                  <th scope="row">{row.composeServiceName}</th>
                  <td>
                    <code>{row.containerName}</code>
                  </td>
                  <td>{serverName(row.serverId) ?? <span class="muted">a server</span>}</td>
                  <td>
                    <span class={`status status-${statusOf(row, waiting)}`}>{statusOf(row, waiting)}</span>
                  </td>
                  <td>{row.containerId ? <code>{row.containerId.slice(0, 12)}</code> : <span class="muted">not created yet</span>}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {removed.length > 0 && (
        <p class="muted" data-removed-containers={removed.length}>
          {present.length === 0 ? 'No containers: ' : ''}
          {removed.length === 1 ? 'one container was' : `${removed.length} containers were`} removed from the server ({removed.map((row) => row.composeServiceName).join(', ')}). Deploy to create
          them again.
        </p>
      )}
    </>
  );
}
