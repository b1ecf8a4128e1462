CREATE TABLE `user_totp` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`secret` text NOT NULL,
	`confirmed_at` integer,
	`last_used_step` integer,
	`created_at` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	`updated_at` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `user`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "user_totp_id_is_uuid_v7" CHECK(length("user_totp"."id") = 36 AND "user_totp"."id" GLOB '[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]-[0-9a-f][0-9a-f][0-9a-f][0-9a-f]-7[0-9a-f][0-9a-f][0-9a-f]-[89ab][0-9a-f][0-9a-f][0-9a-f]-[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]'),
	CONSTRAINT "user_totp_secret_is_sealed" CHECK("user_totp"."secret" GLOB 'pnsecret.v[0-9]*.?*.?*'),
	CONSTRAINT "user_totp_last_used_step_is_integer" CHECK("user_totp"."last_used_step" IS NULL OR (typeof("user_totp"."last_used_step") = 'integer' AND "user_totp"."last_used_step" >= 0))
);
--> statement-breakpoint
CREATE UNIQUE INDEX `user_totp_user_id_unique` ON `user_totp` (`user_id`);--> statement-breakpoint
CREATE TABLE `recovery_code` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`code_hash` text NOT NULL,
	`used_at` integer,
	`created_at` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	`updated_at` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `user`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "recovery_code_id_is_uuid_v7" CHECK(length("recovery_code"."id") = 36 AND "recovery_code"."id" GLOB '[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]-[0-9a-f][0-9a-f][0-9a-f][0-9a-f]-7[0-9a-f][0-9a-f][0-9a-f]-[89ab][0-9a-f][0-9a-f][0-9a-f]-[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]'),
	CONSTRAINT "recovery_code_code_hash_length" CHECK(length("recovery_code"."code_hash") BETWEEN 16 AND 128)
);
--> statement-breakpoint
CREATE UNIQUE INDEX `recovery_code_user_id_code_hash_unique` ON `recovery_code` (`user_id`,`code_hash`);--> statement-breakpoint
CREATE INDEX `recovery_code_user_id_index` ON `recovery_code` (`user_id`);--> statement-breakpoint
CREATE TABLE `passkey` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`credential_id` text NOT NULL,
	`public_key` text NOT NULL,
	`counter` integer DEFAULT 0 NOT NULL,
	`transports` text,
	`name` text NOT NULL,
	`device_type` text,
	`is_backed_up` integer DEFAULT false NOT NULL,
	`last_used_at` integer,
	`created_at` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	`updated_at` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `user`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "passkey_id_is_uuid_v7" CHECK(length("passkey"."id") = 36 AND "passkey"."id" GLOB '[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]-[0-9a-f][0-9a-f][0-9a-f][0-9a-f]-7[0-9a-f][0-9a-f][0-9a-f]-[89ab][0-9a-f][0-9a-f][0-9a-f]-[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]'),
	CONSTRAINT "passkey_credential_id_length" CHECK(length("passkey"."credential_id") BETWEEN 1 AND 1024),
	CONSTRAINT "passkey_public_key_length" CHECK(length("passkey"."public_key") BETWEEN 1 AND 4096),
	CONSTRAINT "passkey_counter_is_integer" CHECK("passkey"."counter" IS NULL OR (typeof("passkey"."counter") = 'integer' AND "passkey"."counter" >= 0)),
	CONSTRAINT "passkey_transports_is_json_array" CHECK(CASE WHEN "passkey"."transports" IS NULL THEN 1 WHEN json_valid("passkey"."transports") THEN json_type("passkey"."transports") = 'array' ELSE 0 END),
	CONSTRAINT "passkey_name_length" CHECK(length("passkey"."name") BETWEEN 1 AND 255),
	CONSTRAINT "passkey_device_type_length" CHECK(length("passkey"."device_type") BETWEEN 1 AND 32),
	CONSTRAINT "passkey_is_backed_up_is_boolean" CHECK("passkey"."is_backed_up" IN (0, 1))
);
--> statement-breakpoint
CREATE UNIQUE INDEX `passkey_credential_id_unique` ON `passkey` (`credential_id`);--> statement-breakpoint
CREATE INDEX `passkey_user_id_index` ON `passkey` (`user_id`);--> statement-breakpoint
CREATE TABLE `oauth_identity` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`provider` text NOT NULL,
	`subject` text NOT NULL,
	`email` text,
	`last_used_at` integer,
	`created_at` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	`updated_at` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `user`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "oauth_identity_id_is_uuid_v7" CHECK(length("oauth_identity"."id") = 36 AND "oauth_identity"."id" GLOB '[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]-[0-9a-f][0-9a-f][0-9a-f][0-9a-f]-7[0-9a-f][0-9a-f][0-9a-f]-[89ab][0-9a-f][0-9a-f][0-9a-f]-[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]'),
	CONSTRAINT "oauth_identity_provider_length" CHECK(length("oauth_identity"."provider") BETWEEN 1 AND 64),
	CONSTRAINT "oauth_identity_subject_length" CHECK(length("oauth_identity"."subject") BETWEEN 1 AND 255),
	CONSTRAINT "oauth_identity_email_length" CHECK(length("oauth_identity"."email") BETWEEN 3 AND 320)
);
--> statement-breakpoint
CREATE UNIQUE INDEX `oauth_identity_provider_subject_unique` ON `oauth_identity` (`provider`,`subject`);--> statement-breakpoint
CREATE UNIQUE INDEX `oauth_identity_user_id_provider_unique` ON `oauth_identity` (`user_id`,`provider`);--> statement-breakpoint
CREATE TABLE `invitation` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`email` text NOT NULL,
	`role` text NOT NULL,
	`invited_by_user_id` text NOT NULL,
	`token_hash` text NOT NULL,
	`expires_at` integer NOT NULL,
	`accepted_at` integer,
	`accepted_by_user_id` text,
	`created_at` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	`updated_at` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organization`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`invited_by_user_id`) REFERENCES `user`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`accepted_by_user_id`) REFERENCES `user`(`id`) ON UPDATE no action ON DELETE set null,
	CONSTRAINT "invitation_id_is_uuid_v7" CHECK(length("invitation"."id") = 36 AND "invitation"."id" GLOB '[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]-[0-9a-f][0-9a-f][0-9a-f][0-9a-f]-7[0-9a-f][0-9a-f][0-9a-f]-[89ab][0-9a-f][0-9a-f][0-9a-f]-[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]'),
	CONSTRAINT "invitation_email_shape" CHECK(length("invitation"."email") BETWEEN 3 AND 320 AND instr("invitation"."email", '@') > 1),
	CONSTRAINT "invitation_role_is_valid" CHECK("invitation"."role" IN ('owner', 'admin', 'member'))
);
--> statement-breakpoint
CREATE UNIQUE INDEX `invitation_token_hash_unique` ON `invitation` (`token_hash`);--> statement-breakpoint
CREATE INDEX `invitation_organization_id_index` ON `invitation` (`organization_id`);--> statement-breakpoint
CREATE INDEX `invitation_invited_by_user_id_index` ON `invitation` (`invited_by_user_id`);--> statement-breakpoint
CREATE INDEX `invitation_accepted_by_user_id_index` ON `invitation` (`accepted_by_user_id`);--> statement-breakpoint
CREATE TABLE `rate_limit` (
	`id` integer PRIMARY KEY NOT NULL,
	`key` text NOT NULL,
	`failed_at` integer NOT NULL,
	CONSTRAINT "rate_limit_key_length" CHECK(length("rate_limit"."key") BETWEEN 1 AND 512)
);
--> statement-breakpoint
CREATE INDEX `rate_limit_key_failed_at_index` ON `rate_limit` (`key`,`failed_at`);--> statement-breakpoint
CREATE INDEX `rate_limit_failed_at_index` ON `rate_limit` (`failed_at`);--> statement-breakpoint
CREATE TRIGGER `user_totp_touch_updated_at` AFTER UPDATE ON `user_totp` FOR EACH ROW
WHEN NEW.`updated_at` IS OLD.`updated_at`
BEGIN
	UPDATE `user_totp` SET `updated_at` = CAST(unixepoch('subsec') * 1000 AS INTEGER) WHERE `id` = NEW.`id`;
END;--> statement-breakpoint
CREATE TRIGGER `recovery_code_touch_updated_at` AFTER UPDATE ON `recovery_code` FOR EACH ROW
WHEN NEW.`updated_at` IS OLD.`updated_at`
BEGIN
	UPDATE `recovery_code` SET `updated_at` = CAST(unixepoch('subsec') * 1000 AS INTEGER) WHERE `id` = NEW.`id`;
END;--> statement-breakpoint
CREATE TRIGGER `passkey_touch_updated_at` AFTER UPDATE ON `passkey` FOR EACH ROW
WHEN NEW.`updated_at` IS OLD.`updated_at`
BEGIN
	UPDATE `passkey` SET `updated_at` = CAST(unixepoch('subsec') * 1000 AS INTEGER) WHERE `id` = NEW.`id`;
END;--> statement-breakpoint
CREATE TRIGGER `oauth_identity_touch_updated_at` AFTER UPDATE ON `oauth_identity` FOR EACH ROW
WHEN NEW.`updated_at` IS OLD.`updated_at`
BEGIN
	UPDATE `oauth_identity` SET `updated_at` = CAST(unixepoch('subsec') * 1000 AS INTEGER) WHERE `id` = NEW.`id`;
END;--> statement-breakpoint
CREATE TRIGGER `invitation_touch_updated_at` AFTER UPDATE ON `invitation` FOR EACH ROW
WHEN NEW.`updated_at` IS OLD.`updated_at`
BEGIN
	UPDATE `invitation` SET `updated_at` = CAST(unixepoch('subsec') * 1000 AS INTEGER) WHERE `id` = NEW.`id`;
END;
