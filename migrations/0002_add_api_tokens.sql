CREATE TABLE `api_token` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`user_id` text NOT NULL,
	`name` text NOT NULL,
	`role` text NOT NULL,
	`token_hash` text NOT NULL,
	`expires_at` integer,
	`last_used_at` integer,
	`created_at` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	`updated_at` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organization`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `user`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "api_token_id_is_uuid_v7" CHECK(length("api_token"."id") = 36 AND "api_token"."id" GLOB '[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]-[0-9a-f][0-9a-f][0-9a-f][0-9a-f]-7[0-9a-f][0-9a-f][0-9a-f]-[89ab][0-9a-f][0-9a-f][0-9a-f]-[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]'),
	CONSTRAINT "api_token_name_length" CHECK(length("api_token"."name") BETWEEN 1 AND 255),
	CONSTRAINT "api_token_role_is_valid" CHECK("api_token"."role" IN ('owner', 'admin', 'member'))
);
--> statement-breakpoint
CREATE UNIQUE INDEX `api_token_token_hash_unique` ON `api_token` (`token_hash`);--> statement-breakpoint
CREATE INDEX `api_token_organization_id_index` ON `api_token` (`organization_id`);--> statement-breakpoint
CREATE INDEX `api_token_user_id_index` ON `api_token` (`user_id`);--> statement-breakpoint
CREATE TRIGGER `api_token_touch_updated_at` AFTER UPDATE ON `api_token` FOR EACH ROW
WHEN NEW.`updated_at` IS OLD.`updated_at`
BEGIN
	UPDATE `api_token` SET `updated_at` = CAST(unixepoch('subsec') * 1000 AS INTEGER) WHERE `id` = NEW.`id`;
END;
