-- Edited from drizzle-kit's table rebuild: adding a column needs none (the rebuild would also
-- have read a `labels` column the old table lacks and dropped the updated_at trigger).
ALTER TABLE `server` ADD `labels` text DEFAULT '{}' NOT NULL CONSTRAINT "server_labels_is_json_object" CHECK(CASE WHEN "labels" IS NULL THEN 1 WHEN json_valid("labels") THEN json_type("labels") = 'object' ELSE 0 END);
