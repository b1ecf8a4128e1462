/**
 * What the servers' ingress does with a hosting, as its answer's `live` says: the URLs it
 * answers at (links), per server whether the route is applied, waiting or refused (with Caddy's
 * error, the previous configuration still serving) and how many containers it reaches, and per
 * hostname where its certificate comes from and how far it got. While anything is on its way the
 * page reads the hosting again every few seconds (useLiveRefresh).
 */
import { Fragment } from 'preact';
import { useEffect } from 'preact/hooks';
import { type Hosting, hostingApi } from '../account-api.ts';
import { useResource } from '../data.tsx';
import { dateOf, expiryOf, type HostingLive } from '../ingress-api.ts';

const SOURCES: Record<HostingLive['certificates'][number]['source'], string> = {
  library: 'TLS library',
  internal: 'organization CA',
  acme: 'ACME',
  none: 'none (plain http)',
};

/** Whether something of the hosting is still on its way (an apply, a certificate). */
export const isSettling = (live: HostingLive) =>
  live.servers.some((server) => server.route === 'pending') || live.certificates.some((certificate) => certificate.status === 'pending');

/** Calls `reload` every 3 s while any of `hostings` is settling. */
export function useLiveRefresh(hostings: readonly Hosting[] | undefined, reload: () => void): void {
  const settling = hostings?.some((hosting) => isSettling(hosting.live)) ?? false;
  useEffect(() => {
    if (!settling) return;
    const timer = setInterval(reload, 3000);
    return () => clearInterval(timer);
  }, [settling, reload]);
}

function RouteState({ server }: { server: HostingLive['servers'][number] }) {
  if (server.route === 'failed') {
    return (
      <>
        <span class="state-bad">Not applied</span>: {server.error} <span class="muted">(the previous configuration keeps serving)</span>
      </>
    );
  }
  if (server.route === 'pending') return <span class="state-wait">Being applied…</span>;
  const reach = server.upstreams === null ? '' : `${server.upstreams} of ${server.containers} container${server.containers === 1 ? '' : 's'}`;
  return (
    <>
      <span class={server.upstreams === 0 ? 'state-bad' : 'state-ok'}>Applied</span>
      {reach && `, to ${reach}`}
      {server.problem && <span class="muted"> — {server.problem}</span>}
    </>
  );
}

function CertificateState({ certificate }: { certificate: HostingLive['certificates'][number] }) {
  const status =
    certificate.status === 'issued' ? (
      <span class="state-ok">issued</span>
    ) : certificate.status === 'failed' ? (
      <span class="state-bad">failed</span>
    ) : certificate.status === 'pending' ? (
      <span class="state-wait">pending</span>
    ) : null;
  return (
    <>
      {SOURCES[certificate.source]}
      {status && <>, {status}</>}
      {certificate.notAfter && (
        <span class="muted">
          {' '}
          until {dateOf(certificate.notAfter)} ({expiryOf(certificate.notAfter)})
        </span>
      )}
      {certificate.issuer && <span class="muted"> by {certificate.issuer}</span>}
      {certificate.error && <p class="field-error">{certificate.error}</p>}
    </>
  );
}

export function HostingLiveState({ live, label }: { live: HostingLive; label: string }) {
  return (
    <section class="stack" aria-label={`State of ${label}`}>
      {live.urls.length > 0 && (
        <ul class="rows" aria-label={`Addresses of ${label}`}>
          {live.urls.map((url) =>
            url.includes('*') ? (
              <li key={url} class="mono">
                {url}
              </li>
            ) : (
              <li key={url}>
                <a href={url} target="_blank" rel="noopener noreferrer" class="mono">
                  {url}
                </a>
              </li>
            ),
          )}
        </ul>
      )}
      <dl class="facts">
        {live.servers.length === 0 && (
          <>
            <dt>Route</dt>
            <dd class="muted">Not served: the service runs on no server yet (deploy its environment).</dd>
          </>
        )}
        {live.servers.map((server) => (
          <Fragment key={server.serverId}>
            <dt>Route on {server.serverName}</dt>
            <dd>
              <RouteState server={server} />
            </dd>
          </Fragment>
        ))}
        {live.certificates.map((certificate) => (
          <Fragment key={`${certificate.serverId} ${certificate.hostname}`}>
            <dt>
              Certificate of {certificate.hostname} on {certificate.serverName}
            </dt>
            <dd>
              <CertificateState certificate={certificate} />
            </dd>
          </Fragment>
        ))}
      </dl>
    </section>
  );
}

/** The URLs a service answers at (its hostings' live URLs), as links; nothing while it has none. */
export function ServiceUrls({ serviceId, name }: { serviceId: string; name: string }) {
  const hostings = useResource(`service-urls:${serviceId}`, () => hostingApi.list({ serviceId }));
  const urls = (hostings.data?.data ?? []).flatMap((hosting) => hosting.live.urls);
  if (urls.length === 0) return null;
  return (
    <ul class="rows" aria-label={`Addresses of ${name}`}>
      {urls.map((url) => (
        <li key={url}>{url.includes('*') ? <span class="mono">{url}</span> : <a href={url} target="_blank" rel="noopener noreferrer" class="mono">{url}</a>}</li>
      ))}
    </ul>
  );
}
