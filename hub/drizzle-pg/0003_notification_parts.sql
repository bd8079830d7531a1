CREATE TABLE "notification_parts" (
	"payload_id" bigint NOT NULL,
	"part" integer NOT NULL,
	"bytes" "bytea" NOT NULL,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "notifications" ADD COLUMN "payload_id" bigint;--> statement-breakpoint
CREATE UNIQUE INDEX "notifications_payload_unique" ON "notifications" USING btree ("payload_id");--> statement-breakpoint
ALTER TABLE "notification_parts" ADD CONSTRAINT "notification_parts_payload_id_notifications_payload_id_fk" FOREIGN KEY ("payload_id") REFERENCES "public"."notifications"("payload_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "notification_parts_payload_part" ON "notification_parts" USING btree ("payload_id","part");
