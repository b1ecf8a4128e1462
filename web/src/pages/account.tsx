/**
 * The signed-in user's account: password, two-factor sign-in and passkeys
 * (account-security.tsx), API tokens (the token shown once) and the live sessions.
 */
import { useState } from 'preact/hooks';
import { accountApi, type AccountSession, type ApiToken } from '../account-api.ts';
import { api, type SessionSummary } from '../api.ts';
import { ListView, LoadFailed, Loading, useList, useResource } from '../data.tsx';
import { CheckField, Field, FormAlert, SubmitButton, useForm } from '../forms.tsx';
import { usePageTitle } from '../router.tsx';
import { AccountAlert, PasskeysSection, ShownOnce, TotpSection } from './account-security.tsx';

export function AccountPage() {
  usePageTitle('Your account');
  const session = useResource('account-session', () => api.auth.session());
  // Bumped when a password change revoked the API tokens: their list is loaded again.
  const [tokensShown, setTokensShown] = useState(0);
  if (session.error) return <LoadFailed error={session.error} what="your account" retry={session.reload} />;
  if (!session.data) return <Loading what="your account" />;
  const summary = session.data;
  return (
    <>
      <h1 tabIndex={-1}>Your account</h1>
      <p class="lead">{summary.user.email}</p>
      <PasswordSection onApiTokensRevoked={() => setTokensShown((n) => n + 1)} />
      <TotpSection enabled={summary.secondFactors.includes('totp')} onChanged={session.reload} />
      <PasskeysSection />
      <ApiTokensSection key={tokensShown} memberships={summary.memberships} />
      <SessionsSection />
    </>
  );
}

function PasswordSection({ onApiTokensRevoked }: { onApiTokensRevoked: () => void }) {
  const [changed, setChanged] = useState<{ tokensRevoked: boolean } | null>(null);
  const form = useForm(['currentPassword', 'newPassword', 'revokeApiTokens'], { codes: { wrong_password: 'currentPassword' } });
  const change = form.onSubmit(async (values) => {
    const revokeApiTokens = values.revokeApiTokens === 'yes';
    await accountApi.changePassword({ currentPassword: values.currentPassword!, newPassword: values.newPassword!, revokeApiTokens });
    form.formRef.current?.reset();
    setChanged({ tokensRevoked: revokeApiTokens });
    if (revokeApiTokens) onApiTokensRevoked();
  });
  return (
    <section aria-labelledby="password-heading">
      <h2 id="password-heading">Password</h2>
      <form ref={form.formRef} onSubmit={change} noValidate class="card stack">
        <Field {...form.fieldProps('currentPassword')} label="Current password" type="password" autoComplete="current-password" required />
        <Field
          {...form.fieldProps('newPassword')}
          label="New password"
          type="password"
          autoComplete="new-password"
          hint="At least 12 characters, and not your e-mail address. Your other sessions are signed out."
          required
        />
        <CheckField
          {...form.fieldProps('revokeApiTokens')}
          value="yes"
          label="Also revoke every API token I created"
          hint="A password change does not end API tokens: whatever uses them keeps working. Revoke them too if one may have leaked."
        />
        <FormAlert problem={form.problem} />
        {changed && (
          <p class="notice" role="status">
            {changed.tokensRevoked
              ? 'Password changed. Your other sessions are signed out and your API tokens revoked.'
              : 'Password changed. Your other sessions are signed out; your API tokens still work.'}
          </p>
        )}
        <SubmitButton busy={form.busy} busyLabel="Changing…">
          Change password
        </SubmitButton>
      </form>
    </section>
  );
}

function ApiTokensSection({ memberships }: { memberships: SessionSummary['memberships'] }) {
  const [organizationId, setOrganizationId] = useState(memberships[0]?.organizationId ?? '');
  const [created, setCreated] = useState<(ApiToken & { token: string }) | null>(null);
  const tokens = useList(`api-tokens:${organizationId}`, (cursor) =>
    organizationId ? accountApi.apiTokens({ organizationId, cursor }) : Promise.resolve({ data: [], nextCursor: null }),
  );
  const form = useForm(['name', 'role', 'expiresAt']);
  const create = form.onSubmit(async (values) => {
    const expiresAt = values.expiresAt ? new Date(`${values.expiresAt}T23:59:59`).toISOString() : null;
    setCreated(await accountApi.createApiToken({ organizationId, name: values.name!, role: values.role as ApiToken['role'], expiresAt }));
    form.formRef.current?.reset();
    tokens.reload();
  });
  if (memberships.length === 0) return null;
  return (
    <section aria-labelledby="tokens-heading" class="stack">
      <h2 id="tokens-heading">API tokens</h2>
      {memberships.length > 1 && (
        <div class="field">
          <label for="token-organization">Organization of the tokens</label>
          <select id="token-organization" value={organizationId} onChange={(event) => setOrganizationId(event.currentTarget.value)}>
            {memberships.map((membership) => (
              <option key={membership.organizationId} value={membership.organizationId}>
                {membership.organizationName}
              </option>
            ))}
          </select>
        </div>
      )}
      {created && <ShownOnce title={`New API token ${created.name}`} values={[created.token]} onDone={() => setCreated(null)} />}
      <form ref={form.formRef} onSubmit={create} noValidate class="card stack" aria-label="Create an API token">
        <Field {...form.fieldProps('name')} label="Token name" hint="What uses it, e.g. “CI deploys”." required />
        <div class="field">
          <label for="token-role">Role</label>
          <select id="token-role" name="role">
            <option value="member">Member</option>
            <option value="admin">Admin</option>
            <option value="owner">Owner</option>
          </select>
        </div>
        <div class="field">
          <label for="token-expires">Expires on (optional)</label>
          <input id="token-expires" name="expiresAt" type="date" />
        </div>
        <AccountAlert problem={form.problem} />
        <SubmitButton busy={form.busy} busyLabel="Creating…">
          Create API token
        </SubmitButton>
      </form>
      <ListView list={tokens} what="API tokens" empty="No API tokens yet.">
        {(items) => (
          <ul class="rows">
            {items.map((token) => (
              <RevokeRow
                key={token.id}
                label={`${token.name} · ${token.role}${token.expiresAt ? ` · expires ${new Date(token.expiresAt).toLocaleDateString()}` : ''}`}
                action={`Revoke API token ${token.name}`}
                revoke={() => accountApi.revokeApiToken(token.id)}
                onRevoked={tokens.reload}
              />
            ))}
          </ul>
        )}
      </ListView>
    </section>
  );
}

function RevokeRow({ label, action, revoke, onRevoked }: { label: string; action: string; revoke: () => Promise<void>; onRevoked: () => void }) {
  const form = useForm([]);
  const submit = form.onSubmit(async () => {
    await revoke();
    onRevoked();
  });
  return (
    <li class="row-item">
      <span>{label}</span>
      <form ref={form.formRef} onSubmit={submit}>
        <button type="submit" class="danger" aria-label={action} aria-busy={form.busy ? 'true' : undefined}>
          Revoke
        </button>
        <FormAlert problem={form.problem} />
      </form>
    </li>
  );
}

const describeSession = (session: AccountSession) =>
  [
    session.current ? 'This session' : (session.userAgent ?? 'Unknown browser'),
    session.createdIp ? `from ${session.createdIp}` : '',
    `signed in ${new Date(session.createdAt).toLocaleString()}`,
  ]
    .filter(Boolean)
    .join(' · ');

function SessionsSection() {
  const sessions = useList('sessions', () => accountApi.sessions());
  return (
    <section aria-labelledby="sessions-heading" class="stack">
      <h2 id="sessions-heading">Active sessions</h2>
      <ListView list={sessions} what="sessions" empty="No active sessions.">
        {(items) => (
          <ul class="rows">
            {items.map((session) => (
              <RevokeRow
                key={session.id}
                label={describeSession(session)}
                action={session.current ? 'Sign out this session' : `Revoke session ${describeSession(session)}`}
                revoke={() => accountApi.revokeSession(session.id)}
                onRevoked={() => (session.current ? location.assign('/sign-in') : sessions.reload())}
              />
            ))}
          </ul>
        )}
      </ListView>
    </section>
  );
}
