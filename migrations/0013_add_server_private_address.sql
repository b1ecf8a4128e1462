-- Edited from drizzle-kit's output: the column is added with ALTER TABLE (a rebuild of `server`
-- would drop its triggers and ask every child table's foreign keys to follow); its CHECK is the
-- one src/db/schema/server.ts declares, as a column constraint.
ALTER TABLE `server` ADD `private_address` text CONSTRAINT "server_private_address_length" CHECK(length("private_address") BETWEEN 2 AND 45);
