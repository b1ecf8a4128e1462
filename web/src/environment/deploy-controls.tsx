/**
 * Deploy, stop and destroy an environment, and its live state: the latest deployment and every
 * container with the server it runs on, as /ws/client/v1 pushes them (live-environment.ts,
 * live-servers.ts; a deploy waiting for its server says so, deployment-status.tsx). Stop and destroy ask first; a planner refusal shows the planner's message;
 * members of the organization, who may not deploy, see the live state only.
 */
import { useState } from 'preact/hooks';
import { ApiError } from '../api.ts';
import { ConfirmDialog } from '../confirm-dialog.tsx';
import { deployApi } from '../deploy-api.ts';
import { FormAlert, type FormProblem } from '../forms.tsx';
import { useLiveEnvironment } from '../live-environment.ts';
import { useLiveServers } from '../live-servers.ts';
import { ReadOnlyNote, useCanWrite } from '../role.tsx';
import { PLACEMENT_REFUSALS, PlacementRefused, PlacementRequired } from './deploy-preview.tsx';
import { ContainerTable, LatestDeployment } from './deployment-status.tsx';

const CONNECTION_TEXT = {
  connecting: 'Connecting to live updates…',
  live: 'Live: changes appear as they happen.',
  reconnecting: 'Live updates interrupted; reconnecting…',
  refused: 'Live updates are not available',
};

interface DeployControlsProps {
  environmentId: string;
  organizationId: string;
  onDeployed: () => void;
}

export function DeployControls({ environmentId, organizationId, onDeployed }: DeployControlsProps) {
  const live = useLiveEnvironment(environmentId);
  const servers = useLiveServers(organizationId).servers;
  const serverName = (id: string) => servers?.find((server) => server.id === id)?.name;
  const writable = useCanWrite(organizationId);
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<FormProblem | null>(null);
  const [placementMissing, setPlacementMissing] = useState(false);
  const [refused, setRefused] = useState<ApiError | null>(null);
  const [warnings, setWarnings] = useState<string[]>([]);
  const [confirming, setConfirming] = useState<'stop' | 'destroy' | null>(null);
  const latest = live.deployments[0];
  const latestServer = servers?.find((server) => server.id === latest?.serverId);
  const waiting = latest?.status === 'queued' && latestServer !== undefined && latestServer.status !== 'connected';

  const deploy = async () => {
    if (busy) return;
    setBusy(true);
    setProblem(null);
    setPlacementMissing(false);
    setRefused(null);
    try {
      const deployed = await deployApi.environments.deploy(environmentId);
      setWarnings(deployed.warnings);
      onDeployed();
    } catch (error) {
      if (error instanceof ApiError && error.code === 'server_placement_required') setPlacementMissing(true);
      else if (error instanceof ApiError && PLACEMENT_REFUSALS.has(error.code)) setRefused(error);
      else setProblem(error instanceof ApiError ? { message: error.message, requestId: error.requestId } : { message: String(error) });
    } finally {
      setBusy(false);
    }
  };

  return (
    <section aria-labelledby="deploy-heading">
      <h2 id="deploy-heading">Deployment</h2>
      {writable ? (
        <div class="row">
          <button type="button" class="primary" onClick={() => void deploy()} aria-busy={busy ? 'true' : undefined}>
            {busy ? 'Deploying…' : 'Deploy'}
          </button>
          <button type="button" onClick={() => setConfirming('stop')}>
            Stop
          </button>
          <button type="button" class="danger" onClick={() => setConfirming('destroy')}>
            Destroy
          </button>
        </div>
      ) : (
        <ReadOnlyNote action="deploy, stop or destroy this environment" />
      )}
      {placementMissing && <PlacementRequired organizationId={organizationId} />}
      {refused && <PlacementRefused error={refused} />}
      <FormAlert problem={problem} />
      {warnings.length > 0 && (
        <div class="notice" role="status">
          <p>The deploy was queued with warnings:</p>
          <ul>
            {warnings.map((warning) => (
              <li key={warning}>{warning}</li>
            ))}
          </ul>
        </div>
      )}
      <p class="muted" role="status">
        {CONNECTION_TEXT[live.connection]}
        {live.problem && `: ${live.problem}`}
      </p>
      <div aria-live="polite">
        {latest ? (
          <LatestDeployment deployment={latest} server={latestServer} containers={live.containers} />
        ) : (
          live.connection === 'live' && <p class="muted">Not deployed yet.</p>
        )}
      </div>
      <ContainerTable containers={live.containers} waiting={waiting} serverName={serverName} />
      {confirming === 'stop' && (
        <ConfirmDialog title="Stop this environment?" confirmLabel="Stop" onClose={() => setConfirming(null)} onConfirm={() => deployApi.environments.stop(environmentId).then(() => {})}>
          <p>Every container of this environment stops, on every server it runs on. The containers, their volumes and data are kept; deploy again to start them.</p>
        </ConfirmDialog>
      )}
      {confirming === 'destroy' && (
        <ConfirmDialog
          title="Destroy this environment's containers?"
          confirmLabel="Destroy"
          onClose={() => setConfirming(null)}
          onConfirm={() => deployApi.environments.destroy(environmentId).then(() => {})}
        >
          <p>
            The containers <strong>and their volumes</strong> are removed from every server the environment runs on. Data in those volumes is lost. The environment and its settings stay.
          </p>
        </ConfirmDialog>
      )}
    </section>
  );
}
