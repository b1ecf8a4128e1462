/**
 * Browsing the resource tree: an organization lists its workspaces (and creates them), a
 * workspace its projects (and creates them) with its tags and settings (rename, describe,
 * delete). Each list follows the API's {data, nextCursor} envelope ("Show more" loads the next
 * page).
 */
import { api, type Workspace } from '../api.ts';
import { Breadcrumbs } from '../breadcrumbs.tsx';
import { useCurrentOrganization } from '../current-organization.ts';
import { ListView, LoadFailed, Loading, useList, useResource } from '../data.tsx';
import { CreateForm, EntitySettings, useSavedOver } from '../entity-form.tsx';
import { SelectField } from '../forms.tsx';
import { Link, usePageTitle } from '../router.tsx';
import { PROJECT_TYPES, type ProjectType, structureApi } from '../structure-api.ts';
import { TaggedProjectCards, TagPicker } from './tags.tsx';
import { VariablesSection } from '../variables/variables-section.tsx';

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
      <p>
        <Link href={`/organizations/${id}/settings`}>Organization settings, members and invitations</Link>
      </p>
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
        <CreateForm what="workspace" organizationId={id} create={(fields) => structureApi.workspaces.create({ organizationId: id, ...fields })} />
      </section>
      <VariablesSection organizationId={id} scope={{ scope: 'organization', id, label: `organization ${organization.data.name}` }} ancestors={[]} />
    </>
  );
}

const PROJECT_TYPE_LABELS: Record<ProjectType, string> = {
  'docker-compose': 'Compose stack',
  managed: 'Managed service',
  template: 'From a template',
};

/** The project's `metadata.type`; left empty, the project's setup is chosen later. */
const PROJECT_TYPE_CHOICES = [{ value: '', label: 'Not chosen yet' }, ...PROJECT_TYPES.map((type) => ({ value: type, label: PROJECT_TYPE_LABELS[type] }))];

function NewProject({ workspace }: { workspace: Workspace }) {
  if (workspace.kind === 'panel') {
    return <p class="muted">The platform workspace holds Panel’s own projects only. Create your projects in another workspace.</p>;
  }
  return (
    <CreateForm
      what="project"
      organizationId={workspace.organizationId}
      extraFields={['type']}
      create={(fields, values) => {
        const type = values.type as ProjectType | '';
        return structureApi.projects.create({ workspaceId: workspace.id, ...fields, ...(type ? { metadata: { type } } : {}) });
      }}
    >
      {(fieldProps) => <SelectField {...fieldProps('type')} label="Type (optional)" choices={PROJECT_TYPE_CHOICES} />}
    </CreateForm>
  );
}

export function WorkspacePage({ id }: { id: string }) {
  const loaded = useResource(`workspace:${id}`, () => api.workspaces.get(id));
  const [workspace, setSaved] = useSavedOver(loaded.data);
  const projects = useList(`projects:${id}`, (cursor) => api.projects.list({ workspaceId: id, cursor }));
  useCurrentOrganization(workspace?.organizationId);
  const name = workspace?.name ?? 'Unnamed workspace';
  usePageTitle(workspace ? name : 'Workspace');

  if (loaded.error) return <LoadFailed error={loaded.error} what="the workspace" retry={loaded.reload} />;
  if (!workspace) return <Loading what="the workspace" />;
  const isPlatform = workspace.kind === 'panel';
  const organizationHref = `/organizations/${workspace.organizationId}`;
  return (
    <>
      <Breadcrumbs items={[{ label: 'Organization', href: organizationHref }, { label: name }]} />
      <h1 tabIndex={-1}>{name}</h1>
      <TagPicker taggable="workspaces" id={id} organizationId={workspace.organizationId} />
      {workspace.description && <p class="lead">{workspace.description}</p>}
      <section aria-labelledby="projects-heading">
        <h2 id="projects-heading">Projects</h2>
        <ListView list={projects} what="projects" empty="This workspace has no projects yet.">
          {(items) => <TaggedProjectCards projects={items} organizationId={workspace.organizationId} />}
        </ListView>
        <NewProject workspace={workspace} />
      </section>
      <VariablesSection
        organizationId={workspace.organizationId}
        scope={{ scope: 'workspace', id, label: `workspace ${name}` }}
        ancestors={[{ scope: 'organization', id: workspace.organizationId, label: 'the organization', href: organizationHref }]}
      />
      <EntitySettings
        key={id}
        what="workspace"
        entity={workspace}
        organizationId={workspace.organizationId}
        fixedName={isPlatform ? `This is the platform workspace: it keeps the name ${name}, which is reserved for it.` : undefined}
        undeletable={isPlatform ? 'The platform workspace cannot be deleted.' : undefined}
        save={(changes) => structureApi.workspaces.update(id, changes)}
        onSaved={setSaved}
        remove={() => structureApi.workspaces.remove(id)}
        consequence="Its variables and tags go with it. A workspace that still holds projects cannot be deleted."
        parentHref={organizationHref}
      />
    </>
  );
}
