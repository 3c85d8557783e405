-- Issue 40 item 3. A feed's ETag (the portal version) changed on edits the portal and the feeds never
-- show (internal notes, custom fields), because every update of a listing bumped the version and moved
-- updated_at, which the portal and the feeds show as `updatedAt` (Kyero's <date>). Now:
-- - agency_property_public(row) is what the portal and the feeds can show of a listing: the row without
--   the columns they never show (internal notes, custom fields, the RESO-only on_market_date, the
--   timestamps, and the columns derived from shown ones). When in doubt a column counts as shown: an
--   extra ETag change costs one download, a missed one a stale feed.
-- - properties.public_updated_at moves only when that changes (the touch trigger); the portal's and the
--   feeds' `updatedAt` and their cursor order read it (its partial index replaces updated_at's).
-- - The portal version's update trigger on properties bumps only for organizations with such a row.
-- updated_at keeps moving on every change: the agency's listing API and RESO show every column.
ALTER TABLE "properties" ADD COLUMN "public_updated_at" timestamp with time zone DEFAULT now() NOT NULL;--> statement-breakpoint
CREATE FUNCTION agency_property_public(p properties) RETURNS jsonb LANGUAGE sql IMMUTABLE AS $fn$
  SELECT to_jsonb(p) - ARRAY['internal_notes', 'custom_fields', 'on_market_date', 'updated_at',
    'public_updated_at', 'price_value', 'area_value', 'search_city', 'search_neighborhood', 'search_text']
$fn$;--> statement-breakpoint
CREATE FUNCTION agency_touch_property() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  -- price_value and area_value are generated: not computed yet in NEW (agency_touch_updated_at's TG_ARGV).
  IF (to_jsonb(NEW) - ARRAY['price_value', 'area_value']) IS DISTINCT FROM
     (to_jsonb(OLD) - ARRAY['price_value', 'area_value']) THEN
    NEW.updated_at := now();
  END IF;
  IF agency_property_public(NEW) IS DISTINCT FROM agency_property_public(OLD) THEN
    NEW.public_updated_at := now();
  ELSE
    NEW.public_updated_at := OLD.public_updated_at;
  END IF;
  RETURN NEW;
END
$fn$;--> statement-breakpoint
DROP TRIGGER properties_touch_updated_at ON properties;--> statement-breakpoint
CREATE TRIGGER properties_touch_updated_at BEFORE UPDATE ON properties
  FOR EACH ROW EXECUTE FUNCTION agency_touch_property();--> statement-breakpoint
CREATE FUNCTION agency_bump_portal_version_of_properties() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  INSERT INTO organization_counters (organization_id, name, value, changed_at)
  SELECT touched.organization_id, 'portal_version', 1, clock_timestamp()
  FROM (
    SELECT DISTINCT n.organization_id
    FROM changed AS n
    JOIN previous AS o ON o.organization_id = n.organization_id AND o.id = n.id
    WHERE agency_property_public(n) IS DISTINCT FROM agency_property_public(o)
  ) AS touched
  WHERE EXISTS (SELECT 1 FROM organizations AS org WHERE org.id = touched.organization_id)
  ON CONFLICT (organization_id, name)
    DO UPDATE SET value = organization_counters.value + 1,
      changed_at = GREATEST(clock_timestamp(), organization_counters.changed_at);
  RETURN NULL;
END
$fn$;--> statement-breakpoint
DROP TRIGGER properties_portal_version_update ON properties;--> statement-breakpoint
CREATE TRIGGER properties_portal_version_update AFTER UPDATE ON properties
  REFERENCING OLD TABLE AS previous NEW TABLE AS changed
  FOR EACH STATEMENT EXECUTE FUNCTION agency_bump_portal_version_of_properties();--> statement-breakpoint
-- Existing listings: their last change, as shown so far. Without touching updated_at (the trigger above
-- keeps public_updated_at when nothing shown changes, so it is disabled for the copy); row-level security
-- is forced on properties, so the copy runs as agency_system (migration 0031).
ALTER TABLE "properties" DISABLE TRIGGER properties_touch_updated_at;--> statement-breakpoint
DO $$
BEGIN
  IF pg_has_role(current_user, 'agency_system', 'MEMBER') THEN
    SET LOCAL ROLE agency_system;
  END IF;
END
$$;--> statement-breakpoint
UPDATE "properties" SET "public_updated_at" = "updated_at";--> statement-breakpoint
RESET ROLE;--> statement-breakpoint
ALTER TABLE "properties" ENABLE TRIGGER properties_touch_updated_at;--> statement-breakpoint
DROP INDEX "properties_portal_updated_at_idx";--> statement-breakpoint
CREATE INDEX "properties_portal_updated_at_idx" ON "properties" USING btree ("organization_id","public_updated_at","id") WHERE status = 'ACTIVE' AND published_on_portal;
