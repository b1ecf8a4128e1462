CREATE TABLE `log_chunk` (
	`id` integer PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`service_id` text NOT NULL,
	`container_id` text,
	`ordinal` integer NOT NULL,
	`container_name` text NOT NULL,
	`first_at` integer NOT NULL,
	`last_at` integer NOT NULL,
	`line_count` integer NOT NULL,
	`bytes` integer NOT NULL,
	`body` text NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organization`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`service_id`) REFERENCES `service`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`container_id`) REFERENCES `container`(`id`) ON UPDATE no action ON DELETE set null,
	CONSTRAINT "log_chunk_times_ordered" CHECK("log_chunk"."first_at" <= "log_chunk"."last_at"),
	CONSTRAINT "log_chunk_body_is_json_array" CHECK(json_valid("log_chunk"."body") AND json_type("log_chunk"."body") = 'array')
);
--> statement-breakpoint
CREATE INDEX `log_chunk_service_id_last_at_index` ON `log_chunk` (`service_id`,`last_at`);--> statement-breakpoint
CREATE INDEX `log_chunk_organization_id_id_index` ON `log_chunk` (`organization_id`,`id`);--> statement-breakpoint
CREATE INDEX `log_chunk_container_id_index` ON `log_chunk` (`container_id`);--> statement-breakpoint
CREATE TABLE `deployment_log` (
	`deployment_id` text NOT NULL,
	`seq` integer NOT NULL,
	`at` integer NOT NULL,
	`stream` integer NOT NULL,
	`text` text NOT NULL,
	PRIMARY KEY(`deployment_id`, `seq`),
	FOREIGN KEY (`deployment_id`) REFERENCES `deployment`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "deployment_log_stream_is_valid" CHECK("deployment_log"."stream" IN (0, 1, 2))
);
--> statement-breakpoint
CREATE TABLE `metric_point` (
	`series_id` integer NOT NULL,
	`resolution` integer NOT NULL,
	`at` integer NOT NULL,
	`cpu` real,
	`cpu_count` real,
	`memory` real,
	`memory_limit` real,
	`net_rx` real,
	`net_tx` real,
	`block_read` real,
	`block_write` real,
	`disk_used` real,
	`disk_total` real,
	`load1` real,
	`load5` real,
	`load15` real,
	PRIMARY KEY(`series_id`, `resolution`, `at`),
	FOREIGN KEY (`series_id`) REFERENCES `metric_series`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "metric_point_resolution_is_valid" CHECK("metric_point"."resolution" IN (0, 300, 3600))
);
--> statement-breakpoint
CREATE TABLE `metric_series` (
	`id` integer PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`server_id` text,
	`container_id` text,
	FOREIGN KEY (`organization_id`) REFERENCES `organization`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`server_id`) REFERENCES `server`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`container_id`) REFERENCES `container`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "metric_series_one_subject" CHECK(("metric_series"."server_id" IS NULL) <> ("metric_series"."container_id" IS NULL))
);
--> statement-breakpoint
CREATE UNIQUE INDEX `metric_series_server_id_unique` ON `metric_series` (`server_id`) WHERE "metric_series"."server_id" IS NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX `metric_series_container_id_unique` ON `metric_series` (`container_id`) WHERE "metric_series"."container_id" IS NOT NULL;--> statement-breakpoint
CREATE INDEX `metric_series_organization_id_index` ON `metric_series` (`organization_id`);--> statement-breakpoint
CREATE TABLE `event` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`kind` text NOT NULL,
	`severity` text NOT NULL,
	`message` text NOT NULL,
	`server_id` text,
	`environment_id` text,
	`service_id` text,
	`container_id` text,
	`deployment_id` text,
	`data` text,
	`created_at` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organization`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`server_id`) REFERENCES `server`(`id`) ON UPDATE no action ON DELETE set null,
	FOREIGN KEY (`environment_id`) REFERENCES `environment`(`id`) ON UPDATE no action ON DELETE set null,
	FOREIGN KEY (`service_id`) REFERENCES `service`(`id`) ON UPDATE no action ON DELETE set null,
	FOREIGN KEY (`container_id`) REFERENCES `container`(`id`) ON UPDATE no action ON DELETE set null,
	FOREIGN KEY (`deployment_id`) REFERENCES `deployment`(`id`) ON UPDATE no action ON DELETE set null,
	CONSTRAINT "event_id_is_uuid_v7" CHECK(length("event"."id") = 36 AND "event"."id" GLOB '[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]-[0-9a-f][0-9a-f][0-9a-f][0-9a-f]-7[0-9a-f][0-9a-f][0-9a-f]-[89ab][0-9a-f][0-9a-f][0-9a-f]-[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]'),
	CONSTRAINT "event_severity_is_valid" CHECK("event"."severity" IN ('info', 'warning', 'error')),
	CONSTRAINT "event_data_is_json_object" CHECK(CASE WHEN "event"."data" IS NULL THEN 1 WHEN json_valid("event"."data") THEN json_type("event"."data") = 'object' ELSE 0 END)
);
--> statement-breakpoint
CREATE INDEX `event_organization_id_id_index` ON `event` (`organization_id`,`id`);--> statement-breakpoint
CREATE INDEX `event_server_id_index` ON `event` (`server_id`);--> statement-breakpoint
CREATE INDEX `event_environment_id_index` ON `event` (`environment_id`);--> statement-breakpoint
CREATE INDEX `event_service_id_index` ON `event` (`service_id`);--> statement-breakpoint
CREATE INDEX `event_container_id_index` ON `event` (`container_id`);--> statement-breakpoint
CREATE INDEX `event_deployment_id_index` ON `event` (`deployment_id`);--> statement-breakpoint
CREATE TABLE `webhook` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`url` text NOT NULL,
	`secret` text NOT NULL,
	`is_enabled` integer DEFAULT true NOT NULL,
	`event_kinds` text,
	`created_at` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	`updated_at` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organization`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "webhook_id_is_uuid_v7" CHECK(length("webhook"."id") = 36 AND "webhook"."id" GLOB '[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]-[0-9a-f][0-9a-f][0-9a-f][0-9a-f]-7[0-9a-f][0-9a-f][0-9a-f]-[89ab][0-9a-f][0-9a-f][0-9a-f]-[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]'),
	CONSTRAINT "webhook_is_enabled_is_boolean" CHECK("webhook"."is_enabled" IN (0, 1)),
	CONSTRAINT "webhook_secret_is_sealed" CHECK("webhook"."secret" GLOB 'pnsecret.v[0-9]*.?*.?*'),
	CONSTRAINT "webhook_event_kinds_is_json_array" CHECK("webhook"."event_kinds" IS NULL OR (json_valid("webhook"."event_kinds") AND json_type("webhook"."event_kinds") = 'array')),
	CONSTRAINT "webhook_url_is_http" CHECK("webhook"."url" GLOB 'http://?*' OR "webhook"."url" GLOB 'https://?*')
);
--> statement-breakpoint
CREATE UNIQUE INDEX `webhook_organization_id_unique` ON `webhook` (`organization_id`);--> statement-breakpoint
CREATE TABLE `webhook_delivery` (
	`id` text PRIMARY KEY NOT NULL,
	`webhook_id` text NOT NULL,
	`event_id` text NOT NULL,
	`status` text DEFAULT 'pending' NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`next_attempt_at` integer,
	`response_status` integer,
	`error` text,
	`created_at` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	`updated_at` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	FOREIGN KEY (`webhook_id`) REFERENCES `webhook`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`event_id`) REFERENCES `event`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "webhook_delivery_id_is_uuid_v7" CHECK(length("webhook_delivery"."id") = 36 AND "webhook_delivery"."id" GLOB '[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]-[0-9a-f][0-9a-f][0-9a-f][0-9a-f]-7[0-9a-f][0-9a-f][0-9a-f]-[89ab][0-9a-f][0-9a-f][0-9a-f]-[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]'),
	CONSTRAINT "webhook_delivery_status_is_valid" CHECK("webhook_delivery"."status" IN ('pending', 'delivered', 'failed'))
);
--> statement-breakpoint
CREATE INDEX `webhook_delivery_pending_next_attempt_at_index` ON `webhook_delivery` (`next_attempt_at`) WHERE "webhook_delivery"."status" = 'pending';--> statement-breakpoint
CREATE INDEX `webhook_delivery_webhook_id_id_index` ON `webhook_delivery` (`webhook_id`,`id`);--> statement-breakpoint
CREATE INDEX `webhook_delivery_event_id_index` ON `webhook_delivery` (`event_id`);--> statement-breakpoint
ALTER TABLE `organization` ADD `log_retention_bytes` integer;--> statement-breakpoint
ALTER TABLE `organization` ADD `log_retention_days` integer;
--> statement-breakpoint
CREATE TRIGGER `webhook_touch_updated_at` AFTER UPDATE ON `webhook` FOR EACH ROW
WHEN NEW.`updated_at` IS OLD.`updated_at`
BEGIN
	UPDATE `webhook` SET `updated_at` = CAST(unixepoch('subsec') * 1000 AS INTEGER) WHERE `id` = NEW.`id`;
END;
--> statement-breakpoint
CREATE TRIGGER `webhook_delivery_touch_updated_at` AFTER UPDATE ON `webhook_delivery` FOR EACH ROW
WHEN NEW.`updated_at` IS OLD.`updated_at`
BEGIN
	UPDATE `webhook_delivery` SET `updated_at` = CAST(unixepoch('subsec') * 1000 AS INTEGER) WHERE `id` = NEW.`id`;
END;
