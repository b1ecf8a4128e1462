-- The organization's ACME settings. Added column by column (a rebuild of `organization` would drop
-- its triggers and ask every child table's foreign keys to follow); each CHECK is the one drizzle
-- declares in src/db/schema/organization.ts, as a column constraint.
ALTER TABLE `organization` ADD `is_acme_enabled` integer DEFAULT false NOT NULL CONSTRAINT "organization_is_acme_enabled_is_boolean" CHECK("is_acme_enabled" IN (0, 1));--> statement-breakpoint
ALTER TABLE `organization` ADD `acme_email` text CONSTRAINT "organization_acme_email_length" CHECK(length("acme_email") BETWEEN 3 AND 254);--> statement-breakpoint
ALTER TABLE `organization` ADD `acme_directory_url` text CONSTRAINT "organization_acme_directory_url_is_https" CHECK("acme_directory_url" GLOB 'https://?*' AND length("acme_directory_url") <= 2048);--> statement-breakpoint
ALTER TABLE `organization` ADD `acme_directory_roots` text;
