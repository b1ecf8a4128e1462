/** The install wizard (self-hosted runtime, before the first organization exists). */
import * as v from 'valibot';
import { Text } from './common.ts';
import { DisplayName, Email, OrganizationName, Password } from './identity.ts';

export const installProofKinds = ['token', 'host'] as const;
export const InstallStatus = v.object({ installed: v.boolean(), methods: v.array(v.picklist(installProofKinds)) });
export type InstallStatus = v.InferOutput<typeof InstallStatus>;

/** The install token from the data directory, or a host account of the sudo group. */
const Proof = v.variant('kind', [
  v.object({ kind: v.literal('token'), token: Text(256) }),
  v.object({ kind: v.literal('host'), username: Text(32), password: Password }),
]);
export const InstallRequest = v.object({ proof: Proof, email: Email, password: Password, organizationName: OrganizationName, displayName: v.optional(DisplayName) });
export type InstallRequest = v.InferInput<typeof InstallRequest>;
