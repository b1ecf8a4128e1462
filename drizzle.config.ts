import { defineConfig } from 'drizzle-kit';

/**
 * `bunx drizzle-kit generate --name <verb_noun>` writes migrations/NNNN_<verb_noun>.sql.
 * Triggers and other SQL drizzle cannot express go in custom migrations
 * (`drizzle-kit generate --custom --name <verb_noun>`), so the journal stays drizzle's.
 * The executable embeds the folder at build time (src/db/migrations.macro.ts).
 */
export default defineConfig({
  dialect: 'sqlite',
  schema: './src/db/schema/index.ts',
  out: './migrations',
  breakpoints: true,
  strict: true,
  verbose: true,
});
