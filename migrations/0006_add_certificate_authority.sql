CREATE TABLE `certificate_authority` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`certificate` text NOT NULL,
	`private_key` text NOT NULL,
	`not_after` integer NOT NULL,
	`created_at` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	`updated_at` integer DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)) NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organization`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "certificate_authority_id_is_uuid_v7" CHECK(length("certificate_authority"."id") = 36 AND "certificate_authority"."id" GLOB '[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]-[0-9a-f][0-9a-f][0-9a-f][0-9a-f]-7[0-9a-f][0-9a-f][0-9a-f]-[89ab][0-9a-f][0-9a-f][0-9a-f]-[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]'),
	CONSTRAINT "certificate_authority_private_key_is_sealed" CHECK("certificate_authority"."private_key" GLOB 'pnsecret.v[0-9]*.?*.?*')
);
--> statement-breakpoint
CREATE UNIQUE INDEX `certificate_authority_organization_id_unique` ON `certificate_authority` (`organization_id`);--> statement-breakpoint
CREATE TRIGGER `certificate_authority_touch_updated_at` AFTER UPDATE ON `certificate_authority` FOR EACH ROW
WHEN NEW.`updated_at` IS OLD.`updated_at`
BEGIN
	UPDATE `certificate_authority` SET `updated_at` = CAST(unixepoch('subsec') * 1000 AS INTEGER) WHERE `id` = NEW.`id`;
END;
