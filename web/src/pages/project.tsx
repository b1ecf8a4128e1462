/**
 * A project: its environments and its Compose documents (editor with the merged preview).
 */
import { api } from '../api.ts';
import { ComposeEditorHost } from '../compose/host.tsx';
import { useCurrentOrganization } from '../current-organization.ts';
import { ListView, LoadFailed, Loading, useList, useResource } from '../data.tsx';
import { deployApi } from '../deploy-api.ts';
import { ServerPicker } from '../environment/server-picker.tsx';
import { Link, usePageTitle } from '../router.tsx';
import { VariablesSection } from '../variables/variables-section.tsx';
import { Breadcrumbs } from './browse.tsx';
import { projectAncestors } from './environment.tsx';
import { TagPicker } from './tags.tsx';

export function ProjectPage({ id }: { id: string }) {
  const project = useResource(`project:${id}`, () => api.projects.get(id));
  const environments = useList(`environments:${id}`, (cursor) => api.environments.list({ projectId: id, cursor }));
  useCurrentOrganization(project.data?.organizationId);
  const name = project.data?.name ?? 'Unnamed project';
  usePageTitle(project.data ? name : 'Project');

  if (project.error) return <LoadFailed error={project.error} what="the project" retry={project.reload} />;
  if (!project.data) return <Loading what="the project" />;
  const environmentsSettled = environments.data !== undefined || environments.error !== undefined;
  return (
    <>
      <Breadcrumbs items={[{ label: 'Workspace', href: `/workspaces/${project.data.workspaceId}` }, { label: name }]} />
      <h1 tabIndex={-1}>{name}</h1>
      <TagPicker taggable="projects" id={id} organizationId={project.data.organizationId} />
      {project.data.description && <p class="lead">{project.data.description}</p>}
      <section aria-labelledby="environments-heading">
        <h2 id="environments-heading">Environments</h2>
        <ListView list={environments} what="environments" empty="This project has no environments yet.">
          {(items) => (
            <ul class="cards">
              {items.map((environment) => (
                <li key={environment.id} class="card">
                  <Link href={`/environments/${environment.id}`}>{environment.name ?? 'Unnamed environment'}</Link>
                  <span class="badge">Generation {environment.generation}</span>
                  {environment.description && <p class="muted">{environment.description}</p>}
                  <p class="muted">{environment.serverId ? `Pinned to server ${environment.serverId}` : 'Placed on the project default server'}</p>
                </li>
              ))}
            </ul>
          )}
        </ListView>
      </section>
      <section aria-labelledby="default-server-heading">
        <h2 id="default-server-heading">Default server</h2>
        <ServerPicker
          id="project-default-server"
          organizationId={project.data.organizationId}
          label="Default server"
          emptyLabel="No default server"
          hint="Environments without a server pin deploy here."
          value={typeof project.data.options?.defaultServerId === 'string' ? project.data.options.defaultServerId : null}
          onSave={async (serverId) => void (await deployApi.projects.setDefaultServer(project.data!, serverId))}
        />
      </section>
      {environmentsSettled ? (
        <ComposeEditorHost key={id} project={project.data} environments={environments.data ?? []} />
      ) : (
        <Loading what="the Compose documents" />
      )}
      <VariablesSection scope={{ scope: 'project', id, label: `project ${name}` }} ancestors={projectAncestors(project.data).slice(0, 2)} />
    </>
  );
}
