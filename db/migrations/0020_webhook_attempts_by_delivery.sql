-- Issue 24 item 6. A delivery's attempts by (organization_id, delivery_id, attempt): the worker's claim
-- counts a delivery's attempts and looks for lost ones, with both columns known. With only (delivery_id,
-- attempt), a planner that underestimated an organization's attempts ANDed it with the primary key's
-- scan of the whole organization, so every claim slowed down as attempts accumulated (bench/README.md,
-- "Webhook deliveries"). The delivery log's list (tenant transaction) uses it too.
DROP INDEX "webhook_attempts_delivery_id_attempt_idx";--> statement-breakpoint
CREATE INDEX "webhook_attempts_organization_id_delivery_id_attempt_idx" ON "webhook_attempts" USING btree ("organization_id","delivery_id","attempt");