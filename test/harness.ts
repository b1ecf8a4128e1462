/**
 * A fresh app per test: its own in-memory database, a manual clock and a fixed test key ring.
 * Nothing is shared between tests.
 */
import { buildApp } from '../src/app.ts';
import type { AppDeps } from '../src/deps.ts';
import { newOpaqueToken } from '../src/auth/token.ts';
import { type Config, loadConfig } from '../src/config.ts';
import { parseKeyRing } from '../src/crypto/keyring.ts';
import { DaemonHub } from '../src/daemon/hub.ts';
import { observabilityOptionsOf } from '../src/daemon/hub/observability.ts';
import { createDb } from '../src/db/client.ts';
import { ManualClock } from '../src/lib/clock.ts';
import { silentLogger } from '../src/lib/logger.ts';
import { undocumented } from './api-description.ts';
import { openMigratedDatabase } from './db.ts';

/** A fixed, test-only key ring (32 zero-free bytes); never used outside tests. */
export const TEST_KEY_RING = `test1:${Buffer.alloc(32, 7).toString('base64')}`;

/**
 * t.request() is an in-process call whose peer is 127.0.0.1 (src/http/plugins/client-address.ts);
 * with this, that peer is a trusted proxy and X-Forwarded-For names the client, so a test can
 * speak from many addresses.
 */
export const BEHIND_LOCAL_PROXY: Partial<Config> = { trustedProxies: ['127.0.0.1'] };

export function testConfig(overrides: Partial<Config> = {}): Config {
  const base = loadConfig({ PANEL_SECRETS: TEST_KEY_RING, PANEL_DATA_DIR: '/nonexistent/panel-test' }, () => TEST_KEY_RING);
  return { ...base, ...overrides };
}

export function createTestApp(overrides: Partial<Config> = {}) {
  const sqlite = openMigratedDatabase();
  const config = testConfig(overrides);
  const clock = new ManualClock();
  const db = createDb(sqlite);
  const localCredential = newOpaqueToken('pnl');
  const keyring = parseKeyRing(config.secrets);
  // The hub's turns are measured on a clock that stands still: its work runs as it comes, never
  // left for a later turn because the machine running the tests is slow (src/daemon/hub/slices.ts).
  const hub = new DaemonHub({ db, clock, logger: silentLogger, localCredential, observe: observabilityOptionsOf(config, keyring), turnClock: () => 0 });
  const deps: AppDeps & { clock: ManualClock } = { config, sqlite, db, keyring, clock, logger: silentLogger, hub };
  const app = buildApp(deps);

  /** Sends a request through app.handle(); a non-string body is sent as JSON. */
  async function request(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
    const init: RequestInit = { method, headers: { ...headers } };
    if (body !== undefined) {
      init.body = typeof body === 'string' ? body : JSON.stringify(body);
      (init.headers as Record<string, string>)['content-type'] ??= 'application/json';
    }
    const response = await app.handle(new Request(`http://localhost${path}`, init));
    const text = await response.text();
    let json: any;
    try {
      json = text === '' ? undefined : JSON.parse(text);
    } catch {
      json = undefined;
    }
    // Every answer must be the one the API description documents (test/api-description.ts).
    const mismatch = undocumented(app, method, path, response.status, response.headers.get('content-type'), json);
    if (mismatch) throw new Error(`undocumented answer: ${mismatch}`);
    return { status: response.status, headers: response.headers, text, json };
  }

  return { app, deps, sqlite, db: deps.db, config, clock, hub, localCredential, request };
}

export type TestApp = ReturnType<typeof createTestApp>;
