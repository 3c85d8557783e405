-- Issue 23 item 6. Every attempt is logged when it starts (duration_ms NULL until its outcome is written),
-- so an attempt whose worker was killed stays in the delivery log; finished deliveries are purged after
-- WEBHOOK_LOG_RETENTION_DAYS through the index below.
ALTER TABLE "webhook_attempts" ALTER COLUMN "duration_ms" DROP NOT NULL;--> statement-breakpoint
CREATE INDEX "webhook_deliveries_completed_at_idx" ON "webhook_deliveries" USING btree ("completed_at") WHERE completed_at IS NOT NULL;