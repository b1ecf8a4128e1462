/**
 * Sign-in: e-mail and password; when the account has a second factor the server answers a
 * challenge instead of a session, and a second step asks for the authenticator code (or a
 * single-use recovery code).
 */
import { useState } from 'preact/hooks';
import { api, type SignInResult } from '../api.ts';
import { Field, FormAlert, SubmitButton, useForm } from '../forms.tsx';
import { usePageTitle } from '../router.tsx';

type Challenge = Extract<SignInResult, { status: 'two_factor_required' }>;

export function SignInPage({ onSignedIn }: { onSignedIn: () => void }) {
  const [challenge, setChallenge] = useState<Challenge | null>(null);
  return (
    <main id="main" class="centered">
      {challenge ? (
        <SecondFactorStep challenge={challenge} onSignedIn={onSignedIn} onRestart={() => setChallenge(null)} />
      ) : (
        <PasswordStep onSignedIn={onSignedIn} onChallenge={setChallenge} />
      )}
    </main>
  );
}

function PasswordStep({ onSignedIn, onChallenge }: { onSignedIn: () => void; onChallenge: (challenge: Challenge) => void }) {
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
      <form ref={form.formRef} onSubmit={signIn} noValidate class="card stack">
        <Field {...form.fieldProps('email')} label="E-mail" type="email" autoComplete="username" required autoFocus />
        <Field {...form.fieldProps('password')} label="Password" type="password" autoComplete="current-password" required />
        <FormAlert problem={form.problem} />
        <SubmitButton busy={form.busy} busyLabel="Signing in…">
          Sign in
        </SubmitButton>
      </form>
    </>
  );
}

interface SecondFactorStepProps {
  challenge: Challenge;
  onSignedIn: () => void;
  onRestart: () => void;
}

function SecondFactorStep({ challenge, onSignedIn, onRestart }: SecondFactorStepProps) {
  usePageTitle('Two-factor sign-in');
  const [method, setMethod] = useState<'totp' | 'recovery'>(challenge.methods.includes('totp') ? 'totp' : 'recovery');
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
      <form ref={form.formRef} onSubmit={verify} noValidate class="card stack" key={method}>
        {method === 'totp' ? (
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
        )}
        <FormAlert problem={form.problem} />
        <SubmitButton busy={form.busy} busyLabel="Checking…">
          Verify and sign in
        </SubmitButton>
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
