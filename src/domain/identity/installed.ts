/**
 * Whether this Panel is installed (self-hosted runtime): every guarded request asks, so this is
 * apart from the install itself (./install.ts), which brings sign-in and its second factors.
 */
import { discardInstallToken, ensureInstallToken } from '../../auth/install-token.ts';
import type { Config } from '../../config.ts';
import type { Db } from '../../db/client.ts';
import { organization } from '../../db/schema/index.ts';
import { DomainError } from '../../lib/errors.ts';
import type { Logger } from '../../lib/logger.ts';

const installedDatabases = new WeakSet<Db>();

/** True once any organization exists (remembered: an installed instance stays installed). */
export function isInstalled(db: Db): boolean {
  if (installedDatabases.has(db)) return true;
  const installed = db.select({ id: organization.id }).from(organization).limit(1).get() !== undefined;
  if (installed) installedDatabases.add(db);
  return installed;
}

export const alreadyInstalled = () => new DomainError('already_installed', 'Panel is already installed');
export const installRequired = () => new DomainError('install_required', 'Panel is not installed yet; finish the install wizard');

/** Remembers that the install of `db` completed. */
export const markInstalled = (db: Db): void => {
  installedDatabases.add(db);
};

/**
 * At `panel serve`: before the install, make sure the one-time token exists and say where it
 * is; after it, make sure no token is left lying around.
 */
export function announceInstall(db: Db, config: Config, logger: Logger): void {
  if (config.runtime !== 'self-hosted') return;
  if (isInstalled(db)) {
    discardInstallToken(config.dataDir);
    return;
  }
  const { file } = ensureInstallToken(config.dataDir);
  // The path only: logs travel further than the data dir (journals, collectors, support tickets).
  logger.info(`install wizard: open ${config.publicUrl}/install and enter the install token kept in ${file}`, { file });
}
