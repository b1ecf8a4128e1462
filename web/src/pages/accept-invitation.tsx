/**
 * Accepting an invitation, signed in or out. The link carries the token in its fragment
 * (`/invitations/accept#token=…`), which the browser never sends, so no server or proxy logs it.
 * Signed in as the invited e-mail: one button. Signed out: the invitee chooses a password (and a
 * name) and the account is created and signed in; when that e-mail already has an account, they
 * sign in here first and then accept. Either way they land in the organization.
 */
import { useState } from 'preact/hooks';
import { api, ApiError, type SessionSummary } from '../api.ts';
import { Field, FormAlert, SubmitButton, useForm } from '../forms.tsx';
import { organizationApi } from '../organization-api.ts';
import { usePageTitle } from '../router.tsx';
import { SignInPage } from './sign-in.tsx';

export interface AcceptInvitationProps {
  session: SessionSummary | null;
  /** Resolves once the console shows the organization as a member of it. */
  onAccepted: (organizationId: string) => Promise<void>;
  onSignedIn: () => void;
  onSignedOut: () => void;
}

/**
 * Signing in from here may leave the console (an identity provider), and the way back lands on
 * /invitations/accept without the fragment; the token waits in this tab's sessionStorage (never
 * sent anywhere) until the invitation is accepted.
 */
const PENDING_TOKEN_KEY = 'panel:invitation-token';

const invitationToken = () => new URLSearchParams(location.hash.slice(1)).get('token') ?? sessionStorage.getItem(PENDING_TOKEN_KEY);

/** The API's refusals in the invitee's terms; undefined keeps the API's own message. */
function explain(error: ApiError): string | undefined {
  switch (error.code) {
    case 'not_found':
      return 'This invitation link no longer works: it was used, revoked or has expired (links last a week). Ask for a new one.';
    case 'invitation_email_mismatch':
      return 'This invitation is for another e-mail address than the one you are signed in with. Sign out, then open the link again.';
    case 'already_member':
      return 'You are already a member of this organization.';
    case 'account_exists':
      return 'An account with the invited e-mail already exists. Sign in with it, then accept the invitation.';
    default:
      return undefined;
  }
}

/** Runs an accept call, rewording the errors the invitee can act on. */
async function explained<T>(request: Promise<T>): Promise<T> {
  try {
    return await request;
  } catch (error) {
    const message = error instanceof ApiError ? explain(error) : undefined;
    if (error instanceof ApiError && message) throw new ApiError(error.status, error.code, message, error.path, error.requestId);
    throw error;
  }
}

export function AcceptInvitationPage({ session, onAccepted, onSignedIn, onSignedOut }: AcceptInvitationProps) {
  const [token] = useState(invitationToken);
  const [signingIn, setSigningIn] = useState(false);
  if (!token) return <IncompleteLink />;
  const signIn = () => {
    sessionStorage.setItem(PENDING_TOKEN_KEY, token);
    setSigningIn(true);
  };
  const accepted = (organizationId: string) => {
    sessionStorage.removeItem(PENDING_TOKEN_KEY);
    return onAccepted(organizationId);
  };
  if (!session && signingIn) {
    return (
      <>
        <aside class="centered notice" aria-label="Your invitation">
          <p>Sign in with the invited e-mail; you come back here to accept the invitation.</p>
          <button type="button" class="link" onClick={() => setSigningIn(false)}>
            Back to the invitation
          </button>
        </aside>
        <SignInPage onSignedIn={onSignedIn} />
      </>
    );
  }
  return (
    <main id="main" class="centered">
      {session ? (
        <AcceptSignedIn token={token} session={session} onAccepted={accepted} onSignedOut={onSignedOut} />
      ) : (
        <CreateAccount token={token} onAccepted={accepted} onSignIn={signIn} />
      )}
    </main>
  );
}

function AcceptSignedIn({ token, session, onAccepted, onSignedOut }: { token: string; session: SessionSummary } & Pick<AcceptInvitationProps, 'onAccepted' | 'onSignedOut'>) {
  usePageTitle('Accept the invitation');
  const form = useForm([]);
  const signOut = useForm([]);
  const [mismatch, setMismatch] = useState(false);
  const accept = form.onSubmit(async () => {
    try {
      const { organizationId } = await explained(organizationApi.invitations.accept({ token }));
      await onAccepted(organizationId);
    } catch (error) {
      setMismatch(error instanceof ApiError && error.code === 'invitation_email_mismatch');
      throw error;
    }
  });
  const leave = signOut.onSubmit(async () => {
    await api.auth.signOut();
    onSignedOut();
  });
  return (
    <>
      <h1 tabIndex={-1}>Accept the invitation</h1>
      <p class="lead">You are signed in as {session.user.email}.</p>
      <form ref={form.formRef} onSubmit={accept} class="card stack" aria-label="Accept the invitation">
        <p>Accepting makes you a member of the organization that invited you, with the role the invitation names.</p>
        <FormAlert problem={form.problem} />
        <SubmitButton busy={form.busy} busyLabel="Accepting…">
          Accept invitation
        </SubmitButton>
      </form>
      {mismatch && (
        <form ref={signOut.formRef} onSubmit={leave} class="alternatives">
          <button type="submit" aria-busy={signOut.busy ? 'true' : undefined}>
            {signOut.busy ? 'Signing out…' : `Sign out ${session.user.email}`}
          </button>
          <FormAlert problem={signOut.problem} />
        </form>
      )}
    </>
  );
}

function CreateAccount({ token, onAccepted, onSignIn }: { token: string; onSignIn: () => void } & Pick<AcceptInvitationProps, 'onAccepted'>) {
  usePageTitle('Accept the invitation');
  const form = useForm(['displayName', 'password']);
  const [accountExists, setAccountExists] = useState(false);
  const create = form.onSubmit(async (values) => {
    try {
      const { organizationId } = await explained(
        organizationApi.invitations.accept({ token, password: values.password ?? '', ...(values.displayName ? { displayName: values.displayName } : {}) }),
      );
      await onAccepted(organizationId);
    } catch (error) {
      setAccountExists(error instanceof ApiError && error.code === 'account_exists');
      throw error;
    }
  });
  return (
    <>
      <h1 tabIndex={-1}>Accept the invitation</h1>
      <p class="lead">Choose a password to create your account for the invited e-mail and join the organization.</p>
      <form ref={form.formRef} onSubmit={create} noValidate class="card stack" aria-label="Create your account">
        <Field {...form.fieldProps('displayName')} label="Your name (optional)" autoComplete="name" />
        <Field
          {...form.fieldProps('password')}
          label="New password"
          type="password"
          autoComplete="new-password"
          hint="At least 12 characters, and not your e-mail address."
          required
          autoFocus
        />
        <FormAlert problem={form.problem} />
        <SubmitButton busy={form.busy} busyLabel="Creating your account…">
          Create account and join
        </SubmitButton>
      </form>
      <div class="alternatives">
        <button type="button" class={accountExists ? 'primary' : 'link'} onClick={onSignIn}>
          {accountExists ? 'Sign in to accept' : 'I already have an account: sign in'}
        </button>
      </div>
    </>
  );
}

function IncompleteLink() {
  usePageTitle('Invitation link incomplete');
  return (
    <main id="main" class="centered">
      <h1 tabIndex={-1}>This invitation link is incomplete</h1>
      <p>
        The link has no invitation token. Open the whole link you were sent (it ends with <code>#token=…</code>), or ask for a new invitation.
      </p>
      <p>
        <a href="/">Go to Panel</a>
      </p>
    </main>
  );
}
