-- Issue 37 item 3 (decision 0242): reminders at least once. A reminder decided SENDING is leased to
-- the worker sending it (locked_until); a crash leaves the lease to expire and the next scan resumes the
-- row (claimed with FOR UPDATE SKIP LOCKED through the partial index on SENDING rows), counting attempts.
-- dedupe_key is what the messaging platform and `message.sent` get, the same for every attempt.
ALTER TABLE "appointment_reminders" ADD COLUMN "dedupe_key" text;--> statement-breakpoint
ALTER TABLE "appointment_reminders" ADD COLUMN "locked_until" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "appointment_reminders" ADD COLUMN "attempts" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX "appointment_reminders_sending_idx" ON "appointment_reminders" USING btree ("locked_until") WHERE "appointment_reminders"."status" = 'SENDING';