-- Custom SQL migration file, put your code below! --
-- Secrets at rest (docs/decisions/0160-secrets-at-rest.md): webhook signing secrets and stored
-- idempotent responses are sealed with AES-256-GCM by the service (src/platform/crypto) before they
-- are written: `enc:v1:<key id>:<data>`. SQL has no key, so the rows an earlier version wrote in
-- clear are sealed by the start step of the service (src/startup.ts), right after this migration.
-- NOT VALID: the checks refuse any new plaintext write from now on, and leave the existing rows to
-- that step (VALIDATE CONSTRAINT would fail on them until it ran).
ALTER TABLE "webhook_subscriptions" ADD CONSTRAINT "webhook_subscriptions_secret_sealed"
  CHECK (starts_with("secret", 'enc:v1:')) NOT VALID;--> statement-breakpoint
ALTER TABLE "webhook_subscriptions" ADD CONSTRAINT "webhook_subscriptions_previous_secret_sealed"
  CHECK ("previous_secret" IS NULL OR starts_with("previous_secret", 'enc:v1:')) NOT VALID;--> statement-breakpoint
ALTER TABLE "idempotency_keys" ADD CONSTRAINT "idempotency_keys_response_body_sealed"
  CHECK ("response_body" IS NULL OR starts_with("response_body", 'enc:v1:')) NOT VALID;--> statement-breakpoint
COMMENT ON COLUMN "webhook_subscriptions"."secret" IS 'Signing secret, sealed (AES-256-GCM, SECRETS_KEY): enc:v1:<key id>:<data>';--> statement-breakpoint
COMMENT ON COLUMN "webhook_subscriptions"."previous_secret" IS 'Secret before the last rotation, sealed like secret';--> statement-breakpoint
COMMENT ON COLUMN "idempotency_keys"."response_body" IS 'Stored response body, sealed (AES-256-GCM, SECRETS_KEY): enc:v1:<key id>:<data>';
