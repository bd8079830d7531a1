PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_notifications` (
	`id` integer PRIMARY KEY NOT NULL,
	`topic_id` integer NOT NULL,
	`seq` integer NOT NULL,
	`received_at` integer NOT NULL,
	`content_type` text NOT NULL,
	`link_header` text NOT NULL,
	`body` blob NOT NULL,
	`payload_id` integer,
	FOREIGN KEY (`topic_id`) REFERENCES `topics`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
INSERT INTO `__new_notifications`("id", "topic_id", "seq", "received_at", "content_type", "link_header", "body", "payload_id") SELECT "id", "topic_id", "seq", "received_at", "content_type", "link_header", "body", "payload_id" FROM `notifications`;--> statement-breakpoint
DROP TABLE `notifications`;--> statement-breakpoint
ALTER TABLE `__new_notifications` RENAME TO `notifications`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE UNIQUE INDEX `notifications_topic_seq_unique` ON `notifications` (`topic_id`,`seq`);