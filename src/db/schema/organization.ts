/**
 * organization — the tenant. Every other resource hangs off one, directly or through its parent.
 * The spec only references it; the fields below are what the rest of the spec implies.
 */
import { sql } from 'drizzle-orm';
import { check, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { DEFAULT_CONTAINER_RANGE, DEFAULT_MESH_RANGE } from '../../fabric/allocate.ts';
import { boolean, booleanCheck, id, lengthBetween, matchesCharacters, timestamps, uuidV7Check } from './columns.ts';

export const organization = sqliteTable(
  'organization',
  {
    id: id(),
    name: text('name').notNull(),
    /** Name given to the first environment of every new project. Same format as environment.name. */
    defaultEnvironmentName: text('default_environment_name').notNull().default('production'),
    /** Principals get `<username>_<11 random chars>` as their applied username. */
    isRandomizeUsernames: boolean('is_randomize_usernames').notNull().default(false),
    /** Allows deploy hooks in service options. */
    isDeployHooksEnabled: boolean('is_deploy_hooks_enabled').notNull().default(false),
    /** Compose host access on the organization's servers: its owner's opt-in (docs/SECURITY.md). */
    isHostAccessAllowed: boolean('is_host_access_allowed').notNull().default(false),
    /** Owner's opt-in: hostings with tls `auto` get certificates from the ACME directory below. */
    isAcmeEnabled: boolean('is_acme_enabled').notNull().default(false),
    /** ACME account contact (optional for most directories). */
    acmeEmail: text('acme_email'),
    /** The ACME directory; null is Let's Encrypt. */
    acmeDirectoryUrl: text('acme_directory_url'),
    /** PEM roots the directory's own https certificate chains to (a private ACME server); null: the system's. */
    acmeDirectoryRoots: text('acme_directory_roots'),
    /** Host access also on the control plane's own (local) server: a superadmin's grant, on top of the opt-in. */
    isLocalHostAccessAllowed: boolean('is_local_host_access_allowed').notNull().default(false),
    /** The overlay fabric (owner's opt-in): a WireGuard mesh between the organization's servers. */
    isFabricEnabled: boolean('is_fabric_enabled').notNull().default(false),
    /** Where the servers' mesh addresses come from (src/fabric/allocate.ts checks it). */
    fabricMeshRange: text('fabric_mesh_range').notNull().default(DEFAULT_MESH_RANGE),
    /** Where the /24 of every network spanning servers comes from, one per server. */
    fabricContainerRange: text('fabric_container_range').notNull().default(DEFAULT_CONTAINER_RANGE),
    ...timestamps(),
  },
  (t) => [
    uuidV7Check('organization', t.id),
    check('organization_name_length', lengthBetween(t.name, 1, 255)),
    check('organization_default_environment_name_format', matchesCharacters(t.defaultEnvironmentName, 'A-Za-z0-9 ._/-', 255)),
    booleanCheck('organization', t.isRandomizeUsernames),
    booleanCheck('organization', t.isDeployHooksEnabled),
    booleanCheck('organization', t.isHostAccessAllowed),
    booleanCheck('organization', t.isAcmeEnabled),
    check('organization_acme_email_length', lengthBetween(t.acmeEmail, 3, 254)),
    check('organization_acme_directory_url_is_https', sql`${t.acmeDirectoryUrl} GLOB 'https://?*' AND length(${t.acmeDirectoryUrl}) <= 2048`),
    booleanCheck('organization', t.isLocalHostAccessAllowed),
    booleanCheck('organization', t.isFabricEnabled),
  ],
);

export type Organization = typeof organization.$inferSelect;
export type NewOrganization = typeof organization.$inferInsert;
