/**
 * Where each hostname's certificate stands on this server, read from Caddy's own storage (what it
 * holds: issuer and expiry) and its certificate log (what failed and why):
 *   library  issued, with the delivered certificate's issuer and expiry
 *   internal issued once Caddy stored one from the server's CA, else pending
 *   acme     issued once stored; failed with the ACME error Caddy logged since; else pending
 *   none     plain http, no status
 * Storage follows certmagic's layout: certificates/<issuer key>/<safe name>/<safe name>.crt, the
 * internal issuer's key being the CA id.
 */
import { X509Certificate } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { AUTHORITY_ID, type HostnameCertificate } from '../../../ingress/caddy-config.ts';
import type { CertificateState, LibraryCertificate } from '../../../contract/ingress.ts';

interface Held {
  issuer: string;
  notAfter: number;
}

/** certmagic's StorageKeys.Safe: lower case, `*` -> `wildcard_`, `:` -> `-`, then only [\w@.-]. */
export function safeStorageName(name: string): string {
  return name
    .toLowerCase()
    .trim()
    .replaceAll(' ', '_')
    .replaceAll('+', '_plus_')
    .replaceAll('*', 'wildcard_')
    .replaceAll(':', '-')
    .replaceAll('..', '')
    .replace(/[^\w@.-]/g, '');
}

const describe = (pem: string): Held => {
  const certificate = new X509Certificate(pem);
  return { issuer: certificate.issuer.replaceAll('\n', ', '), notAfter: new Date(certificate.validTo).getTime() };
};

/** The newest certificate stored for `hostname` by the internal issuer, or by any other (ACME). */
async function held(storage: string, hostname: string, internal: boolean): Promise<Held | null> {
  const root = join(storage, 'certificates');
  let issuers: string[];
  try {
    issuers = await readdir(root);
  } catch {
    return null;
  }
  const safe = safeStorageName(hostname);
  let newest: Held | null = null;
  for (const issuer of issuers.filter((key) => (key === AUTHORITY_ID) === internal)) {
    let pem: string;
    try {
      pem = await readFile(join(root, issuer, safe, `${safe}.crt`), 'utf8');
    } catch {
      continue;
    }
    const found = describe(pem);
    if (!newest || found.notAfter > newest.notAfter) newest = found;
  }
  return newest;
}

/** The last ACME failure logged per identifier, cleared by a later success. */
export function failuresFromLog(text: string): Map<string, string> {
  const failures = new Map<string, string>();
  for (const line of text.split('\n')) {
    if (!line.startsWith('{')) continue;
    let entry: { msg?: unknown; identifier?: unknown; error?: unknown };
    try {
      entry = JSON.parse(line);
    } catch {
      continue;
    }
    if (typeof entry.identifier !== 'string') continue;
    const identifier = entry.identifier.toLowerCase();
    if (entry.msg === 'could not get certificate from issuer' && typeof entry.error === 'string') failures.set(identifier, entry.error.slice(0, 2000));
    else if (entry.msg === 'certificate obtained successfully') failures.delete(identifier);
  }
  return failures;
}

export async function certificateStates(
  planned: readonly HostnameCertificate[],
  library: readonly LibraryCertificate[],
  routeCertificate: ReadonlyMap<string, string>,
  storage: string,
  logText: string,
): Promise<CertificateState[]> {
  const failures = failuresFromLog(logText);
  const libraryFacts = new Map(library.map((certificate) => [certificate.id, describe(certificate.certificate)]));
  const states: CertificateState[] = [];
  for (const entry of planned) {
    const base = { hostingId: entry.hostingId, hostname: entry.hostname, source: entry.source, error: entry.problem };
    if (entry.source === 'none') {
      states.push({ ...base, status: null, issuer: null, notAfter: null });
    } else if (entry.source === 'library') {
      const facts = libraryFacts.get(routeCertificate.get(entry.hostingId) ?? '');
      states.push({ ...base, status: facts ? 'issued' : 'failed', issuer: facts?.issuer ?? null, notAfter: facts?.notAfter ?? null });
    } else {
      const found = await held(storage, entry.hostname, entry.source === 'internal');
      const failure = entry.source === 'acme' ? failures.get(entry.hostname.toLowerCase()) : undefined;
      const status = found ? 'issued' : failure ? 'failed' : 'pending';
      states.push({ ...base, status, error: failure ?? base.error, issuer: found?.issuer ?? null, notAfter: found?.notAfter ?? null });
    }
  }
  return states;
}
