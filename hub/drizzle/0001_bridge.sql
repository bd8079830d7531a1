CREATE TABLE `bridge_lists` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`bridge_source_id` integer NOT NULL,
	`url` text NOT NULL,
	`ord` integer NOT NULL,
	`list_from` text,
	`list_until` text,
	`consumed` integer DEFAULT 0 NOT NULL,
	`last_key` text,
	`complete` integer DEFAULT false NOT NULL,
	`covered_to` text,
	`etag` text,
	`last_modified` text,
	FOREIGN KEY (`bridge_source_id`) REFERENCES `bridge_sources`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `bridge_lists_source_url_unique` ON `bridge_lists` (`bridge_source_id`,`url`);--> statement-breakpoint
CREATE TABLE `bridge_sources` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`name` text NOT NULL,
	`poll_url` text NOT NULL,
	`interval_ms` integer NOT NULL,
	`capability_list_url` text,
	`change_list_url` text,
	`discovered_at` integer,
	`index_etag` text,
	`index_last_modified` text,
	`covered_to` text,
	`chain_from` text,
	`last_poll_at` integer,
	`last_error` text,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `bridge_sources_name_unique` ON `bridge_sources` (`name`);