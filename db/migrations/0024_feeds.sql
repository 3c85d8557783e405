-- Issue 25 item 7. Syndication feeds: an organization's feed URLs carry a token whose SHA-256 is kept
-- (unique: the feed route finds the organization by it, before any tenant is known; the token itself is
-- shown once). The portal version (migration 0019) now also says when it last changed, the feeds'
-- Last-Modified: the two bump functions set changed_at with the value.
ALTER TABLE "organizations" ADD COLUMN "feed_token_hash" text;--> statement-breakpoint
ALTER TABLE "organizations" ADD COLUMN "feed_token_prefix" text;--> statement-breakpoint
ALTER TABLE "organizations" ADD COLUMN "feed_token_created_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "organization_counters" ADD COLUMN "changed_at" timestamp with time zone DEFAULT now() NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "organizations_feed_token_hash_key" ON "organizations" USING btree ("feed_token_hash");--> statement-breakpoint
CREATE OR REPLACE FUNCTION agency_bump_portal_version() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  INSERT INTO organization_counters (organization_id, name, value)
  SELECT DISTINCT changed.organization_id, 'portal_version', 1
  FROM changed
  WHERE EXISTS (SELECT 1 FROM organizations o WHERE o.id = changed.organization_id)
  ON CONFLICT (organization_id, name)
    DO UPDATE SET value = organization_counters.value + 1, changed_at = now();
  RETURN NULL;
END
$fn$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION agency_bump_portal_version_of_organizations() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  INSERT INTO organization_counters (organization_id, name, value)
  SELECT changed.id, 'portal_version', 1
  FROM changed
  ON CONFLICT (organization_id, name)
    DO UPDATE SET value = organization_counters.value + 1, changed_at = now();
  RETURN NULL;
END
$fn$;
