/**
 * The log of one deploy, stop or destroy: what the server's daemon printed while it ran (Compose
 * pulling, creating and starting, Panel's steps, the containers at the end), written live while it
 * runs. A failed run opens with its log shown, since that is where the reason is.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import type { Deployment } from '../deploy-api.ts';
import { type LiveConnection, subscribeLive } from '../live-subscription.ts';
import type { DeploymentLogFrame } from '../../../src/contract/live.ts';
import type { DeploymentLogLine } from './observe-api.ts';


const VERB: Record<string, string> = { deploy: 'Deploy', stop: 'Stop', destroy: 'Destroy' };

export function DeployLog({ deployment }: { deployment: Deployment }) {
  const [lines, setLines] = useState<DeploymentLogLine[]>([]);
  const [connection, setConnection] = useState<LiveConnection>('connecting');
  const [open, setOpen] = useState(deployment.status !== 'succeeded');
  const listRef = useRef<HTMLOListElement>(null);
  const running = deployment.status === 'queued' || deployment.status === 'running';

  useEffect(() => {
    setLines([]);
    return subscribeLive<DeploymentLogFrame>(
      { topic: 'deploymentLog', deploymentId: deployment.id },
      (frame) => {
        if (frame.type === 'subscribed') setLines(frame.lines);
        else if (frame.type === 'deploymentLog') setLines((previous) => [...previous.filter((line) => !frame.lines.some((added) => added.seq === line.seq)), ...frame.lines]);
      },
      setConnection,
    );
  }, [deployment.id]);
  useEffect(() => {
    if (deployment.status === 'failed') setOpen(true);
  }, [deployment.status]);
  useEffect(() => {
    const list = listRef.current;
    if (list && running) list.scrollTop = list.scrollHeight;
  }, [lines.length]);

  const title = `${VERB[deployment.kind] ?? deployment.kind} log`;
  return (
    <section aria-label="Deploy log" class="deploy-log">
      <details open={open} onToggle={(event) => setOpen(event.currentTarget.open)}>
        <summary>
          {title} <span class="muted">({lines.length} line{lines.length === 1 ? '' : 's'}{running ? ', still running' : ''})</span>
        </summary>
        {lines.length === 0 ? (
          <p class="muted">
            {connection === 'refused'
              ? 'The log is not available.'
              : running
                ? 'Waiting for the server to start it…'
                : 'This run left no output (its server may have been unreachable, or it ran before Panel kept deploy logs).'}
          </p>
        ) : (
          <ol class="log-lines" ref={listRef} tabIndex={0} aria-label={title}>
            {lines.map((line) => (
              <li key={line.seq} class={`log-${line.stream}${line.text.startsWith('▸ ') ? ' log-step' : ''}`}>
                <time dateTime={line.at}>{new Date(line.at).toLocaleTimeString()}</time>
                <span class="log-text">{line.text}</span>
              </li>
            ))}
          </ol>
        )}
      </details>
    </section>
  );
}
