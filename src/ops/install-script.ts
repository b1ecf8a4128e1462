/**
 * install.sh as this executable carries and serves it (GET /api/daemon/v1/install.sh), and its
 * SHA-256: the console's join command checks the download against it before running it as root.
 */
import script from '../../install.sh' with { type: 'text' };

export const INSTALL_SCRIPT: string = script;
export const INSTALL_SCRIPT_SHA256 = new Bun.CryptoHasher('sha256').update(INSTALL_SCRIPT).digest('hex');
