-- Edited from drizzle-kit's output: organization and server gain their columns with ALTER TABLE
-- ADD (drizzle-kit rebuilt both tables, which would have dropped their updated_at triggers);
-- daemon_command is rebuilt (deployment_id becomes nullable for fabric commands), so its trigger
-- is created again, and the two new tables get theirs.
CREATE TABLE `fabric_member` (
	`id` text PRIMARY KEY NOT NULL,
	`server_id` text NOT NULL,
	`organization_id` text NOT NULL,
	`mesh_address` text NOT NULL,
	`listen_port` integer NOT NULL,
	`desired_hash` text NOT NULL,
	`applied_hash` text,
	`error` text,
	`error_hash` text,
	`handshakes` text DEFAULT '{}' NOT NULL,
	`reported_at` integer,
	`created_at` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	`updated_at` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	FOREIGN KEY (`server_id`) REFERENCES `server`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`organization_id`) REFERENCES `organization`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "fabric_member_id_is_uuid_v7" CHECK(length("fabric_member"."id") = 36 AND "fabric_member"."id" GLOB '[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]-[0-9a-f][0-9a-f][0-9a-f][0-9a-f]-7[0-9a-f][0-9a-f][0-9a-f]-[89ab][0-9a-f][0-9a-f][0-9a-f]-[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]'),
	CONSTRAINT "fabric_member_handshakes_is_json_object" CHECK(CASE WHEN "fabric_member"."handshakes" IS NULL THEN 1 WHEN json_valid("fabric_member"."handshakes") THEN json_type("fabric_member"."handshakes") = 'object' ELSE 0 END),
	CONSTRAINT "fabric_member_listen_port_range" CHECK("fabric_member"."listen_port" BETWEEN 1 AND 65535)
);
--> statement-breakpoint
CREATE UNIQUE INDEX `fabric_member_server_id_unique` ON `fabric_member` (`server_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `fabric_member_organization_id_mesh_address_unique` ON `fabric_member` (`organization_id`,`mesh_address`);--> statement-breakpoint
CREATE UNIQUE INDEX `fabric_member_organization_id_listen_port_unique` ON `fabric_member` (`organization_id`,`listen_port`);--> statement-breakpoint
CREATE TABLE `fabric_subnet` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`environment_id` text NOT NULL,
	`server_id` text NOT NULL,
	`network` text NOT NULL,
	`subnet` text NOT NULL,
	`hosts` text DEFAULT '{}' NOT NULL,
	`created_at` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	`updated_at` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organization`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`environment_id`) REFERENCES `environment`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`server_id`) REFERENCES `server`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "fabric_subnet_id_is_uuid_v7" CHECK(length("fabric_subnet"."id") = 36 AND "fabric_subnet"."id" GLOB '[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]-[0-9a-f][0-9a-f][0-9a-f][0-9a-f]-7[0-9a-f][0-9a-f][0-9a-f]-[89ab][0-9a-f][0-9a-f][0-9a-f]-[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]'),
	CONSTRAINT "fabric_subnet_hosts_is_json_object" CHECK(CASE WHEN "fabric_subnet"."hosts" IS NULL THEN 1 WHEN json_valid("fabric_subnet"."hosts") THEN json_type("fabric_subnet"."hosts") = 'object' ELSE 0 END)
);
--> statement-breakpoint
CREATE UNIQUE INDEX `fabric_subnet_organization_id_subnet_unique` ON `fabric_subnet` (`organization_id`,`subnet`);--> statement-breakpoint
CREATE UNIQUE INDEX `fabric_subnet_environment_id_network_server_id_unique` ON `fabric_subnet` (`environment_id`,`network`,`server_id`);--> statement-breakpoint
CREATE INDEX `fabric_subnet_server_id_index` ON `fabric_subnet` (`server_id`);--> statement-breakpoint
PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_daemon_command` (
	`id` text PRIMARY KEY NOT NULL,
	`server_id` text NOT NULL,
	`deployment_id` text,
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
	CONSTRAINT "daemon_command_id_is_uuid_v7" CHECK(length("__new_daemon_command"."id") = 36 AND "__new_daemon_command"."id" GLOB '[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]-[0-9a-f][0-9a-f][0-9a-f][0-9a-f]-7[0-9a-f][0-9a-f][0-9a-f]-[89ab][0-9a-f][0-9a-f][0-9a-f]-[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]'),
	CONSTRAINT "daemon_command_kind_is_valid" CHECK("__new_daemon_command"."kind" IN ('deploy', 'stop', 'destroy', 'fabric')),
	CONSTRAINT "daemon_command_deployment_id_by_kind" CHECK(("__new_daemon_command"."kind" = 'fabric') = ("__new_daemon_command"."deployment_id" IS NULL)),
	CONSTRAINT "daemon_command_status_is_valid" CHECK("__new_daemon_command"."status" IN ('queued', 'delivered', 'acknowledged', 'succeeded', 'failed', 'expired')),
	CONSTRAINT "daemon_command_payload_is_json_object" CHECK(CASE WHEN "__new_daemon_command"."payload" IS NULL THEN 1 WHEN json_valid("__new_daemon_command"."payload") THEN json_type("__new_daemon_command"."payload") = 'object' ELSE 0 END),
	CONSTRAINT "daemon_command_terminal_has_no_payload" CHECK("__new_daemon_command"."status" NOT IN ('succeeded', 'failed', 'expired') OR "__new_daemon_command"."payload" IS NULL)
);
--> statement-breakpoint
INSERT INTO `__new_daemon_command`("id", "server_id", "deployment_id", "kind", "payload", "status", "expires_at", "error", "delivered_at", "finished_at", "created_at", "updated_at") SELECT "id", "server_id", "deployment_id", "kind", "payload", "status", "expires_at", "error", "delivered_at", "finished_at", "created_at", "updated_at" FROM `daemon_command`;--> statement-breakpoint
DROP TABLE `daemon_command`;--> statement-breakpoint
ALTER TABLE `__new_daemon_command` RENAME TO `daemon_command`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE INDEX `daemon_command_open_server_id_id_index` ON `daemon_command` (`server_id`,`id`) WHERE "daemon_command"."status" IN ('queued', 'delivered', 'acknowledged');--> statement-breakpoint
CREATE INDEX `daemon_command_open_expires_at_index` ON `daemon_command` (`expires_at`) WHERE "daemon_command"."status" IN ('queued', 'delivered', 'acknowledged');--> statement-breakpoint
CREATE INDEX `daemon_command_deployment_id_index` ON `daemon_command` (`deployment_id`);--> statement-breakpoint
ALTER TABLE `organization` ADD `is_fabric_enabled` integer DEFAULT false NOT NULL CONSTRAINT "organization_is_fabric_enabled_is_boolean" CHECK("is_fabric_enabled" IN (0, 1));--> statement-breakpoint
ALTER TABLE `organization` ADD `fabric_mesh_range` text DEFAULT '10.209.0.0/16' NOT NULL;--> statement-breakpoint
ALTER TABLE `organization` ADD `fabric_container_range` text DEFAULT '10.210.0.0/16' NOT NULL;--> statement-breakpoint
ALTER TABLE `server` ADD `wireguard_public_key` text;--> statement-breakpoint
ALTER TABLE `server` ADD `fabric_candidates` text DEFAULT '[]' NOT NULL CONSTRAINT "server_fabric_candidates_is_json_array" CHECK(json_valid("fabric_candidates") AND json_type("fabric_candidates") = 'array');--> statement-breakpoint
ALTER TABLE `server` ADD `fabric_endpoint` text;--> statement-breakpoint
ALTER TABLE `server` ADD `datacenter` text;--> statement-breakpoint
CREATE TRIGGER `fabric_member_touch_updated_at` AFTER UPDATE ON `fabric_member` FOR EACH ROW
WHEN NEW.`updated_at` IS OLD.`updated_at`
BEGIN
	UPDATE `fabric_member` SET `updated_at` = CAST(unixepoch('subsec') * 1000 AS INTEGER) WHERE `id` = NEW.`id`;
END;
--> statement-breakpoint
CREATE TRIGGER `fabric_subnet_touch_updated_at` AFTER UPDATE ON `fabric_subnet` FOR EACH ROW
WHEN NEW.`updated_at` IS OLD.`updated_at`
BEGIN
	UPDATE `fabric_subnet` SET `updated_at` = CAST(unixepoch('subsec') * 1000 AS INTEGER) WHERE `id` = NEW.`id`;
END;
--> statement-breakpoint
CREATE TRIGGER `daemon_command_touch_updated_at` AFTER UPDATE ON `daemon_command` FOR EACH ROW
WHEN NEW.`updated_at` IS OLD.`updated_at`
BEGIN
	UPDATE `daemon_command` SET `updated_at` = CAST(unixepoch('subsec') * 1000 AS INTEGER) WHERE `id` = NEW.`id`;
END;
