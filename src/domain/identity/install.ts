/**
 * The install wizard (self-hosted runtime): while no organization exists, the first superadmin
 * proves host access (the one-time install token, or a sudo-group host account through PAM) and
 * creates the first organization. Afterwards the install surface answers 410. Whether Panel is
 * installed is ./installed.ts: every guarded request asks, and it needs none of this.
 */
import { type HostCommandRunner, authenticateHostAccount, bunCommandRunner, isHostAuthAvailable } from '../../auth/pam.ts';
import { checkInstallToken, discardInstallToken } from '../../auth/install-token.ts';
import type { Db } from '../../db/client.ts';
import { organization, user } from '../../db/schema/index.ts';
import { DomainError } from '../../lib/errors.ts';
import { createOrganization } from '../organizations/service.ts';
import type { IdentityContext, RequestMeta } from './context.ts';
import { alreadyInstalled, isInstalled, markInstalled } from './installed.ts';
import { AttemptLimiter, attemptBuckets } from './rate-limit.ts';
import { startSession } from './sign-in.ts';
import { emailInUse, findUserByEmail, preparePasswordUser } from './users.ts';

export type InstallProof = { kind: 'token'; token: string } | { kind: 'host'; username: string; password: string };

export interface InstallInput {
  proof: InstallProof;
  email: string;
  password: string;
  organizationName: string;
  displayName?: string;
}

export function installStatus(hostRunner: HostCommandRunner = bunCommandRunner) {
  const methods: InstallProof['kind'][] = isHostAuthAvailable(hostRunner) ? ['token', 'host'] : ['token'];
  return { installed: false, methods };
}

async function proveHostAccess(dataDir: string, proof: InstallProof, hostRunner: HostCommandRunner): Promise<boolean> {
  if (proof.kind === 'token') return checkInstallToken(dataDir, proof.token);
  const result = await authenticateHostAccount(proof.username, proof.password, hostRunner);
  if (result === 'unavailable') {
    throw new DomainError('host_auth_unavailable', 'host account sign-in needs pamtester on this host; use the install token', 'proof.kind');
  }
  return result === 'ok';
}

/** Creates the superadmin, the first organization, and signs the superadmin in. */
export async function completeInstall(
  ctx: IdentityContext,
  dataDir: string,
  input: InstallInput,
  meta: RequestMeta,
  hostRunner: HostCommandRunner = bunCommandRunner,
) {
  if (isInstalled(ctx.db)) throw alreadyInstalled();
  const limiter = new AttemptLimiter(ctx.db, ctx.clock);
  const buckets = attemptBuckets('install', { address: meta.address });
  limiter.check(buckets);
  if (!(await proveHostAccess(dataDir, input.proof, hostRunner))) {
    limiter.fail(buckets);
    throw new DomainError('invalid_credentials', input.proof.kind === 'token' ? 'the install token is wrong' : 'the host account was refused');
  }
  const prepared = await preparePasswordUser(ctx.db, input);
  // Synchronous from here: no other request can run between the check and the inserts.
  const created = ctx.db.transaction((tx) => {
    if (tx.select({ id: organization.id }).from(organization).limit(1).get()) throw alreadyInstalled();
    if (findUserByEmail(tx, prepared.email)) throw emailInUse();
    const superadmin = tx.insert(user).values({ ...prepared, displayName: input.displayName ?? null, isSuperadmin: true }).returning().get();
    // createOrganization nests its own transaction (a savepoint inside this one).
    const org = createOrganization(tx as unknown as Db, { name: input.organizationName, ownerUserId: superadmin.id });
    return { user: superadmin, organization: org };
  });
  markInstalled(ctx.db);
  discardInstallToken(dataDir);
  return { ...created, token: startSession(ctx, created.user, meta).token };
}
