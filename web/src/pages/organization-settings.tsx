/**
 * An organization's settings page: its name and the defaults new projects and principals use
 * (admins and owners), the two opt-ins that hand out power over the servers (owners only), and
 * below them the members and invitations (members.tsx). What the caller's role cannot change is
 * shown read-only with the reason; the role comes from the shell's session (role.tsx). Then TLS
 * (tls-settings.tsx): the organization CA and its download, the ACME opt-in, the TLS library.
 */
import { useEffect, useState } from 'preact/hooks';
import { useCurrentOrganization } from '../current-organization.ts';
import { LoadFailed, Loading, useResource } from '../data.tsx';
import { changedEntries, isUnchanged } from '../changes.ts';
import { CheckField, Field, FormAlert, SubmitButton, useForm } from '../forms.tsx';
import { announceOrganizationsChanged, hasRole, organizationApi, type OrganizationChanges, type OrganizationSettings, type Role } from '../organization-api.ts';
import { useOrganizationRole, useSession } from '../role.tsx';
import { Link, usePageTitle } from '../router.tsx';
import { Breadcrumbs } from '../breadcrumbs.tsx';
import { InvitationsSection, MembersSection } from './members.tsx';
import { AcmeSettings, CertificateAuthoritySection, TlsLibrarySection } from './tls-settings.tsx';

export function OrganizationSettingsPage({ id }: { id: string }) {
  const organization = useResource(`organization-settings:${id}`, () => organizationApi.get(id));
  const { session, refresh: refreshSession } = useSession();
  const role = useOrganizationRole(id);
  // The answer of the last save, so the forms keep their place instead of reloading.
  const [saved, setSaved] = useState<OrganizationSettings | null>(null);
  useCurrentOrganization(id);
  usePageTitle('Organization settings');

  if (organization.error) return <LoadFailed error={organization.error} what="the organization settings" retry={organization.reload} />;
  if (!organization.data) return <Loading what="the organization settings" />;
  const current = saved?.id === id ? saved : organization.data;
  const onSaved = (updated: OrganizationSettings) => {
    setSaved(updated);
    if (updated.name !== current.name) announceOrganizationsChanged();
  };
  return (
    <>
      <Breadcrumbs items={[{ label: current.name, href: `/organizations/${id}` }, { label: 'Settings' }]} />
      <h1 tabIndex={-1}>Organization settings</h1>
      {role && <p class="lead">Your role in {current.name}: {role}.</p>}
      <GeneralSettings organization={current} canEdit={hasRole(role, 'admin')} onSaved={onSaved} />
      <ServerAccessSettings organization={current} canEdit={hasRole(role, 'owner')} onSaved={onSaved} />
      <CertificateAuthoritySection organizationId={id} />
      <AcmeSettings organization={current} canEdit={hasRole(role, 'owner')} onSaved={onSaved} />
      <TlsLibrarySection organizationId={id} canEdit={hasRole(role, 'admin')} />
      <MembersSection organizationId={id} role={role} currentUserId={session.user.id} onOwnRoleChanged={refreshSession} />
      <InvitationsSection organizationId={id} role={role} />
    </>
  );
}

interface SettingsProps {
  organization: OrganizationSettings;
  canEdit: boolean;
  onSaved: (updated: OrganizationSettings) => void;
}

const GENERAL_FIELDS = ['name', 'defaultEnvironmentName', 'isRandomizeUsernames'] as const;

/** After a save: what the status line says (nothing is sent when no field changed). */
type SaveOutcome = 'saved' | 'unchanged' | null;

function GeneralSettings({ organization, canEdit, onSaved }: SettingsProps) {
  const form = useForm(GENERAL_FIELDS, {}, { name: organization.name, defaultEnvironmentName: organization.defaultEnvironmentName });
  const [randomize, setRandomize] = useState(organization.isRandomizeUsernames);
  const [outcome, setOutcome] = useState<SaveOutcome>(null);
  useEffect(() => setRandomize(organization.isRandomizeUsernames), [organization]);

  const save = form.onSubmit(async (values, edited) => {
    setOutcome(null);
    const changes: OrganizationChanges = {
      ...('name' in edited ? { name: values.name ?? '' } : {}),
      ...('defaultEnvironmentName' in edited ? { defaultEnvironmentName: values.defaultEnvironmentName ?? '' } : {}),
      ...changedEntries({ isRandomizeUsernames: randomize }, organization),
    };
    if (!isUnchanged(changes)) onSaved(await organizationApi.update(organization.id, changes));
    setOutcome(isUnchanged(changes) ? 'unchanged' : 'saved');
  });
  return (
    <section aria-labelledby="general-heading">
      <h2 id="general-heading">General</h2>
      <form ref={form.formRef} onSubmit={save} noValidate class="card settings-form" aria-label="General settings">
        <fieldset class="bare" disabled={!canEdit} aria-describedby={canEdit ? undefined : 'general-read-only'}>
          {!canEdit && (
            <p class="field-hint" id="general-read-only">
              Only admins and owners change these.
            </p>
          )}
          <Field {...form.fieldProps('name')} label="Organization name" autoComplete="organization" required />
          <Field
            {...form.fieldProps('defaultEnvironmentName')}
            label="Default environment name"
            hint="The first environment of every new project gets this name. Letters, digits, spaces and . _ / -"
            spellcheck={false}
            required
          />
          <CheckField
            {...form.fieldProps('isRandomizeUsernames')}
            label="Randomize principal usernames"
            hint="New principals get their username plus an underscore and 11 random characters."
            checked={randomize}
            onChange={setRandomize}
          />
          <FormAlert problem={form.problem} />
          <SaveStatus outcome={outcome} saved="Settings saved." />
          {canEdit && (
            <SubmitButton busy={form.busy} busyLabel="Saving…">
              Save settings
            </SubmitButton>
          )}
        </fieldset>
      </form>
    </section>
  );
}

const ACCESS_FIELDS = ['isHostAccessAllowed', 'isDeployHooksEnabled'] as const;

function ServerAccessSettings({ organization, canEdit, onSaved }: SettingsProps) {
  const { session } = useSession();
  const form = useForm(ACCESS_FIELDS);
  const [hostAccess, setHostAccess] = useState(organization.isHostAccessAllowed);
  const [deployHooks, setDeployHooks] = useState(organization.isDeployHooksEnabled);
  const [outcome, setOutcome] = useState<SaveOutcome>(null);
  useEffect(() => {
    setHostAccess(organization.isHostAccessAllowed);
    setDeployHooks(organization.isDeployHooksEnabled);
  }, [organization]);

  const save = form.onSubmit(async () => {
    setOutcome(null);
    const changes = changedEntries({ isHostAccessAllowed: hostAccess, isDeployHooksEnabled: deployHooks }, organization);
    if (!isUnchanged(changes)) onSaved(await organizationApi.update(organization.id, changes));
    setOutcome(isUnchanged(changes) ? 'unchanged' : 'saved');
  });
  return (
    <section aria-labelledby="server-access-heading">
      <h2 id="server-access-heading">Server access</h2>
      <form ref={form.formRef} onSubmit={save} noValidate class="card settings-form" aria-label="Server access settings">
        <fieldset class="bare" disabled={!canEdit} aria-describedby="server-access-explained">
          <p class="field-hint" id="server-access-explained">
            Both hand whoever edits a project power over the organization's servers, so only owners change them.
            {!canEdit && ' Ask an owner.'}
          </p>
          <CheckField
            {...form.fieldProps('isHostAccessAllowed')}
            label="Allow host access in Compose files"
            hint="Root on the servers: privileged mode, host paths and networks, devices, extra capabilities, the Docker socket (see docs/SECURITY.md)."
            checked={hostAccess}
            onChange={setHostAccess}
          />
          <p class="field-hint" data-testid="local-host-access">
            On this server, which runs Panel, host access also needs a superadmin's grant:{' '}
            {organization.isLocalHostAccessAllowed ? 'granted' : 'not granted'}.
            {session.user.isSuperadmin && (
              <>
                {' '}
                <Link href="/admin">Change it in Administration</Link>.
              </>
            )}
          </p>
          <CheckField
            {...form.fieldProps('isDeployHooksEnabled')}
            label="Enable deploy hooks"
            hint="Commands in service options that run at deploy."
            checked={deployHooks}
            onChange={setDeployHooks}
          />
          <FormAlert problem={form.problem} />
          <SaveStatus outcome={outcome} saved="Server access saved." />
          {canEdit && (
            <SubmitButton busy={form.busy} busyLabel="Saving…">
              Save server access
            </SubmitButton>
          )}
        </fieldset>
      </form>
    </section>
  );
}

function SaveStatus({ outcome, saved }: { outcome: SaveOutcome; saved: string }) {
  if (!outcome) return null;
  return (
    <p class="notice" role="status">
      {outcome === 'saved' ? saved : 'Nothing changed: there was nothing to save.'}
    </p>
  );
}
