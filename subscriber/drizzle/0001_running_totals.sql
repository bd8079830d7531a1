ALTER TABLE `sources` ADD `changes_applied` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `sources` ADD `changes_failed` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `sources` ADD `catch_up_count` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
-- Databases from before this migration: start the totals from the rows they already have.
UPDATE `sources` SET
  `changes_applied` = (SELECT COUNT(*) FROM `events` e WHERE e.`source_id` = `sources`.`id` AND e.`outcome` IN ('written', 'deleted')),
  `changes_failed` = (SELECT COUNT(*) FROM `events` e WHERE e.`source_id` = `sources`.`id` AND e.`outcome` = 'failed'),
  `catch_up_count` = (SELECT COUNT(*) FROM `catchups` c WHERE c.`source_id` = `sources`.`id`);
