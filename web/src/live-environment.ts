/**
 * Live state of one environment over /ws/client/v1 (live-subscription.ts): the snapshot (newest
 * deployments and every container row), then each pushed change.
 */
import { useEffect, useState } from 'preact/hooks';
import type { Container, Deployment } from './deploy-api.ts';
import type { EnvironmentFrame } from '../../src/contract/live.ts';
import { type LiveConnection, subscribeLive } from './live-subscription.ts';

export interface LiveEnvironment {
  connection: LiveConnection;
  problem?: string;
  deployments: Deployment[];
  containers: Container[];
}


const upsert = <T extends { id: string }>(rows: T[], row: T) => {
  const index = rows.findIndex((candidate) => candidate.id === row.id);
  return index === -1 ? [...rows, row] : rows.map((candidate, at) => (at === index ? row : candidate));
};

const newestFirst = (rows: Deployment[]) => [...rows].sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : b.id.localeCompare(a.id)));

export function useLiveEnvironment(environmentId: string): LiveEnvironment {
  const [state, setState] = useState<LiveEnvironment>({ connection: 'connecting', deployments: [], containers: [] });
  useEffect(
    () =>
      subscribeLive<EnvironmentFrame>(
        { environmentId },
        (frame) =>
          setState((previous) => {
            if (frame.type === 'subscribed') return { connection: 'live', deployments: newestFirst(frame.deployments), containers: frame.containers };
            if (frame.type === 'deployment') return { ...previous, deployments: newestFirst(upsert(previous.deployments, frame.deployment)) };
            return { ...previous, containers: upsert(previous.containers, frame.container) };
          }),
        (connection, problem) => setState((previous) => ({ ...previous, connection, problem })),
      ),
    [environmentId],
  );
  return state;
}
