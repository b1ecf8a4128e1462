/** Organizations: the tenant boundary. Created at install or sign-up, never through this resource. */
import * as v from 'valibot';
import { EnvironmentName, ListQuery, strict, Text, Timestamps } from './common.ts';

export const Organization = v.object({
  id: v.string(),
  name: v.string(),
  defaultEnvironmentName: v.string(),
  isRandomizeUsernames: v.boolean(),
  isDeployHooksEnabled: v.boolean(),
  isHostAccessAllowed: v.boolean(),
  /** Hostings with tls `auto` get their certificates from the ACME directory (else from the organization CA). */
  isAcmeEnabled: v.boolean(),
  acmeEmail: v.nullable(v.string()),
  /** The ACME directory in use (Let's Encrypt unless set). */
  acmeDirectoryUrl: v.string(),
  /** PEM roots of a private ACME directory's own certificate, or null. */
  acmeDirectoryRoots: v.nullable(v.string()),
  /** Host access also on the control plane's own server: a superadmin's grant (admin surface), on top of isHostAccessAllowed. */
  isLocalHostAccessAllowed: v.boolean(),
  /** The overlay fabric is on (its settings and state: GET /organizations/{id}/fabric). */
  isFabricEnabled: v.boolean(),
  ...Timestamps,
});
export type Organization = v.InferOutput<typeof Organization>;
export const OrganizationListQuery = v.object(ListQuery);

export const OrganizationUpdate = strict({
  name: v.optional(Text(255)),
  /** Name of the first environment of every new project. */
  defaultEnvironmentName: v.optional(EnvironmentName),
  /** New principals get `<username>_<11 random characters>` as their applied username. */
  isRandomizeUsernames: v.optional(v.boolean()),
  /** Owners only: lets Compose documents use host access on the organization's servers (docs/SECURITY.md). */
  isHostAccessAllowed: v.optional(v.boolean()),
  /** Owners only: allows deploy hooks in service options. */
  isDeployHooksEnabled: v.optional(v.boolean()),
  /** Owners only: hostings with tls `auto` get ACME certificates (public hostnames that reach the servers on port 80 or 443). */
  isAcmeEnabled: v.optional(v.boolean()),
  /** Owners only: the ACME account's contact e-mail; null for none. */
  acmeEmail: v.optional(v.nullable(v.pipe(v.string(), v.email('must be an e-mail address'), v.maxLength(254, 'must be at most 254 characters')))),
  /** Owners only: the ACME directory URL (https); null for Let's Encrypt. */
  acmeDirectoryUrl: v.optional(v.nullable(v.pipe(v.string(), v.maxLength(2048, 'must be at most 2048 characters'), v.url('must be a URL'), v.startsWith('https://', 'must be an https URL')))),
  /** Owners only: PEM roots the directory's own https certificate chains to (a private ACME server); null for the system's. */
  acmeDirectoryRoots: v.optional(v.nullable(v.pipe(v.string(), v.maxLength(64 * 1024, 'must be at most 65536 characters')))),
});
export type OrganizationUpdate = v.InferInput<typeof OrganizationUpdate>;

/** The ACME directory used when the organization names none. */
export const LETS_ENCRYPT_DIRECTORY = 'https://acme-v02.api.letsencrypt.org/directory';

/** Superadmins (PATCH /api/admin/v1/organizations/{id}): host access on the control plane's own server. */
export const LocalHostAccessUpdate = strict({
  /** With the owner's isHostAccessAllowed, lets the organization's Compose documents use host access on Panel's own server. */
  isLocalHostAccessAllowed: v.boolean(),
});
export type LocalHostAccessUpdate = v.InferInput<typeof LocalHostAccessUpdate>;
