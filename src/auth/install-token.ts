/**
 * The install token: proof of host access for the install wizard. `panel serve` creates it on
 * first boot (no organization yet), writes it to <data dir>/install-token with mode 0600 and
 * logs that file's path (never the token). The wizard compares it in constant time; it is
 * deleted once the install completes (and at any later boot that finds it lying around).
 */
import { chmodSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { safeEqual } from '../crypto/primitives.ts';
import { newOpaqueToken } from './token.ts';

export const INSTALL_TOKEN_FILE = 'install-token';
const TOKEN_SHAPE = /^pni_[A-Za-z0-9_-]{43}$/;

export const installTokenPath = (dataDir: string) => join(dataDir, INSTALL_TOKEN_FILE);

/** The token in the file, or null when there is none (or it is not one of ours). */
export function readInstallToken(dataDir: string): string | null {
  try {
    const token = readFileSync(installTokenPath(dataDir), 'utf8').trim();
    return TOKEN_SHAPE.test(token) ? token : null;
  } catch {
    return null;
  }
}

/**
 * Returns the existing token (a restart before the install keeps the one already printed) or
 * writes a new one. The file is created owner-only; an existing file is forced back to 0600.
 */
export function ensureInstallToken(dataDir: string): { token: string; file: string; created: boolean } {
  const file = installTokenPath(dataDir);
  const existing = readInstallToken(dataDir);
  if (existing) {
    chmodSync(file, 0o600);
    return { token: existing, file, created: false };
  }
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const token = newOpaqueToken('pni');
  rmSync(file, { force: true });
  writeFileSync(file, `${token}\n`, { mode: 0o600, flag: 'wx' });
  chmodSync(file, 0o600);
  return { token, file, created: true };
}

/** Constant-time comparison with the token on disk; false when there is none. */
export function checkInstallToken(dataDir: string, given: string): boolean {
  const stored = readInstallToken(dataDir);
  // Compare even without a stored token, so both paths cost the same.
  const matches = safeEqual(stored ?? 'pni_none', given);
  return stored !== null && matches;
}

/** The token dies after use. */
export function discardInstallToken(dataDir: string): void {
  rmSync(installTokenPath(dataDir), { force: true });
}
