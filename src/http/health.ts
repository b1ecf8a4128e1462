import type { Database } from 'bun:sqlite';
import { Elysia } from 'elysia';
import * as v from 'valibot';
import { PANEL_VERSION } from '../version.ts';

const HealthSchema = v.object({ status: v.picklist(['ok', 'unavailable']), version: v.string() });

/** Liveness: 200 while the database answers, 503 otherwise. */
export const healthRoutes = (sqlite: Database) =>
  new Elysia({ name: 'health' }).get(
    '/api/health',
    ({ set }) => {
      try {
        sqlite.query('select 1').get();
        return { status: 'ok' as const, version: PANEL_VERSION };
      } catch {
        set.status = 503;
        return { status: 'unavailable' as const, version: PANEL_VERSION };
      }
    },
    { response: { 200: HealthSchema, 503: HealthSchema }, detail: { summary: 'Liveness probe', tags: ['meta'] } },
  );
