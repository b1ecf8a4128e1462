-- Edited from drizzle-kit's table rebuild: adding a column needs none (the rebuild would also
-- have read an `is_local_host_access_allowed` column the old table lacks and dropped the
-- updated_at trigger).
ALTER TABLE `organization` ADD `is_local_host_access_allowed` integer DEFAULT false NOT NULL CONSTRAINT "organization_is_local_host_access_allowed_is_boolean" CHECK("is_local_host_access_allowed" IN (0, 1));
