/**
 * An organization's events: deploy outcomes, container state changes between deploys, servers
 * connecting and disconnecting, certificate events, newest first and live; older ones on demand;
 * filtered by family. Below, the organization's webhook (webhook-settings.tsx).
 */
import { useEffect, useState } from 'preact/hooks';
import { api, ApiError } from '../api.ts';
import { useCurrentOrganization } from '../current-organization.ts';
import { LoadFailed, Loading, useResource } from '../data.tsx';
import { type LiveConnection, subscribeLive } from '../live-subscription.ts';
import type { EventsFrame } from '../../../src/contract/live.ts';
import { EVENT_FAMILIES, observeApi, type PanelEvent } from '../observe/observe-api.ts';
import { Link, usePageTitle } from '../router.tsx';
import { Breadcrumbs } from '../breadcrumbs.tsx';
import { WebhookSettings } from './webhook-settings.tsx';


const CONNECTION_TEXT: Record<LiveConnection, string> = {
  connecting: 'Connecting to live updates…',
  live: 'Live: new events appear as they happen.',
  reconnecting: 'Live updates interrupted; reconnecting…',
  refused: 'Live updates are not available',
};

/** Newest first, each once. */
const merged = (...lists: PanelEvent[][]) => [...new Map(lists.flat().map((row) => [row.id, row])).values()].sort((a, b) => (a.id < b.id ? 1 : -1));

function useEvents(organizationId: string, family: string) {
  const [events, setEvents] = useState<PanelEvent[] | undefined>();
  const [cursor, setCursor] = useState<string | null>(null);
  const [connection, setConnection] = useState<{ state: LiveConnection; problem?: string }>({ state: 'connecting' });
  const [error, setError] = useState<string | undefined>();
  const inFamily = (row: PanelEvent) => family === '' || row.kind.startsWith(`${family}.`);
  const load = async (after?: string) => {
    try {
      const page = await observeApi.events(organizationId, { kind: family || undefined, cursor: after });
      setEvents((previous) => merged(after ? (previous ?? []) : [], page.data));
      setCursor(page.nextCursor);
      setError(undefined);
    } catch (failure) {
      setError(failure instanceof ApiError ? failure.message : String(failure));
    }
  };
  useEffect(() => {
    setEvents(undefined);
    void load();
    return subscribeLive<EventsFrame>(
      { topic: 'events', organizationId },
      (frame) => {
        const arrived = frame.type === 'subscribed' ? frame.events : [frame.event];
        setEvents((previous) => merged(previous ?? [], arrived.filter(inFamily)));
      },
      (state, problem) => setConnection({ state, problem }),
    );
  }, [organizationId, family]);
  return { events, error, connection, older: cursor ? () => void load(cursor) : undefined };
}

function subjectLink(row: PanelEvent) {
  if (row.serviceId) return <Link href={`/services/${row.serviceId}`}>service</Link>;
  if (row.environmentId) return <Link href={`/environments/${row.environmentId}`}>environment</Link>;
  if (row.serverId) return <Link href={`/servers/${row.serverId}`}>server</Link>;
  return null;
}

export function EventsPage({ organizationId }: { organizationId: string }) {
  const organization = useResource(`organization:${organizationId}`, () => api.organizations.get(organizationId));
  const [family, setFamily] = useState('');
  const feed = useEvents(organizationId, family);
  useCurrentOrganization(organizationId);
  usePageTitle('Events');
  if (organization.error) return <LoadFailed error={organization.error} what="the organization" retry={organization.reload} />;
  if (!organization.data) return <Loading what="the organization" />;
  return (
    <>
      <Breadcrumbs items={[{ label: organization.data.name, href: `/organizations/${organizationId}` }, { label: 'Events' }]} />
      <h1 tabIndex={-1}>Events</h1>
      <p class="muted" role="status">
        {CONNECTION_TEXT[feed.connection.state]}
        {feed.connection.problem && `: ${feed.connection.problem}`}
      </p>
      <div class="field inline event-filter">
        <label for="event-family">Show</label>
        <select id="event-family" value={family} onChange={(event) => setFamily(event.currentTarget.value)}>
          <option value="">Every event</option>
          {EVENT_FAMILIES.map(([value, label]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </select>
      </div>
      {feed.error && (
        <div class="alert" role="alert">
          <p>Could not load events: {feed.error}</p>
        </div>
      )}
      {!feed.events ? (
        <Loading what="events" />
      ) : feed.events.length === 0 ? (
        <p class="muted">No events yet.</p>
      ) : (
        <ol class="events" aria-label="Events">
          {feed.events.map((row) => (
            <li key={row.id} class={`event event-${row.severity}`} data-event-kind={row.kind}>
              <time dateTime={row.createdAt}>{new Date(row.createdAt).toLocaleString()}</time>
              <span class={`badge severity-${row.severity}`}>{row.severity}</span>
              <span class="event-message">{row.message}</span>
              {subjectLink(row)}
            </li>
          ))}
        </ol>
      )}
      {feed.older && (
        <button type="button" onClick={feed.older}>
          Show older events
        </button>
      )}
      <WebhookSettings organizationId={organizationId} />
    </>
  );
}
