/**
 * A service: its tags and its hostings (the routing entries: hostnames, path prefix, target
 * port, protocol), created, changed and deleted here. Compose-owned hostings are marked; their
 * routing follows the Compose document. Then the host account it runs as, its database
 * bindings, and its variables (the binding-owned ones read-only). Members of the organization see
 * all of it without the controls that change it.
 */
import type { RefObject } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { hostingApi, type Hosting, type HostingOptions } from '../account-api.ts';
import { api } from '../api.ts';
import { useCurrentOrganization } from '../current-organization.ts';
import { ListView, LoadFailed, Loading, useList, useResource } from '../data.tsx';
import { Field, FormAlert, SubmitButton, useForm } from '../forms.tsx';
import { ReadOnlyNote, useCanWrite } from '../role.tsx';
import { usePageTitle } from '../router.tsx';
import { deployApi } from '../deploy-api.ts';
import { Breadcrumbs } from './browse.tsx';
import { TagPicker } from './tags.tsx';
import { ServiceVariables } from '../variables/service-variables.tsx';
import { RunsAsSection } from './service-tenancy.tsx';
import { DatabaseBindingsSection } from './service-bindings.tsx';
import { LogViewer } from '../observe/log-viewer.tsx';
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
      <LogViewer target={{ serviceId: id }} />
      <MetricsPanel target={{ serviceId: id }} kind="containers" />
      <section aria-labelledby="hostings-heading" class="stack">
        <h2 id="hostings-heading">Hostings</h2>
        <ListView list={hostings} what="hostings" empty="This service has no hostings yet.">
          {(items) => (
            <ul class="rows">
              {items.map((hosting) => (
                <li key={hosting.id} class="card stack">
                  {writable ? <HostingForm serviceId={id} hosting={hosting} onSaved={hostings.reload} /> : <HostingFacts hosting={hosting} />}
                </li>
              ))}
            </ul>
          )}
        </ListView>
        {writable ? (
          <>
            <h3>Add a hosting</h3>
            <HostingForm serviceId={id} onSaved={hostings.reload} />
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

const HOSTING_FIELDS = ['name', 'hostnames', 'pathPrefix', 'targetPort', 'protocol'] as const;
const PROTOCOLS = [
  ['http', 'HTTP'],
  ['tcp', 'TCP'],
  ['udp', 'UDP'],
] as const;

function optionsFrom(values: Record<string, string>): HostingOptions {
  const hostnames = values.hostnames!.split(/[\s,]+/).filter(Boolean);
  return {
    ...(hostnames.length ? { hostnames } : {}),
    ...(values.pathPrefix ? { pathPrefix: values.pathPrefix } : {}),
    ...(values.targetPort ? { targetPort: Number(values.targetPort) } : {}),
    protocol: values.protocol as HostingOptions['protocol'],
  };
}

function HostingForm({ serviceId, hosting, onSaved }: { serviceId: string; hosting?: Hosting; onSaved: () => void }) {
  const form = useForm(HOSTING_FIELDS, { paths: { 'options.hostnames': 'hostnames' } });
  const remove = useForm([]);
  const composeOwned = hosting?.metadata?.composeOwned === true;
  const options = hosting?.options ?? {};
  useHostingDefaults(form.formRef, hosting);
  const label = hosting ? (hosting.name ?? options.hostnames?.[0] ?? 'hosting') : 'new hosting';
  const save = form.onSubmit(async (values) => {
    const body = { name: values.name || null, options: optionsFrom(values) };
    if (hosting) await hostingApi.update(hosting.id, body);
    else {
      await hostingApi.create({ serviceId, ...body });
      form.formRef.current?.reset();
    }
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
          <Field {...form.fieldProps('hostnames')} label={`Hostnames of ${label}`} hint="Separated by spaces or commas." spellcheck={false} />
          <Field {...form.fieldProps('pathPrefix')} label={`Path prefix of ${label}`} hint="Starts with /." spellcheck={false} />
          <Field {...form.fieldProps('targetPort')} label={`Target port of ${label}`} inputMode="numeric" />
        </div>
        <div class="field">
          <label for={`${form.fieldProps('protocol').id}`}>Protocol of {label}</label>
          {/* A select has no defaultValue: the saved protocol is the option marked selected. */}
          <select id={form.fieldProps('protocol').id} name="protocol">
            {PROTOCOLS.map(([value, text]) => (
              <option key={value} value={value} selected={value === (options.protocol ?? hosting?.protocol ?? 'http')}>
                {text}
              </option>
            ))}
          </select>
        </div>
        <FormAlert problem={form.problem} />
        <SubmitButton busy={form.busy} busyLabel="Saving…">
          {hosting ? `Save ${label}` : 'Add hosting'}
        </SubmitButton>
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
        <dt>Hostnames</dt>
        <dd>{options.hostnames?.join(' ') || <span class="muted">None</span>}</dd>
        <dt>Path prefix</dt>
        <dd>{options.pathPrefix ?? <span class="muted">None</span>}</dd>
        <dt>Target port</dt>
        <dd>{options.targetPort ?? <span class="muted">Not set</span>}</dd>
        <dt>Protocol</dt>
        <dd>{PROTOCOLS.find(([value]) => value === (options.protocol ?? hosting.protocol ?? 'http'))?.[1]}</dd>
      </dl>
    </>
  );
}

/** Fills an existing hosting's fields (Field has no value prop: the inputs are uncontrolled). */
function useHostingDefaults(formRef: RefObject<HTMLFormElement | null>, hosting: Hosting | undefined) {
  useEffect(() => {
    const form = formRef.current;
    if (!form || !hosting) return;
    const options = hosting.options ?? {};
    const set = (name: string, value: string | undefined) => {
      const input = form.elements.namedItem(name) as HTMLInputElement | null;
      if (input && value !== undefined) input.value = value;
    };
    set('name', hosting.name ?? undefined);
    set('hostnames', options.hostnames?.join(' '));
    set('pathPrefix', options.pathPrefix);
    set('targetPort', options.targetPort?.toString());
  }, [hosting?.updatedAt]);
}
