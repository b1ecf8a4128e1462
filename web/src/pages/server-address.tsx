/**
 * A server's private address (its address on the datacenter network): where tcp/udp hostings
 * that bind `datacenter` publish their ports. Admins set it in a form that opens with the stored
 * value; the API refuses an address where those hostings' ports are taken, and clearing it while
 * any of them binds there (the form shows why).
 */
import { deployApi, type Server } from '../deploy-api.ts';
import { Field, FormAlert, SubmitButton, useForm } from '../forms.tsx';

export function PrivateAddressForm({ server, onDone }: { server: Server; onDone: () => void }) {
  const form = useForm(['privateAddress'], {}, { privateAddress: server.privateAddress ?? '' });
  const submit = form.onSubmit(async (values, edited) => {
    if ('privateAddress' in edited) await deployApi.servers.setPrivateAddress(server.id, values.privateAddress?.trim() || null);
    onDone();
  });
  return (
    <form ref={form.formRef} onSubmit={submit} class="inline-form" aria-label={`Private address of ${server.name}`}>
      <Field
        {...form.fieldProps('privateAddress')}
        label={`Private address of ${server.name}`}
        hint="Its IPv4 or IPv6 address on the datacenter network: tcp/udp hostings with bind datacenter publish there (from their next deploy). Empty: none."
        spellcheck={false}
        autoComplete="off"
        autoFocus
      />
      <FormAlert problem={form.problem} />
      <div class="row">
        <SubmitButton busy={form.busy} busyLabel="Saving…">
          Save address
        </SubmitButton>
        <button type="button" onClick={onDone}>
          Cancel
        </button>
      </div>
    </form>
  );
}
