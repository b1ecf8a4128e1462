/**
 * The open-command reads go through daemon_command's partial indexes. They run on every hello and
 * every dispatch; without the index they read every command ever sent (terminal rows are kept),
 * so a reconnect storm or a busy deploy queue grew with the history.
 */
import { expect, test } from 'bun:test';
import { createTestApp } from '../../../test/harness.ts';
import { daemonCommand } from '../../db/schema/index.ts';
import { isDueForExpiry, openCommandsStatement } from './service.ts';

const planOf = (t: ReturnType<typeof createTestApp>, query: string) =>
  t.sqlite
    .query<{ detail: string }, []>(`EXPLAIN QUERY PLAN ${query}`)
    .all()
    .map((step) => step.detail)
    .join('; ');

test("a server's open commands are searched through the open-command index, not scanned", () => {
  const t = createTestApp();
  const { sql } = openCommandsStatement(t.db).getQuery();
  expect(planOf(t, sql)).toContain('USING INDEX daemon_command_open_server_id_id_index (server_id=?)');
});

test('the expiry sweep searches the open commands by expiry', () => {
  const t = createTestApp();
  const { sql } = t.db.update(daemonCommand).set({ status: 'expired' }).where(isDueForExpiry(new Date(0))).toSQL();
  expect(planOf(t, sql)).toContain('USING INDEX daemon_command_open_expires_at_index (expires_at<?)');
});
