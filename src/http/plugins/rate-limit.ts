/**
 * Transport side of the attempt limits (src/domain/identity/rate-limit.ts): the client address
 * the per-address buckets use. (Retry-After on 429 is set by the one error mapper, src/http/errors.ts.)
 *
 * Address: the socket peer. Behind a reverse proxy on the same host (the peer is loopback, or
 * the request came over the unix socket or app.handle), the last X-Forwarded-For entry — the
 * one the proxy itself appended — names the client instead; a remote peer cannot set it.
 */
import type { Server } from 'bun';
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
