/**
 * The observability topics of /ws/client/v1 (issue 19), each checked like its REST read (another
 * organization's id answers the `not_found` error frame, no data):
 *
 *   {"type":"subscribe","topic":"logs","serviceId"|"environmentId"|"containerId", "tail"?: 0-1000}
 *       -> {"type":"subscribed","topic":"logs",<id>,"lines":[the last `tail` (default 200) lines]}
 *       -> {"type":"logs","topic":"logs",<id>,"lines":[...],"dropped"?: n}
 *          (`dropped`: lines not sent because this socket fell behind; the history keeps them)
 *   {"type":"subscribe","topic":"deploymentLog","deploymentId"}
 *       -> {"type":"subscribed","topic":"deploymentLog","deploymentId","deployment","lines":[...]}
 *       -> {"type":"deploymentLog",...,"lines":[...]} and {"type":"deployment",...,"deployment"} on status changes
 *   {"type":"subscribe","topic":"metrics","serverId"|"serviceId"|"environmentId"|"containerId"}
 *       -> {"type":"subscribed","topic":"metrics",<id>}; then {"type":"metrics",...,"points":[...]}
 *          While subscribed, the servers concerned sample every 10 s instead of 60 s.
 *   {"type":"subscribe","topic":"events","organizationId"}
 *       -> {"type":"subscribed","topic":"events","organizationId","events":[newest 20]}; then {"type":"event",...}
 *
 * Lines and points are shaped as GET /logs, /deployments/:id/logs and /metrics answer them.
 */
import type { AppDeps } from '../../deps.ts';
import type { ObserveTopic } from '../../contract/live.ts';
import { liveKey, type LiveLines } from '../../daemon/hub/log-ingest.ts';
import { type LivePoint, metricKey } from '../../daemon/hub/metric-ingest.ts';
import { authorize } from '../../domain/actor.ts';
import { deploymentLogOf } from '../../domain/deployments/logs.ts';
import { loadDeployment } from '../../domain/deployments/service.ts';
import { listEventsOf } from '../../domain/events/queries.ts';
import { pageBackward } from '../../domain/logs/query.ts';
import { loadTarget, targetOf } from '../../domain/logs/targets.ts';
import { metricSubjects } from '../../domain/metrics/service.ts';
import { presentDeploymentLogLine } from '../client/v1/deployment-logs.ts';
import { presentDeployment } from '../client/v1/deployments.ts';
import { presentEvent } from '../client/v1/events.ts';
import { presentLogLine } from '../client/v1/logs.ts';
import { presentPoint } from '../client/v1/metrics.ts';

const SNAPSHOT_EVENTS = 20;
/** A socket holding this much unsent is behind: live log lines are counted, not queued. */
const MAX_SOCKET_BUFFER = 1024 * 1024;

export interface ObserveSocket {
  send(data: string): unknown;
  raw?: unknown;
}

/** Bytes the socket has not sent yet (Bun's ServerWebSocket; 0 for anything else). */
const bufferedOf = (socket: ObserveSocket) => (socket.raw as { getBufferedAmount?: () => number } | undefined)?.getBufferedAmount?.() ?? 0;

/** Sends `message` to the subscriber if it may still see `organizationId` (client.ts re-resolves the credential). */
export type Push = (organizationId: string, message: object) => void;

/** The id field naming the topic's subject, as frames echo it. */
export function subjectOf(topic: ObserveTopic): Record<string, string> {
  const subject: Record<string, string> = {};
  for (const key of ['serverId', 'containerId', 'serviceId', 'environmentId', 'deploymentId', 'organizationId'] as const) {
    const value = (topic as Partial<Record<typeof key, string>>)[key];
    if (value !== undefined) subject[key] = value;
  }
  return subject;
}

/**
 * Checks access, sends the snapshot and starts listening; answers the function that stops. Throws
 * the DomainError of the REST read when the caller may not see it.
 */
export function listenObserved(deps: AppDeps, socket: ObserveSocket, actor: Parameters<typeof loadTarget>[1], topic: ObserveTopic, push: Push): () => void {
  const observe = deps.hub.observe;
  const echo = { topic: topic.topic, ...subjectOf(topic) };
  const send = (message: object) => socket.send(JSON.stringify(message));

  switch (topic.topic) {
    case 'logs': {
      const target = loadTarget(deps.db, actor, targetOf(topic));
      observe.logs.flush();
      const tail = topic.tail;
      const snapshot = tail > 0 ? pageBackward(deps.db, { serviceIds: target.serviceIds, containerId: target.containerId }, tail).lines : [];
      const key = topic.containerId ? liveKey.container(topic.containerId) : topic.serviceId ? liveKey.service(topic.serviceId) : liveKey.environment(topic.environmentId!);
      let dropped = 0;
      const stop = observe.logs.live.add(key, (event: LiveLines) => {
        if (bufferedOf(socket) > MAX_SOCKET_BUFFER) {
          dropped += event.lines.length;
          return;
        }
        const lines = event.lines.map((line) => presentLogLine({ ...line, serviceId: event.serviceId, containerId: event.containerId, ordinal: event.ordinal, containerName: event.containerName }));
        push(target.organizationId, { type: 'logs', ...echo, lines, ...(dropped > 0 ? { dropped } : {}) });
        dropped = 0;
      });
      send({ type: 'subscribed', ...echo, lines: snapshot.map(presentLogLine) });
      return stop;
    }
    case 'deploymentLog': {
      const deployment = loadDeployment(deps.db, actor, topic.deploymentId);
      const stopLines = observe.deploymentLogs.add(deployment.id, (event) => push(deployment.organizationId, { type: 'deploymentLog', ...echo, lines: event.lines.map(presentDeploymentLogLine) }));
      const stopStatus = deps.hub.feed.subscribe(deployment.environmentId, (change) => {
        if (change.type === 'deployment' && change.deployment.id === deployment.id) push(deployment.organizationId, { type: 'deployment', ...echo, deployment: presentDeployment(change.deployment) });
      });
      send({ type: 'subscribed', ...echo, deployment: presentDeployment(deployment), lines: deploymentLogOf(deps.db, deployment.id).map(presentDeploymentLogLine) });
      return () => {
        stopLines();
        stopStatus();
      };
    }
    case 'metrics': {
      const subjects = metricSubjects(deps.db, actor, topic);
      const { organizationId } = subjects;
      const key = topic.serverId
        ? metricKey.server(topic.serverId)
        : topic.containerId
          ? metricKey.container(topic.containerId)
          : topic.serviceId
            ? metricKey.service(topic.serviceId)
            : metricKey.environment(topic.environmentId!);
      const stopListening = observe.metrics.live.add(key, (points: LivePoint[]) =>
        push(organizationId, { type: 'metrics', ...echo, points: points.map((p) => ({ serverId: p.serverId, containerId: p.containerId, serviceId: p.serviceId, ...presentPoint(p.point) })) }),
      );
      const servers = topic.serverId ? [topic.serverId] : observe.serversOfServices(subjects.serviceIds);
      const stopWatching = observe.watch(servers);
      send({ type: 'subscribed', ...echo });
      return () => {
        stopListening();
        stopWatching();
      };
    }
    case 'events': {
      authorize(actor, topic.organizationId, 'read', 'organization');
      const stop = observe.eventFeed.add(topic.organizationId, (row) => push(topic.organizationId, { type: 'event', ...echo, event: presentEvent(row) }));
      const recent = listEventsOf(deps.db, { organizationId: topic.organizationId }, { limit: SNAPSHOT_EVENTS }).data;
      send({ type: 'subscribed', ...echo, events: recent.map(presentEvent) });
      return stop;
    }
  }
}
