CREATE TABLE `ingress_certificate` (
	`id` text PRIMARY KEY NOT NULL,
	`server_id` text NOT NULL,
	`hosting_id` text NOT NULL,
	`hostname` text NOT NULL,
	`source` text NOT NULL,
	`status` text,
	`error` text,
	`issuer` text,
	`not_after` integer,
	`created_at` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	`updated_at` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	FOREIGN KEY (`server_id`) REFERENCES `server`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`hosting_id`) REFERENCES `hosting`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "ingress_certificate_id_is_uuid_v7" CHECK(length("ingress_certificate"."id") = 36 AND "ingress_certificate"."id" GLOB '[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]-[0-9a-f][0-9a-f][0-9a-f][0-9a-f]-7[0-9a-f][0-9a-f][0-9a-f]-[89ab][0-9a-f][0-9a-f][0-9a-f]-[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]'),
	CONSTRAINT "ingress_certificate_hostname_length" CHECK(length("ingress_certificate"."hostname") BETWEEN 1 AND 253),
	CONSTRAINT "ingress_certificate_source_is_valid" CHECK("ingress_certificate"."source" IN ('library', 'internal', 'acme', 'none')),
	CONSTRAINT "ingress_certificate_status_is_valid" CHECK("ingress_certificate"."status" IN ('pending', 'issued', 'failed'))
);
--> statement-breakpoint
CREATE UNIQUE INDEX `ingress_certificate_server_id_hostname_unique` ON `ingress_certificate` (`server_id`,lower("hostname"));--> statement-breakpoint
CREATE INDEX `ingress_certificate_hosting_id_index` ON `ingress_certificate` (`hosting_id`);--> statement-breakpoint
CREATE TABLE `ingress_route` (
	`id` text PRIMARY KEY NOT NULL,
	`server_id` text NOT NULL,
	`hosting_id` text NOT NULL,
	`upstreams` integer NOT NULL,
	`containers` integer NOT NULL,
	`problem` text,
	`created_at` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	`updated_at` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	FOREIGN KEY (`server_id`) REFERENCES `server`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`hosting_id`) REFERENCES `hosting`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "ingress_route_id_is_uuid_v7" CHECK(length("ingress_route"."id") = 36 AND "ingress_route"."id" GLOB '[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]-[0-9a-f][0-9a-f][0-9a-f][0-9a-f]-7[0-9a-f][0-9a-f][0-9a-f]-[89ab][0-9a-f][0-9a-f][0-9a-f]-[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]'),
	CONSTRAINT "ingress_route_upstreams_non_negative" CHECK("ingress_route"."upstreams" IS NULL OR (typeof("ingress_route"."upstreams") = 'integer' AND "ingress_route"."upstreams" >= 0)),
	CONSTRAINT "ingress_route_containers_non_negative" CHECK("ingress_route"."containers" IS NULL OR (typeof("ingress_route"."containers") = 'integer' AND "ingress_route"."containers" >= 0))
);
--> statement-breakpoint
CREATE UNIQUE INDEX `ingress_route_server_id_hosting_id_unique` ON `ingress_route` (`server_id`,`hosting_id`);--> statement-breakpoint
CREATE INDEX `ingress_route_hosting_id_index` ON `ingress_route` (`hosting_id`);--> statement-breakpoint
CREATE TABLE `server_certificate_authority` (
	`id` text PRIMARY KEY NOT NULL,
	`server_id` text NOT NULL,
	`authority_id` text NOT NULL,
	`certificate` text NOT NULL,
	`private_key` text NOT NULL,
	`not_after` integer NOT NULL,
	`created_at` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	`updated_at` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	FOREIGN KEY (`server_id`) REFERENCES `server`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`authority_id`) REFERENCES `certificate_authority`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "server_certificate_authority_id_is_uuid_v7" CHECK(length("server_certificate_authority"."id") = 36 AND "server_certificate_authority"."id" GLOB '[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]-[0-9a-f][0-9a-f][0-9a-f][0-9a-f]-7[0-9a-f][0-9a-f][0-9a-f]-[89ab][0-9a-f][0-9a-f][0-9a-f]-[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]'),
	CONSTRAINT "server_certificate_authority_private_key_is_sealed" CHECK("server_certificate_authority"."private_key" GLOB 'pnsecret.v[0-9]*.?*.?*')
);
--> statement-breakpoint
CREATE UNIQUE INDEX `server_certificate_authority_server_id_unique` ON `server_certificate_authority` (`server_id`);--> statement-breakpoint
CREATE INDEX `server_certificate_authority_authority_id_index` ON `server_certificate_authority` (`authority_id`);
--> statement-breakpoint
CREATE TRIGGER `server_certificate_authority_touch_updated_at` AFTER UPDATE ON `server_certificate_authority` FOR EACH ROW
WHEN NEW.`updated_at` IS OLD.`updated_at`
BEGIN
	UPDATE `server_certificate_authority` SET `updated_at` = CAST(unixepoch('subsec') * 1000 AS INTEGER) WHERE `id` = NEW.`id`;
END;
--> statement-breakpoint
CREATE TRIGGER `ingress_route_touch_updated_at` AFTER UPDATE ON `ingress_route` FOR EACH ROW
WHEN NEW.`updated_at` IS OLD.`updated_at`
BEGIN
	UPDATE `ingress_route` SET `updated_at` = CAST(unixepoch('subsec') * 1000 AS INTEGER) WHERE `id` = NEW.`id`;
END;
--> statement-breakpoint
CREATE TRIGGER `ingress_certificate_touch_updated_at` AFTER UPDATE ON `ingress_certificate` FOR EACH ROW
WHEN NEW.`updated_at` IS OLD.`updated_at`
BEGIN
	UPDATE `ingress_certificate` SET `updated_at` = CAST(unixepoch('subsec') * 1000 AS INTEGER) WHERE `id` = NEW.`id`;
END;
--> statement-breakpoint
-- The organization's ACME settings. Added column by column (a rebuild of `organization` would drop
-- its triggers and ask every child table's foreign keys to follow); each CHECK is the one drizzle
-- declares in src/db/schema/organization.ts, as a column constraint.
ALTER TABLE `organization` ADD `is_acme_enabled` integer DEFAULT false NOT NULL CONSTRAINT "organization_is_acme_enabled_is_boolean" CHECK("is_acme_enabled" IN (0, 1));--> statement-breakpoint
ALTER TABLE `organization` ADD `acme_email` text CONSTRAINT "organization_acme_email_length" CHECK(length("acme_email") BETWEEN 3 AND 254);--> statement-breakpoint
ALTER TABLE `organization` ADD `acme_directory_url` text CONSTRAINT "organization_acme_directory_url_is_https" CHECK("acme_directory_url" GLOB 'https://?*' AND length("acme_directory_url") <= 2048);--> statement-breakpoint
ALTER TABLE `organization` ADD `acme_directory_roots` text;
