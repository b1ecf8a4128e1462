/**
 * A service: its tags and its hostings (the routing entries: hostnames, path prefix, target
 * port, protocol, TLS, bind scope, published ports), created, changed and deleted here, each
 * with what the servers' ingress does with it now (hosting-live.tsx). Compose-owned hostings
 * are marked; their routing follows the Compose document. Then the host account it runs as, its database
 * bindings, and its variables (the binding-owned ones read-only). Members of the organization see
 * all of it without the controls that change it.
 */
import { useState } from 'preact/hooks';
import { hostingApi, type Hosting, type HostingOptions } from '../account-api.ts';
import { api } from '../api.ts';
import { useCurrentOrganization } from '../current-organization.ts';
import { ListView, LoadFailed, Loading, useList, useResource } from '../data.tsx';
import { isUnchanged, withEntries } from '../changes.ts';
import { type Choice, Field, FormAlert, SelectField, SubmitButton, useForm } from '../forms.tsx';
import { type Certificate, ingressApi } from '../ingress-api.ts';
import { ApiError } from '../api.ts';
import { HostingLiveState, useLiveRefresh } from './hosting-live.tsx';
import { namesIn, optionalInteger } from '../principals-api.ts';
import { ReadOnlyNote, useCanWrite } from '../role.tsx';
import { usePageTitle } from '../router.tsx';
import { deployApi } from '../deploy-api.ts';
import { Breadcrumbs } from '../breadcrumbs.tsx';
import { TagPicker } from './tags.tsx';
import { ServiceVariables } from '../variables/service-variables.tsx';
import { RunsAsSection } from './service-tenancy.tsx';
import { DatabaseBindingsSection } from './service-bindings.tsx';
import { LogViewer } from '../observe/log-viewer.tsx';
import { replicaChoices } from '../observe/observe-api.ts';
import { useLiveEnvironment } from '../live-environment.ts';
import { MetricsPanel } from '../observe/metrics-panel.tsx';

export function ServicePage({ id }: { id: string }) {
  const service = useResource(`service:${id}`, () => hostingApi.service(id));
  const hostings = useList(`hostings:${id}`, (cursor) => hostingApi.list({ serviceId: id, cursor }));
  const environmentId = service.data?.environmentId;
  const project = useResource(`service-project:${environmentId ?? ''}`, async () =>
    environmentId ? api.projects.get((await deployApi.environments.get(environmentId)).projectId) : new Promise<never>(() => {}),
  );
  // Bindings write variables of this service: a new revision remounts the variables to reload them.
  const [variablesRevision, setVariablesRevision] = useState(0);
  const writable = useCanWrite(project.data?.organizationId);
  const organizationId = project.data?.organizationId;
  const certificates = useResource(`service-certificates:${organizationId ?? ''}`, async () =>
    organizationId ? (await ingressApi.certificates({ organizationId })).data : new Promise<never>(() => {}),
  );
  useLiveRefresh(hostings.data, hostings.reload);
  useCurrentOrganization(project.data?.organizationId);
  usePageTitle(service.data?.name ?? 'Service');
  if (service.error) return <LoadFailed error={service.error} what="the service" retry={service.reload} />;
  if (!service.data) return <Loading what="the service" />;
  return (
    <>
      <Breadcrumbs items={[{ label: 'Environment', href: `/environments/${service.data.environmentId}` }, { label: service.data.name }]} />
      <h1 tabIndex={-1}>{service.data.name}</h1>
      {project.data && <TagPicker taggable="services" id={id} organizationId={project.data.organizationId} />}
      <p class="muted">Compose service {service.data.composeServiceName}</p>
      {service.data.description && <p class="lead">{service.data.description}</p>}
      <ServiceLogs serviceId={id} environmentId={service.data.environmentId} />
      <MetricsPanel target={{ serviceId: id }} kind="containers" />
      <section aria-labelledby="hostings-heading" class="stack">
        <h2 id="hostings-heading">Hostings</h2>
        <ListView list={hostings} what="hostings" empty="This service has no hostings yet.">
          {(items) => (
            <ul class="rows">
              {items.map((hosting) => (
                <li key={hosting.id} class="card stack">
                  {writable ? (
                    <HostingForm serviceId={id} hosting={hosting} certificates={certificates.data ?? []} onSaved={hostings.reload} />
                  ) : (
                    <HostingFacts hosting={hosting} />
                  )}
                  <HostingLiveState live={hosting.live} label={labelOf(hosting)} />
                </li>
              ))}
            </ul>
          )}
        </ListView>
        {writable ? (
          <>
            <h3>Add a hosting</h3>
            <HostingForm serviceId={id} certificates={certificates.data ?? []} onSaved={hostings.reload} />
          </>
        ) : (
          // Until the project (and so the organization) is known, the role is too.
          project.data && <ReadOnlyNote action="add, change or delete hostings" />
        )}
      </section>
      {project.data && <RunsAsSection serviceId={id} organizationId={project.data.organizationId} />}
      {project.data && (
        <DatabaseBindingsSection serviceId={id} organizationId={project.data.organizationId} onChanged={() => setVariablesRevision((revision) => revision + 1)} />
      )}
      <ServiceVariables key={variablesRevision} serviceId={id} serviceName={service.data.name} environmentId={service.data.environmentId} />
    </>
  );
}

const HOSTING_FIELDS = ['name', 'description', 'hostnames', 'pathPrefix', 'targetPort', 'protocol', 'tls', 'tlsId', 'bind', 'ports'] as const;
const PROTOCOLS = [
  ['http', 'HTTP'],
  ['tcp', 'TCP'],
  ['udp', 'UDP'],
] as const;
const PROTOCOL_CHOICES = PROTOCOLS.map(([value, label]) => ({ value, label }));
const TLS_CHOICES: Choice[] = [
  { value: 'auto', label: 'Automatic (ACME when the organization uses it, else the organization CA)' },
  { value: 'internal', label: 'Organization CA' },
  { value: 'none', label: 'None (plain http)' },
];
const BIND_CHOICES: Choice[] = [
  { value: 'public', label: 'Public (every address)' },
  { value: 'datacenter', label: "Datacenter (the server's private address)" },
  { value: 'local', label: 'Local (the server itself)' },
];

const labelOf = (hosting: Hosting) => hosting.name ?? hosting.options?.hostnames?.[0] ?? 'hosting';

/** `9000:8080 53:53/udp`: published:target, with the protocol when it differs from the hosting's. */
const portsText = (hosting: Hosting) =>
  (hosting.options?.ports ?? []).map((port) => `${port.published}:${port.target}${port.protocol && port.protocol !== protocolOf(hosting) ? `/${port.protocol}` : ''}`).join(' ');

function portsFrom(text: string | undefined): HostingOptions['ports'] {
  const entries = namesIn(text);
  if (entries.length === 0) return undefined;
  return entries.map((entry) => {
    const match = /^(\d{1,5}):(\d{1,5})(?:\/(tcp|udp))?$/.exec(entry);
    if (!match) throw new ApiError(422, 'validation_failed', `"${entry}" is not PUBLISHED:TARGET or PUBLISHED:TARGET/udp`, 'ports');
    return { published: Number(match[1]), target: Number(match[2]), ...(match[3] ? { protocol: match[3] as 'tcp' | 'udp' } : {}) };
  });
}

const protocolOf = (hosting: Hosting) => hosting.options?.protocol ?? hosting.protocol ?? 'http';

/** What a hosting's inputs show of it. */
const shownOf = (hosting: Hosting) => ({
  name: hosting.name ?? '',
  description: hosting.description ?? '',
  hostnames: hosting.options?.hostnames?.join(' ') ?? '',
  pathPrefix: hosting.options?.pathPrefix ?? '',
  targetPort: hosting.options?.targetPort?.toString() ?? '',
  protocol: protocolOf(hosting),
  tls: hosting.options?.tls ?? 'auto',
  tlsId: hosting.tlsId ?? '',
  bind: hosting.options?.bind ?? 'public',
  ports: portsText(hosting),
});

/** The routing options the form shows, parsed; an empty field is absent (undefined). */
function routingFrom(values: Record<string, string>): HostingOptions {
  const hostnames = namesIn(values.hostnames);
  return {
    hostnames: hostnames.length ? hostnames : undefined,
    pathPrefix: values.pathPrefix || undefined,
    targetPort: optionalInteger(values.targetPort, 'targetPort'),
    protocol: values.protocol as HostingOptions['protocol'],
    tls: values.tls as HostingOptions['tls'],
    bind: values.bind as HostingOptions['bind'],
    ports: portsFrom(values.ports),
  };
}

/**
 * Adds a hosting, or changes `hosting`: only the fields edited, and of its options only the keys
 * edited (the API replaces the options object, so the keys the form does not show, such as the
 * bind scope, are sent back as stored).
 */
function HostingForm({ serviceId, hosting, certificates, onSaved }: { serviceId: string; hosting?: Hosting; certificates: readonly Certificate[]; onSaved: () => void }) {
  const form = useForm(
    HOSTING_FIELDS,
    { paths: { 'options.hostnames': 'hostnames', 'options.pathPrefix': 'pathPrefix', 'options.targetPort': 'targetPort', 'options.tls': 'tls', 'options.bind': 'bind', 'options.ports': 'ports' } },
    hosting ? shownOf(hosting) : {},
  );
  const certificateChoices: Choice[] = [
    { value: '', label: 'None: use the TLS setting' },
    ...certificates.map((certificate) => ({ value: certificate.id, label: `${certificate.name} (${certificate.names.join(', ')})` })),
  ];
  const remove = useForm([]);
  const [unchanged, setUnchanged] = useState(false);
  const composeOwned = hosting?.metadata?.composeOwned === true;
  const label = hosting ? labelOf(hosting) : 'new hosting';
  const save = form.onSubmit(async (values, edited) => {
    setUnchanged(false);
    const routing = routingFrom(values);
    if (!hosting) {
      await hostingApi.create({
        serviceId,
        name: values.name || null,
        description: values.description?.trim() || null,
        tlsId: values.tlsId || null,
        options: withEntries(null, routing),
      });
      form.formRef.current?.reset();
      return onSaved();
    }
    const editedRouting = Object.fromEntries(Object.entries(routing).filter(([key]) => key in edited));
    const changes = {
      ...('name' in edited ? { name: values.name || null } : {}),
      ...('description' in edited ? { description: values.description?.trim() || null } : {}),
      ...('tlsId' in edited ? { tlsId: values.tlsId || null } : {}),
      ...(isUnchanged(editedRouting) ? {} : { options: withEntries(hosting.options, editedRouting) }),
    };
    if (isUnchanged(changes)) return setUnchanged(true);
    await hostingApi.update(hosting.id, changes);
    onSaved();
  });
  const drop = remove.onSubmit(async () => {
    await hostingApi.remove(hosting!.id);
    onSaved();
  });
  return (
    <>
      <form ref={form.formRef} onSubmit={save} noValidate class="stack" aria-label={hosting ? `Hosting ${label}` : 'Add a hosting'}>
        {composeOwned && <span class="badge">From Compose</span>}
        <div class="grid-2">
          <Field {...form.fieldProps('name')} label={`Name of ${label}`} />
          <Field {...form.fieldProps('description')} label={`Description of ${label}`} />
          <Field {...form.fieldProps('hostnames')} label={`Hostnames of ${label}`} hint="Separated by spaces or commas." spellcheck={false} />
          <Field {...form.fieldProps('pathPrefix')} label={`Path prefix of ${label}`} hint="Starts with /." spellcheck={false} />
          <Field {...form.fieldProps('targetPort')} label={`Target port of ${label}`} inputMode="numeric" />
          <SelectField {...form.fieldProps('protocol')} label={`Protocol of ${label}`} choices={PROTOCOL_CHOICES} />
          <SelectField {...form.fieldProps('tls')} label={`TLS of ${label}`} choices={TLS_CHOICES} hint="http only: where certificates come from without one of the library." />
          <SelectField {...form.fieldProps('tlsId')} label={`Certificate of ${label}`} choices={certificateChoices} hint="http only: one of the organization's TLS library." />
          <SelectField {...form.fieldProps('bind')} label={`Bind scope of ${label}`} choices={BIND_CHOICES} hint="Who may reach it: everyone, the datacenter network or the server itself." />
          <Field {...form.fieldProps('ports')} label={`Published ports of ${label}`} hint="tcp and udp only: published:container, e.g. 5432:5432 or 53:53/udp." spellcheck={false} />
        </div>
        <FormAlert problem={form.problem} />
        <div class="row">
          <SubmitButton busy={form.busy} busyLabel="Saving…">
            {hosting ? `Save ${label}` : 'Add hosting'}
          </SubmitButton>
          <span role="status" class="muted">
            {unchanged && !form.busy ? 'Nothing changed.' : ''}
          </span>
        </div>
      </form>
      {hosting && (
        <form ref={remove.formRef} onSubmit={drop}>
          <button type="submit" class="danger" aria-label={`Delete hosting ${label}`}>
            Delete
          </button>
          <FormAlert problem={remove.problem} />
        </form>
      )}
    </>
  );
}

/** A hosting as a member sees it: its routing, without inputs. */
function HostingFacts({ hosting }: { hosting: Hosting }) {
  const options = hosting.options ?? {};
  return (
    <>
      {hosting.metadata?.composeOwned === true && <span class="badge">From Compose</span>}
      <dl class="facts">
        <dt>Name</dt>
        <dd>{hosting.name ?? <span class="muted">None</span>}</dd>
        <dt>Description</dt>
        <dd>{hosting.description ?? <span class="muted">None</span>}</dd>
        <dt>Hostnames</dt>
        <dd>{options.hostnames?.join(' ') || <span class="muted">None</span>}</dd>
        <dt>Path prefix</dt>
        <dd>{options.pathPrefix ?? <span class="muted">None</span>}</dd>
        <dt>Target port</dt>
        <dd>{options.targetPort ?? <span class="muted">Not set</span>}</dd>
        <dt>Protocol</dt>
        <dd>{PROTOCOLS.find(([value]) => value === protocolOf(hosting))?.[1]}</dd>
      </dl>
    </>
  );
}

/**
 * The service's logs, offering its replicas as the environment's live container rows say they are
 * now: a deploy that scales the service, or a replica that exits, shows without a reload.
 */
function ServiceLogs({ serviceId, environmentId }: { serviceId: string; environmentId: string }) {
  const { containers } = useLiveEnvironment(environmentId);
  const replicas = replicaChoices(containers.filter((row) => row.serviceId === serviceId));
  return <LogViewer target={{ serviceId }} replicas={replicas} />;
}
