/**
 * Browsing the resource tree: an organization lists its workspaces, a workspace its projects.
 * Each list follows the API's {data, nextCursor} envelope ("Show more" loads the next page).
 */
import { api } from '../api.ts';
import { useCurrentOrganization } from '../current-organization.ts';
import { ListView, LoadFailed, Loading, useList, useResource } from '../data.tsx';
import { Link, usePageTitle } from '../router.tsx';
import { TaggedProjectCards } from './tags.tsx';
import { VariablesSection } from '../variables/variables-section.tsx';

export interface Crumb {
  label: string;
  href?: string;
}

export function Breadcrumbs({ items }: { items: Crumb[] }) {
  return (
    <nav aria-label="Breadcrumb" class="breadcrumbs">
      <ol>
        {items.map((item) => (
          <li key={item.label}>{item.href ? <Link href={item.href}>{item.label}</Link> : <span aria-current="page">{item.label}</span>}</li>
        ))}
      </ol>
    </nav>
  );
}

export function OrganizationPage({ id }: { id: string }) {
  const organization = useResource(`organization:${id}`, () => api.organizations.get(id));
  const workspaces = useList(`workspaces:${id}`, (cursor) => api.workspaces.list({ organizationId: id, cursor }));
  useCurrentOrganization(id);
  usePageTitle(organization.data?.name ?? 'Organization');

  if (organization.error) return <LoadFailed error={organization.error} what="the organization" retry={organization.reload} />;
  if (!organization.data) return <Loading what="the organization" />;
  return (
    <>
      <h1 tabIndex={-1}>{organization.data.name}</h1>
      <section aria-labelledby="workspaces-heading">
        <h2 id="workspaces-heading">Workspaces</h2>
        <ListView list={workspaces} what="workspaces" empty="This organization has no workspaces yet.">
          {(items) => (
            <ul class="cards">
              {items.map((workspace) => (
                <li key={workspace.id} class="card">
                  <Link href={`/workspaces/${workspace.id}`}>{workspace.name ?? 'Unnamed workspace'}</Link>
                  {workspace.kind === 'panel' && <span class="badge">Platform</span>}
                  {workspace.description && <p class="muted">{workspace.description}</p>}
                </li>
              ))}
            </ul>
          )}
        </ListView>
      </section>
      <VariablesSection scope={{ scope: 'organization', id, label: `organization ${organization.data.name}` }} ancestors={[]} />
    </>
  );
}

export function WorkspacePage({ id }: { id: string }) {
  const workspace = useResource(`workspace:${id}`, () => api.workspaces.get(id));
  const projects = useList(`projects:${id}`, (cursor) => api.projects.list({ workspaceId: id, cursor }));
  useCurrentOrganization(workspace.data?.organizationId);
  const name = workspace.data?.name ?? 'Unnamed workspace';
  usePageTitle(workspace.data ? name : 'Workspace');

  if (workspace.error) return <LoadFailed error={workspace.error} what="the workspace" retry={workspace.reload} />;
  if (!workspace.data) return <Loading what="the workspace" />;
  return (
    <>
      <Breadcrumbs items={[{ label: 'Organization', href: `/organizations/${workspace.data.organizationId}` }, { label: name }]} />
      <h1 tabIndex={-1}>{name}</h1>
      {workspace.data.description && <p class="lead">{workspace.data.description}</p>}
      <section aria-labelledby="projects-heading">
        <h2 id="projects-heading">Projects</h2>
        <ListView list={projects} what="projects" empty="This workspace has no projects yet.">
          {(items) => <TaggedProjectCards projects={items} organizationId={workspace.data!.organizationId} />}
        </ListView>
      </section>
      <VariablesSection
        scope={{ scope: 'workspace', id, label: `workspace ${name}` }}
        ancestors={[{ scope: 'organization', id: workspace.data.organizationId, label: 'the organization', href: `/organizations/${workspace.data.organizationId}` }]}
      />
    </>
  );
}
