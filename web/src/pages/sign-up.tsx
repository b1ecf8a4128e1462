/**
 * Sign-up, where this server allows it (development runtime with sign-up enabled; the route
 * answers 404 otherwise, and the sign-in page then offers no link). A new user gets their own
 * organization and is signed in.
 */
import { useEffect, useState } from 'preact/hooks';
import { accountApi } from '../account-api.ts';
import { ApiError } from '../api.ts';
import { Field, FormAlert, SubmitButton, useForm } from '../forms.tsx';
import { usePageTitle } from '../router.tsx';

/** Probes the route with an empty body: 422 means it exists, 404 that sign-up is off. */
function useSignUpEnabled(): boolean {
  const [enabled, setEnabled] = useState(false);
  useEffect(() => {
    accountApi.signUp({} as never).catch((error: unknown) => setEnabled(error instanceof ApiError && error.status === 422));
  }, []);
  return enabled;
}

export function SignUpLink() {
  const enabled = useSignUpEnabled();
  const [open, setOpen] = useState(false);
  if (!enabled) return null;
  if (open) return <SignUpForm onCancel={() => setOpen(false)} />;
  return (
    <button type="button" class="link" onClick={() => setOpen(true)}>
      Create an account
    </button>
  );
}

function SignUpForm({ onCancel }: { onCancel: () => void }) {
  usePageTitle('Create an account');
  const form = useForm(['organizationName', 'displayName', 'email', 'password']);
  const signUp = form.onSubmit(async (values) => {
    const created = await accountApi.signUp({
      organizationName: values.organizationName!,
      email: values.email!,
      password: values.password!,
      ...(values.displayName ? { displayName: values.displayName } : {}),
    });
    location.assign(`/organizations/${created.organizationId}`);
  });
  return (
    <form ref={form.formRef} onSubmit={signUp} noValidate class="card stack" aria-label="Create an account">
      <h2>Create an account</h2>
      <Field {...form.fieldProps('organizationName')} label="Organization name" autoComplete="organization" required />
      <Field {...form.fieldProps('displayName')} label="Your name (optional)" autoComplete="name" />
      <Field {...form.fieldProps('email')} label="E-mail for the new account" type="email" autoComplete="email" required />
      <Field
        {...form.fieldProps('password')}
        label="New password"
        type="password"
        autoComplete="new-password"
        hint="At least 12 characters, and not your e-mail address."
        required
      />
      <FormAlert problem={form.problem} />
      <SubmitButton busy={form.busy} busyLabel="Creating…">
        Create account
      </SubmitButton>
      <button type="button" class="link" onClick={onCancel}>
        Cancel
      </button>
    </form>
  );
}
