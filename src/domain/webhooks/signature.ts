/**
 * Webhook signatures, as receivers check them: the header
 *   Panel-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>" under the secret>
 * The timestamp is signed too, so a receiver can refuse old (replayed) deliveries; compare in
 * constant time.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'panel-signature';

export const newWebhookSecret = (): string => `whsec_${randomBytes(32).toString('base64url')}`;

export function signPayload(secret: string, timestampSeconds: number, body: string): string {
  const digest = createHmac('sha256', secret).update(`${timestampSeconds}.${body}`).digest('hex');
  return `t=${timestampSeconds},v1=${digest}`;
}

/** What a receiver does (and what the tests check): the header's signature matches, within `toleranceSeconds`. */
export function verifySignature(secret: string, header: string, body: string, nowSeconds: number, toleranceSeconds = 300): boolean {
  const fields = new Map(header.split(',').map((part) => part.split('=', 2) as [string, string]));
  const timestamp = Number(fields.get('t'));
  const given = fields.get('v1') ?? '';
  if (!Number.isInteger(timestamp) || Math.abs(nowSeconds - timestamp) > toleranceSeconds) return false;
  const expected = signPayload(secret, timestamp, body).split('v1=')[1]!;
  return given.length === expected.length && timingSafeEqual(Buffer.from(given), Buffer.from(expected));
}
