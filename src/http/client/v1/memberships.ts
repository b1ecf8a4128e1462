/** Organization members (owners only): list, change a role, remove (never the last owner). */
import type { AppDeps } from '../../../deps.ts';
import { Membership, MembershipListQuery, MembershipUpdate } from '../../../contract/members.ts';
import { changeMembershipRole, listMemberships, removeMembership } from '../../../domain/memberships/service.ts';
import { clientGuard } from '../../plugins/guard.ts';
import { resourceRoutes } from '../../resource.ts';

export const membershipRoutes = (deps: AppDeps) =>
  resourceRoutes({
    collection: 'memberships',
    schema: Membership,
    guard: clientGuard(deps),
    list: {
      query: MembershipListQuery,
      run: (actor, query) => listMemberships(deps.db, actor, query.organizationId, query),
      role: 'owner',
      summary: "List an organization's members",
    },
    update: {
      body: MembershipUpdate,
      run: (actor, id, body) => changeMembershipRole(deps.db, actor, id, body.role),
      role: 'owner',
      errors: ['last_owner'],
      summary: "Change a member's role (the last owner stays owner)",
    },
    remove: {
      run: (actor, id) => removeMembership(deps.db, actor, id),
      role: 'owner',
      errors: ['last_owner'],
      summary: 'Remove a member and their API tokens (never the last owner)',
    },
  });
