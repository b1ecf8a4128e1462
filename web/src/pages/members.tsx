/**
 * The members and invitations sections of the organization settings page. Owners list the
 * members, change their roles and remove them (the API keeps the last owner); admins and owners
 * invite an e-mail with a role up to their own, see the acceptance link once, and revoke pending
 * invitations. Everyone else is told who can.
 */
import { useState } from 'preact/hooks';
import { ConfirmDialog, CopyableCommand } from '../confirm-dialog.tsx';
import { ListView, useList } from '../data.tsx';
import { Field, FormAlert, SelectField, SubmitButton, useForm } from '../forms.tsx';
import { hasRole, type Invitation, invitationLink, type Membership, organizationApi, ROLES, type Role } from '../organization-api.ts';

const ROLE_LABELS: Record<Role, string> = { owner: 'Owner', admin: 'Admin', member: 'Member' };

const nameOf = (membership: Membership) => membership.displayName ?? membership.email;

interface MembersSectionProps {
  organizationId: string;
  role: Role | undefined;
  currentUserId: string;
  /** The caller changed their own role: what they may do here changed with it. */
  onOwnRoleChanged: () => void;
}

export function MembersSection({ organizationId, role, currentUserId, onOwnRoleChanged }: MembersSectionProps) {
  return (
    <section aria-labelledby="members-heading">
      <h2 id="members-heading">Members</h2>
      {role === 'owner' ? (
        <MemberList organizationId={organizationId} currentUserId={currentUserId} onOwnRoleChanged={onOwnRoleChanged} />
      ) : (
        <p class="muted">Only owners see and manage the members of this organization.</p>
      )}
    </section>
  );
}

function MemberList({ organizationId, currentUserId, onOwnRoleChanged }: Omit<MembersSectionProps, 'role'>) {
  const members = useList(`memberships:${organizationId}`, (cursor) => organizationApi.memberships.list({ organizationId, cursor }));
  const [removing, setRemoving] = useState<Membership | null>(null);
  return (
    <>
      <ListView list={members} what="members" empty="This organization has no members.">
        {(items) => (
          <ul class="rows" aria-label="Members">
            {items.map((membership) => (
              <MemberRow
                // Keyed by role too: the role picker starts again from the saved role.
                key={`${membership.id}:${membership.role}`}
                membership={membership}
                isYou={membership.userId === currentUserId}
                onRoleChanged={() => {
                  members.reload();
                  if (membership.userId === currentUserId) onOwnRoleChanged();
                }}
                onRemove={() => setRemoving(membership)}
              />
            ))}
          </ul>
        )}
      </ListView>
      {removing && (
        <ConfirmDialog
          title={`Remove ${nameOf(removing)}?`}
          confirmLabel="Remove member"
          onClose={() => setRemoving(null)}
          onConfirm={async () => {
            await organizationApi.memberships.remove(removing.id);
            // Removing yourself ends your access here: start again from your other organizations.
            if (removing.userId === currentUserId) location.assign('/');
            else members.reload();
          }}
        >
          <p>
            {removing.email} loses access to this organization at once, and their API tokens for it are deleted. An invitation brings them back.
          </p>
        </ConfirmDialog>
      )}
    </>
  );
}

interface MemberRowProps {
  membership: Membership;
  isYou: boolean;
  onRoleChanged: () => void;
  onRemove: () => void;
}

function MemberRow({ membership, isYou, onRoleChanged, onRemove }: MemberRowProps) {
  const form = useForm(['role'], { codes: { last_owner: 'role', forbidden: 'role' } });
  const save = form.onSubmit(async (values) => {
    await organizationApi.memberships.changeRole(membership.id, values.role as Role);
    onRoleChanged();
  });
  const name = nameOf(membership);
  const role = form.fieldProps('role');
  return (
    <li class="row-item member-row">
      <span>
        <strong>{name}</strong>
        {isYou && <span class="badge">You</span>}
        {membership.displayName && <span class="muted"> {membership.email}</span>}
      </span>
      <form ref={form.formRef} onSubmit={save} noValidate class="inline-form" aria-label={`Change the role of ${membership.email}`}>
        <SelectField {...role} label={`Role of ${membership.email}`} choices={roleChoices(ROLES)} selected={membership.role} />
        <SubmitButton busy={form.busy} busyLabel="Saving…">
          Save role
        </SubmitButton>
      </form>
      <button type="button" class="danger" onClick={onRemove} aria-label={`Remove ${membership.email}`}>
        Remove
      </button>
      <FormAlert problem={form.problem} />
    </li>
  );
}

const roleChoices = (roles: readonly Role[]) => roles.map((role) => ({ value: role, label: ROLE_LABELS[role] }));

export function InvitationsSection({ organizationId, role }: { organizationId: string; role: Role | undefined }) {
  return (
    <section aria-labelledby="invitations-heading">
      <h2 id="invitations-heading">Invitations</h2>
      {role && hasRole(role, 'admin') ? (
        <Invitations organizationId={organizationId} role={role} />
      ) : (
        <p class="muted">Only admins and owners invite people to this organization.</p>
      )}
    </section>
  );
}

function Invitations({ organizationId, role }: { organizationId: string; role: Role }) {
  const invitations = useList(`invitations:${organizationId}`, (cursor) => organizationApi.invitations.list({ organizationId, cursor }));
  const [created, setCreated] = useState<(Invitation & { token: string }) | null>(null);
  const [revoking, setRevoking] = useState<Invitation | null>(null);
  const form = useForm(['email', 'role'], { codes: { forbidden: 'role' } });
  const invite = form.onSubmit(async (values) => {
    setCreated(null);
    setCreated(await organizationApi.invitations.create({ organizationId, email: values.email ?? '', role: values.role as Role }));
    form.formRef.current?.reset();
    invitations.reload();
  });
  const grantable = ROLES.filter((candidate) => hasRole(role, candidate));
  return (
    <>
      {created && <InvitationLink invitation={created} onDone={() => setCreated(null)} />}
      <form ref={form.formRef} onSubmit={invite} noValidate class="card settings-form" aria-label="Invite someone">
        <div class="grid-2">
          <Field {...form.fieldProps('email')} label="E-mail to invite" type="email" autoComplete="off" spellcheck={false} required />
          <SelectField {...form.fieldProps('role')} label="Role of the new member" choices={roleChoices(grantable)} selected="member" />
        </div>
        <p class="field-hint">You can invite with a role up to your own ({ROLE_LABELS[role].toLowerCase()}). The link works for a week.</p>
        <FormAlert problem={form.problem} />
        <SubmitButton busy={form.busy} busyLabel="Inviting…">
          Invite
        </SubmitButton>
      </form>
      <h3>Pending invitations</h3>
      <ListView list={invitations} what="invitations" empty="No pending invitations.">
        {(items) => (
          <ul class="rows" aria-label="Pending invitations">
            {items.map((invitation) => (
              <li key={invitation.id} class="row-item">
                <span>
                  <strong>{invitation.email}</strong> · {ROLE_LABELS[invitation.role]} · expires {new Date(invitation.expiresAt).toLocaleString()}
                </span>
                {hasRole(role, invitation.role) ? (
                  <button type="button" class="danger" onClick={() => setRevoking(invitation)} aria-label={`Revoke the invitation for ${invitation.email}`}>
                    Revoke
                  </button>
                ) : (
                  <span class="muted">Only owners revoke it.</span>
                )}
              </li>
            ))}
          </ul>
        )}
      </ListView>
      {revoking && (
        <ConfirmDialog
          title={`Revoke the invitation for ${revoking.email}?`}
          confirmLabel="Revoke invitation"
          onClose={() => setRevoking(null)}
          onConfirm={async () => {
            await organizationApi.invitations.revoke(revoking.id);
            if (created?.id === revoking.id) setCreated(null);
            invitations.reload();
          }}
        >
          <p>The link sent to {revoking.email} stops working. You can invite them again later.</p>
        </ConfirmDialog>
      )}
    </>
  );
}

function InvitationLink({ invitation, onDone }: { invitation: Invitation & { token: string }; onDone: () => void }) {
  return (
    <div class="card stack shown-once" role="region" aria-label={`Invitation link for ${invitation.email}`}>
      <h3>Invitation link for {invitation.email}</h3>
      <p>
        Send this link to {invitation.email}: opening it lets them join as {ROLE_LABELS[invitation.role].toLowerCase()}, once, until{' '}
        {new Date(invitation.expiresAt).toLocaleString()}. Panel shows it only now.
      </p>
      <CopyableCommand text={invitationLink(invitation.token)} label="Invitation link" />
      <button type="button" onClick={onDone}>
        Done
      </button>
    </div>
  );
}
