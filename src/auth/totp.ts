/**
 * TOTP (RFC 6238) through `otpauth`: SHA-1, 6 digits, 30-second steps, the parameters every
 * authenticator app understands. Verification accepts ±1 step of drift and reports the matched
 * step so the caller can refuse a code for a step it has already accepted (single use).
 */
import { Secret, TOTP } from 'otpauth';

export const TOTP_PERIOD_SECONDS = 30;
export const TOTP_DIGITS = 6;
export const TOTP_DRIFT_STEPS = 1;
const ISSUER = 'Panel';

export type TotpAlgorithm = 'SHA1' | 'SHA256' | 'SHA512';

/** A fresh 160-bit secret (RFC 4226's recommended length), base32. */
export function generateTotpSecret(): string {
  return new Secret({ size: 20 }).base32;
}

function totpFor(secretBase32: string, label = 'account', algorithm: TotpAlgorithm = 'SHA1', digits = TOTP_DIGITS) {
  return new TOTP({ issuer: ISSUER, label, algorithm, digits, period: TOTP_PERIOD_SECONDS, secret: Secret.fromBase32(secretBase32) });
}

/** The `otpauth://totp/...` URI an authenticator app scans as a QR code. */
export function totpUri(secretBase32: string, accountName: string): string {
  return totpFor(secretBase32, accountName).toString();
}

/** The RFC 6238 time step of a moment: unix seconds / 30, floored. */
export function totpStep(at: Date): number {
  return Math.floor(at.getTime() / 1000 / TOTP_PERIOD_SECONDS);
}

/** The code for a moment (tests, and the RFC vectors). */
export function totpCode(secretBase32: string, at: Date, options: { algorithm?: TotpAlgorithm; digits?: number } = {}): string {
  return totpFor(secretBase32, 'account', options.algorithm, options.digits).generate({ timestamp: at.getTime() });
}

/**
 * The time step a code belongs to when it matches `at` ±1 step, newer than `afterStep`;
 * null otherwise. Codes are compared by otpauth in constant time.
 */
export function matchTotp(secretBase32: string, code: string, at: Date, afterStep: number | null): number | null {
  const token = code.replace(/\s+/g, '');
  if (!/^\d{6}$/.test(token)) return null;
  const totp = totpFor(secretBase32);
  const now = totpStep(at);
  // Newest step first, so a code valid for two steps (never, in practice) counts as the later one.
  for (let delta = TOTP_DRIFT_STEPS; delta >= -TOTP_DRIFT_STEPS; delta--) {
    const step = now + delta;
    if (afterStep !== null && step <= afterStep) continue;
    if (totp.validate({ token, timestamp: step * TOTP_PERIOD_SECONDS * 1000, window: 0 }) === 0) return step;
  }
  return null;
}
