/**
 * Live state of one environment over /ws/client/v1: subscribe, take the snapshot (newest
 * deployments and every container row), then apply each pushed change. Nothing is polled; a
 * dropped socket reconnects with backoff and re-subscribes (the new snapshot replaces the state).
 */
import { useEffect, useState } from 'preact/hooks';
import type { ContainerRow, Deployment } from './deploy-api.ts';

export interface LiveEnvironment {
  connection: 'connecting' | 'live' | 'reconnecting' | 'refused';
  problem?: string;
  deployments: Deployment[];
  containers: ContainerRow[];
}

type Frame =
  | { type: 'subscribed'; environmentId: string; deployments: Deployment[]; containers: ContainerRow[] }
  | { type: 'deployment'; environmentId: string; deployment: Deployment }
  | { type: 'container'; environmentId: string; container: ContainerRow }
  | { type: 'error'; code: string; message: string; environmentId?: string };

const upsert = <T extends { id: string }>(rows: T[], row: T) => {
  const index = rows.findIndex((candidate) => candidate.id === row.id);
  return index === -1 ? [...rows, row] : rows.map((candidate, at) => (at === index ? row : candidate));
};

const newestFirst = (rows: Deployment[]) => [...rows].sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : b.id.localeCompare(a.id)));

function socketUrl(): string {
  return `${location.protocol === 'https:' ? 'wss:' : 'ws:'}//${location.host}/ws/client/v1`;
}

export function useLiveEnvironment(environmentId: string): LiveEnvironment {
  const [state, setState] = useState<LiveEnvironment>({ connection: 'connecting', deployments: [], containers: [] });
  useEffect(() => {
    let socket: WebSocket | undefined;
    let retry: ReturnType<typeof setTimeout> | undefined;
    let attempts = 0;
    let stopped = false;

    const apply = (frame: Frame) => {
      if (frame.type === 'error') {
        setState((previous) => ({ ...previous, connection: 'refused', problem: frame.message }));
        return;
      }
      if (frame.environmentId !== environmentId) return;
      attempts = 0;
      setState((previous) => {
        if (frame.type === 'subscribed') return { connection: 'live', deployments: newestFirst(frame.deployments), containers: frame.containers };
        if (frame.type === 'deployment') return { ...previous, deployments: newestFirst(upsert(previous.deployments, frame.deployment)) };
        return { ...previous, containers: upsert(previous.containers, frame.container) };
      });
    };

    const connect = () => {
      socket = new WebSocket(socketUrl());
      socket.onopen = () => socket?.send(JSON.stringify({ type: 'subscribe', environmentId }));
      socket.onmessage = (event) => {
        try {
          apply(JSON.parse(String(event.data)) as Frame);
        } catch {
          // A frame the console does not understand is ignored.
        }
      };
      socket.onclose = () => {
        if (stopped) return;
        setState((previous) => (previous.connection === 'refused' ? previous : { ...previous, connection: 'reconnecting' }));
        retry = setTimeout(connect, Math.min(30_000, 500 * 2 ** attempts++));
      };
    };
    connect();
    return () => {
      stopped = true;
      clearTimeout(retry);
      socket?.close();
    };
  }, [environmentId]);
  return state;
}
