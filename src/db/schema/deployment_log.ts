/**
 * deployment_log — the output of one deploy, stop or destroy as the daemon streamed it while the
 * command ran (Compose's pull, create and start lines, Panel's steps, the containers' states at
 * the end). Goes with its deployment; the agent bounds it (head and tail, src/daemon/agent/
 * command-output.ts) and the hub refuses lines beyond MAX_DEPLOYMENT_LOG_LINES.
 */
import { sql } from 'drizzle-orm';
import { check, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { deployment } from './deployment.ts';

export const deploymentLog = sqliteTable(
  'deployment_log',
  {
    deploymentId: text('deployment_id')
      .notNull()
      .references(() => deployment.id, { onDelete: 'cascade' }),
    seq: integer('seq').notNull(),
    at: integer('at').notNull(),
    /** 0 stdout, 1 stderr, 2 a marker of Panel's own (lines left out). */
    stream: integer('stream').notNull(),
    text: text('text').notNull(),
  },
  (t) => [primaryKey({ columns: [t.deploymentId, t.seq] }), check('deployment_log_stream_is_valid', sql`${t.stream} IN (0, 1, 2)`)],
);

export type DeploymentLogLine = typeof deploymentLog.$inferSelect;
