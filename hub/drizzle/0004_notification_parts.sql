CREATE TABLE `notification_parts` (
	`payload_id` integer NOT NULL,
	`part` integer NOT NULL,
	`bytes` blob NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `notification_parts_payload_part` ON `notification_parts` (`payload_id`,`part`);--> statement-breakpoint
ALTER TABLE `notifications` ADD `payload_id` integer;