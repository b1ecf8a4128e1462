-- Custom SQL migration file, put your code below! --
-- Rules drizzle cannot express as table constraints.
--
-- 1. updated_at: every UPDATE that does not itself change updated_at gets it set to now, so raw
--    SQL updates behave like drizzle updates ($onUpdate). The WHEN clause stops the trigger's own
--    UPDATE from firing it again (recursive_triggers is off by default anyway).
--
-- 2. Organization copies: project.organization_id and hostname.routing_organization_id must equal
--    the organization of their parent chain. The checks only fire when the parent exists, so a
--    missing parent still reports as the foreign-key failure it is.
CREATE TRIGGER `organization_touch_updated_at` AFTER UPDATE ON `organization` FOR EACH ROW
WHEN NEW.`updated_at` IS OLD.`updated_at`
BEGIN
	UPDATE `organization` SET `updated_at` = CAST(unixepoch('subsec') * 1000 AS INTEGER) WHERE `id` = NEW.`id`;
END;
--> statement-breakpoint
CREATE TRIGGER `user_touch_updated_at` AFTER UPDATE ON `user` FOR EACH ROW
WHEN NEW.`updated_at` IS OLD.`updated_at`
BEGIN
	UPDATE `user` SET `updated_at` = CAST(unixepoch('subsec') * 1000 AS INTEGER) WHERE `id` = NEW.`id`;
END;
--> statement-breakpoint
CREATE TRIGGER `membership_touch_updated_at` AFTER UPDATE ON `membership` FOR EACH ROW
WHEN NEW.`updated_at` IS OLD.`updated_at`
BEGIN
	UPDATE `membership` SET `updated_at` = CAST(unixepoch('subsec') * 1000 AS INTEGER) WHERE `id` = NEW.`id`;
END;
--> statement-breakpoint
CREATE TRIGGER `session_touch_updated_at` AFTER UPDATE ON `session` FOR EACH ROW
WHEN NEW.`updated_at` IS OLD.`updated_at`
BEGIN
	UPDATE `session` SET `updated_at` = CAST(unixepoch('subsec') * 1000 AS INTEGER) WHERE `id` = NEW.`id`;
END;
--> statement-breakpoint
CREATE TRIGGER `server_touch_updated_at` AFTER UPDATE ON `server` FOR EACH ROW
WHEN NEW.`updated_at` IS OLD.`updated_at`
BEGIN
	UPDATE `server` SET `updated_at` = CAST(unixepoch('subsec') * 1000 AS INTEGER) WHERE `id` = NEW.`id`;
END;
--> statement-breakpoint
CREATE TRIGGER `repository_touch_updated_at` AFTER UPDATE ON `repository` FOR EACH ROW
WHEN NEW.`updated_at` IS OLD.`updated_at`
BEGIN
	UPDATE `repository` SET `updated_at` = CAST(unixepoch('subsec') * 1000 AS INTEGER) WHERE `id` = NEW.`id`;
END;
--> statement-breakpoint
CREATE TRIGGER `tls_touch_updated_at` AFTER UPDATE ON `tls` FOR EACH ROW
WHEN NEW.`updated_at` IS OLD.`updated_at`
BEGIN
	UPDATE `tls` SET `updated_at` = CAST(unixepoch('subsec') * 1000 AS INTEGER) WHERE `id` = NEW.`id`;
END;
--> statement-breakpoint
CREATE TRIGGER `ip_touch_updated_at` AFTER UPDATE ON `ip` FOR EACH ROW
WHEN NEW.`updated_at` IS OLD.`updated_at`
BEGIN
	UPDATE `ip` SET `updated_at` = CAST(unixepoch('subsec') * 1000 AS INTEGER) WHERE `id` = NEW.`id`;
END;
--> statement-breakpoint
CREATE TRIGGER `datacenter_touch_updated_at` AFTER UPDATE ON `datacenter` FOR EACH ROW
WHEN NEW.`updated_at` IS OLD.`updated_at`
BEGIN
	UPDATE `datacenter` SET `updated_at` = CAST(unixepoch('subsec') * 1000 AS INTEGER) WHERE `id` = NEW.`id`;
END;
--> statement-breakpoint
CREATE TRIGGER `storage_touch_updated_at` AFTER UPDATE ON `storage` FOR EACH ROW
WHEN NEW.`updated_at` IS OLD.`updated_at`
BEGIN
	UPDATE `storage` SET `updated_at` = CAST(unixepoch('subsec') * 1000 AS INTEGER) WHERE `id` = NEW.`id`;
END;
--> statement-breakpoint
CREATE TRIGGER `managed_touch_updated_at` AFTER UPDATE ON `managed` FOR EACH ROW
WHEN NEW.`updated_at` IS OLD.`updated_at`
BEGIN
	UPDATE `managed` SET `updated_at` = CAST(unixepoch('subsec') * 1000 AS INTEGER) WHERE `id` = NEW.`id`;
END;
--> statement-breakpoint
CREATE TRIGGER `replica_touch_updated_at` AFTER UPDATE ON `replica` FOR EACH ROW
WHEN NEW.`updated_at` IS OLD.`updated_at`
BEGIN
	UPDATE `replica` SET `updated_at` = CAST(unixepoch('subsec') * 1000 AS INTEGER) WHERE `id` = NEW.`id`;
END;
--> statement-breakpoint
CREATE TRIGGER `workspace_touch_updated_at` AFTER UPDATE ON `workspace` FOR EACH ROW
WHEN NEW.`updated_at` IS OLD.`updated_at`
BEGIN
	UPDATE `workspace` SET `updated_at` = CAST(unixepoch('subsec') * 1000 AS INTEGER) WHERE `id` = NEW.`id`;
END;
--> statement-breakpoint
CREATE TRIGGER `project_touch_updated_at` AFTER UPDATE ON `project` FOR EACH ROW
WHEN NEW.`updated_at` IS OLD.`updated_at`
BEGIN
	UPDATE `project` SET `updated_at` = CAST(unixepoch('subsec') * 1000 AS INTEGER) WHERE `id` = NEW.`id`;
END;
--> statement-breakpoint
CREATE TRIGGER `environment_touch_updated_at` AFTER UPDATE ON `environment` FOR EACH ROW
WHEN NEW.`updated_at` IS OLD.`updated_at`
BEGIN
	UPDATE `environment` SET `updated_at` = CAST(unixepoch('subsec') * 1000 AS INTEGER) WHERE `id` = NEW.`id`;
END;
--> statement-breakpoint
CREATE TRIGGER `deployment_touch_updated_at` AFTER UPDATE ON `deployment` FOR EACH ROW
WHEN NEW.`updated_at` IS OLD.`updated_at`
BEGIN
	UPDATE `deployment` SET `updated_at` = CAST(unixepoch('subsec') * 1000 AS INTEGER) WHERE `id` = NEW.`id`;
END;
--> statement-breakpoint
CREATE TRIGGER `service_touch_updated_at` AFTER UPDATE ON `service` FOR EACH ROW
WHEN NEW.`updated_at` IS OLD.`updated_at`
BEGIN
	UPDATE `service` SET `updated_at` = CAST(unixepoch('subsec') * 1000 AS INTEGER) WHERE `id` = NEW.`id`;
END;
--> statement-breakpoint
CREATE TRIGGER `hosting_touch_updated_at` AFTER UPDATE ON `hosting` FOR EACH ROW
WHEN NEW.`updated_at` IS OLD.`updated_at`
BEGIN
	UPDATE `hosting` SET `updated_at` = CAST(unixepoch('subsec') * 1000 AS INTEGER) WHERE `id` = NEW.`id`;
END;
--> statement-breakpoint
CREATE TRIGGER `hostname_touch_updated_at` AFTER UPDATE ON `hostname` FOR EACH ROW
WHEN NEW.`updated_at` IS OLD.`updated_at`
BEGIN
	UPDATE `hostname` SET `updated_at` = CAST(unixepoch('subsec') * 1000 AS INTEGER) WHERE `id` = NEW.`id`;
END;
--> statement-breakpoint
CREATE TRIGGER `container_touch_updated_at` AFTER UPDATE ON `container` FOR EACH ROW
WHEN NEW.`updated_at` IS OLD.`updated_at`
BEGIN
	UPDATE `container` SET `updated_at` = CAST(unixepoch('subsec') * 1000 AS INTEGER) WHERE `id` = NEW.`id`;
END;
--> statement-breakpoint
CREATE TRIGGER `principal_touch_updated_at` AFTER UPDATE ON `principal` FOR EACH ROW
WHEN NEW.`updated_at` IS OLD.`updated_at`
BEGIN
	UPDATE `principal` SET `updated_at` = CAST(unixepoch('subsec') * 1000 AS INTEGER) WHERE `id` = NEW.`id`;
END;
--> statement-breakpoint
CREATE TRIGGER `tenancy_touch_updated_at` AFTER UPDATE ON `tenancy` FOR EACH ROW
WHEN NEW.`updated_at` IS OLD.`updated_at`
BEGIN
	UPDATE `tenancy` SET `updated_at` = CAST(unixepoch('subsec') * 1000 AS INTEGER) WHERE `id` = NEW.`id`;
END;
--> statement-breakpoint
CREATE TRIGGER `binding_touch_updated_at` AFTER UPDATE ON `binding` FOR EACH ROW
WHEN NEW.`updated_at` IS OLD.`updated_at`
BEGIN
	UPDATE `binding` SET `updated_at` = CAST(unixepoch('subsec') * 1000 AS INTEGER) WHERE `id` = NEW.`id`;
END;
--> statement-breakpoint
CREATE TRIGGER `variable_touch_updated_at` AFTER UPDATE ON `variable` FOR EACH ROW
WHEN NEW.`updated_at` IS OLD.`updated_at`
BEGIN
	UPDATE `variable` SET `updated_at` = CAST(unixepoch('subsec') * 1000 AS INTEGER) WHERE `id` = NEW.`id`;
END;
--> statement-breakpoint
CREATE TRIGGER `tag_touch_updated_at` AFTER UPDATE ON `tag` FOR EACH ROW
WHEN NEW.`updated_at` IS OLD.`updated_at`
BEGIN
	UPDATE `tag` SET `updated_at` = CAST(unixepoch('subsec') * 1000 AS INTEGER) WHERE `id` = NEW.`id`;
END;
--> statement-breakpoint
CREATE TRIGGER `marker_touch_updated_at` AFTER UPDATE ON `marker` FOR EACH ROW
WHEN NEW.`updated_at` IS OLD.`updated_at`
BEGIN
	UPDATE `marker` SET `updated_at` = CAST(unixepoch('subsec') * 1000 AS INTEGER) WHERE `id` = NEW.`id`;
END;
--> statement-breakpoint
-- project.organization_id is a copy of its workspace's organization.
CREATE TRIGGER `project_organization_matches_workspace_on_insert` BEFORE INSERT ON `project` FOR EACH ROW
WHEN EXISTS (
	SELECT 1 FROM `workspace` WHERE `id` = NEW.`workspace_id` AND `organization_id` IS NOT NEW.`organization_id`
)
BEGIN
	SELECT RAISE(ABORT, 'project.organization_id must equal the organization of its workspace');
END;
--> statement-breakpoint
CREATE TRIGGER `project_organization_matches_workspace_on_update` BEFORE UPDATE OF `organization_id`, `workspace_id` ON `project` FOR EACH ROW
WHEN EXISTS (
	SELECT 1 FROM `workspace` WHERE `id` = NEW.`workspace_id` AND `organization_id` IS NOT NEW.`organization_id`
)
BEGIN
	SELECT RAISE(ABORT, 'project.organization_id must equal the organization of its workspace');
END;
--> statement-breakpoint
-- Moving a workspace to another organization would leave its projects' copies stale.
CREATE TRIGGER `workspace_organization_fixed_while_it_has_projects` BEFORE UPDATE OF `organization_id` ON `workspace` FOR EACH ROW
WHEN NEW.`organization_id` IS NOT OLD.`organization_id`
	AND EXISTS (SELECT 1 FROM `project` WHERE `workspace_id` = NEW.`id`)
BEGIN
	SELECT RAISE(ABORT, 'workspace.organization_id cannot change while the workspace has projects');
END;
--> statement-breakpoint
-- hostname.routing_organization_id is currently always the hosting's own organization
-- (hosting -> service -> environment -> project.organization_id; primary-key lookups only).
CREATE TRIGGER `hostname_routing_organization_matches_hosting_on_insert` BEFORE INSERT ON `hostname` FOR EACH ROW
WHEN EXISTS (
	SELECT 1
	FROM `hosting`
	JOIN `service` ON `service`.`id` = `hosting`.`service_id`
	JOIN `environment` ON `environment`.`id` = `service`.`environment_id`
	JOIN `project` ON `project`.`id` = `environment`.`project_id`
	WHERE `hosting`.`id` = NEW.`hosting_id` AND `project`.`organization_id` IS NOT NEW.`routing_organization_id`
)
BEGIN
	SELECT RAISE(ABORT, 'hostname.routing_organization_id must equal the organization of its hosting');
END;
--> statement-breakpoint
CREATE TRIGGER `hostname_routing_organization_matches_hosting_on_update` BEFORE UPDATE OF `routing_organization_id`, `hosting_id` ON `hostname` FOR EACH ROW
WHEN EXISTS (
	SELECT 1
	FROM `hosting`
	JOIN `service` ON `service`.`id` = `hosting`.`service_id`
	JOIN `environment` ON `environment`.`id` = `service`.`environment_id`
	JOIN `project` ON `project`.`id` = `environment`.`project_id`
	WHERE `hosting`.`id` = NEW.`hosting_id` AND `project`.`organization_id` IS NOT NEW.`routing_organization_id`
)
BEGIN
	SELECT RAISE(ABORT, 'hostname.routing_organization_id must equal the organization of its hosting');
END;
