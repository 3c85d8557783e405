-- Issue 41 (decisions 0267, 0269): the email log's retention purge takes the oldest emails across organizations,
-- and a bounce report finds its email by id alone (its Message-ID names no organization).
CREATE INDEX "emails_created_at_idx" ON "emails" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "emails_id_idx" ON "emails" USING btree ("id");