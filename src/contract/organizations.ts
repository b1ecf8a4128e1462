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
});
export type OrganizationUpdate = v.InferInput<typeof OrganizationUpdate>;

/** Superadmins (PATCH /api/admin/v1/organizations/{id}): host access on the control plane's own server. */
export const LocalHostAccessUpdate = strict({
  /** With the owner's isHostAccessAllowed, lets the organization's Compose documents use host access on Panel's own server. */
  isLocalHostAccessAllowed: v.boolean(),
});
export type LocalHostAccessUpdate = v.InferInput<typeof LocalHostAccessUpdate>;
