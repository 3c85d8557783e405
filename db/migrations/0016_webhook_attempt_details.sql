ALTER TABLE "webhook_attempts" ADD COLUMN "subscription_id" text;--> statement-breakpoint
UPDATE "webhook_attempts" a SET "subscription_id" = d."subscription_id" FROM "webhook_deliveries" d WHERE d."id" = a."delivery_id";--> statement-breakpoint
ALTER TABLE "webhook_attempts" ALTER COLUMN "subscription_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "webhook_attempts" ADD COLUMN "request_headers" jsonb;--> statement-breakpoint
ALTER TABLE "webhook_attempts" ADD COLUMN "response_headers" jsonb;--> statement-breakpoint
CREATE INDEX "webhook_attempts_subscription_id_started_at_idx" ON "webhook_attempts" USING btree ("subscription_id","started_at");
