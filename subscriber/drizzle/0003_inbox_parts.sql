CREATE TABLE `inbox_parts` (
	`payload_id` integer NOT NULL,
	`part` integer NOT NULL,
	`bytes` blob NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `inbox_parts_payload_part` ON `inbox_parts` (`payload_id`,`part`);--> statement-breakpoint
ALTER TABLE `inbox` ADD `payload_id` integer;