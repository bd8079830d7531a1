CREATE TABLE `admin_rejections` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`at` integer NOT NULL,
	`status` integer NOT NULL,
	`kind` text NOT NULL,
	`reason` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `admin_rejections_at` ON `admin_rejections` (`at`);--> statement-breakpoint
CREATE TABLE `admin_sessions` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`session_hash` text NOT NULL,
	`admin_token_id` integer NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	FOREIGN KEY (`admin_token_id`) REFERENCES `admin_tokens`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `admin_sessions_hash_unique` ON `admin_sessions` (`session_hash`);--> statement-breakpoint
CREATE TABLE `admin_tokens` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`name` text NOT NULL,
	`token_hash` text NOT NULL,
	`created_at` integer NOT NULL,
	`last_used_at` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `admin_tokens_name_unique` ON `admin_tokens` (`name`);--> statement-breakpoint
CREATE UNIQUE INDEX `admin_tokens_hash_unique` ON `admin_tokens` (`token_hash`);