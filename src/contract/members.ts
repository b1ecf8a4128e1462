/** Organization members and invitations. */
import * as v from 'valibot';
import { ListQuery, Text, Timestamp, Timestamps, Uuid } from './common.ts';
import { DisplayName, Email, Password, Role, User } from './identity.ts';

export const MembershipListQuery = v.object({ organizationId: Uuid, ...ListQuery });
export const MembershipUpdate = v.object({ role: Role });
export const Membership = v.object({
  id: v.string(),
  organizationId: v.string(),
  userId: v.string(),
  email: v.string(),
  displayName: v.nullable(v.string()),
  role: Role,
  ...Timestamps,
});
export type Membership = v.InferOutput<typeof Membership>;

export const InvitationCreate = v.object({ organizationId: Uuid, email: Email, role: Role });
export const InvitationListQuery = MembershipListQuery;
export const Invitation = v.object({
  id: v.string(),
  organizationId: v.string(),
  email: v.string(),
  role: Role,
  invitedByUserId: v.string(),
  expiresAt: Timestamp,
  ...Timestamps,
});
export type Invitation = v.InferOutput<typeof Invitation>;
/** The answer to a create: the token, shown once. */
export const CreatedInvitation = v.object({ ...Invitation.entries, token: v.string() });
export type CreatedInvitation = v.InferOutput<typeof CreatedInvitation>;

export const InvitationAccept = v.object({ token: Text(256), password: v.optional(Password), displayName: v.optional(DisplayName) });
export type InvitationAccept = v.InferInput<typeof InvitationAccept>;
/** `user` is the account created and signed in by the accept, null when already signed in. */
export const InvitationAccepted = v.object({ organizationId: v.string(), user: v.nullable(User) });
export type InvitationAccepted = v.InferOutput<typeof InvitationAccepted>;
