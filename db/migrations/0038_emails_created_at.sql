-- Issue 41 (decision 0267): the email log's retention purge deletes the oldest emails across organizations.
CREATE INDEX "emails_created_at_idx" ON "emails" USING btree ("created_at");