import { afterEach, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eq } from 'drizzle-orm';
import { hashToken, newOpaqueToken } from '../../auth/token.ts';
import { createDb, openDatabase } from '../../db/client.ts';
import { migrate } from '../../db/migrate.ts';
import { MIGRATIONS } from '../../db/migrations.ts';
import { apiToken, membership, session, user } from '../../db/schema/index.ts';
import { ManualClock } from '../../lib/clock.ts';
import { createOrganization } from '../organizations/service.ts';
import { resolveActor } from './resolve.ts';
import { createSession } from './sessions.ts';

// Resolved credentials are remembered while the database is unchanged: every way of revoking or
// narrowing access must still be seen by the very next request.
const directories: string[] = [];
afterEach(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

function setup() {
  const directory = mkdtempSync(join(tmpdir(), 'panel-resolve-'));
  directories.push(directory);
  const file = join(directory, 'panel.db');
  const sqlite = openDatabase(file);
  migrate(sqlite, MIGRATIONS);
  const db = createDb(sqlite);
  const clock = new ManualClock();
  const owner = db.insert(user).values({ email: 'owner@example.test' }).returning().get();
  const org = createOrganization(db, { name: 'Acme', ownerUserId: owner.id });
  const sessionToken = createSession(db, clock, owner.id).token;
  const bearer = newOpaqueToken('pat');
  db.insert(apiToken).values({ organizationId: org.id, userId: owner.id, name: 'ci', role: 'admin', tokenHash: hashToken(bearer) }).run();
  const asSession = () => resolveActor(db, clock, { sessionToken });
  const asToken = () => resolveActor(db, clock, { bearer });
  // Resolve both once, so later calls could be answered from memory.
  expect(asSession()?.memberships.get(org.id)).toBe('owner');
  expect(asToken()?.memberships.get(org.id)).toBe('admin');
  return { file, db, clock, owner, org, asSession, asToken };
}

describe('resolveActor on credentials it resolved before', () => {
  test('a revoked session or token is refused at once', () => {
    const { db, asSession, asToken } = setup();
    db.delete(session).run();
    db.delete(apiToken).run();
    expect(asSession()).toBeNull();
    expect(asToken()).toBeNull();
  });

  test('a role change applies to the next request', () => {
    const { db, org, asSession, asToken } = setup();
    db.update(membership).set({ role: 'member' }).where(eq(membership.organizationId, org.id)).run();
    expect(asSession()?.memberships.get(org.id)).toBe('member');
    // The token is capped by its creator's role.
    expect(asToken()?.memberships.get(org.id)).toBe('member');
  });

  test('a removed membership hides the organization and silences the tokens', () => {
    const { db, org, asSession, asToken } = setup();
    db.delete(membership).where(eq(membership.organizationId, org.id)).run();
    expect(asSession()?.memberships.has(org.id)).toBe(false);
    expect(asToken()).toBeNull();
  });

  test('superadmin power granted or withdrawn applies to the next request', () => {
    const { db, owner, asSession } = setup();
    db.update(user).set({ isSuperadmin: true }).where(eq(user.id, owner.id)).run();
    expect(asSession()?.isSuperadmin).toBe(true);
    db.update(user).set({ isSuperadmin: false }).where(eq(user.id, owner.id)).run();
    expect(asSession()?.isSuperadmin).toBe(false);
  });

  test('a write from another connection (another process) is seen too', () => {
    const { file, org, asSession, asToken } = setup();
    const other = openDatabase(file);
    try {
      other.run("UPDATE membership SET role = 'member' WHERE organization_id = ?", [org.id]);
      expect(asSession()?.memberships.get(org.id)).toBe('member');
      other.run('DELETE FROM session');
      other.run('DELETE FROM api_token');
      expect(asSession()).toBeNull();
      expect(asToken()).toBeNull();
    } finally {
      other.close();
    }
  });

  test('expiry is checked on every use, without any write', () => {
    const { db, clock, asSession, asToken } = setup();
    db.update(apiToken).set({ expiresAt: new Date(clock.now().getTime() + 60_000) }).run();
    expect(asToken()).not.toBeNull();
    clock.advance(60_000);
    expect(asToken()).toBeNull();
    clock.advance(8 * 24 * 60 * 60 * 1000);
    expect(asSession()).toBeNull();
  });
});
