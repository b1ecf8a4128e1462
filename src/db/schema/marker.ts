/**
 * marker — applies one tag to exactly one taggable entity. Replacing an entity's tag set replaces
 * all its markers. No metadata/options (spec).
 */
import { sql } from 'drizzle-orm';
import { check, index, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { exactlyOneNonNull, id, timestamps, uuidV7Check } from './columns.ts';
import { datacenter } from './datacenter.ts';
import { environment } from './environment.ts';
import { project } from './project.ts';
import { server } from './server.ts';
import { service } from './service.ts';
import { storage } from './storage.ts';
import { tag } from './tag.ts';
import { workspace } from './workspace.ts';

export const marker = sqliteTable(
  'marker',
  {
    id: id(),
    tagId: text('tag_id')
      .notNull()
      .references(() => tag.id, { onDelete: 'cascade' }),
    // The tagged entity: exactly one is set; each cascades.
    serverId: text('server_id').references(() => server.id, { onDelete: 'cascade' }),
    workspaceId: text('workspace_id').references(() => workspace.id, { onDelete: 'cascade' }),
    projectId: text('project_id').references(() => project.id, { onDelete: 'cascade' }),
    environmentId: text('environment_id').references(() => environment.id, { onDelete: 'cascade' }),
    serviceId: text('service_id').references(() => service.id, { onDelete: 'cascade' }),
    datacenterId: text('datacenter_id').references(() => datacenter.id, { onDelete: 'cascade' }),
    storageId: text('storage_id').references(() => storage.id, { onDelete: 'cascade' }),
    ...timestamps(),
  },
  (t) => {
    const entities = [
      t.serverId,
      t.workspaceId,
      t.projectId,
      t.environmentId,
      t.serviceId,
      t.datacenterId,
      t.storageId,
    ] as const;
    return [
      uuidV7Check('marker', t.id),
      check('marker_exactly_one_entity', exactlyOneNonNull(entities)),
      // A tag at most once per entity. Entity column first: it serves "tags of this entity" and
      // the entity's foreign key.
      ...entities.map((entity) =>
        uniqueIndex(`marker_${entity.name}_tag_id_unique`)
          .on(entity, t.tagId)
          .where(sql`${entity} IS NOT NULL`),
      ),
      index('marker_tag_id_index').on(t.tagId),
    ];
  },
);

export type Marker = typeof marker.$inferSelect;
export type NewMarker = typeof marker.$inferInsert;
