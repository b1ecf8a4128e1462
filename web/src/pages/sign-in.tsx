/**
 * Sign-in: e-mail and password, a passkey alone, or an identity provider (OAuth). When the
 * account has a second factor the server answers a challenge instead of a session, and a second
 * step asks for the authenticator code, a recovery code or a passkey. After OAuth the challenge
 * arrives in the URL fragment (`#challenge=…&methods=…&returnTo=…`), and failures as `?error=`.
 */
import { useEffect, useState } from 'preact/hooks';
import { accountApi } from '../account-api.ts';
import { api, type SignInResult } from '../api.ts';
import { useResource } from '../data.tsx';
import { Field, FormAlert, SubmitButton, useForm } from '../forms.tsx';
import { usePageTitle } from '../router.tsx';
import { getPasskeyAssertion, passkeyProblem, passkeysSupported } from '../webauthn.ts';
import { SignUpLink } from './sign-up.tsx';

type Challenge = Extract<SignInResult, { status: 'two_factor_required' }>;
type Method = Challenge['methods'][number];

/** The challenge OAuth handed over in the fragment; the fragment is cleared once read. */
function challengeFromFragment(): (Challenge & { returnTo: string | null }) | null {
  const fragment = new URLSearchParams(location.hash.slice(1));
  const challenge = fragment.get('challenge');
  if (!challenge) return null;
  history.replaceState(null, '', location.pathname + location.search);
  const methods = (fragment.get('methods') ?? '').split(',').filter((method): method is Method => ['totp', 'recovery', 'passkey'].includes(method));
  return { status: 'two_factor_required', challenge, expiresAt: '', methods, returnTo: fragment.get('returnTo') };
}

const OAUTH_ERRORS: Record<string, string> = {
  access_denied: 'The provider did not let you sign in.',
  signup_disabled: 'No Panel account uses that identity, and sign-up is closed.',
  invalid_state: 'The sign-in took too long or was finished in another browser. Try again.',
};

/** Goes where the OAuth flow was started from (a same-origin path only). */
function afterSignIn(returnTo: string | null | undefined, onSignedIn: () => void) {
  if (returnTo?.startsWith('/') && !returnTo.startsWith('//')) history.replaceState(null, '', returnTo);
  onSignedIn();
}

export function SignInPage({ onSignedIn }: { onSignedIn: () => void }) {
  const [challenge, setChallenge] = useState<(Challenge & { returnTo?: string | null }) | null>(challengeFromFragment);
  const [oauthError] = useState(() => new URLSearchParams(location.search).get('error'));
  return (
    <main id="main" class="centered">
      {challenge ? (
        <SecondFactorStep challenge={challenge} onSignedIn={() => afterSignIn(challenge.returnTo, onSignedIn)} onRestart={() => setChallenge(null)} />
      ) : (
        <PasswordStep onSignedIn={onSignedIn} onChallenge={setChallenge} oauthError={oauthError} />
      )}
    </main>
  );
}

interface PasswordStepProps {
  onSignedIn: () => void;
  onChallenge: (challenge: Challenge) => void;
  oauthError: string | null;
}

function PasswordStep({ onSignedIn, onChallenge, oauthError }: PasswordStepProps) {
  usePageTitle('Sign in');
  const form = useForm(['email', 'password']);
  const signIn = form.onSubmit(async (values) => {
    const result = await api.auth.signIn({ email: values.email!, password: values.password! });
    if (result.status === 'signed_in') onSignedIn();
    else onChallenge(result);
  });
  return (
    <>
      <h1 tabIndex={-1}>Sign in to Panel</h1>
      {oauthError && (
        <div class="alert" role="alert">
          <p>{OAUTH_ERRORS[oauthError] ?? `Signing in with the provider failed (${oauthError}).`}</p>
        </div>
      )}
      <form ref={form.formRef} onSubmit={signIn} noValidate class="card stack">
        <Field {...form.fieldProps('email')} label="E-mail" type="email" autoComplete="username webauthn" required autoFocus />
        <Field {...form.fieldProps('password')} label="Password" type="password" autoComplete="current-password" required />
        <FormAlert problem={form.problem} />
        <SubmitButton busy={form.busy} busyLabel="Signing in…">
          Sign in
        </SubmitButton>
      </form>
      <div class="stack alternatives">
        <PasskeyButton label="Sign in with a passkey" onSignedIn={onSignedIn} />
        <OAuthButtons />
        <SignUpLink />
      </div>
    </>
  );
}

function OAuthButtons() {
  const providers = useResource('oauth-providers', () => accountApi.oauthProviders());
  const list = providers.data?.data ?? [];
  if (list.length === 0) return null;
  const returnTo = encodeURIComponent(location.pathname === '/sign-in' ? '/' : location.pathname + location.search);
  return (
    <ul class="oauth-providers" aria-label="Sign in with an identity provider">
      {list.map((provider) => (
        <li key={provider.id}>
          <a class="button" href={`/api/client/v1/auth/oauth/${provider.id}/start?returnTo=${returnTo}`}>
            Continue with {provider.name}
          </a>
        </li>
      ))}
    </ul>
  );
}

/** A passkey alone (no challenge) or as the second factor of a pending sign-in. */
function PasskeyButton({ label, onSignedIn, twoFactorChallenge }: { label: string; onSignedIn: () => void; twoFactorChallenge?: string }) {
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const [supported, setSupported] = useState(false);
  useEffect(() => setSupported(passkeysSupported()), []);
  if (!supported) return null;
  const use = async () => {
    setBusy(true);
    setProblem(null);
    try {
      const ceremony = await accountApi.passkeySignInOptions(twoFactorChallenge);
      const response = await getPasskeyAssertion(ceremony.options);
      await accountApi.passkeySignInVerify({ challenge: ceremony.challenge, response, ...(twoFactorChallenge ? { twoFactorChallenge } : {}) });
      onSignedIn();
    } catch (error) {
      setProblem(passkeyProblem(error));
    } finally {
      setBusy(false);
    }
  };
  return (
    <div class="stack">
      <button type="button" onClick={use} aria-busy={busy ? 'true' : undefined} disabled={busy}>
        {busy ? 'Waiting for the passkey…' : label}
      </button>
      {problem && (
        <p class="field-error" role="alert">
          {problem}
        </p>
      )}
    </div>
  );
}

interface SecondFactorStepProps {
  challenge: Challenge;
  onSignedIn: () => void;
  onRestart: () => void;
}

function SecondFactorStep({ challenge, onSignedIn, onRestart }: SecondFactorStepProps) {
  usePageTitle('Two-factor sign-in');
  const codeMethods = challenge.methods.filter((method): method is 'totp' | 'recovery' => method !== 'passkey');
  const [method, setMethod] = useState<'totp' | 'recovery'>(codeMethods.includes('totp') ? 'totp' : 'recovery');
  const form = useForm(['code'], { codes: { invalid_challenge: 'code' } });
  const verify = form.onSubmit(async (values) => {
    const input = { challenge: challenge.challenge, code: values.code!.replace(/\s+/g, '') };
    await (method === 'totp' ? api.auth.signInWithTotp(input) : api.auth.signInWithRecoveryCode(input));
    onSignedIn();
  });
  const other = method === 'totp' ? 'recovery' : 'totp';
  return (
    <>
      <h1 tabIndex={-1}>Two-factor sign-in</h1>
      {challenge.methods.includes('passkey') && (
        <PasskeyButton label="Use a passkey" onSignedIn={onSignedIn} twoFactorChallenge={challenge.challenge} />
      )}
      <form ref={form.formRef} onSubmit={verify} noValidate class="card stack" key={method}>
        {codeMethods.length > 0 &&
          (method === 'totp' ? (
            <Field
              {...form.fieldProps('code')}
              label="Authenticator code"
              hint="The six digits your authenticator app shows for Panel."
              inputMode="numeric"
              autoComplete="one-time-code"
              pattern="[0-9 ]*"
              required
              autoFocus
            />
          ) : (
            <Field
              {...form.fieldProps('code')}
              label="Recovery code"
              hint="One of the recovery codes you saved when you turned on two-factor sign-in; each works once."
              autoComplete="off"
              spellcheck={false}
              required
              autoFocus
            />
          ))}
        <FormAlert problem={form.problem} />
        {codeMethods.length > 0 && (
          <SubmitButton busy={form.busy} busyLabel="Checking…">
            Verify and sign in
          </SubmitButton>
        )}
        <div class="row">
          {challenge.methods.includes(other) && (
            <button type="button" class="link" onClick={() => setMethod(other)}>
              {other === 'recovery' ? 'Use a recovery code instead' : 'Use the authenticator code instead'}
            </button>
          )}
          <button type="button" class="link" onClick={onRestart}>
            Start over
          </button>
        </div>
      </form>
    </>
  );
}
