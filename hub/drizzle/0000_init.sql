CREATE TABLE `given_up` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`subscription_id` integer NOT NULL,
	`topic_id` integer NOT NULL,
	`callback` text NOT NULL,
	`seq` integer NOT NULL,
	`reason` text NOT NULL,
	`at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `given_up_subscription` ON `given_up` (`subscription_id`);--> statement-breakpoint
CREATE TABLE `intents` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`mode` text NOT NULL,
	`topic_url` text NOT NULL,
	`topic_as_given` text NOT NULL,
	`callback` text NOT NULL,
	`secret` text,
	`lease_seconds` integer,
	`reason` text,
	`attempts` integer DEFAULT 0 NOT NULL,
	`next_attempt_at` integer NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `intents_due` ON `intents` (`next_attempt_at`);--> statement-breakpoint
CREATE INDEX `intents_pair` ON `intents` (`topic_url`,`callback`);--> statement-breakpoint
CREATE TABLE `notifications` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`topic_id` integer NOT NULL,
	`seq` integer NOT NULL,
	`received_at` integer NOT NULL,
	`content_type` text NOT NULL,
	`link_header` text NOT NULL,
	`body` blob NOT NULL,
	FOREIGN KEY (`topic_id`) REFERENCES `topics`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `notifications_topic_seq_unique` ON `notifications` (`topic_id`,`seq`);--> statement-breakpoint
CREATE TABLE `source_callback_prefixes` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`source_id` integer NOT NULL,
	`prefix` text NOT NULL,
	FOREIGN KEY (`source_id`) REFERENCES `sources`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `source_callback_prefixes_source` ON `source_callback_prefixes` (`source_id`);--> statement-breakpoint
CREATE TABLE `source_prefixes` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`source_id` integer NOT NULL,
	`prefix` text NOT NULL,
	FOREIGN KEY (`source_id`) REFERENCES `sources`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `source_prefixes_prefix_unique` ON `source_prefixes` (`prefix`);--> statement-breakpoint
CREATE TABLE `sources` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`name` text NOT NULL,
	`token_hash` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `sources_name_unique` ON `sources` (`name`);--> statement-breakpoint
CREATE TABLE `subscriptions` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`topic_id` integer NOT NULL,
	`topic_as_given` text NOT NULL,
	`callback` text NOT NULL,
	`secret` text,
	`algorithm` text DEFAULT 'sha256' NOT NULL,
	`lease_seconds` integer NOT NULL,
	`lease_expires_at` integer NOT NULL,
	`delivered_seq` integer NOT NULL,
	`next_attempt_at` integer DEFAULT 0 NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`first_failed_at` integer,
	`last_status` integer,
	`last_error` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`topic_id`) REFERENCES `topics`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `subscriptions_topic_callback_unique` ON `subscriptions` (`topic_id`,`callback`);--> statement-breakpoint
CREATE TABLE `topics` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`url` text NOT NULL,
	`last_seq` integer DEFAULT 0 NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `topics_url_unique` ON `topics` (`url`);