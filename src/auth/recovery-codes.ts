/**
 * Recovery codes: ten single-use second-factor codes, shown once. Each carries 80 random bits
 * (16 base32 characters, grouped `xxxx-xxxx-xxxx-xxxx`), so storing only its SHA-256 is safe: the
 * hash cannot be reversed by trying codes.
 */
import { randomBytes } from 'node:crypto';
import { hashToken } from './token.ts';

export const RECOVERY_CODE_COUNT = 10;
const ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567';
const CODE_CHARACTERS = 16;

export function generateRecoveryCode(): string {
  const bytes = randomBytes(CODE_CHARACTERS);
  let code = '';
  // 256 is a multiple of 32: taking each byte modulo 32 is unbiased.
  for (const byte of bytes) code += ALPHABET[byte % 32];
  return code.match(/.{4}/g)!.join('-');
}

export function generateRecoveryCodes(count = RECOVERY_CODE_COUNT): string[] {
  return Array.from({ length: count }, generateRecoveryCode);
}

/** Case, spaces and dashes do not matter when a code is typed back. */
export function normalizeRecoveryCode(code: string): string {
  return code.toLowerCase().replace(/[\s-]+/g, '');
}

export function hashRecoveryCode(code: string): string {
  return hashToken(`recovery:${normalizeRecoveryCode(code)}`);
}

/** Cheap shape check before touching the database. */
export function looksLikeRecoveryCode(code: string): boolean {
  return new RegExp(`^[${ALPHABET}]{${CODE_CHARACTERS}}$`).test(normalizeRecoveryCode(code));
}
