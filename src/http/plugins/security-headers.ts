/**
 * Headers every response carries (the console's page and assets add their own stricter ones,
 * which take precedence): no MIME sniffing, no framing by any other site (CSP frame-ancestors
 * and the older X-Frame-Options), no Referer leaking paths or tokens to other origins, and, when
 * Panel's public URL is https, HSTS so a browser never again reaches it over plain http.
 * Not `includeSubDomains`: Panel's hostname may share its domain with apps that are not https.
 */
import type { Config } from '../../config.ts';

const ALWAYS = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'content-security-policy': "frame-ancestors 'none'",
  'referrer-policy': 'no-referrer',
} as const;

export const HSTS = 'max-age=31536000';

export function applySecurityHeaders(headers: Record<string, unknown>, config: Pick<Config, 'publicUrl'>): void {
  Object.assign(headers, ALWAYS);
  if (config.publicUrl.startsWith('https:')) headers['strict-transport-security'] = HSTS;
}
