CREATE TABLE `table_change` (
	`table_name` text PRIMARY KEY NOT NULL,
	`changes` integer DEFAULT 0 NOT NULL
);
