/**
 * The account page's sign-in factors: the authenticator app (TOTP: enrol with a QR code and the
 * secret shown once, confirm with a first code, disable), recovery codes (regenerated with a
 * TOTP code, shown once) and passkeys (add, rename, remove). Adding or removing a way in needs a
 * recent sign-in (403 reauthentication_required): those actions offer to sign in again.
 */
import { useState } from 'preact/hooks';
import { accountApi, type Passkey } from '../account-api.ts';
import { api, ApiError, SESSION_ENDED_EVENT } from '../api.ts';
import { ListView, useList } from '../data.tsx';
import { Field, FormAlert, type FormProblem, SubmitButton, useForm } from '../forms.tsx';
import { QrCode } from '../qr-code.tsx';
import { navigate } from '../router.tsx';
import { createPasskey, passkeyProblem, passkeysSupported } from '../webauthn.ts';

const REAUTHENTICATION_REQUIRED = 'reauthentication_required';

/**
 * Where an action needs a recent sign-in: signs this session out and opens the sign-in page
 * (app.tsx shows it once the session has ended; after signing in the console opens at /).
 */
function SignInAgain() {
  const [busy, setBusy] = useState(false);
  const signInAgain = async () => {
    setBusy(true);
    // Onwards even if the sign-out fails: signing in issues a new session anyway.
    await api.auth.signOut().catch(() => undefined);
    window.dispatchEvent(new Event(SESSION_ENDED_EVENT));
    navigate('/sign-in', { discardUnsaved: true });
  };
  return (
    <div class="alert" role="alert">
      <p>For your security, this needs a recent sign-in. Sign in again, then try once more.</p>
      <button type="button" onClick={signInAgain} aria-busy={busy ? 'true' : undefined}>
        Sign in again
      </button>
    </div>
  );
}

/** A form's alert on the account page: a needed recent sign-in offers one, anything else as usual. */
export function AccountAlert({ problem }: { problem: FormProblem | null }) {
  return problem?.code === REAUTHENTICATION_REQUIRED ? <SignInAgain /> : <FormAlert problem={problem} />;
}

/** Codes shown once: the user must save them before the page forgets them. */
export function ShownOnce({ title, values, onDone }: { title: string; values: string[]; onDone: () => void }) {
  return (
    <div class="card stack shown-once" role="region" aria-label={title}>
      <h3>{title}</h3>
      <p>Save these now: Panel shows them only this once.</p>
      <ul class="codes">
        {values.map((value) => (
          <li key={value}>
            <code>{value}</code>
          </li>
        ))}
      </ul>
      <button type="button" onClick={onDone}>
        I have saved them
      </button>
    </div>
  );
}

export function TotpSection({ enabled, onChanged }: { enabled: boolean; onChanged: () => void }) {
  const [enrolment, setEnrolment] = useState<{ secret: string; uri: string } | null>(null);
  const [recoveryCodes, setRecoveryCodes] = useState<string[] | null>(null);
  const start = useForm([]);
  const confirm = useForm(['code']);
  const disable = useForm(['code'], { codes: { wrong_code: 'code' } });
  const regenerate = useForm(['code'], { codes: { wrong_code: 'code' } });

  const begin = start.onSubmit(async () => setEnrolment(await accountApi.enrolTotp()));
  const finish = confirm.onSubmit(async (values) => {
    const { recoveryCodes } = await accountApi.confirmTotp(values.code!.replace(/\s+/g, ''));
    setEnrolment(null);
    setRecoveryCodes(recoveryCodes);
  });
  const turnOff = disable.onSubmit(async (values) => {
    await accountApi.disableTotp(values.code!.replace(/\s+/g, ''));
    onChanged();
  });
  const renew = regenerate.onSubmit(async (values) => {
    setRecoveryCodes((await accountApi.regenerateRecoveryCodes(values.code!.replace(/\s+/g, ''))).recoveryCodes);
  });

  return (
    <section aria-labelledby="totp-heading" class="stack">
      <h2 id="totp-heading">Authenticator app</h2>
      {recoveryCodes && (
        <ShownOnce
          title="Your recovery codes"
          values={recoveryCodes}
          onDone={() => {
            setRecoveryCodes(null);
            onChanged();
          }}
        />
      )}
      {!enabled && !enrolment && !recoveryCodes && (
        <form ref={start.formRef} onSubmit={begin} class="stack">
          <p>Two-factor sign-in asks for a code from an authenticator app after your password.</p>
          <AccountAlert problem={start.problem} />
          <SubmitButton busy={start.busy} busyLabel="Starting…">
            Set up an authenticator app
          </SubmitButton>
        </form>
      )}
      {enrolment && (
        <form ref={confirm.formRef} onSubmit={finish} noValidate class="card stack">
          <p>Scan this code with your authenticator app, or type the secret into it. The secret is shown only now.</p>
          <QrCode text={enrolment.uri} label="QR code of the authenticator secret" />
          <p>
            Secret: <code data-testid="totp-secret">{enrolment.secret}</code>
          </p>
          <Field {...confirm.fieldProps('code')} label="Code from the app" inputMode="numeric" autoComplete="one-time-code" required />
          <AccountAlert problem={confirm.problem} />
          <SubmitButton busy={confirm.busy} busyLabel="Confirming…">
            Turn on two-factor sign-in
          </SubmitButton>
        </form>
      )}
      {enabled && !recoveryCodes && (
        <div class="grid-2">
          <form ref={regenerate.formRef} onSubmit={renew} noValidate class="card stack" aria-label="New recovery codes">
            <h3>Recovery codes</h3>
            <Field {...regenerate.fieldProps('code')} label="Authenticator code for new recovery codes" inputMode="numeric" required />
            <FormAlert problem={regenerate.problem} />
            <SubmitButton busy={regenerate.busy} busyLabel="Generating…">
              Replace the recovery codes
            </SubmitButton>
          </form>
          <form ref={disable.formRef} onSubmit={turnOff} noValidate class="card stack" aria-label="Turn off two-factor sign-in">
            <h3>Turn off</h3>
            <Field
              {...disable.fieldProps('code')}
              label="Authenticator or recovery code to turn off"
              hint="Every other session is signed out."
              autoComplete="off"
              required
            />
            <FormAlert problem={disable.problem} />
            <SubmitButton busy={disable.busy} busyLabel="Turning off…">
              Turn off two-factor sign-in
            </SubmitButton>
          </form>
        </div>
      )}
    </section>
  );
}

export function PasskeysSection() {
  const passkeys = useList('passkeys', () => accountApi.passkeys());
  const [failure, setFailure] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const add = async () => {
    setBusy(true);
    setFailure(null);
    try {
      const ceremony = await accountApi.passkeyRegisterOptions();
      const response = await createPasskey(ceremony.options);
      await accountApi.passkeyRegisterVerify({ challenge: ceremony.challenge, response });
      passkeys.reload();
    } catch (error) {
      setFailure(error);
    } finally {
      setBusy(false);
    }
  };
  return (
    <section aria-labelledby="passkeys-heading" class="stack">
      <h2 id="passkeys-heading">Passkeys</h2>
      <ListView list={passkeys} what="passkeys" empty="No passkeys yet.">
        {(items) => (
          <ul class="rows">
            {items.map((passkey) => (
              <PasskeyRow key={passkey.id} passkey={passkey} onChanged={passkeys.reload} />
            ))}
          </ul>
        )}
      </ListView>
      {passkeysSupported() ? (
        <button type="button" onClick={add} disabled={busy} aria-busy={busy ? 'true' : undefined}>
          {busy ? 'Waiting for the authenticator…' : 'Add a passkey'}
        </button>
      ) : (
        <p class="muted">This browser cannot create passkeys.</p>
      )}
      {failure !== null &&
        (failure instanceof ApiError && failure.code === REAUTHENTICATION_REQUIRED ? (
          <SignInAgain />
        ) : (
          <p class="field-error" role="alert">
            {passkeyProblem(failure)}
          </p>
        ))}
    </section>
  );
}

function PasskeyRow({ passkey, onChanged }: { passkey: Passkey; onChanged: () => void }) {
  const rename = useForm(['name'], {}, { name: passkey.name });
  const remove = useForm([]);
  const save = rename.onSubmit(async (values, edited) => {
    if (!('name' in edited)) return;
    await accountApi.renamePasskey(passkey.id, values.name!);
    onChanged();
  });
  const drop = remove.onSubmit(async () => {
    await accountApi.deletePasskey(passkey.id);
    onChanged();
  });
  return (
    <li class="row-item">
      <form ref={rename.formRef} onSubmit={save} noValidate class="inline-form">
        <Field {...rename.fieldProps('name')} label={`Name of passkey ${passkey.name}`} required />
        <SubmitButton busy={rename.busy} busyLabel="Saving…">
          Rename
        </SubmitButton>
      </form>
      <span class="muted">{passkey.lastUsedAt ? `Last used ${new Date(passkey.lastUsedAt).toLocaleString()}` : 'Never used'}</span>
      <form ref={remove.formRef} onSubmit={drop}>
        <button type="submit" class="danger" aria-label={`Remove passkey ${passkey.name}`}>
          Remove
        </button>
        <AccountAlert problem={rename.problem ?? remove.problem} />
      </form>
    </li>
  );
}
