/**
 * A service's replicas, as its log view offers them, kept current while the page is open: a deploy
 * that scales the service, or a replica that exits, shows in the choice without a reload.
 */
import { useEffect, useState } from 'preact/hooks';
import type { Choice } from '../forms.tsx';
import type { Container } from '../deploy-api.ts';
import { subscribeLive } from '../live-subscription.ts';
import type { EventsFrame } from '../../../src/contract/live.ts';
import { changesReplicas, observeApi, replicaChoices } from './observe-api.ts';

/**
 * Reads the service's containers, then again whenever the organization's events say they may have
 * changed (changesReplicas). The previous list stays while rereading, so a chosen replica is not
 * dropped for a moment, and only the newest read is kept when several overlap.
 */
export function useReplicaChoices(serviceId: string, organizationId: string | undefined, environmentId: string | undefined): Choice[] {
  const [rows, setRows] = useState<readonly Container[]>([]);
  useEffect(() => {
    let open = true;
    let newest = 0;
    const read = () => {
      const attempt = ++newest;
      observeApi.containers(serviceId).then(
        (page) => open && attempt === newest && setRows(page.data),
        // The list stays as it was; the log view itself reports a broken connection.
        () => undefined,
      );
    };
    read();
    const stop = organizationId
      ? subscribeLive<EventsFrame>(
          { topic: 'events', organizationId },
          (frame) => {
            if (frame.type === 'event' && changesReplicas(frame.event, serviceId, environmentId)) read();
          },
          () => undefined,
        )
      : undefined;
    return () => {
      open = false;
      stop?.();
    };
  }, [serviceId, organizationId, environmentId]);
  return replicaChoices(rows);
}
