DROP INDEX `project_workspace_id_index`;--> statement-breakpoint
CREATE INDEX `project_workspace_id_id_index` ON `project` (`workspace_id`,`id`);--> statement-breakpoint
DROP INDEX `environment_project_id_index`;--> statement-breakpoint
CREATE INDEX `environment_project_id_id_index` ON `environment` (`project_id`,`id`);--> statement-breakpoint
DROP INDEX `hosting_service_id_index`;--> statement-breakpoint
CREATE INDEX `hosting_service_id_id_index` ON `hosting` (`service_id`,`id`);--> statement-breakpoint
CREATE INDEX `service_environment_id_id_index` ON `service` (`environment_id`,`id`);