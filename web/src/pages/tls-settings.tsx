/**
 * The organization settings' TLS sections: the organization CA (its fingerprint, expiry and the
 * download people add to their trust store), the ACME opt-in (owners) and the TLS library
 * (certificates hostings pin: upload, replace, delete; admins). Each says what is true now.
 */
import { useEffect, useState } from 'preact/hooks';
import { LETS_ENCRYPT_DIRECTORY } from '../../../src/contract/organizations.ts';
import { changedEntries, isUnchanged } from '../changes.ts';
import { ListView, LoadFailed, Loading, useList, useResource } from '../data.tsx';
import { CheckField, Field, FormAlert, SubmitButton, TextAreaField, useForm } from '../forms.tsx';
import { type Certificate, dateOf, expiryOf, ingressApi } from '../ingress-api.ts';
import { organizationApi, type OrganizationSettings } from '../organization-api.ts';

interface SettingsProps {
  organization: OrganizationSettings;
  canEdit: boolean;
  onSaved: (updated: OrganizationSettings) => void;
}

/** The one root every server's internal certificates chain to, and its download. */
export function CertificateAuthoritySection({ organizationId }: { organizationId: string }) {
  const authority = useResource(`certificate-authority:${organizationId}`, () => ingressApi.authority(organizationId));
  return (
    <section aria-labelledby="ca-heading">
      <h2 id="ca-heading">Organization CA</h2>
      <div class="card stack">
        <p class="field-hint">
          Hostings without a certificate of their own get one from their server, signed by this root. Trust it once (in a browser or an operating system) and every
          server's internal certificates verify.
        </p>
        {authority.error && <LoadFailed error={authority.error} what="the organization CA" retry={authority.reload} />}
        {!authority.error && !authority.data && <Loading what="the organization CA" />}
        {authority.data && (
          <>
            <dl class="facts">
              <dt>Subject</dt>
              <dd>{authority.data.subject}</dd>
              <dt>SHA-256 fingerprint</dt>
              <dd class="mono">{authority.data.fingerprint}</dd>
              <dt>Valid until</dt>
              <dd>
                {dateOf(authority.data.notAfter)} ({expiryOf(authority.data.notAfter)})
              </dd>
            </dl>
            <p>
              <a class="button" href={ingressApi.authorityDownload(organizationId)} download>
                Download the root certificate (PEM)
              </a>
            </p>
          </>
        )}
      </div>
    </section>
  );
}

const ACME_FIELDS = ['isAcmeEnabled', 'acmeEmail', 'acmeDirectoryUrl', 'acmeDirectoryRoots'] as const;

/** The owner's opt-in to ACME, with the directory and its contact. */
export function AcmeSettings({ organization, canEdit, onSaved }: SettingsProps) {
  const shown = {
    acmeEmail: organization.acmeEmail ?? '',
    acmeDirectoryUrl: organization.acmeDirectoryUrl,
    acmeDirectoryRoots: organization.acmeDirectoryRoots ?? '',
  };
  const form = useForm(ACME_FIELDS, {}, shown);
  const [enabled, setEnabled] = useState(organization.isAcmeEnabled);
  const [outcome, setOutcome] = useState<'saved' | 'unchanged' | null>(null);
  useEffect(() => setEnabled(organization.isAcmeEnabled), [organization]);

  const save = form.onSubmit(async (values, edited) => {
    setOutcome(null);
    const changes = {
      ...changedEntries({ isAcmeEnabled: enabled }, organization),
      ...('acmeEmail' in edited ? { acmeEmail: values.acmeEmail?.trim() || null } : {}),
      ...('acmeDirectoryUrl' in edited ? { acmeDirectoryUrl: values.acmeDirectoryUrl?.trim() && values.acmeDirectoryUrl.trim() !== LETS_ENCRYPT_DIRECTORY ? values.acmeDirectoryUrl.trim() : null } : {}),
      ...('acmeDirectoryRoots' in edited ? { acmeDirectoryRoots: values.acmeDirectoryRoots?.trim() || null } : {}),
    };
    if (!isUnchanged(changes)) onSaved(await organizationApi.update(organization.id, changes));
    setOutcome(isUnchanged(changes) ? 'unchanged' : 'saved');
  });
  return (
    <section aria-labelledby="acme-heading">
      <h2 id="acme-heading">Public certificates (ACME)</h2>
      <form ref={form.formRef} onSubmit={save} noValidate class="card settings-form" aria-label="ACME settings">
        <fieldset class="bare" disabled={!canEdit} aria-describedby="acme-explained">
          <p class="field-hint" id="acme-explained">
            With ACME on, hostings whose TLS is "auto" get certificates from the directory below (Let's Encrypt unless you name another); their hostnames must resolve to
            the server and reach it on port 80 or 443. Otherwise they get certificates from the organization CA. Only owners change this.
            {!canEdit && ' Ask an owner.'}
          </p>
          <CheckField {...form.fieldProps('isAcmeEnabled')} label="Get certificates from ACME" checked={enabled} onChange={setEnabled} />
          <Field {...form.fieldProps('acmeEmail')} type="email" label="Contact e-mail" hint="Where the certificate authority writes about expiring certificates. Optional." autoComplete="email" />
          <Field {...form.fieldProps('acmeDirectoryUrl')} label="Directory URL" hint="An https URL; Let's Encrypt's by default." spellcheck={false} />
          <TextAreaField
            {...form.fieldProps('acmeDirectoryRoots')}
            label="Directory root certificates"
            hint="Only for a private ACME server whose own certificate public roots do not sign: its root certificates in PEM."
            spellcheck={false}
          />
          <FormAlert problem={form.problem} />
          {outcome && (
            <p class="notice" role="status">
              {outcome === 'saved' ? 'ACME settings saved; every server applies them.' : 'Nothing changed: there was nothing to save.'}
            </p>
          )}
          {canEdit && (
            <SubmitButton busy={form.busy} busyLabel="Saving…">
              Save ACME settings
            </SubmitButton>
          )}
        </fieldset>
      </form>
    </section>
  );
}

/** The certificates hostings may pin; admins add, replace and delete them. */
export function TlsLibrarySection({ organizationId, canEdit }: { organizationId: string; canEdit: boolean }) {
  const certificates = useList(`certificates:${organizationId}`, (cursor) => ingressApi.certificates({ organizationId, cursor }));
  return (
    <section aria-labelledby="tls-library-heading" class="stack">
      <h2 id="tls-library-heading">TLS library</h2>
      <p class="field-hint">
        Certificates you bring (from your own CA or a commercial one). A hosting that pins one is served with it; its private key is stored sealed and never shown
        again.
      </p>
      <ListView list={certificates} what="certificates" empty="No certificates yet.">
        {(items) => (
          <ul class="rows">
            {items.map((certificate) => (
              <li key={certificate.id} class="card stack">
                <CertificateFacts certificate={certificate} />
                {canEdit && <CertificateActions certificate={certificate} onChanged={certificates.reload} />}
              </li>
            ))}
          </ul>
        )}
      </ListView>
      {canEdit && <AddCertificate organizationId={organizationId} onAdded={certificates.reload} />}
    </section>
  );
}

function CertificateFacts({ certificate }: { certificate: Certificate }) {
  const expired = Date.parse(certificate.notAfter) <= Date.now();
  return (
    <>
      <h3>{certificate.name}</h3>
      <dl class="facts">
        <dt>Names</dt>
        <dd>{certificate.names.join(', ')}</dd>
        <dt>Issuer</dt>
        <dd>{certificate.issuer}</dd>
        <dt>Valid until</dt>
        <dd class={expired ? 'field-error' : undefined}>
          {dateOf(certificate.notAfter)} ({expiryOf(certificate.notAfter)})
        </dd>
        <dt>Key</dt>
        <dd>{certificate.keyType}</dd>
        <dt>Used by</dt>
        <dd>{certificate.hostingCount === 1 ? '1 hosting' : `${certificate.hostingCount} hostings`}</dd>
        <dt>SHA-256 fingerprint</dt>
        <dd class="mono">{certificate.fingerprint}</dd>
      </dl>
    </>
  );
}

const CERTIFICATE_FIELDS = ['name', 'certificate', 'privateKey'] as const;

function AddCertificate({ organizationId, onAdded }: { organizationId: string; onAdded: () => void }) {
  const form = useForm(CERTIFICATE_FIELDS);
  const save = form.onSubmit(async (values) => {
    await ingressApi.addCertificate({ organizationId, name: values.name ?? '', certificate: values.certificate ?? '', privateKey: values.privateKey ?? '' });
    form.formRef.current?.reset();
    onAdded();
  });
  return (
    <form ref={form.formRef} onSubmit={save} noValidate class="card stack" aria-label="Add a certificate">
      <h3>Add a certificate</h3>
      <Field {...form.fieldProps('name')} label="Certificate name" required />
      <TextAreaField {...form.fieldProps('certificate')} label="Certificate chain (PEM)" hint="The certificate first, then each issuer." spellcheck={false} required />
      <TextAreaField {...form.fieldProps('privateKey')} label="Private key (PEM)" hint="Unencrypted; it is sealed when stored and never shown again." spellcheck={false} required />
      <FormAlert problem={form.problem} />
      <div class="row">
        <SubmitButton busy={form.busy} busyLabel="Checking and adding…">
          Add certificate
        </SubmitButton>
      </div>
    </form>
  );
}

/** Replace the chain (a renewal, with or without a new key) or delete the certificate. */
function CertificateActions({ certificate, onChanged }: { certificate: Certificate; onChanged: () => void }) {
  const form = useForm(CERTIFICATE_FIELDS);
  const remove = useForm([]);
  const [done, setDone] = useState(false);
  const replace = form.onSubmit(async (values) => {
    setDone(false);
    await ingressApi.updateCertificate(certificate.id, {
      certificate: values.certificate || undefined,
      privateKey: values.privateKey || undefined,
    });
    form.formRef.current?.reset();
    setDone(true);
    onChanged();
  });
  const drop = remove.onSubmit(async () => {
    await ingressApi.removeCertificate(certificate.id);
    onChanged();
  });
  return (
    <details>
      <summary>Renew or delete {certificate.name}</summary>
      <form ref={form.formRef} onSubmit={replace} noValidate class="stack" aria-label={`Renew ${certificate.name}`}>
        <TextAreaField {...form.fieldProps('certificate')} label={`New chain of ${certificate.name}`} hint="Leave the key empty to keep the stored one." spellcheck={false} />
        <TextAreaField {...form.fieldProps('privateKey')} label={`New private key of ${certificate.name}`} spellcheck={false} />
        <FormAlert problem={form.problem} />
        {done && (
          <p class="notice" role="status">
            Renewed; the servers serving its hostings apply it.
          </p>
        )}
        <div class="row">
          <SubmitButton busy={form.busy} busyLabel="Checking…">
            Renew {certificate.name}
          </SubmitButton>
        </div>
      </form>
      <form ref={remove.formRef} onSubmit={drop}>
        <p class="field-hint">Hostings that pin it get a certificate from the organization CA instead.</p>
        <button type="submit" class="danger" aria-label={`Delete certificate ${certificate.name}`}>
          Delete
        </button>
        <FormAlert problem={remove.problem} />
      </form>
    </details>
  );
}
