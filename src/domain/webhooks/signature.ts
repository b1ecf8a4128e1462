/**
 * Webhook signatures: the header
 *   Panel-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>" under the secret>
 * The timestamp is signed too, so a receiver can refuse old (replayed) deliveries, and compares in
 * constant time (dispatcher.test.ts checks deliveries as such a receiver does).
 */
import { createHmac, randomBytes } from 'node:crypto';

export const SIGNATURE_HEADER = 'panel-signature';

export const newWebhookSecret = (): string => `whsec_${randomBytes(32).toString('base64url')}`;

export function signPayload(secret: string, timestampSeconds: number, body: string): string {
  const digest = createHmac('sha256', secret).update(`${timestampSeconds}.${body}`).digest('hex');
  return `t=${timestampSeconds},v1=${digest}`;
}
