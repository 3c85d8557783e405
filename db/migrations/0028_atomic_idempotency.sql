-- Issue 37 item 1 (decision 0246): an idempotency record commits with its request's effects, in one
-- transaction, so a crash leaves both or neither and a retry runs at once (no lease). A request with an
-- effect outside the database (a message handed to the platform) commits a recovery point first;
-- a retry resumes from it. locked_until stays for records written before this migration.
ALTER TABLE "idempotency_keys" ADD COLUMN "recovery_point" text;--> statement-breakpoint
ALTER TABLE "idempotency_keys" ADD COLUMN "recovery_data" jsonb;