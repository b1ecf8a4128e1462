CREATE TABLE `organization` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`default_environment_name` text DEFAULT 'production' NOT NULL,
	`is_randomize_usernames` integer DEFAULT false NOT NULL,
	`is_deploy_hooks_enabled` integer DEFAULT false NOT NULL,
	`is_host_access_allowed` integer DEFAULT false NOT NULL,
	`created_at` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	`updated_at` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	CONSTRAINT "organization_id_is_uuid_v7" CHECK(length("organization"."id") = 36 AND "organization"."id" GLOB '[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]-[0-9a-f][0-9a-f][0-9a-f][0-9a-f]-7[0-9a-f][0-9a-f][0-9a-f]-[89ab][0-9a-f][0-9a-f][0-9a-f]-[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]'),
	CONSTRAINT "organization_name_length" CHECK(length("organization"."name") BETWEEN 1 AND 255),
	CONSTRAINT "organization_default_environment_name_format" CHECK(length("organization"."default_environment_name") BETWEEN 1 AND 255 AND "organization"."default_environment_name" NOT GLOB '*[^A-Za-z0-9 ._/-]*'),
	CONSTRAINT "organization_is_randomize_usernames_is_boolean" CHECK("organization"."is_randomize_usernames" IN (0, 1)),
	CONSTRAINT "organization_is_deploy_hooks_enabled_is_boolean" CHECK("organization"."is_deploy_hooks_enabled" IN (0, 1)),
	CONSTRAINT "organization_is_host_access_allowed_is_boolean" CHECK("organization"."is_host_access_allowed" IN (0, 1))
);
--> statement-breakpoint
CREATE TABLE `user` (
	`id` text PRIMARY KEY NOT NULL,
	`email` text NOT NULL,
	`password_hash` text,
	`display_name` text,
	`is_superadmin` integer DEFAULT false NOT NULL,
	`created_at` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	`updated_at` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	CONSTRAINT "user_id_is_uuid_v7" CHECK(length("user"."id") = 36 AND "user"."id" GLOB '[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]-[0-9a-f][0-9a-f][0-9a-f][0-9a-f]-7[0-9a-f][0-9a-f][0-9a-f]-[89ab][0-9a-f][0-9a-f][0-9a-f]-[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]'),
	CONSTRAINT "user_email_shape" CHECK(length("user"."email") BETWEEN 3 AND 320 AND instr("user"."email", '@') > 1),
	CONSTRAINT "user_display_name_length" CHECK(length("user"."display_name") BETWEEN 1 AND 255),
	CONSTRAINT "user_is_superadmin_is_boolean" CHECK("user"."is_superadmin" IN (0, 1))
);
--> statement-breakpoint
CREATE UNIQUE INDEX `user_email_unique` ON `user` (lower("email"));--> statement-breakpoint
CREATE TABLE `membership` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`user_id` text NOT NULL,
	`role` text DEFAULT 'member' NOT NULL,
	`created_at` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	`updated_at` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organization`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `user`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "membership_id_is_uuid_v7" CHECK(length("membership"."id") = 36 AND "membership"."id" GLOB '[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]-[0-9a-f][0-9a-f][0-9a-f][0-9a-f]-7[0-9a-f][0-9a-f][0-9a-f]-[89ab][0-9a-f][0-9a-f][0-9a-f]-[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]'),
	CONSTRAINT "membership_role_is_valid" CHECK("membership"."role" IN ('owner', 'admin', 'member'))
);
--> statement-breakpoint
CREATE UNIQUE INDEX `membership_organization_id_user_id_unique` ON `membership` (`organization_id`,`user_id`);--> statement-breakpoint
CREATE INDEX `membership_user_id_index` ON `membership` (`user_id`);--> statement-breakpoint
CREATE TABLE `session` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`token_hash` text NOT NULL,
	`expires_at` integer NOT NULL,
	`last_seen_at` integer,
	`created_ip` text,
	`user_agent` text,
	`created_at` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	`updated_at` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `user`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "session_id_is_uuid_v7" CHECK(length("session"."id") = 36 AND "session"."id" GLOB '[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]-[0-9a-f][0-9a-f][0-9a-f][0-9a-f]-7[0-9a-f][0-9a-f][0-9a-f]-[89ab][0-9a-f][0-9a-f][0-9a-f]-[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]')
);
--> statement-breakpoint
CREATE UNIQUE INDEX `session_token_hash_unique` ON `session` (`token_hash`);--> statement-breakpoint
CREATE INDEX `session_user_id_index` ON `session` (`user_id`);--> statement-breakpoint
CREATE INDEX `session_expires_at_index` ON `session` (`expires_at`);--> statement-breakpoint
CREATE TABLE `server` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`name` text NOT NULL,
	`hostname` text,
	`machine_id` text,
	`is_local` integer DEFAULT false NOT NULL,
	`status` text DEFAULT 'pending' NOT NULL,
	`last_seen_at` integer,
	`public_key` text,
	`credential_hash` text,
	`created_at` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	`updated_at` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organization`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "server_id_is_uuid_v7" CHECK(length("server"."id") = 36 AND "server"."id" GLOB '[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]-[0-9a-f][0-9a-f][0-9a-f][0-9a-f]-7[0-9a-f][0-9a-f][0-9a-f]-[89ab][0-9a-f][0-9a-f][0-9a-f]-[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]'),
	CONSTRAINT "server_name_length" CHECK(length("server"."name") BETWEEN 1 AND 255),
	CONSTRAINT "server_is_local_is_boolean" CHECK("server"."is_local" IN (0, 1)),
	CONSTRAINT "server_status_is_valid" CHECK("server"."status" IN ('pending', 'connected', 'disconnected'))
);
--> statement-breakpoint
CREATE UNIQUE INDEX `server_one_local` ON `server` (`is_local`) WHERE "server"."is_local" = 1;--> statement-breakpoint
CREATE UNIQUE INDEX `server_organization_id_machine_id_unique` ON `server` (`organization_id`,`machine_id`) WHERE "server"."machine_id" IS NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX `server_credential_hash_unique` ON `server` (`credential_hash`) WHERE "server"."credential_hash" IS NOT NULL;--> statement-breakpoint
CREATE INDEX `server_organization_id_index` ON `server` (`organization_id`);--> statement-breakpoint
CREATE TABLE `repository` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`name` text NOT NULL,
	`url` text NOT NULL,
	`created_at` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	`updated_at` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organization`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "repository_id_is_uuid_v7" CHECK(length("repository"."id") = 36 AND "repository"."id" GLOB '[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]-[0-9a-f][0-9a-f][0-9a-f][0-9a-f]-7[0-9a-f][0-9a-f][0-9a-f]-[89ab][0-9a-f][0-9a-f][0-9a-f]-[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]'),
	CONSTRAINT "repository_name_length" CHECK(length("repository"."name") BETWEEN 1 AND 255),
	CONSTRAINT "repository_url_length" CHECK(length("repository"."url") BETWEEN 1 AND 2048)
);
--> statement-breakpoint
CREATE INDEX `repository_organization_id_index` ON `repository` (`organization_id`);--> statement-breakpoint
CREATE TABLE `tls` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`name` text NOT NULL,
	`certificate` text NOT NULL,
	`private_key` text NOT NULL,
	`created_at` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	`updated_at` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organization`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "tls_id_is_uuid_v7" CHECK(length("tls"."id") = 36 AND "tls"."id" GLOB '[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]-[0-9a-f][0-9a-f][0-9a-f][0-9a-f]-7[0-9a-f][0-9a-f][0-9a-f]-[89ab][0-9a-f][0-9a-f][0-9a-f]-[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]'),
	CONSTRAINT "tls_name_length" CHECK(length("tls"."name") BETWEEN 1 AND 255),
	CONSTRAINT "tls_private_key_is_sealed" CHECK("tls"."private_key" GLOB 'pnsecret.v[0-9]*.?*.?*')
);
--> statement-breakpoint
CREATE INDEX `tls_organization_id_index` ON `tls` (`organization_id`);--> statement-breakpoint
CREATE TABLE `ip` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`address` text NOT NULL,
	`scope` text NOT NULL,
	`created_at` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	`updated_at` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organization`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "ip_id_is_uuid_v7" CHECK(length("ip"."id") = 36 AND "ip"."id" GLOB '[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]-[0-9a-f][0-9a-f][0-9a-f][0-9a-f]-7[0-9a-f][0-9a-f][0-9a-f]-[89ab][0-9a-f][0-9a-f][0-9a-f]-[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]'),
	CONSTRAINT "ip_address_length" CHECK(length("ip"."address") BETWEEN 2 AND 45),
	CONSTRAINT "ip_scope_is_valid" CHECK("ip"."scope" IN ('public', 'datacenter', 'local'))
);
--> statement-breakpoint
CREATE UNIQUE INDEX `ip_organization_id_address_unique` ON `ip` (`organization_id`,`address`);--> statement-breakpoint
CREATE TABLE `datacenter` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`name` text NOT NULL,
	`created_at` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	`updated_at` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organization`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "datacenter_id_is_uuid_v7" CHECK(length("datacenter"."id") = 36 AND "datacenter"."id" GLOB '[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]-[0-9a-f][0-9a-f][0-9a-f][0-9a-f]-7[0-9a-f][0-9a-f][0-9a-f]-[89ab][0-9a-f][0-9a-f][0-9a-f]-[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]'),
	CONSTRAINT "datacenter_name_length" CHECK(length("datacenter"."name") BETWEEN 1 AND 255)
);
--> statement-breakpoint
CREATE INDEX `datacenter_organization_id_index` ON `datacenter` (`organization_id`);--> statement-breakpoint
CREATE TABLE `storage` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`name` text NOT NULL,
	`kind` text NOT NULL,
	`created_at` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	`updated_at` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organization`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "storage_id_is_uuid_v7" CHECK(length("storage"."id") = 36 AND "storage"."id" GLOB '[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]-[0-9a-f][0-9a-f][0-9a-f][0-9a-f]-7[0-9a-f][0-9a-f][0-9a-f]-[89ab][0-9a-f][0-9a-f][0-9a-f]-[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]'),
	CONSTRAINT "storage_name_length" CHECK(length("storage"."name") BETWEEN 1 AND 255),
	CONSTRAINT "storage_kind_length" CHECK(length("storage"."kind") BETWEEN 1 AND 32)
);
--> statement-breakpoint
CREATE INDEX `storage_organization_id_index` ON `storage` (`organization_id`);--> statement-breakpoint
CREATE TABLE `managed` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`name` text NOT NULL,
	`engine` text NOT NULL,
	`version` text,
	`host` text,
	`port` integer,
	`options` text,
	`created_at` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	`updated_at` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organization`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "managed_id_is_uuid_v7" CHECK(length("managed"."id") = 36 AND "managed"."id" GLOB '[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]-[0-9a-f][0-9a-f][0-9a-f][0-9a-f]-7[0-9a-f][0-9a-f][0-9a-f]-[89ab][0-9a-f][0-9a-f][0-9a-f]-[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]'),
	CONSTRAINT "managed_name_length" CHECK(length("managed"."name") BETWEEN 1 AND 255),
	CONSTRAINT "managed_engine_is_valid" CHECK("managed"."engine" IN ('postgres', 'mysql', 'redis', 'clickhouse')),
	CONSTRAINT "managed_port_range" CHECK("managed"."port" IS NULL OR (typeof("managed"."port") = 'integer' AND "managed"."port" BETWEEN 1 AND 65535)),
	CONSTRAINT "managed_options_is_json_object" CHECK(CASE WHEN "managed"."options" IS NULL THEN 1 WHEN json_valid("managed"."options") THEN json_type("managed"."options") = 'object' ELSE 0 END),
	CONSTRAINT "managed_options_databases_is_array" CHECK(CASE WHEN json_valid("managed"."options") THEN coalesce(json_type("managed"."options", '$.databases'), 'array') = 'array' ELSE 1 END)
);
--> statement-breakpoint
CREATE INDEX `managed_organization_id_index` ON `managed` (`organization_id`);--> statement-breakpoint
CREATE TABLE `replica` (
	`id` text PRIMARY KEY NOT NULL,
	`managed_id` text NOT NULL,
	`server_id` text NOT NULL,
	`ordinal` integer DEFAULT 1 NOT NULL,
	`created_at` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	`updated_at` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	FOREIGN KEY (`managed_id`) REFERENCES `managed`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`server_id`) REFERENCES `server`(`id`) ON UPDATE no action ON DELETE restrict,
	CONSTRAINT "replica_id_is_uuid_v7" CHECK(length("replica"."id") = 36 AND "replica"."id" GLOB '[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]-[0-9a-f][0-9a-f][0-9a-f][0-9a-f]-7[0-9a-f][0-9a-f][0-9a-f]-[89ab][0-9a-f][0-9a-f][0-9a-f]-[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]'),
	CONSTRAINT "replica_ordinal_at_least_one" CHECK("replica"."ordinal" IS NULL OR (typeof("replica"."ordinal") = 'integer' AND "replica"."ordinal" >= 1))
);
--> statement-breakpoint
CREATE UNIQUE INDEX `replica_managed_id_ordinal_unique` ON `replica` (`managed_id`,`ordinal`);--> statement-breakpoint
CREATE INDEX `replica_server_id_index` ON `replica` (`server_id`);--> statement-breakpoint
CREATE TABLE `workspace` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`name` text,
	`description` text,
	`kind` text DEFAULT 'user' NOT NULL,
	`created_at` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	`updated_at` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organization`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "workspace_id_is_uuid_v7" CHECK(length("workspace"."id") = 36 AND "workspace"."id" GLOB '[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]-[0-9a-f][0-9a-f][0-9a-f][0-9a-f]-7[0-9a-f][0-9a-f][0-9a-f]-[89ab][0-9a-f][0-9a-f][0-9a-f]-[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]'),
	CONSTRAINT "workspace_name_format" CHECK(length("workspace"."name") BETWEEN 1 AND 255 AND "workspace"."name" NOT GLOB '*[^A-Za-z0-9 ._-]*'),
	CONSTRAINT "workspace_kind_is_valid" CHECK("workspace"."kind" IN ('user', 'panel'))
);
--> statement-breakpoint
CREATE UNIQUE INDEX `workspace_organization_id_name_unique` ON `workspace` (`organization_id`,`name`);--> statement-breakpoint
CREATE UNIQUE INDEX `workspace_one_panel_per_organization` ON `workspace` (`organization_id`) WHERE "workspace"."kind" = 'panel';--> statement-breakpoint
CREATE TABLE `project` (
	`id` text PRIMARY KEY NOT NULL,
	`metadata` text,
	`options` text,
	`workspace_id` text NOT NULL,
	`organization_id` text NOT NULL,
	`repository_id` text,
	`name` text,
	`description` text,
	`component` text,
	`created_at` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	`updated_at` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspace`(`id`) ON UPDATE no action ON DELETE restrict,
	FOREIGN KEY (`organization_id`) REFERENCES `organization`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`repository_id`) REFERENCES `repository`(`id`) ON UPDATE no action ON DELETE restrict,
	CONSTRAINT "project_id_is_uuid_v7" CHECK(length("project"."id") = 36 AND "project"."id" GLOB '[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]-[0-9a-f][0-9a-f][0-9a-f][0-9a-f]-7[0-9a-f][0-9a-f][0-9a-f]-[89ab][0-9a-f][0-9a-f][0-9a-f]-[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]'),
	CONSTRAINT "project_metadata_is_json_object" CHECK(CASE WHEN "project"."metadata" IS NULL THEN 1 WHEN json_valid("project"."metadata") THEN json_type("project"."metadata") = 'object' ELSE 0 END),
	CONSTRAINT "project_options_is_json_object" CHECK(CASE WHEN "project"."options" IS NULL THEN 1 WHEN json_valid("project"."options") THEN json_type("project"."options") = 'object' ELSE 0 END),
	CONSTRAINT "project_component_is_valid" CHECK("project"."component" IN ('hosting-ingress', 'managed-ingress', 'managed-ha', 'panel'))
);
--> statement-breakpoint
CREATE UNIQUE INDEX `project_organization_id_name_unique` ON `project` (`organization_id`,lower(trim("name")));--> statement-breakpoint
CREATE UNIQUE INDEX `project_workspace_id_component_unique` ON `project` (`workspace_id`,`component`) WHERE "project"."component" IS NOT NULL;--> statement-breakpoint
CREATE INDEX `project_workspace_id_index` ON `project` (`workspace_id`);--> statement-breakpoint
CREATE INDEX `project_repository_id_index` ON `project` (`repository_id`);--> statement-breakpoint
CREATE TABLE `environment` (
	`id` text PRIMARY KEY NOT NULL,
	`metadata` text,
	`options` text,
	`project_id` text NOT NULL,
	`server_id` text,
	`generation` integer DEFAULT 0 NOT NULL,
	`name` text,
	`description` text,
	`created_at` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	`updated_at` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	FOREIGN KEY (`project_id`) REFERENCES `project`(`id`) ON UPDATE no action ON DELETE restrict,
	FOREIGN KEY (`server_id`) REFERENCES `server`(`id`) ON UPDATE no action ON DELETE restrict,
	CONSTRAINT "environment_id_is_uuid_v7" CHECK(length("environment"."id") = 36 AND "environment"."id" GLOB '[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]-[0-9a-f][0-9a-f][0-9a-f][0-9a-f]-7[0-9a-f][0-9a-f][0-9a-f]-[89ab][0-9a-f][0-9a-f][0-9a-f]-[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]'),
	CONSTRAINT "environment_metadata_is_json_object" CHECK(CASE WHEN "environment"."metadata" IS NULL THEN 1 WHEN json_valid("environment"."metadata") THEN json_type("environment"."metadata") = 'object' ELSE 0 END),
	CONSTRAINT "environment_options_is_json_object" CHECK(CASE WHEN "environment"."options" IS NULL THEN 1 WHEN json_valid("environment"."options") THEN json_type("environment"."options") = 'object' ELSE 0 END),
	CONSTRAINT "environment_generation_non_negative" CHECK("environment"."generation" IS NULL OR (typeof("environment"."generation") = 'integer' AND "environment"."generation" >= 0)),
	CONSTRAINT "environment_name_format" CHECK(length("environment"."name") BETWEEN 1 AND 255 AND "environment"."name" NOT GLOB '*[^A-Za-z0-9 ._/-]*')
);
--> statement-breakpoint
CREATE INDEX `environment_project_id_index` ON `environment` (`project_id`);--> statement-breakpoint
CREATE INDEX `environment_server_id_index` ON `environment` (`server_id`) WHERE "environment"."server_id" IS NOT NULL;--> statement-breakpoint
CREATE TABLE `deployment` (
	`id` text PRIMARY KEY NOT NULL,
	`environment_id` text NOT NULL,
	`server_id` text,
	`kind` text NOT NULL,
	`desired_generation` integer NOT NULL,
	`status` text DEFAULT 'queued' NOT NULL,
	`error` text,
	`created_at` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	`updated_at` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	FOREIGN KEY (`environment_id`) REFERENCES `environment`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`server_id`) REFERENCES `server`(`id`) ON UPDATE no action ON DELETE set null,
	CONSTRAINT "deployment_id_is_uuid_v7" CHECK(length("deployment"."id") = 36 AND "deployment"."id" GLOB '[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]-[0-9a-f][0-9a-f][0-9a-f][0-9a-f]-7[0-9a-f][0-9a-f][0-9a-f]-[89ab][0-9a-f][0-9a-f][0-9a-f]-[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]'),
	CONSTRAINT "deployment_kind_is_valid" CHECK("deployment"."kind" IN ('deploy', 'stop', 'destroy')),
	CONSTRAINT "deployment_status_is_valid" CHECK("deployment"."status" IN ('queued', 'running', 'succeeded', 'failed')),
	CONSTRAINT "deployment_desired_generation_non_negative" CHECK("deployment"."desired_generation" IS NULL OR (typeof("deployment"."desired_generation") = 'integer' AND "deployment"."desired_generation" >= 0))
);
--> statement-breakpoint
CREATE INDEX `deployment_environment_id_index` ON `deployment` (`environment_id`);--> statement-breakpoint
CREATE INDEX `deployment_server_id_index` ON `deployment` (`server_id`);--> statement-breakpoint
CREATE TABLE `service` (
	`id` text PRIMARY KEY NOT NULL,
	`metadata` text,
	`options` text,
	`environment_id` text NOT NULL,
	`name` text,
	`description` text,
	`compose_service_name` text NOT NULL,
	`created_at` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	`updated_at` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	FOREIGN KEY (`environment_id`) REFERENCES `environment`(`id`) ON UPDATE no action ON DELETE restrict,
	CONSTRAINT "service_id_is_uuid_v7" CHECK(length("service"."id") = 36 AND "service"."id" GLOB '[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]-[0-9a-f][0-9a-f][0-9a-f][0-9a-f]-7[0-9a-f][0-9a-f][0-9a-f]-[89ab][0-9a-f][0-9a-f][0-9a-f]-[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]'),
	CONSTRAINT "service_metadata_is_json_object" CHECK(CASE WHEN "service"."metadata" IS NULL THEN 1 WHEN json_valid("service"."metadata") THEN json_type("service"."metadata") = 'object' ELSE 0 END),
	CONSTRAINT "service_options_is_json_object" CHECK(CASE WHEN "service"."options" IS NULL THEN 1 WHEN json_valid("service"."options") THEN json_type("service"."options") = 'object' ELSE 0 END),
	CONSTRAINT "service_name_format" CHECK(length("service"."name") BETWEEN 1 AND 255 AND "service"."name" NOT GLOB '*[^A-Za-z0-9 ._-]*'),
	CONSTRAINT "service_compose_service_name_length" CHECK(length("service"."compose_service_name") BETWEEN 1 AND 255)
);
--> statement-breakpoint
CREATE UNIQUE INDEX `service_environment_id_compose_service_name_unique` ON `service` (`environment_id`,`compose_service_name`);--> statement-breakpoint
CREATE TABLE `hosting` (
	`id` text PRIMARY KEY NOT NULL,
	`metadata` text,
	`options` text,
	`service_id` text NOT NULL,
	`tls_id` text,
	`ip_id` text,
	`name` text,
	`description` text,
	`protocol` text,
	`created_at` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	`updated_at` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	FOREIGN KEY (`service_id`) REFERENCES `service`(`id`) ON UPDATE no action ON DELETE restrict,
	FOREIGN KEY (`tls_id`) REFERENCES `tls`(`id`) ON UPDATE no action ON DELETE set null,
	FOREIGN KEY (`ip_id`) REFERENCES `ip`(`id`) ON UPDATE no action ON DELETE set null,
	CONSTRAINT "hosting_id_is_uuid_v7" CHECK(length("hosting"."id") = 36 AND "hosting"."id" GLOB '[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]-[0-9a-f][0-9a-f][0-9a-f][0-9a-f]-7[0-9a-f][0-9a-f][0-9a-f]-[89ab][0-9a-f][0-9a-f][0-9a-f]-[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]'),
	CONSTRAINT "hosting_metadata_is_json_object" CHECK(CASE WHEN "hosting"."metadata" IS NULL THEN 1 WHEN json_valid("hosting"."metadata") THEN json_type("hosting"."metadata") = 'object' ELSE 0 END),
	CONSTRAINT "hosting_options_is_json_object" CHECK(CASE WHEN "hosting"."options" IS NULL THEN 1 WHEN json_valid("hosting"."options") THEN json_type("hosting"."options") = 'object' ELSE 0 END),
	CONSTRAINT "hosting_protocol_is_valid" CHECK("hosting"."protocol" IN ('http', 'tcp', 'udp'))
);
--> statement-breakpoint
CREATE INDEX `hosting_service_id_index` ON `hosting` (`service_id`);--> statement-breakpoint
CREATE INDEX `hosting_tls_id_index` ON `hosting` (`tls_id`) WHERE "hosting"."tls_id" IS NOT NULL;--> statement-breakpoint
CREATE INDEX `hosting_ip_id_index` ON `hosting` (`ip_id`) WHERE "hosting"."ip_id" IS NOT NULL;--> statement-breakpoint
CREATE TABLE `hostname` (
	`id` text PRIMARY KEY NOT NULL,
	`hosting_id` text NOT NULL,
	`routing_organization_id` text NOT NULL,
	`hostname` text NOT NULL,
	`created_at` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	`updated_at` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	FOREIGN KEY (`hosting_id`) REFERENCES `hosting`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`routing_organization_id`) REFERENCES `organization`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "hostname_id_is_uuid_v7" CHECK(length("hostname"."id") = 36 AND "hostname"."id" GLOB '[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]-[0-9a-f][0-9a-f][0-9a-f][0-9a-f]-7[0-9a-f][0-9a-f][0-9a-f]-[89ab][0-9a-f][0-9a-f][0-9a-f]-[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]'),
	CONSTRAINT "hostname_hostname_length" CHECK(length("hostname"."hostname") BETWEEN 1 AND 253)
);
--> statement-breakpoint
CREATE UNIQUE INDEX `hostname_routing_organization_id_hostname_unique` ON `hostname` (`routing_organization_id`,lower("hostname"));--> statement-breakpoint
CREATE INDEX `hostname_hosting_id_index` ON `hostname` (`hosting_id`);--> statement-breakpoint
CREATE TABLE `container` (
	`id` text PRIMARY KEY NOT NULL,
	`metadata` text,
	`options` text,
	`service_id` text NOT NULL,
	`server_id` text NOT NULL,
	`container_id` text,
	`container_name` text NOT NULL,
	`status` text DEFAULT 'pending' NOT NULL,
	`role` text DEFAULT 'service' NOT NULL,
	`compose_service_name` text NOT NULL,
	`ordinal` integer DEFAULT 1 NOT NULL,
	`created_at` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	`updated_at` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	FOREIGN KEY (`service_id`) REFERENCES `service`(`id`) ON UPDATE no action ON DELETE restrict,
	FOREIGN KEY (`server_id`) REFERENCES `server`(`id`) ON UPDATE no action ON DELETE restrict,
	CONSTRAINT "container_id_is_uuid_v7" CHECK(length("container"."id") = 36 AND "container"."id" GLOB '[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]-[0-9a-f][0-9a-f][0-9a-f][0-9a-f]-7[0-9a-f][0-9a-f][0-9a-f]-[89ab][0-9a-f][0-9a-f][0-9a-f]-[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]'),
	CONSTRAINT "container_metadata_is_json_object" CHECK(CASE WHEN "container"."metadata" IS NULL THEN 1 WHEN json_valid("container"."metadata") THEN json_type("container"."metadata") = 'object' ELSE 0 END),
	CONSTRAINT "container_options_is_json_object" CHECK(CASE WHEN "container"."options" IS NULL THEN 1 WHEN json_valid("container"."options") THEN json_type("container"."options") = 'object' ELSE 0 END),
	CONSTRAINT "container_status_is_valid" CHECK("container"."status" IN ('pending', 'created', 'running', 'paused', 'restarting', 'removing', 'exited', 'dead', 'unknown')),
	CONSTRAINT "container_role_is_valid" CHECK("container"."role" IN ('service', 'ingress', 'panel')),
	CONSTRAINT "container_ordinal_at_least_one" CHECK("container"."ordinal" IS NULL OR (typeof("container"."ordinal") = 'integer' AND "container"."ordinal" >= 1)),
	CONSTRAINT "container_ingress_ordinal_is_one" CHECK("container"."role" <> 'ingress' OR "container"."ordinal" = 1),
	CONSTRAINT "container_container_name_not_empty" CHECK(length("container"."container_name") >= 1),
	CONSTRAINT "container_compose_service_name_not_empty" CHECK(length("container"."compose_service_name") >= 1)
);
--> statement-breakpoint
CREATE UNIQUE INDEX `container_service_id_role_ordinal_unique` ON `container` (`service_id`,`role`,`ordinal`);--> statement-breakpoint
CREATE UNIQUE INDEX `container_server_id_container_id_unique` ON `container` (`server_id`,`container_id`) WHERE "container"."container_id" IS NOT NULL;--> statement-breakpoint
CREATE INDEX `container_server_id_index` ON `container` (`server_id`);--> statement-breakpoint
CREATE TABLE `principal` (
	`id` text PRIMARY KEY NOT NULL,
	`metadata` text,
	`options` text,
	`kind` text NOT NULL,
	`provider` text NOT NULL,
	`username` text NOT NULL,
	`applied_username` text NOT NULL,
	`password` text,
	`organization_id` text NOT NULL,
	`project_id` text,
	`managed_id` text,
	`created_at` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	`updated_at` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organization`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`project_id`) REFERENCES `project`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`managed_id`) REFERENCES `managed`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "principal_id_is_uuid_v7" CHECK(length("principal"."id") = 36 AND "principal"."id" GLOB '[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]-[0-9a-f][0-9a-f][0-9a-f][0-9a-f]-7[0-9a-f][0-9a-f][0-9a-f]-[89ab][0-9a-f][0-9a-f][0-9a-f]-[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]'),
	CONSTRAINT "principal_metadata_is_json_object" CHECK(CASE WHEN "principal"."metadata" IS NULL THEN 1 WHEN json_valid("principal"."metadata") THEN json_type("principal"."metadata") = 'object' ELSE 0 END),
	CONSTRAINT "principal_options_is_json_object" CHECK(CASE WHEN "principal"."options" IS NULL THEN 1 WHEN json_valid("principal"."options") THEN json_type("principal"."options") = 'object' ELSE 0 END),
	CONSTRAINT "principal_kind_is_valid" CHECK("principal"."kind" IN ('system', 'database')),
	CONSTRAINT "principal_provider_is_valid" CHECK("principal"."provider" IN ('server', 'postgres', 'mysql', 'redis', 'clickhouse')),
	CONSTRAINT "principal_provider_matches_kind" CHECK(("principal"."kind" = 'system') = ("principal"."provider" = 'server')),
	CONSTRAINT "principal_username_format" CHECK("principal"."username" GLOB '[A-Za-z_]*' AND length("principal"."username") BETWEEN 1 AND 255 AND "principal"."username" NOT GLOB '*[^A-Za-z0-9_-]*'),
	CONSTRAINT "principal_applied_username_format" CHECK("principal"."applied_username" GLOB '[A-Za-z_]*' AND length("principal"."applied_username") BETWEEN 1 AND 255 AND "principal"."applied_username" NOT GLOB '*[^A-Za-z0-9_-]*'),
	CONSTRAINT "principal_password_is_sealed" CHECK("principal"."password" GLOB 'pnsecret.v[0-9]*.?*.?*')
);
--> statement-breakpoint
CREATE INDEX `principal_organization_id_index` ON `principal` (`organization_id`);--> statement-breakpoint
CREATE INDEX `principal_project_id_index` ON `principal` (`project_id`) WHERE "principal"."project_id" IS NOT NULL;--> statement-breakpoint
CREATE INDEX `principal_managed_id_index` ON `principal` (`managed_id`) WHERE "principal"."managed_id" IS NOT NULL;--> statement-breakpoint
CREATE TABLE `tenancy` (
	`id` text PRIMARY KEY NOT NULL,
	`principal_id` text NOT NULL,
	`service_id` text NOT NULL,
	`created_at` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	`updated_at` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	FOREIGN KEY (`principal_id`) REFERENCES `principal`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`service_id`) REFERENCES `service`(`id`) ON UPDATE no action ON DELETE restrict,
	CONSTRAINT "tenancy_id_is_uuid_v7" CHECK(length("tenancy"."id") = 36 AND "tenancy"."id" GLOB '[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]-[0-9a-f][0-9a-f][0-9a-f][0-9a-f]-7[0-9a-f][0-9a-f][0-9a-f]-[89ab][0-9a-f][0-9a-f][0-9a-f]-[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]')
);
--> statement-breakpoint
CREATE UNIQUE INDEX `tenancy_principal_id_service_id_unique` ON `tenancy` (`principal_id`,`service_id`);--> statement-breakpoint
CREATE INDEX `tenancy_service_id_index` ON `tenancy` (`service_id`);--> statement-breakpoint
CREATE TABLE `binding` (
	`id` text PRIMARY KEY NOT NULL,
	`metadata` text,
	`options` text,
	`principal_id` text NOT NULL,
	`service_id` text NOT NULL,
	`database_name` text NOT NULL,
	`key_prefix` text DEFAULT 'DATABASE' NOT NULL,
	`is_emit_engine_defaults` integer DEFAULT true NOT NULL,
	`created_at` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	`updated_at` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	FOREIGN KEY (`principal_id`) REFERENCES `principal`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`service_id`) REFERENCES `service`(`id`) ON UPDATE no action ON DELETE restrict,
	CONSTRAINT "binding_id_is_uuid_v7" CHECK(length("binding"."id") = 36 AND "binding"."id" GLOB '[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]-[0-9a-f][0-9a-f][0-9a-f][0-9a-f]-7[0-9a-f][0-9a-f][0-9a-f]-[89ab][0-9a-f][0-9a-f][0-9a-f]-[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]'),
	CONSTRAINT "binding_metadata_is_json_object" CHECK(CASE WHEN "binding"."metadata" IS NULL THEN 1 WHEN json_valid("binding"."metadata") THEN json_type("binding"."metadata") = 'object' ELSE 0 END),
	CONSTRAINT "binding_options_is_json_object" CHECK(CASE WHEN "binding"."options" IS NULL THEN 1 WHEN json_valid("binding"."options") THEN json_type("binding"."options") = 'object' ELSE 0 END),
	CONSTRAINT "binding_database_name_format" CHECK("binding"."database_name" GLOB '[A-Za-z_]*' AND length("binding"."database_name") BETWEEN 1 AND 63 AND "binding"."database_name" NOT GLOB '*[^A-Za-z0-9_]*'),
	CONSTRAINT "binding_key_prefix_format" CHECK("binding"."key_prefix" GLOB '[A-Za-z_]*' AND length("binding"."key_prefix") BETWEEN 1 AND 64 AND "binding"."key_prefix" NOT GLOB '*[^A-Za-z0-9_]*'),
	CONSTRAINT "binding_is_emit_engine_defaults_is_boolean" CHECK("binding"."is_emit_engine_defaults" IN (0, 1))
);
--> statement-breakpoint
CREATE UNIQUE INDEX `binding_service_id_key_prefix_unique` ON `binding` (`service_id`,`key_prefix`);--> statement-breakpoint
CREATE UNIQUE INDEX `binding_one_engine_defaults_per_service` ON `binding` (`service_id`) WHERE "binding"."is_emit_engine_defaults" = 1;--> statement-breakpoint
CREATE INDEX `binding_principal_id_index` ON `binding` (`principal_id`);--> statement-breakpoint
CREATE TABLE `variable` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text,
	`workspace_id` text,
	`project_id` text,
	`environment_id` text,
	`service_id` text,
	`hosting_id` text,
	`server_id` text,
	`binding_id` text,
	`key` text NOT NULL,
	`value` text DEFAULT '' NOT NULL,
	`is_secret` integer DEFAULT false NOT NULL,
	`is_literal` integer DEFAULT false NOT NULL,
	`is_for_build` integer DEFAULT false NOT NULL,
	`is_for_runtime` integer DEFAULT true NOT NULL,
	`description` text,
	`created_at` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	`updated_at` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organization`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspace`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`project_id`) REFERENCES `project`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`environment_id`) REFERENCES `environment`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`service_id`) REFERENCES `service`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`hosting_id`) REFERENCES `hosting`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`server_id`) REFERENCES `server`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`binding_id`) REFERENCES `binding`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "variable_id_is_uuid_v7" CHECK(length("variable"."id") = 36 AND "variable"."id" GLOB '[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]-[0-9a-f][0-9a-f][0-9a-f][0-9a-f]-7[0-9a-f][0-9a-f][0-9a-f]-[89ab][0-9a-f][0-9a-f][0-9a-f]-[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]'),
	CONSTRAINT "variable_exactly_one_scope" CHECK((("variable"."organization_id" IS NOT NULL) + ("variable"."workspace_id" IS NOT NULL) + ("variable"."project_id" IS NOT NULL) + ("variable"."environment_id" IS NOT NULL) + ("variable"."service_id" IS NOT NULL) + ("variable"."hosting_id" IS NOT NULL) + ("variable"."server_id" IS NOT NULL)) = 1),
	CONSTRAINT "variable_key_format" CHECK("variable"."key" GLOB '[A-Za-z_]*' AND length("variable"."key") BETWEEN 1 AND 255 AND "variable"."key" NOT GLOB '*[^A-Za-z0-9_]*'),
	CONSTRAINT "variable_secret_value_is_sealed" CHECK("variable"."is_secret" = 0 OR "variable"."value" GLOB 'pnsecret.v[0-9]*.?*.?*'),
	CONSTRAINT "variable_is_secret_is_boolean" CHECK("variable"."is_secret" IN (0, 1)),
	CONSTRAINT "variable_is_literal_is_boolean" CHECK("variable"."is_literal" IN (0, 1)),
	CONSTRAINT "variable_is_for_build_is_boolean" CHECK("variable"."is_for_build" IN (0, 1)),
	CONSTRAINT "variable_is_for_runtime_is_boolean" CHECK("variable"."is_for_runtime" IN (0, 1))
);
--> statement-breakpoint
CREATE UNIQUE INDEX `variable_organization_id_key_unique` ON `variable` (`organization_id`,`key`) WHERE "variable"."organization_id" IS NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX `variable_workspace_id_key_unique` ON `variable` (`workspace_id`,`key`) WHERE "variable"."workspace_id" IS NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX `variable_project_id_key_unique` ON `variable` (`project_id`,`key`) WHERE "variable"."project_id" IS NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX `variable_environment_id_key_unique` ON `variable` (`environment_id`,`key`) WHERE "variable"."environment_id" IS NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX `variable_service_id_key_unique` ON `variable` (`service_id`,`key`) WHERE "variable"."service_id" IS NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX `variable_hosting_id_key_unique` ON `variable` (`hosting_id`,`key`) WHERE "variable"."hosting_id" IS NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX `variable_server_id_key_unique` ON `variable` (`server_id`,`key`) WHERE "variable"."server_id" IS NOT NULL;--> statement-breakpoint
CREATE INDEX `variable_binding_id_index` ON `variable` (`binding_id`) WHERE "variable"."binding_id" IS NOT NULL;--> statement-breakpoint
CREATE TABLE `tag` (
	`id` text PRIMARY KEY NOT NULL,
	`metadata` text,
	`options` text,
	`organization_id` text NOT NULL,
	`name` text NOT NULL,
	`description` text,
	`color` text,
	`created_at` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	`updated_at` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organization`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "tag_id_is_uuid_v7" CHECK(length("tag"."id") = 36 AND "tag"."id" GLOB '[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]-[0-9a-f][0-9a-f][0-9a-f][0-9a-f]-7[0-9a-f][0-9a-f][0-9a-f]-[89ab][0-9a-f][0-9a-f][0-9a-f]-[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]'),
	CONSTRAINT "tag_metadata_is_json_object" CHECK(CASE WHEN "tag"."metadata" IS NULL THEN 1 WHEN json_valid("tag"."metadata") THEN json_type("tag"."metadata") = 'object' ELSE 0 END),
	CONSTRAINT "tag_options_is_json_object" CHECK(CASE WHEN "tag"."options" IS NULL THEN 1 WHEN json_valid("tag"."options") THEN json_type("tag"."options") = 'object' ELSE 0 END),
	CONSTRAINT "tag_color_format" CHECK("tag"."color" GLOB '#[0-9A-Fa-f][0-9A-Fa-f][0-9A-Fa-f]' OR "tag"."color" GLOB '#[0-9A-Fa-f][0-9A-Fa-f][0-9A-Fa-f][0-9A-Fa-f][0-9A-Fa-f][0-9A-Fa-f]')
);
--> statement-breakpoint
CREATE UNIQUE INDEX `tag_organization_id_name_unique` ON `tag` (`organization_id`,lower(trim("name")));--> statement-breakpoint
CREATE TABLE `marker` (
	`id` text PRIMARY KEY NOT NULL,
	`tag_id` text NOT NULL,
	`server_id` text,
	`workspace_id` text,
	`project_id` text,
	`environment_id` text,
	`service_id` text,
	`datacenter_id` text,
	`storage_id` text,
	`created_at` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	`updated_at` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	FOREIGN KEY (`tag_id`) REFERENCES `tag`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`server_id`) REFERENCES `server`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspace`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`project_id`) REFERENCES `project`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`environment_id`) REFERENCES `environment`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`service_id`) REFERENCES `service`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`datacenter_id`) REFERENCES `datacenter`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`storage_id`) REFERENCES `storage`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "marker_id_is_uuid_v7" CHECK(length("marker"."id") = 36 AND "marker"."id" GLOB '[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]-[0-9a-f][0-9a-f][0-9a-f][0-9a-f]-7[0-9a-f][0-9a-f][0-9a-f]-[89ab][0-9a-f][0-9a-f][0-9a-f]-[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]'),
	CONSTRAINT "marker_exactly_one_entity" CHECK((("marker"."server_id" IS NOT NULL) + ("marker"."workspace_id" IS NOT NULL) + ("marker"."project_id" IS NOT NULL) + ("marker"."environment_id" IS NOT NULL) + ("marker"."service_id" IS NOT NULL) + ("marker"."datacenter_id" IS NOT NULL) + ("marker"."storage_id" IS NOT NULL)) = 1)
);
--> statement-breakpoint
CREATE UNIQUE INDEX `marker_server_id_tag_id_unique` ON `marker` (`server_id`,`tag_id`) WHERE "marker"."server_id" IS NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX `marker_workspace_id_tag_id_unique` ON `marker` (`workspace_id`,`tag_id`) WHERE "marker"."workspace_id" IS NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX `marker_project_id_tag_id_unique` ON `marker` (`project_id`,`tag_id`) WHERE "marker"."project_id" IS NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX `marker_environment_id_tag_id_unique` ON `marker` (`environment_id`,`tag_id`) WHERE "marker"."environment_id" IS NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX `marker_service_id_tag_id_unique` ON `marker` (`service_id`,`tag_id`) WHERE "marker"."service_id" IS NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX `marker_datacenter_id_tag_id_unique` ON `marker` (`datacenter_id`,`tag_id`) WHERE "marker"."datacenter_id" IS NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX `marker_storage_id_tag_id_unique` ON `marker` (`storage_id`,`tag_id`) WHERE "marker"."storage_id" IS NOT NULL;--> statement-breakpoint
CREATE INDEX `marker_tag_id_index` ON `marker` (`tag_id`);--> statement-breakpoint
CREATE TABLE `consumed_challenge` (
	`id` text PRIMARY KEY NOT NULL,
	`purpose` text NOT NULL,
	`expires_at` integer NOT NULL,
	CONSTRAINT "consumed_challenge_id_length" CHECK(length("consumed_challenge"."id") BETWEEN 1 AND 255),
	CONSTRAINT "consumed_challenge_purpose_length" CHECK(length("consumed_challenge"."purpose") BETWEEN 1 AND 64)
);
--> statement-breakpoint
CREATE INDEX `consumed_challenge_expires_at_index` ON `consumed_challenge` (`expires_at`);