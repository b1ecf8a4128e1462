/**
 * Caddy's admin API over its unix socket (the only place it listens: never TCP). `load` swaps
 * the whole configuration atomically: Caddy provisions the new one and, if that fails, keeps
 * serving the old one and answers the error.
 */
import { ADMIN_HOST } from '../../../ingress/caddy-config.ts';

export class CaddyAdmin {
  constructor(private readonly socketPath: string) {}

  private request(path: string, init: RequestInit & { timeoutMs?: number } = {}): Promise<Response> {
    const { timeoutMs = 30_000, ...rest } = init;
    return fetch(`http://${ADMIN_HOST}${path}`, { ...rest, unix: this.socketPath, signal: AbortSignal.timeout(timeoutMs) } as RequestInit);
  }

  /** Whether the admin API answers now. */
  async isUp(): Promise<boolean> {
    try {
      const response = await this.request('/config/', { timeoutMs: 2_000 });
      await response.arrayBuffer();
      return response.ok;
    } catch {
      return false;
    }
  }

  /** Polls until the admin API answers, or `timeoutMs` passed. */
  async waitUntilUp(timeoutMs: number, intervalMs = 100): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (await this.isUp()) return true;
      if (Date.now() >= deadline) return false;
      await Bun.sleep(intervalMs);
    }
  }

  /** Applies a whole configuration; throws with Caddy's own error when it refuses it. */
  async load(config: string): Promise<void> {
    const response = await this.request('/load', { method: 'POST', headers: { 'content-type': 'application/json' }, body: config, timeoutMs: 120_000 });
    const text = await response.text();
    if (!response.ok) throw new Error(caddyError(text) || `caddy answered ${response.status}`);
  }
}

/** The `error` of Caddy's JSON error body, else its text. */
function caddyError(text: string): string {
  try {
    const body = JSON.parse(text) as { error?: unknown };
    if (typeof body.error === 'string') return body.error;
  } catch {
    // not JSON
  }
  return text.trim();
}
