/**
 * deployment — one deploy, stop or destroy run of an environment (spec: referenced only).
 * desired_generation is the environment generation the run was planned for.
 */
import { check, index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { enumCheck, id, isIntegerAtLeast, timestamps, uuidV7Check } from './columns.ts';
import { environment } from './environment.ts';
import { server } from './server.ts';
import { deploymentKinds, deploymentStatuses } from '../../contract/enums.ts';

export const deployment = sqliteTable(
  'deployment',
  {
    id: id(),
    /** Cascade: history goes with the environment. */
    environmentId: text('environment_id')
      .notNull()
      .references(() => environment.id, { onDelete: 'cascade' }),
    /** The anchor server; set null so deleting a server keeps the history. */
    serverId: text('server_id').references(() => server.id, { onDelete: 'set null' }),
    kind: text('kind', { enum: deploymentKinds }).notNull(),
    desiredGeneration: integer('desired_generation').notNull(),
    status: text('status', { enum: deploymentStatuses }).notNull().default('queued'),
    /** Failure message when status is `failed`. */
    error: text('error'),
    ...timestamps(),
  },
  (t) => [
    uuidV7Check('deployment', t.id),
    enumCheck('deployment', t.kind, deploymentKinds),
    enumCheck('deployment', t.status, deploymentStatuses),
    check('deployment_desired_generation_non_negative', isIntegerAtLeast(t.desiredGeneration, 0)),
    index('deployment_environment_id_index').on(t.environmentId),
    index('deployment_server_id_index').on(t.serverId),
  ],
);

export type Deployment = typeof deployment.$inferSelect;
export type NewDeployment = typeof deployment.$inferInsert;
