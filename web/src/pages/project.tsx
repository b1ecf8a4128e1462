/**
 * A project: its environments (and a form creating more), its Compose documents (editor with
 * the merged preview), its variables and its settings (rename, describe, delete).
 */
import { api } from '../api.ts';
import { ComposeEditorHost } from '../compose/host.tsx';
import { useCurrentOrganization } from '../current-organization.ts';
import { ListView, LoadFailed, Loading, useList, useResource } from '../data.tsx';
import { deployApi } from '../deploy-api.ts';
import { CreateForm, EntitySettings, useSavedOver } from '../entity-form.tsx';
import { ServerPicker } from '../environment/server-picker.tsx';
import { Link, usePageTitle } from '../router.tsx';
import { structureApi } from '../structure-api.ts';
import { VariablesSection } from '../variables/variables-section.tsx';
import { Breadcrumbs } from '../breadcrumbs.tsx';
import { projectAncestors } from './environment.tsx';
import { TagPicker } from './tags.tsx';

/**
 * Where an environment deploys, by server name (never an id): its pin, else the project default.
 * `nameOf` answers undefined while the servers load and null for a server that is gone.
 */
function placementText(pin: string | null, projectDefault: string | null, nameOf: (serverId: string) => string | null | undefined): string {
  const describe = (serverId: string) => {
    const name = nameOf(serverId);
    return name === undefined ? 'a server' : name === null ? 'a server that no longer exists' : name;
  };
  if (pin) return `Pinned to ${describe(pin)}`;
  if (projectDefault) return `Deploys to the project default server, ${describe(projectDefault)}`;
  return 'No server yet: choose the project default server below, or pin one on the environment';
}

export function ProjectPage({ id }: { id: string }) {
  const loaded = useResource(`project:${id}`, () => api.projects.get(id));
  const [project, setSaved] = useSavedOver(loaded.data);
  const environments = useList(`environments:${id}`, (cursor) => api.environments.list({ projectId: id, cursor }));
  const organizationId = loaded.data?.organizationId;
  const servers = useList(`servers:${organizationId ?? ''}`, (cursor) =>
    organizationId ? deployApi.servers.list({ organizationId, cursor }) : new Promise<never>(() => {}),
  );
  const serverName = (serverId: string) => (servers.data ? (servers.data.find((server) => server.id === serverId)?.name ?? null) : undefined);
  useCurrentOrganization(project?.organizationId);
  const name = project?.name ?? 'Unnamed project';
  usePageTitle(project ? name : 'Project');

  if (loaded.error) return <LoadFailed error={loaded.error} what="the project" retry={loaded.reload} />;
  if (!project) return <Loading what="the project" />;
  const environmentsSettled = environments.data !== undefined || environments.error !== undefined;
  const isPlatform = project.component !== null;
  const workspaceHref = `/workspaces/${project.workspaceId}`;
  const defaultServerId = typeof project.options?.defaultServerId === 'string' ? project.options.defaultServerId : null;
  return (
    <>
      <Breadcrumbs items={[{ label: 'Workspace', href: workspaceHref }, { label: name }]} />
      <h1 tabIndex={-1}>{name}</h1>
      <TagPicker taggable="projects" id={id} organizationId={project.organizationId} />
      {project.description && <p class="lead">{project.description}</p>}
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
                  <p class="muted">{placementText(environment.serverId, defaultServerId, serverName)}</p>
                </li>
              ))}
            </ul>
          )}
        </ListView>
        {!isPlatform && (
          <CreateForm what="environment" organizationId={project.organizationId} create={(fields) => structureApi.environments.create({ projectId: id, ...fields })} />
        )}
      </section>
      <section aria-labelledby="default-server-heading">
        <h2 id="default-server-heading">Default server</h2>
        <ServerPicker
          id="project-default-server"
          organizationId={project.organizationId}
          label="Default server"
          emptyLabel="No default server"
          hint="The anchor of environments without a server pin: their services without deploy.replicas or deploy.placement run here."
          value={defaultServerId}
          onSave={async (serverId) => void (await deployApi.projects.setDefaultServer(project, serverId))}
        />
      </section>
      {environmentsSettled ? (
        <ComposeEditorHost key={id} project={project} environments={environments.data ?? []} />
      ) : (
        <Loading what="the Compose documents" />
      )}
      <VariablesSection organizationId={project.organizationId} scope={{ scope: 'project', id, label: `project ${name}` }} ancestors={projectAncestors(project).slice(0, 2)} />
      {isPlatform ? (
        <p class="notice">This is a platform project: Panel manages it, so it cannot be renamed or deleted here.</p>
      ) : (
        <EntitySettings
          key={id}
          what="project"
          entity={project}
          organizationId={project.organizationId}
          save={(changes) => structureApi.projects.update(id, changes)}
          onSaved={setSaved}
          remove={() => structureApi.projects.remove(id)}
          consequence="Its variables, principals and tags go with it. A project that still has environments cannot be deleted: delete them first."
          parentHref={workspaceHref}
        />
      )}
    </>
  );
}
