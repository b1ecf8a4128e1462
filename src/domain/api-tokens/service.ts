/**
 * API tokens: `Authorization: Bearer` credentials for automation, bound to one organization and
 * a role no higher than the creator's (and capped again at every use by the creator's current
 * role, in resolve.ts). The token is shown once; only its hash is stored; revoking deletes it.
 * Members see and revoke their own tokens; owners see and revoke every token of the organization.
 */
import { and, eq } from 'drizzle-orm';
import { hashToken, newOpaqueToken } from '../../auth/token.ts';
import type { Db } from '../../db/client.ts';
import { type ApiToken, apiToken, type MembershipRole } from '../../db/schema/index.ts';
import type { Clock } from '../../lib/clock.ts';
import { forbidden, notFound, validationFailed } from '../../lib/errors.ts';
import { type Actor, authorize, hasRole } from '../actor.ts';
import { requireRecentSignIn } from '../identity/account.ts';
import type { Queryable } from '../shared/database.ts';
import { type Page, type PageRequest, pageWindow, toPage } from '../shared/pagination.ts';

export const API_TOKEN_PREFIX = 'pat';

export interface CreateApiTokenInput {
  organizationId: string;
  name: string;
  role: MembershipRole;
  expiresAt?: Date | null;
}

export function createApiToken(db: Db, clock: Clock, actor: Actor, input: CreateApiTokenInput): { row: ApiToken; token: string } {
  // Tokens are made by people (a token cannot mint more tokens), signed in recently: a token
  // outlives the session that made it, so a stolen session cookie must not mint one.
  requireRecentSignIn(db, clock, actor);
  const role = authorize(actor, input.organizationId, 'read', 'organization');
  if (!hasRole(role, input.role)) throw forbidden(`a token cannot have a role above your own (${role})`);
  if (input.expiresAt && input.expiresAt.getTime() <= clock.now().getTime()) {
    throw validationFailed('must be in the future', 'expiresAt');
  }
  const token = newOpaqueToken(API_TOKEN_PREFIX);
  const row = db
    .insert(apiToken)
    .values({
      organizationId: input.organizationId,
      userId: actor.userId,
      name: input.name,
      role: input.role,
      tokenHash: hashToken(token),
      expiresAt: input.expiresAt ?? null,
    })
    .returning()
    .get();
  return { row, token };
}

export function listApiTokens(db: Queryable, actor: Actor, organizationId: string, page: PageRequest): Page<ApiToken> {
  const role = authorize(actor, organizationId, 'read', 'organization');
  const { where, fetch, limit } = pageWindow(
    apiToken.id,
    page,
    eq(apiToken.organizationId, organizationId),
    role === 'owner' ? undefined : eq(apiToken.userId, actor.userId),
  );
  return toPage(db.select().from(apiToken).where(where).orderBy(apiToken.id).limit(fetch).all(), limit);
}

/** Someone else's token is invisible to a non-owner: 404, like another organization's. */
export function revokeApiToken(db: Queryable, actor: Actor, id: string): void {
  const row = db.select().from(apiToken).where(eq(apiToken.id, id)).get();
  if (!row) throw notFound('api token');
  const role = authorize(actor, row.organizationId, 'read', 'api token');
  if (row.userId !== actor.userId && role !== 'owner') throw notFound('api token');
  db.delete(apiToken).where(and(eq(apiToken.id, id), eq(apiToken.organizationId, row.organizationId))).run();
}
