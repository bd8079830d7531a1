CREATE TABLE `catchups` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`source_id` integer NOT NULL,
	`reason` text NOT NULL,
	`from_at` text,
	`to_at` text,
	`state` text NOT NULL,
	`attempts` integer DEFAULT 1 NOT NULL,
	`changes` integer DEFAULT 0 NOT NULL,
	`started_at` integer NOT NULL,
	`finished_at` integer,
	`last_error` text,
	FOREIGN KEY (`source_id`) REFERENCES `sources`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `catchups_source_idx` ON `catchups` (`source_id`,`id`);--> statement-breakpoint
CREATE TABLE `events` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`source_id` integer NOT NULL,
	`at` integer NOT NULL,
	`uri` text NOT NULL,
	`change` text NOT NULL,
	`outcome` text NOT NULL,
	`error_code` text,
	`error` text,
	FOREIGN KEY (`source_id`) REFERENCES `sources`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `events_source_idx` ON `events` (`source_id`,`id`);--> statement-breakpoint
CREATE TABLE `inbox` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`source_id` integer NOT NULL,
	`subscription_id` integer,
	`received_at` integer NOT NULL,
	`content_type` text,
	`body` blob NOT NULL,
	`signature` text NOT NULL,
	`from_at` text,
	`until_at` text,
	`state` text DEFAULT 'new' NOT NULL,
	`error` text,
	FOREIGN KEY (`source_id`) REFERENCES `sources`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `inbox_source_state_idx` ON `inbox` (`source_id`,`state`,`id`);--> statement-breakpoint
CREATE TABLE `position` (
	`source_id` integer PRIMARY KEY NOT NULL,
	`synced_until` text,
	`gap_opened_at` integer,
	`baseline_at` text,
	`baseline_ran_at` integer,
	`last_applied_at` integer,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`source_id`) REFERENCES `sources`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `resources` (
	`source_id` integer NOT NULL,
	`uri` text NOT NULL,
	`path` text NOT NULL,
	`sha256` text,
	`length` integer,
	`last_change_key` text,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`source_id`, `uri`),
	FOREIGN KEY (`source_id`) REFERENCES `sources`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `sources` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`name` text NOT NULL,
	`url` text NOT NULL,
	`capability_list_url` text,
	`resource_list_url` text,
	`change_list_url` text,
	`topic` text,
	`hub` text,
	`mode` text DEFAULT 'unknown' NOT NULL,
	`discovery_route` text,
	`discovered_at` integer,
	`subscription_disabled` integer DEFAULT false NOT NULL,
	`ignored_deliveries` integer DEFAULT 0 NOT NULL,
	`last_error` text,
	`last_error_at` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `sources_name_unique` ON `sources` (`name`);--> statement-breakpoint
CREATE TABLE `subscriptions` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`source_id` integer NOT NULL,
	`hub` text NOT NULL,
	`topic` text NOT NULL,
	`callback_token` text NOT NULL,
	`callback_url` text NOT NULL,
	`secret` text,
	`state` text NOT NULL,
	`requested_lease_seconds` integer,
	`lease_seconds` integer,
	`requested_at` integer NOT NULL,
	`verified_at` integer,
	`lease_expires_at` integer,
	`renew_at` integer,
	`renews_id` integer,
	`attempt` integer DEFAULT 0 NOT NULL,
	`last_error` text,
	`denied_reason` text,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`source_id`) REFERENCES `sources`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `subscriptions_token_idx` ON `subscriptions` (`callback_token`);--> statement-breakpoint
CREATE INDEX `subscriptions_source_idx` ON `subscriptions` (`source_id`,`state`);