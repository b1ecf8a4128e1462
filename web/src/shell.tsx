/**
 * The signed-in frame: a top bar (organization switcher, account, sign-out), the workspace
 * navigation of the current organization, and the page the path names. Pages tell the shell
 * which organization they belong to (current-organization.ts).
 */
import type { JSX } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { api, type Organization, type SessionSummary } from './api.ts';
import { CurrentOrganization } from './current-organization.ts';
import { ComposeEditorHost } from './compose/host.tsx';
import { whenIdle } from './lazy.tsx';
import { ListView, useList } from './data.tsx';
import { FormAlert, useForm } from './forms.tsx';
import { LeaveDialog } from './leave-dialog.tsx';
import { leaveThen } from './leave-guard.ts';
import { OrganizationPage, WorkspacePage } from './pages/browse.tsx';
import { ProjectPage } from './pages/project.tsx';
import { EnvironmentPage } from './pages/environment.tsx';
import { ServersPage } from './pages/servers.tsx';
import { FabricPage } from './pages/fabric.tsx';
import { ServicePage } from './pages/service.tsx';
import { AccountPage } from './pages/account.tsx';
import { AdministrationPage } from './pages/administration.tsx';
import { OrganizationTagsPage } from './pages/tags.tsx';
import { PrincipalsPage } from './pages/principals.tsx';
import { ManagedPage } from './pages/managed.tsx';
import { OrganizationSettingsPage } from './pages/organization-settings.tsx';
import { ORGANIZATIONS_CHANGED_EVENT } from './organization-api.ts';
import { Link, matchPath, navigate, usePageTitle, usePath } from './router.tsx';
import { SessionContext, useSessionState } from './role.tsx';
import { useStructureChanged } from './structure-api.ts';

const ROUTES: [pattern: string, page: (id: string) => JSX.Element][] = [
  ['/organizations/:id', (id) => <OrganizationPage id={id} />],
  ['/workspaces/:id', (id) => <WorkspacePage id={id} />],
  ['/projects/:id', (id) => <ProjectPage id={id} />],
  ['/environments/:id', (id) => <EnvironmentPage id={id} />],
  ['/services/:id', (id) => <ServicePage id={id} />],
  ['/organizations/:id/servers', (id) => <ServersPage organizationId={id} />],
  ['/organizations/:id/fabric', (id) => <FabricPage organizationId={id} />],
  ['/organizations/:id/tags', (id) => <OrganizationTagsPage id={id} />],
  ['/organizations/:id/principals', (id) => <PrincipalsPage organizationId={id} />],
  ['/organizations/:id/managed', (id) => <ManagedPage organizationId={id} />],
  ['/organizations/:id/settings', (id) => <OrganizationSettingsPage id={id} />],
];

function pageFor(path: string, organizations: Organization[] | undefined) {
  for (const [pattern, page] of ROUTES) {
    const params = matchPath(pattern, path);
    if (params) return page(params.id!);
  }
  if (path === '/account') return <AccountPage />;
  if (path === '/admin') return <AdministrationPage />;
  if (path === '/') return <Home organizations={organizations} />;
  return <NotFound />;
}

type ShellProps = { session: SessionSummary; onSignedOut: () => void };

/** Pages read the caller's role in an organization from the session (role.tsx). */
export function Shell({ session, onSignedOut }: ShellProps) {
  const sessionState = useSessionState(session);
  return (
    <SessionContext.Provider value={sessionState}>
      <ShellFrame session={sessionState.session} onSignedOut={onSignedOut} />
    </SessionContext.Provider>
  );
}

function ShellFrame({ session, onSignedOut }: ShellProps) {
  const path = usePath();
  const organizations = useList('organizations', (cursor) => api.organizations.list({ cursor }));
  const [chosen, setChosen] = useState<string | null>(null);
  const current = chosen ?? organizations.data?.[0]?.id;
  useEffect(() => whenIdle(ComposeEditorHost.preload), []);
  useEffect(() => {
    window.addEventListener(ORGANIZATIONS_CHANGED_EVENT, organizations.reload);
    return () => window.removeEventListener(ORGANIZATIONS_CHANGED_EVENT, organizations.reload);
  }, []);

  return (
    <CurrentOrganization.Provider value={setChosen}>
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <header class="topbar">
        <Link class="brand" href="/">
          Panel
        </Link>
        <OrganizationSwitcher organizations={organizations.data} current={current} />
        <div class="account">
          {session.user.isSuperadmin && (
            <Link href="/admin" aria-current={path === '/admin' ? 'page' : undefined}>
              Administration
            </Link>
          )}
          <Link href="/account" title={`Your account (${session.user.email})`} aria-current={path === '/account' ? 'page' : undefined}>
            {session.user.displayName ?? session.user.email}
          </Link>
          <SignOut onSignedOut={onSignedOut} />
        </div>
      </header>
      <div class="layout">
        <nav class="sidebar" aria-label="Workspaces">
          <h2 class="sidebar-title">Workspaces</h2>
          {current && <WorkspaceNav organizationId={current} path={path} />}
          {current && (
            <Link class="sidebar-link" href={`/organizations/${current}/servers`} aria-current={path === `/organizations/${current}/servers` ? 'page' : undefined}>
              Servers
            </Link>
          )}
          {current && (
            <Link class="sidebar-link" href={`/organizations/${current}/fabric`} aria-current={path === `/organizations/${current}/fabric` ? 'page' : undefined}>
              Overlay fabric
            </Link>
          )}
          {current && (
            <Link class="sidebar-link" href={`/organizations/${current}/tags`} aria-current={path === `/organizations/${current}/tags` ? 'page' : undefined}>
              Tags
            </Link>
          )}
          {current && (
            <Link class="sidebar-link" href={`/organizations/${current}/principals`} aria-current={path === `/organizations/${current}/principals` ? 'page' : undefined}>
              Principals
            </Link>
          )}
          {current && (
            <Link class="sidebar-link" href={`/organizations/${current}/managed`} aria-current={path === `/organizations/${current}/managed` ? 'page' : undefined}>
              Managed databases
            </Link>
          )}
          {current && (
            <Link class="sidebar-link" href={`/organizations/${current}/settings`} aria-current={path === `/organizations/${current}/settings` ? 'page' : undefined}>
              Settings
            </Link>
          )}
        </nav>
        <main id="main" tabIndex={-1}>
          {pageFor(path, organizations.data)}
        </main>
      </div>
      <LeaveDialog />
    </CurrentOrganization.Provider>
  );
}

function OrganizationSwitcher({ organizations, current }: { organizations: Organization[] | undefined; current: string | undefined }) {
  if (!organizations || organizations.length === 0) return null;
  return (
    <div class="switcher">
      <label for="organization-switcher">Organization</label>
      <select
        id="organization-switcher"
        value={current}
        onChange={(event) => {
          const select = event.currentTarget;
          navigate(`/organizations/${select.value}`);
          // Shows the organization on screen until a navigation (maybe asked about first) changes it.
          select.value = current ?? '';
        }}
      >
        {organizations.map((organization) => (
          <option key={organization.id} value={organization.id}>
            {organization.name}
          </option>
        ))}
      </select>
    </div>
  );
}

function WorkspaceNav({ organizationId, path }: { organizationId: string; path: string }) {
  const workspaces = useList(`workspaces:${organizationId}`, (cursor) => api.workspaces.list({ organizationId, cursor }));
  useStructureChanged('workspace', workspaces.reload);
  return (
    <ListView list={workspaces} what="workspaces" empty="No workspaces yet.">
      {(items) => (
        <ul class="nav-list">
          {items.map((workspace) => {
            const href = `/workspaces/${workspace.id}`;
            return (
              <li key={workspace.id}>
                <Link href={href} aria-current={path === href ? 'page' : undefined}>
                  {workspace.name ?? 'Unnamed workspace'}
                </Link>
              </li>
            );
          })}
        </ul>
      )}
    </ListView>
  );
}

function SignOut({ onSignedOut }: { onSignedOut: () => void }) {
  const form = useForm([]);
  const signOut = form.onSubmit(async () => {
    await api.auth.signOut();
    onSignedOut();
  });
  // Signing out leaves the page too: unsaved work asks first.
  const submit = (event: Event) => {
    event.preventDefault();
    leaveThen(() => void signOut(event));
  };
  return (
    <form ref={form.formRef} onSubmit={submit} class="sign-out">
      <button type="submit" aria-busy={form.busy ? 'true' : undefined}>
        {form.busy ? 'Signing out…' : 'Sign out'}
      </button>
      <FormAlert problem={form.problem} />
    </form>
  );
}

/** `/` goes to the first organization; a user without one is told so. */
function Home({ organizations }: { organizations: Organization[] | undefined }) {
  usePageTitle('Home');
  const first = organizations?.[0];
  useEffect(() => {
    if (first) navigate(`/organizations/${first.id}`, { replace: true });
  }, [first?.id]);
  return (
    <>
      <h1 tabIndex={-1}>Welcome to Panel</h1>
      {organizations?.length === 0 && <p>You are not a member of any organization yet. Ask an administrator for an invitation.</p>}
    </>
  );
}

function NotFound() {
  usePageTitle('Page not found');
  return (
    <>
      <h1 tabIndex={-1}>Page not found</h1>
      <p>
        There is nothing at this address. <Link href="/">Go to your organization</Link>.
      </p>
    </>
  );
}
