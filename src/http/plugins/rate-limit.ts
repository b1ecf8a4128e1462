/**
 * Transport side of the attempt limits (src/domain/identity/rate-limit.ts): the client address
 * the per-address buckets use, the Retry-After header on 429, and the helper passkey routes use.
 *
 * Address: the socket peer. Behind a reverse proxy on the same host (the peer is loopback, or
 * the request came over the unix socket or app.handle), the last X-Forwarded-For entry — the
 * one the proxy itself appended — names the client instead; a remote peer cannot set it.
 */
import type { Server } from 'bun';
import type { AppDeps } from '../../app.ts';
import { type AttemptKind, beginAttempt, RateLimitedError } from '../../domain/identity/rate-limit.ts';
import type { RequestMeta } from '../../domain/identity/context.ts';

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|::ffff:127\.\d+\.\d+\.\d+)$/;
const ADDRESS = /^[0-9A-Fa-f.:]{2,45}$/;

export function clientAddress(server: Server<unknown> | null | undefined, request: Request): string {
  const peer = server?.requestIP(request)?.address ?? null;
  if (peer === null || LOOPBACK.test(peer)) {
    const forwarded = request.headers.get('x-forwarded-for')?.split(',').at(-1)?.trim();
    if (forwarded && ADDRESS.test(forwarded)) return forwarded;
  }
  return peer ?? 'local';
}

export function requestMeta(server: Server<unknown> | null | undefined, request: Request): RequestMeta {
  return { address: clientAddress(server, request), userAgent: request.headers.get('user-agent') };
}

type HeaderSet = { headers: Record<string, unknown> };

/** Runs `work`; a 429 from it leaves with a Retry-After header (seconds). */
export async function withRetryAfter<T>(set: HeaderSet, work: () => T | Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof RateLimitedError) set.headers['retry-after'] = String(error.retryAfterSeconds);
    throw error;
  }
}

/**
 * For flows that check their own credential (passkey assertions): throws 429 with Retry-After
 * when the account or address is limited; call `fail()` when the attempt failed.
 */
export function limitAttempt(
  deps: Pick<AppDeps, 'db' | 'clock'>,
  set: HeaderSet,
  kind: AttemptKind,
  who: { account?: string; address: string },
): { fail(): void } {
  try {
    return beginAttempt(deps.db, deps.clock, kind, who);
  } catch (error) {
    if (error instanceof RateLimitedError) set.headers['retry-after'] = String(error.retryAfterSeconds);
    throw error;
  }
}
