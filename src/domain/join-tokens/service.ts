/**
 * Join tokens: how a server's daemon enrolls into an organization (ARCHITECTURE.md §6).
 * Organization admins create them; the token is shown once (with the one-line install-and-join
 * command, and the bare `panel daemon join <publicUrl> --token <T>`) and only its SHA-256 is stored. A token
 * expires (default 1 hour, at most 7 days), is spent by the first enrollment that presents it
 * (single-use: a leaked, already used token enrolls nothing) and is revoked by deleting it. A
 * machine already enrolled enrolls again only with a token made to replace its server.
 */
import { and, eq, sql } from 'drizzle-orm';
import { hashToken, newOpaqueToken } from '../../auth/token.ts';
import { type JoinToken, joinToken } from '../../db/schema/index.ts';
import type { Clock } from '../../lib/clock.ts';
import { INSTALL_SCRIPT_SHA256 } from '../../ops/install-script.ts';
import { DomainError } from '../../lib/errors.ts';
import { type Actor, authorize, loadFor } from '../actor.ts';
import { requireServerOf } from '../servers/service.ts';
import { preparedOnce, type Queryable } from '../shared/database.ts';
import { type Page, type PageRequest, pageWindow, toPage } from '../shared/pagination.ts';
import { DEFAULT_JOIN_TOKEN_TTL_SECONDS, MAX_JOIN_TOKEN_TTL_SECONDS } from '../../contract/tokens.ts';

export const JOIN_TOKEN_PREFIX = 'pnj';

export type JoinTokenState = 'active' | 'used' | 'expired';

export function joinTokenState(row: JoinToken, now: Date): JoinTokenState {
  if (row.usedAt) return 'used';
  return row.expiresAt.getTime() <= now.getTime() ? 'expired' : 'active';
}

/** One shell word: kept bare when it is plainly safe, else single-quoted. */
const shellWord = (word: string) => (/^[A-Za-z0-9_./:=@-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`);

/** Where the join command saves install.sh, in the directory it is run from (like get-docker.sh). */
const SCRIPT_FILE = 'panel-install.sh';

export interface JoinCommands {
  /** One line for a fresh server: saves install.sh from Panel, checks it is the script this Panel
   * serves (SHA-256), then runs it as root; it downloads this executable, checks its SHA-256,
   * installs the daemon as a systemd unit and joins with the token. Each step runs only when the
   * one before succeeded, so a failed download fails the line (`curl … | bash` would exit 0). */
  command: string;
  /** For a server that already has the panel executable. */
  joinCommand: string;
}

/** The commands an operator runs on the new server, with the options chosen (the token is base64url). */
export function joinCommandsFor(publicUrl: string, token: string, options: { name?: string } = {}): JoinCommands {
  const url = publicUrl.replace(/\/+$/, '');
  const name = options.name ? ` --name ${shellWord(options.name)}` : '';
  return {
    command:
      `curl -fsSL ${url}/api/daemon/v1/install.sh -o ${SCRIPT_FILE}` +
      ` && echo '${INSTALL_SCRIPT_SHA256}  ${SCRIPT_FILE}' | sha256sum -c` +
      ` && sudo bash ${SCRIPT_FILE} --daemon ${url} --token ${token}${name}`,
    joinCommand: `panel daemon join ${url} --token ${token}${name}`,
  };
}

const LOOPBACK_HOST = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/i;

/** What keeps other machines from using the join command, in words. */
export function joinWarnings(publicUrl: string): string[] {
  if (!LOOPBACK_HOST.test(new URL(publicUrl).hostname)) return [];
  return [
    `Panel's public URL is ${publicUrl}, a loopback address: other machines cannot reach it, so this command only works on this machine. Set PANEL_PUBLIC_URL to an address the servers reach (and PANEL_HOST so Panel listens there), then restart Panel.`,
  ];
}

export interface CreateJoinTokenInput {
  organizationId: string;
  /** Lifetime in seconds, 60 .. 7 days; default 1 hour. */
  expiresInSeconds?: number;
  /** A server of the organization whose record the enrollment takes over (see enroll.ts). */
  replacesServerId?: string;
}

export function createJoinToken(db: Queryable, clock: Clock, actor: Actor, input: CreateJoinTokenInput): { row: JoinToken; token: string } {
  authorize(actor, input.organizationId, 'write', 'organization');
  if (input.replacesServerId !== undefined && requireServerOf(db, input.organizationId, input.replacesServerId).isLocal) {
    throw new DomainError('machine_is_local', "the local server's daemon connects over the unix socket and never enrolls; no token can replace it", 'replacesServerId');
  }
  const ttl = Math.min(input.expiresInSeconds ?? DEFAULT_JOIN_TOKEN_TTL_SECONDS, MAX_JOIN_TOKEN_TTL_SECONDS);
  const token = newOpaqueToken(JOIN_TOKEN_PREFIX);
  const row = db
    .insert(joinToken)
    .values({
      organizationId: input.organizationId,
      createdByUserId: actor.userId,
      tokenHash: hashToken(token),
      expiresAt: new Date(clock.now().getTime() + ttl * 1000),
      replacesServerId: input.replacesServerId ?? null,
    })
    .returning()
    .get();
  return { row, token };
}

export function listJoinTokens(db: Queryable, actor: Actor, organizationId: string, page: PageRequest): Page<JoinToken> {
  authorize(actor, organizationId, 'write', 'organization');
  const { where, fetch, limit } = pageWindow(joinToken.id, page, eq(joinToken.organizationId, organizationId));
  return toPage(db.select().from(joinToken).where(where).orderBy(joinToken.id).limit(fetch).all(), limit);
}

/** Revoking deletes the token: whatever state it was in, it can never enroll anything. */
export function revokeJoinToken(db: Queryable, actor: Actor, id: string): void {
  const row = loadFor(actor, 'write', 'join token', db.select().from(joinToken).where(eq(joinToken.id, id)).get());
  db.delete(joinToken).where(and(eq(joinToken.id, id), eq(joinToken.organizationId, row.organizationId))).run();
}

const findByHashStatement = (db: Queryable) =>
  db.select().from(joinToken).where(eq(joinToken.tokenHash, sql.placeholder('hash'))).prepare();

/** The token row a presented token names, whatever its state. */
export function findJoinToken(db: Queryable, token: string): JoinToken | undefined {
  return preparedOnce(db, findByHashStatement).get({ hash: hashToken(token) });
}

/**
 * Spends the token: a compare-and-set on `used_at IS NULL` and the expiry, so of two
 * enrollments racing with one token exactly one wins. False when it was no longer spendable.
 */
export function spendJoinToken(db: Queryable, id: string, now: Date): boolean {
  const spent = db
    .update(joinToken)
    .set({ usedAt: now })
    .where(and(eq(joinToken.id, id), sql`${joinToken.usedAt} IS NULL`, sql`${joinToken.expiresAt} > ${now.getTime()}`))
    .returning({ id: joinToken.id })
    .all();
  return spent.length === 1;
}

export function recordEnrolledServer(db: Queryable, id: string, serverId: string): void {
  db.update(joinToken).set({ serverId }).where(eq(joinToken.id, id)).run();
}
