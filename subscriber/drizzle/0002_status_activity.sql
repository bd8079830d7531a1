ALTER TABLE `sources` ADD `gap_count` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `sources` ADD `last_gap_from` text;--> statement-breakpoint
ALTER TABLE `sources` ADD `last_gap_to` text;--> statement-breakpoint
ALTER TABLE `sources` ADD `last_gap_at` integer;--> statement-breakpoint
ALTER TABLE `sources` ADD `last_reconciliation` text;