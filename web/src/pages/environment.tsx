/**
 * An environment: its tags, its server pin, deploy / stop / destroy with the live state of its
 * containers, the deploy preview (compiled file, provenance, warnings), its services with the URLs they answer at, its
 * variables with the ones it inherits, and its settings (rename, describe, delete).
 */
import { useState } from 'preact/hooks';
import { api, type Project } from '../api.ts';
import { useCurrentOrganization } from '../current-organization.ts';
import { ListView, LoadFailed, Loading, useList, useResource } from '../data.tsx';
import { deployApi } from '../deploy-api.ts';
import { DeployControls } from '../environment/deploy-controls.tsx';
import { DeployPreviewSection, PIN_ANCHOR } from '../environment/deploy-preview.tsx';
import { ServerPicker } from '../environment/server-picker.tsx';
import { EntitySettings, useSavedOver } from '../entity-form.tsx';
import { Link, usePageTitle } from '../router.tsx';
import { structureApi } from '../structure-api.ts';
import { type ScopeRef, VariablesSection } from '../variables/variables-section.tsx';
import { Breadcrumbs } from '../breadcrumbs.tsx';
import { ServiceUrls } from './hosting-live.tsx';
import { TagPicker } from './tags.tsx';
import { LogViewer } from '../observe/log-viewer.tsx';
import { MetricsPanel } from '../observe/metrics-panel.tsx';

/** The scopes a resource of `project` inherits from, widest first. */
export function projectAncestors(project: Project): ScopeRef[] {
  return [
    { scope: 'organization', id: project.organizationId, label: 'the organization', href: `/organizations/${project.organizationId}` },
    { scope: 'workspace', id: project.workspaceId, label: 'the workspace', href: `/workspaces/${project.workspaceId}` },
    { scope: 'project', id: project.id, label: `project ${project.name ?? ''}`.trim(), href: `/projects/${project.id}` },
  ];
}

export function EnvironmentPage({ id }: { id: string }) {
  const loaded = useResource(`environment:${id}`, () => deployApi.environments.get(id));
  const [environment, setSaved] = useSavedOver(loaded.data);
  const projectId = environment?.projectId;
  const project = useResource(`project:${projectId ?? ''}`, () => (projectId ? api.projects.get(projectId) : new Promise<never>(() => {})));
  const [previewVersion, setPreviewVersion] = useState(0);
  const preview = useResource(`preview:${id}:${previewVersion}`, () => deployApi.environments.preview(id));
  const services = useList(`services:${id}`, (cursor) => deployApi.services.list({ environmentId: id, cursor }));
  useCurrentOrganization(project.data?.organizationId);
  const name = environment?.name ?? 'Unnamed environment';
  usePageTitle(environment ? `${name} environment` : 'Environment');

  if (loaded.error) return <LoadFailed error={loaded.error} what="the environment" retry={loaded.reload} />;
  if (project.error) return <LoadFailed error={project.error} what="the project" retry={project.reload} />;
  if (!environment || !project.data) return <Loading what="the environment" />;
  const refreshPreview = () => setPreviewVersion((n) => n + 1);
  const projectName = project.data.name ?? 'Unnamed project';
  const serviceNames = Object.fromEntries((services.data ?? []).map((service) => [service.id, service.name]));

  return (
    <>
      <Breadcrumbs
        items={[
          { label: 'Workspace', href: `/workspaces/${project.data.workspaceId}` },
          { label: projectName, href: `/projects/${project.data.id}` },
          { label: name },
        ]}
      />
      <h1 tabIndex={-1}>{name}</h1>
      <TagPicker taggable="environments" id={id} organizationId={project.data.organizationId} />
      {environment.description && <p class="lead">{environment.description}</p>}
      <section aria-labelledby="placement-heading">
        <h2 id="placement-heading">Placement</h2>
        <ServerPicker
          id={PIN_ANCHOR}
          organizationId={project.data.organizationId}
          label="Server pin"
          emptyLabel="No pin: use the project's default server"
          hint="The anchor of this environment's deploys: services without deploy.replicas or deploy.placement run here; those with them may also run on the organization's other connected servers. Without a pin, the project's default server is the anchor."
          value={environment.serverId}
          onSave={async (serverId) => {
            await deployApi.environments.pin(id, serverId);
            refreshPreview();
          }}
        />
      </section>
      <DeployControls environmentId={id} organizationId={project.data.organizationId} onDeployed={refreshPreview} />
      <LogViewer target={{ environmentId: id }} serviceNames={serviceNames} />
      <MetricsPanel target={{ environmentId: id }} kind="containers" serviceNames={serviceNames} />
      <DeployPreviewSection preview={{ ...preview, reload: refreshPreview }} organizationId={project.data.organizationId} />
      <section aria-labelledby="services-heading">
        <h2 id="services-heading">Services</h2>
        <ListView list={services} what="services" empty="No services yet: add them to the Compose file on the project page.">
          {(items) => (
            <ul class="cards">
              {items.map((service) => (
                <li key={service.id} class="card">
                  <Link href={`/services/${service.id}`}>{service.name}</Link>
                  {service.name !== service.composeServiceName && <p class="muted">Compose key {service.composeServiceName}</p>}
                  <ServiceUrls serviceId={service.id} name={service.name} />
                </li>
              ))}
            </ul>
          )}
        </ListView>
      </section>
      <VariablesSection organizationId={project.data.organizationId} scope={{ scope: 'environment', id, label: `environment ${name}` }} ancestors={projectAncestors(project.data)} />
      <EntitySettings
        key={id}
        what="environment"
        entity={environment}
        organizationId={project.data.organizationId}
        save={(changes) => structureApi.environments.update(id, changes)}
        onSaved={setSaved}
        remove={() => structureApi.environments.remove(id)}
        consequence="Its deployment history, variables and tags go with it. An environment that still has services cannot be deleted."
        parentHref={`/projects/${project.data.id}`}
      />
    </>
  );
}
