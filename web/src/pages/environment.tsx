/**
 * An environment: its server pin, deploy / stop / destroy with the live state of its
 * containers, the deploy preview (compiled file, provenance, warnings), its services and its
 * variables with the ones it inherits.
 */
import { useState } from 'preact/hooks';
import { api, type Project } from '../api.ts';
import { useCurrentOrganization } from '../current-organization.ts';
import { ListView, LoadFailed, Loading, useList, useResource } from '../data.tsx';
import { deployApi } from '../deploy-api.ts';
import { DeployControls } from '../environment/deploy-controls.tsx';
import { DeployPreviewSection, PIN_ANCHOR } from '../environment/deploy-preview.tsx';
import { ServerPicker } from '../environment/server-picker.tsx';
import { Link, usePageTitle } from '../router.tsx';
import { type ScopeRef, VariablesSection } from '../variables/variables-section.tsx';
import { Breadcrumbs } from './browse.tsx';

/** The scopes a resource of `project` inherits from, widest first. */
export function projectAncestors(project: Project): ScopeRef[] {
  return [
    { scope: 'organization', id: project.organizationId, label: 'the organization', href: `/organizations/${project.organizationId}` },
    { scope: 'workspace', id: project.workspaceId, label: 'the workspace', href: `/workspaces/${project.workspaceId}` },
    { scope: 'project', id: project.id, label: `project ${project.name ?? ''}`.trim(), href: `/projects/${project.id}` },
  ];
}

export function EnvironmentPage({ id }: { id: string }) {
  const environment = useResource(`environment:${id}`, () => deployApi.environments.get(id));
  const projectId = environment.data?.projectId;
  const project = useResource(`project:${projectId ?? ''}`, () => (projectId ? api.projects.get(projectId) : new Promise<never>(() => {})));
  const [previewVersion, setPreviewVersion] = useState(0);
  const preview = useResource(`preview:${id}:${previewVersion}`, () => deployApi.environments.preview(id));
  const services = useList(`services:${id}`, (cursor) => deployApi.services.list({ environmentId: id, cursor }));
  useCurrentOrganization(project.data?.organizationId);
  const name = environment.data?.name ?? 'Unnamed environment';
  usePageTitle(environment.data ? `${name} environment` : 'Environment');

  if (environment.error) return <LoadFailed error={environment.error} what="the environment" retry={environment.reload} />;
  if (project.error) return <LoadFailed error={project.error} what="the project" retry={project.reload} />;
  if (!environment.data || !project.data) return <Loading what="the environment" />;
  const refreshPreview = () => setPreviewVersion((n) => n + 1);
  const projectName = project.data.name ?? 'Unnamed project';

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
      {environment.data.description && <p class="lead">{environment.data.description}</p>}
      <section aria-labelledby="placement-heading">
        <h2 id="placement-heading">Placement</h2>
        <ServerPicker
          id={PIN_ANCHOR}
          organizationId={project.data.organizationId}
          label="Server pin"
          emptyLabel="No pin: use the project's default server"
          hint="Where this environment deploys. Without a pin, the project's default server is used."
          value={environment.data.serverId}
          onSave={async (serverId) => {
            await deployApi.environments.pin(id, serverId);
            refreshPreview();
          }}
        />
      </section>
      <DeployControls environmentId={id} onDeployed={refreshPreview} />
      <DeployPreviewSection preview={{ ...preview, reload: refreshPreview }} />
      <section aria-labelledby="services-heading">
        <h2 id="services-heading">Services</h2>
        <ListView list={services} what="services" empty="No services yet: add them to the Compose file on the project page.">
          {(items) => (
            <ul class="cards">
              {items.map((service) => (
                <li key={service.id} class="card">
                  <Link href={`/services/${service.id}`}>{service.name}</Link>
                  {service.name !== service.composeServiceName && <p class="muted">Compose key {service.composeServiceName}</p>}
                </li>
              ))}
            </ul>
          )}
        </ListView>
      </section>
      <VariablesSection scope={{ scope: 'environment', id, label: `environment ${name}` }} ancestors={projectAncestors(project.data)} />
    </>
  );
}
