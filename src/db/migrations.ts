/**
 * The migrations this executable carries, embedded once (a Bun macro inlines the SQL where it is
 * called: one call site keeps one copy in the bundle).
 */
import { embeddedMigrations } from './migrations.macro.ts' with { type: 'macro' };

export const MIGRATIONS = embeddedMigrations();
