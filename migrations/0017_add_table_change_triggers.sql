-- Custom SQL migration file, put your code below! --
-- Change counters (src/db/schema/table_change.ts) of the tables whose list answers are cached
-- (src/http/answer-cache.ts): every insert, update and delete raises the table's counter inside
-- the writing statement's transaction, whichever connection writes. A migration that rebuilds one
-- of these tables must create its triggers again (src/db/table-change.test.ts fails otherwise).
INSERT INTO `table_change` (`table_name`, `changes`) VALUES ('workspace', 0), ('project', 0), ('environment', 0), ('service', 0);
--> statement-breakpoint
CREATE TRIGGER `workspace_count_insert` AFTER INSERT ON `workspace` FOR EACH ROW
BEGIN
	UPDATE `table_change` SET `changes` = `changes` + 1 WHERE `table_name` = 'workspace';
END;
--> statement-breakpoint
CREATE TRIGGER `workspace_count_update` AFTER UPDATE ON `workspace` FOR EACH ROW
BEGIN
	UPDATE `table_change` SET `changes` = `changes` + 1 WHERE `table_name` = 'workspace';
END;
--> statement-breakpoint
CREATE TRIGGER `workspace_count_delete` AFTER DELETE ON `workspace` FOR EACH ROW
BEGIN
	UPDATE `table_change` SET `changes` = `changes` + 1 WHERE `table_name` = 'workspace';
END;
--> statement-breakpoint
CREATE TRIGGER `project_count_insert` AFTER INSERT ON `project` FOR EACH ROW
BEGIN
	UPDATE `table_change` SET `changes` = `changes` + 1 WHERE `table_name` = 'project';
END;
--> statement-breakpoint
CREATE TRIGGER `project_count_update` AFTER UPDATE ON `project` FOR EACH ROW
BEGIN
	UPDATE `table_change` SET `changes` = `changes` + 1 WHERE `table_name` = 'project';
END;
--> statement-breakpoint
CREATE TRIGGER `project_count_delete` AFTER DELETE ON `project` FOR EACH ROW
BEGIN
	UPDATE `table_change` SET `changes` = `changes` + 1 WHERE `table_name` = 'project';
END;
--> statement-breakpoint
CREATE TRIGGER `environment_count_insert` AFTER INSERT ON `environment` FOR EACH ROW
BEGIN
	UPDATE `table_change` SET `changes` = `changes` + 1 WHERE `table_name` = 'environment';
END;
--> statement-breakpoint
CREATE TRIGGER `environment_count_update` AFTER UPDATE ON `environment` FOR EACH ROW
BEGIN
	UPDATE `table_change` SET `changes` = `changes` + 1 WHERE `table_name` = 'environment';
END;
--> statement-breakpoint
CREATE TRIGGER `environment_count_delete` AFTER DELETE ON `environment` FOR EACH ROW
BEGIN
	UPDATE `table_change` SET `changes` = `changes` + 1 WHERE `table_name` = 'environment';
END;
--> statement-breakpoint
CREATE TRIGGER `service_count_insert` AFTER INSERT ON `service` FOR EACH ROW
BEGIN
	UPDATE `table_change` SET `changes` = `changes` + 1 WHERE `table_name` = 'service';
END;
--> statement-breakpoint
CREATE TRIGGER `service_count_update` AFTER UPDATE ON `service` FOR EACH ROW
BEGIN
	UPDATE `table_change` SET `changes` = `changes` + 1 WHERE `table_name` = 'service';
END;
--> statement-breakpoint
CREATE TRIGGER `service_count_delete` AFTER DELETE ON `service` FOR EACH ROW
BEGIN
	UPDATE `table_change` SET `changes` = `changes` + 1 WHERE `table_name` = 'service';
END;
