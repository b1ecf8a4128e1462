/**
 * "Runs as" on a service page: the host account (system principal of the organization) the
 * service runs as, which is a tenancy edge. Picking one creates the edge; removing it deletes
 * the edge, not the account. Members of the organization see it without the controls.
 */
import { ListView, LoadFailed, Loading, useList, useResource } from '../data.tsx';
import { FormAlert, SelectField, SubmitButton, useForm } from '../forms.tsx';
import { allPages, type Principal, principalApi, type Tenancy, tenancyApi } from '../principals-api.ts';
import { ReadOnlyNote, useCanWrite } from '../role.tsx';
import { Link } from '../router.tsx';

const accountName = (principal: Principal | undefined) =>
  principal ? (principal.appliedUsername === principal.username ? principal.username : `${principal.username} (${principal.appliedUsername})`) : 'a deleted account';

export function RunsAsSection({ serviceId, organizationId }: { serviceId: string; organizationId: string }) {
  const tenancies = useList(`tenancies:${serviceId}`, (cursor) => tenancyApi.list({ serviceId, cursor }));
  const accounts = useResource(`host-accounts:${organizationId}`, async () =>
    (await allPages((cursor) => principalApi.list({ organizationId, cursor }))).filter((principal) => principal.kind === 'system'),
  );
  const writable = useCanWrite(organizationId);
  const accountOf = (tenancy: Tenancy) => accounts.data?.find((principal) => principal.id === tenancy.principalId);
  return (
    <section aria-labelledby="runs-as-heading" class="stack">
      <h2 id="runs-as-heading">Runs as</h2>
      <p class="muted">The host account this service's processes run as on its server.</p>
      <ListView list={tenancies} what="the host account" empty="This service does not run as a host account of the organization.">
        {(items) => (
          <ul class="rows" aria-label="Host accounts this service runs as">
            {items.map((tenancy) => (
              <RunsAsRow key={tenancy.id} tenancy={tenancy} account={accountOf(tenancy)} writable={writable} onRemoved={tenancies.reload} />
            ))}
          </ul>
        )}
      </ListView>
      {tenancies.data?.length === 0 &&
        (!writable ? (
          <ReadOnlyNote action="choose the host account" />
        ) : accounts.error ? (
          <LoadFailed error={accounts.error} what="the host accounts" retry={accounts.reload} />
        ) : !accounts.data ? (
          <Loading what="the host accounts" />
        ) : (
          <RunAsForm serviceId={serviceId} organizationId={organizationId} accounts={accounts.data} onAdded={tenancies.reload} />
        ))}
    </section>
  );
}

function RunsAsRow({ tenancy, account, writable, onRemoved }: { tenancy: Tenancy; account: Principal | undefined; writable: boolean; onRemoved: () => void }) {
  const form = useForm([]);
  const remove = form.onSubmit(async () => {
    await tenancyApi.remove(tenancy.id);
    onRemoved();
  });
  const name = accountName(account);
  return (
    <li class="row-item">
      <span>
        Runs as <strong>{name}</strong>
        {account?.options?.shell && <span class="muted"> · shell {account.options.shell}</span>}
      </span>
      {writable && (
        <form ref={form.formRef} onSubmit={remove}>
          <button type="submit" aria-label={`Stop running as ${name}`} aria-busy={form.busy ? 'true' : undefined}>
            {form.busy ? 'Removing…' : 'Remove'}
          </button>
        </form>
      )}
      <FormAlert problem={form.problem} />
    </li>
  );
}

function RunAsForm({ serviceId, organizationId, accounts, onAdded }: { serviceId: string; organizationId: string; accounts: Principal[]; onAdded: () => void }) {
  const form = useForm(['principalId']);
  const add = form.onSubmit(async (values) => {
    await tenancyApi.create({ principalId: values.principalId ?? '', serviceId });
    onAdded();
  });
  if (accounts.length === 0) {
    return (
      <p class="muted">
        The organization has no host accounts yet: <Link href={`/organizations/${organizationId}/principals`}>create one on the Principals page</Link>.
      </p>
    );
  }
  return (
    <form ref={form.formRef} onSubmit={add} class="inline-form" aria-label="Choose the host account this service runs as">
      <SelectField {...form.fieldProps('principalId')} label="Host account" choices={accounts.map((account) => ({ value: account.id, label: accountName(account) }))} />
      <SubmitButton busy={form.busy} busyLabel="Saving…">
        Run as this account
      </SubmitButton>
      <FormAlert problem={form.problem} />
    </form>
  );
}
