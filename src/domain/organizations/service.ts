import type { Db } from '../../db/client.ts';
import { membership, organization, workspace } from '../../db/schema/index.ts';

/** The machine workspace every organization gets; its name is reserved for users. */
export const PANEL_WORKSPACE_NAME = 'TurboPanel';
export const DEFAULT_WORKSPACE_NAME = 'Default';

/**
 * A new organization with its `panel` workspace, a default user workspace, and its owner.
 * One transaction: an organization never exists half-made.
 */
export function createOrganization(db: Db, input: { name: string; ownerUserId: string }) {
  return db.transaction((tx) => {
    const org = tx.insert(organization).values({ name: input.name }).returning().get();
    tx.insert(workspace).values({ organizationId: org.id, name: PANEL_WORKSPACE_NAME, kind: 'panel', description: 'Platform stack' }).run();
    tx.insert(workspace).values({ organizationId: org.id, name: DEFAULT_WORKSPACE_NAME, kind: 'user' }).run();
    tx.insert(membership).values({ organizationId: org.id, userId: input.ownerUserId, role: 'owner' }).run();
    return org;
  });
}
