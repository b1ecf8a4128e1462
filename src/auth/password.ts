/**
 * Password hashing: Argon2id with memory 19456 KiB, 2 iterations, parallelism 1 (the
 * specification's parameters), as standard PHC strings through Bun.password — no native addon in
 * the executable, and the hashes verify with any Argon2 library (test: password.test.ts).
 */
import { randomBytes } from 'node:crypto';
import { PASSWORD_MAX_LENGTH } from '../contract/identity.ts';

export const ARGON2_MEMORY_KIB = 19456;
export const ARGON2_ITERATIONS = 2;
export const ARGON2_PARALLELISM = 1;

export const PASSWORD_MIN_LENGTH = 12;

export function hashPassword(password: string): Promise<string> {
  // Bun.password always uses parallelism 1 for Argon2.
  return Bun.password.hash(password, { algorithm: 'argon2id', memoryCost: ARGON2_MEMORY_KIB, timeCost: ARGON2_ITERATIONS });
}

/** False for a wrong password and for a hash Bun cannot read (never throws on bad input). */
export async function verifyPassword(password: string, hash: string): Promise<boolean> {
  try {
    return await Bun.password.verify(password, hash);
  } catch {
    return false;
  }
}

interface PhcParameters {
  algorithm: string;
  version: number | null;
  memoryKib: number;
  iterations: number;
  parallelism: number;
}

/** `$argon2id$v=19$m=19456,t=2,p=1$salt$hash` -> its parameters; null for anything else (bcrypt…). */
export function parsePhc(hash: string): PhcParameters | null {
  const match = /^\$(argon2(?:id|i|d))\$(?:v=(\d+)\$)?m=(\d+),t=(\d+),p=(\d+)\$[A-Za-z0-9+/]+\$[A-Za-z0-9+/]+$/.exec(hash);
  if (!match) return null;
  return {
    algorithm: match[1]!,
    version: match[2] === undefined ? null : Number(match[2]),
    memoryKib: Number(match[3]),
    iterations: Number(match[4]),
    parallelism: Number(match[5]),
  };
}

/**
 * True when a stored hash is weaker than today's parameters (another algorithm, an older Argon2
 * version, less memory or fewer iterations): sign-in then stores a fresh hash.
 */
export function needsRehash(hash: string): boolean {
  const phc = parsePhc(hash);
  if (!phc || phc.algorithm !== 'argon2id' || phc.version !== 19) return true;
  return phc.memoryKib < ARGON2_MEMORY_KIB || phc.iterations < ARGON2_ITERATIONS;
}

let dummyHash: Promise<string> | undefined;

/**
 * A real hash of a random password, made once per process. Sign-in with an unknown e-mail (or
 * an account without a password) verifies against it, so it costs the same as a real attempt.
 */
export function dummyPasswordHash(): Promise<string> {
  dummyHash ??= hashPassword(randomBytes(24).toString('base64url'));
  return dummyHash;
}

/**
 * Policy: at least 12 characters (code points), at most 1024, and not the e-mail address (nor
 * its local part). Returns the problem, or null when the password is acceptable.
 */
export function passwordProblem(password: string, email: string): string | null {
  const length = [...password].length;
  if (length < PASSWORD_MIN_LENGTH) return `password must be at least ${PASSWORD_MIN_LENGTH} characters`;
  if (length > PASSWORD_MAX_LENGTH) return `password must be at most ${PASSWORD_MAX_LENGTH} characters`;
  const candidate = password.trim().toLowerCase();
  const address = email.trim().toLowerCase();
  const localPart = address.slice(0, address.lastIndexOf('@'));
  if (candidate === address || (localPart.length > 0 && candidate === localPart)) return 'password must not be the e-mail address';
  return null;
}
