/**
 * Talking to a running `panel serve` over HTTP the way a browser would: finish the install with
 * the token from <data dir>/install-token, keep the session cookie, send Origin on writes.
 */
import { Database } from 'bun:sqlite';
import { expect } from 'bun:test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface Session {
  url: string;
  cookie: string;
  organizationId: string;
}

/** POST /api/install/v1/complete with the install token; `url` must be the server's PANEL_PUBLIC_URL. */
export async function completeInstall(url: string, dataDir: string): Promise<Session> {
  const token = readFileSync(join(dataDir, 'install-token'), 'utf8').trim();
  const res = await fetch(`${url}/api/install/v1/complete`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: url },
    body: JSON.stringify({
      proof: { kind: 'token', token },
      email: 'root@example.test',
      password: 'a very long superadmin password',
      organizationName: 'Acme',
    }),
  });
  if (res.status !== 201) throw new Error(`install answered ${res.status}: ${await res.text()}`);
  const cookie = res.headers.getSetCookie().find((header) => header.startsWith('panel_session='))?.split(';')[0];
  if (!cookie) throw new Error('install set no session cookie');
  return { url, cookie, organizationId: ((await res.json()) as { organizationId: string }).organizationId };
}

/** A client API call as the signed-in console makes it: the session cookie, Origin, JSON both ways. */
export async function clientApi(session: Session, method: string, path: string, body?: unknown) {
  const res = await fetch(`${session.url}/api/client/v1${path}`, {
    method,
    headers: { cookie: session.cookie, origin: session.url, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : undefined, text };
}

/** Polls `read` every 200 ms until `done` holds; past `ms` it throws with what it last saw and `logs()`. */
export async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string, logs: () => string = () => '', ms = 90_000): Promise<T> {
  const deadline = Date.now() + ms;
  let last: T | undefined;
  while (Date.now() < deadline) {
    last = await read();
    if (done(last)) return last;
    await Bun.sleep(200);
  }
  throw new Error(`${what}: not within ${ms / 1000} s; last ${JSON.stringify(last)}\n${logs().slice(-5000)}`);
}

/** Creates a tag; resolves to its id once the server acknowledged the write with 201. */
export async function createTag(session: Session, name: string): Promise<string> {
  const res = await fetch(`${session.url}/api/client/v1/tags`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: session.url, cookie: session.cookie },
    body: JSON.stringify({ organizationId: session.organizationId, name }),
  });
  if (res.status !== 201) throw new Error(`creating tag ${name} answered ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { id: string }).id;
}

/** GET /api/client/v1/tags/:id: the status code. */
export async function tagStatus(session: Session, id: string): Promise<number> {
  return (await fetch(`${session.url}/api/client/v1/tags/${id}`, { headers: { cookie: session.cookie } })).status;
}

/** A TCP port nobody listens on right now (the kernel's pick, released at once). */
export function freePort(): number {
  const probe = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } });
  const { port } = probe;
  probe.stop(true);
  return port;
}

/** After Panel stopped: its database passes the integrity and foreign key checks and holds every acknowledged tag. */
export function expectDatabaseHoldsTags(dataDir: string, acknowledgedTagIds: readonly string[]): void {
  const sqlite = new Database(join(dataDir, 'panel.db'), { readonly: true });
  try {
    expect(sqlite.query('PRAGMA integrity_check').all()).toEqual([{ integrity_check: 'ok' }]);
    expect(sqlite.query('PRAGMA foreign_key_check').all()).toEqual([]);
    const stored = new Set(sqlite.query<{ id: string }, []>('SELECT id FROM tag').all().map((row) => row.id));
    expect(acknowledgedTagIds.filter((id) => !stored.has(id))).toEqual([]);
  } finally {
    sqlite.close();
  }
}
