DROP INDEX `log_chunk_organization_id_id_index`;--> statement-breakpoint
CREATE INDEX `log_chunk_organization_id_last_at_index` ON `log_chunk` (`organization_id`,`last_at`);