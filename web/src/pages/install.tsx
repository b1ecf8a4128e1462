/**
 * The install wizard (self-hosted runtime, first boot): prove access to the host (the one-time
 * install token, or a sudo-group host account where the host offers it), then create the first
 * organization and its superadmin, who is signed in at once.
 */
import { useState } from 'preact/hooks';
import { api, type InstallProof } from '../api.ts';
import { Field, FormAlert, SubmitButton, useForm } from '../forms.tsx';
import { usePageTitle } from '../router.tsx';

const FIELDS = ['token', 'hostUsername', 'hostPassword', 'organizationName', 'displayName', 'email', 'password'] as const;

interface InstallPageProps {
  methods: ('token' | 'host')[];
  onInstalled: (organizationId: string) => void;
}

export function InstallPage({ methods, onInstalled }: InstallPageProps) {
  usePageTitle('Install Panel');
  const [method, setMethod] = useState<'token' | 'host'>('token');
  const form = useForm(FIELDS, {
    paths: { proof: 'token', 'proof.kind': 'hostUsername', 'proof.token': 'token', 'proof.username': 'hostUsername', 'proof.password': 'hostPassword' },
    codes: { invalid_credentials: method === 'token' ? 'token' : 'hostPassword' },
  });

  const install = form.onSubmit(async (values) => {
    const proof: InstallProof =
      method === 'token'
        ? { kind: 'token', token: values.token!.trim() }
        : { kind: 'host', username: values.hostUsername!, password: values.hostPassword! };
    const installed = await api.install.complete({
      proof,
      organizationName: values.organizationName!,
      email: values.email!,
      password: values.password!,
      ...(values.displayName ? { displayName: values.displayName } : {}),
    });
    onInstalled(installed.organizationId);
  });

  return (
    <main id="main" class="centered">
      <h1 tabIndex={-1}>Install Panel</h1>
      <p class="lead">Two steps: prove you run this server, then create your organization and your administrator account.</p>
      <form ref={form.formRef} onSubmit={install} noValidate class="card stack">
        <fieldset>
          <legend>1. Prove access to this server</legend>
          {methods.includes('host') && (
            <div class="choice" role="radiogroup" aria-label="Proof of access">
              <label>
                <input type="radio" name="method" value="token" checked={method === 'token'} onChange={() => setMethod('token')} />
                Install token
              </label>
              <label>
                <input type="radio" name="method" value="host" checked={method === 'host'} onChange={() => setMethod('host')} />
                Host account (sudo group)
              </label>
            </div>
          )}
          {method === 'token' ? (
            <Field
              {...form.fieldProps('token')}
              label="Install token"
              hint="Panel wrote it to the file install-token in its data directory and printed it in its log when it started."
              autoComplete="off"
              spellcheck={false}
              required
            />
          ) : (
            <>
              <Field {...form.fieldProps('hostUsername')} label="Host user name" autoComplete="username" required />
              <Field {...form.fieldProps('hostPassword')} label="Host password" type="password" autoComplete="current-password" required />
            </>
          )}
        </fieldset>
        <fieldset>
          <legend>2. Your organization and administrator account</legend>
          <Field {...form.fieldProps('organizationName')} label="Organization name" autoComplete="organization" required />
          <Field {...form.fieldProps('displayName')} label="Your name (optional)" autoComplete="name" />
          <Field {...form.fieldProps('email')} label="E-mail" type="email" autoComplete="email" required />
          <Field
            {...form.fieldProps('password')}
            label="Password"
            type="password"
            autoComplete="new-password"
            hint="At least 12 characters, and not your e-mail address."
            required
          />
        </fieldset>
        <FormAlert problem={form.problem} />
        <SubmitButton busy={form.busy} busyLabel="Installing…">
          Install and sign in
        </SubmitButton>
      </form>
    </main>
  );
}
