/**
 * Administration (superadmins only): every organization of this Panel, and whether it may use
 * host access on this control plane's own server. That needs the organization owner's opt-in
 * (its settings page) and this grant (docs/SECURITY.md): host access here is root over Panel
 * itself, so no owner can give it alone.
 */
import { useState } from 'preact/hooks';
import type { Organization } from '../api.ts';
import { ListView, useList } from '../data.tsx';
import { FormAlert, SubmitButton, useForm } from '../forms.tsx';
import { adminApi } from '../organization-api.ts';
import { useSession } from '../role.tsx';
import { Link, usePageTitle } from '../router.tsx';

export function AdministrationPage() {
  usePageTitle('Administration');
  const { session } = useSession();
  const organizations = useList('admin-organizations', (cursor) => adminApi.organizations({ cursor }));
  if (!session.user.isSuperadmin) {
    return (
      <>
        <h1 tabIndex={-1}>Administration</h1>
        <p>Only a superadmin of this Panel manages its organizations.</p>
      </>
    );
  }
  return (
    <>
      <h1 tabIndex={-1}>Administration</h1>
      <section aria-labelledby="local-host-access-heading">
        <h2 id="local-host-access-heading">Host access on this server</h2>
        <p class="field-hint">
          Host access lets an organization's Compose files use privileged mode, host paths and the Docker socket. On its own servers its owner allows it; on
          this server, which runs Panel, it is root over Panel and every organization, so it also needs your grant here.
        </p>
        <ListView list={organizations} what="the organizations" empty="There are no organizations.">
          {(items) => (
            <ul class="rows">
              {items.map((organization) => (
                <LocalHostAccessRow key={organization.id} organization={organization} />
              ))}
            </ul>
          )}
        </ListView>
      </section>
    </>
  );
}

function LocalHostAccessRow({ organization }: { organization: Organization }) {
  const [current, setCurrent] = useState(organization);
  const form = useForm([]);
  const allowed = current.isLocalHostAccessAllowed;
  const toggle = form.onSubmit(async () => setCurrent(await adminApi.setLocalHostAccess(current.id, !allowed)));
  const ownerSays = current.isHostAccessAllowed ? 'its owner allows host access' : 'its owner does not allow host access';
  const effective = allowed && current.isHostAccessAllowed ? 'Host access on this server: yes.' : 'Host access on this server: no.';
  return (
    <li class="row-item">
      <div>
        <Link href={`/organizations/${current.id}/settings`}>{current.name}</Link>
        <p class="muted">
          {effective} Your grant: {allowed ? 'given' : 'not given'}; {ownerSays}.
        </p>
      </div>
      <form ref={form.formRef} onSubmit={toggle} noValidate aria-label={`Host access on this server for ${current.name}`}>
        <FormAlert problem={form.problem} />
        <SubmitButton busy={form.busy} busyLabel="Saving…">
          {allowed ? `Withdraw the grant from ${current.name}` : `Grant ${current.name} host access on this server`}
        </SubmitButton>
      </form>
    </li>
  );
}
