CREATE TABLE `join_token` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`created_by_user_id` text NOT NULL,
	`token_hash` text NOT NULL,
	`expires_at` integer NOT NULL,
	`used_at` integer,
	`server_id` text,
	`created_at` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	`updated_at` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organization`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`created_by_user_id`) REFERENCES `user`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`server_id`) REFERENCES `server`(`id`) ON UPDATE no action ON DELETE set null,
	CONSTRAINT "join_token_id_is_uuid_v7" CHECK(length("join_token"."id") = 36 AND "join_token"."id" GLOB '[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]-[0-9a-f][0-9a-f][0-9a-f][0-9a-f]-7[0-9a-f][0-9a-f][0-9a-f]-[89ab][0-9a-f][0-9a-f][0-9a-f]-[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]')
);
--> statement-breakpoint
CREATE UNIQUE INDEX `join_token_token_hash_unique` ON `join_token` (`token_hash`);--> statement-breakpoint
CREATE INDEX `join_token_organization_id_id_index` ON `join_token` (`organization_id`,`id`);--> statement-breakpoint
CREATE INDEX `join_token_created_by_user_id_index` ON `join_token` (`created_by_user_id`);--> statement-breakpoint
CREATE INDEX `join_token_server_id_index` ON `join_token` (`server_id`);--> statement-breakpoint
CREATE TABLE `daemon_command` (
	`id` text PRIMARY KEY NOT NULL,
	`server_id` text NOT NULL,
	`deployment_id` text NOT NULL,
	`kind` text NOT NULL,
	`payload` text,
	`status` text DEFAULT 'queued' NOT NULL,
	`expires_at` integer NOT NULL,
	`error` text,
	`delivered_at` integer,
	`finished_at` integer,
	`created_at` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	`updated_at` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	FOREIGN KEY (`server_id`) REFERENCES `server`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`deployment_id`) REFERENCES `deployment`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "daemon_command_id_is_uuid_v7" CHECK(length("daemon_command"."id") = 36 AND "daemon_command"."id" GLOB '[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]-[0-9a-f][0-9a-f][0-9a-f][0-9a-f]-7[0-9a-f][0-9a-f][0-9a-f]-[89ab][0-9a-f][0-9a-f][0-9a-f]-[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]'),
	CONSTRAINT "daemon_command_kind_is_valid" CHECK("daemon_command"."kind" IN ('deploy', 'stop', 'destroy')),
	CONSTRAINT "daemon_command_status_is_valid" CHECK("daemon_command"."status" IN ('queued', 'delivered', 'acknowledged', 'succeeded', 'failed', 'expired')),
	CONSTRAINT "daemon_command_payload_is_json_object" CHECK(CASE WHEN "daemon_command"."payload" IS NULL THEN 1 WHEN json_valid("daemon_command"."payload") THEN json_type("daemon_command"."payload") = 'object' ELSE 0 END),
	CONSTRAINT "daemon_command_terminal_has_no_payload" CHECK("daemon_command"."status" NOT IN ('succeeded', 'failed', 'expired') OR "daemon_command"."payload" IS NULL)
);
--> statement-breakpoint
CREATE INDEX `daemon_command_open_server_id_id_index` ON `daemon_command` (`server_id`,`id`) WHERE "daemon_command"."status" IN ('queued', 'delivered', 'acknowledged');--> statement-breakpoint
CREATE INDEX `daemon_command_open_expires_at_index` ON `daemon_command` (`expires_at`) WHERE "daemon_command"."status" IN ('queued', 'delivered', 'acknowledged');--> statement-breakpoint
CREATE INDEX `daemon_command_deployment_id_index` ON `daemon_command` (`deployment_id`);--> statement-breakpoint
PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_server` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`name` text NOT NULL,
	`hostname` text,
	`machine_id` text,
	`is_local` integer DEFAULT false NOT NULL,
	`status` text DEFAULT 'pending' NOT NULL,
	`last_seen_at` integer,
	`public_key` text,
	`daemon_key_id` text,
	`credential_hash` text,
	`flag` text,
	`flagged_at` integer,
	`created_at` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	`updated_at` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organization`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "server_id_is_uuid_v7" CHECK(length("__new_server"."id") = 36 AND "__new_server"."id" GLOB '[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]-[0-9a-f][0-9a-f][0-9a-f][0-9a-f]-7[0-9a-f][0-9a-f][0-9a-f]-[89ab][0-9a-f][0-9a-f][0-9a-f]-[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]'),
	CONSTRAINT "server_name_length" CHECK(length("__new_server"."name") BETWEEN 1 AND 255),
	CONSTRAINT "server_is_local_is_boolean" CHECK("__new_server"."is_local" IN (0, 1)),
	CONSTRAINT "server_status_is_valid" CHECK("__new_server"."status" IN ('pending', 'connected', 'disconnected')),
	CONSTRAINT "server_flag_is_valid" CHECK("__new_server"."flag" IN ('duplicate_machine_id'))
);
--> statement-breakpoint
INSERT INTO `__new_server`("id", "organization_id", "name", "hostname", "machine_id", "is_local", "status", "last_seen_at", "public_key", "daemon_key_id", "credential_hash", "flag", "flagged_at", "created_at", "updated_at") SELECT "id", "organization_id", "name", "hostname", "machine_id", "is_local", "status", "last_seen_at", "public_key", "daemon_key_id", "credential_hash", "flag", "flagged_at", "created_at", "updated_at" FROM `server`;--> statement-breakpoint
DROP TABLE `server`;--> statement-breakpoint
ALTER TABLE `__new_server` RENAME TO `server`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE UNIQUE INDEX `server_one_local` ON `server` (`is_local`) WHERE "server"."is_local" = 1;--> statement-breakpoint
CREATE UNIQUE INDEX `server_organization_id_machine_id_unique` ON `server` (`organization_id`,`machine_id`) WHERE "server"."machine_id" IS NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX `server_credential_hash_unique` ON `server` (`credential_hash`) WHERE "server"."credential_hash" IS NOT NULL;--> statement-breakpoint
CREATE INDEX `server_organization_id_index` ON `server` (`organization_id`);--> statement-breakpoint
CREATE TRIGGER `server_touch_updated_at` AFTER UPDATE ON `server` FOR EACH ROW
WHEN NEW.`updated_at` IS OLD.`updated_at`
BEGIN
	UPDATE `server` SET `updated_at` = CAST(unixepoch('subsec') * 1000 AS INTEGER) WHERE `id` = NEW.`id`;
END;
--> statement-breakpoint
CREATE TRIGGER `join_token_touch_updated_at` AFTER UPDATE ON `join_token` FOR EACH ROW
WHEN NEW.`updated_at` IS OLD.`updated_at`
BEGIN
	UPDATE `join_token` SET `updated_at` = CAST(unixepoch('subsec') * 1000 AS INTEGER) WHERE `id` = NEW.`id`;
END;
--> statement-breakpoint
CREATE TRIGGER `daemon_command_touch_updated_at` AFTER UPDATE ON `daemon_command` FOR EACH ROW
WHEN NEW.`updated_at` IS OLD.`updated_at`
BEGIN
	UPDATE `daemon_command` SET `updated_at` = CAST(unixepoch('subsec') * 1000 AS INTEGER) WHERE `id` = NEW.`id`;
END;