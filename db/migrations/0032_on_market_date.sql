-- Issue 40 item 1. RESO's OnMarketDate (an Edm.Date, the field RESO Web API Core's date queries run on):
-- the day a listing first went ACTIVE, in its organization's time zone. Kept by a trigger whoever writes
-- (back office, listing API, import, RESO never writes): set when a listing is inserted ACTIVE or first
-- becomes ACTIVE, and kept when it leaves the market and comes back (RESO's BackOnMarketDate, not served,
-- would be that later day). A date already given is never replaced.
ALTER TABLE "properties" ADD COLUMN "on_market_date" date;--> statement-breakpoint
CREATE OR REPLACE FUNCTION agency_keep_on_market_date() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  IF NEW.status = 'ACTIVE' AND NEW.on_market_date IS NULL THEN
    NEW.on_market_date := (now() AT TIME ZONE coalesce(
      (SELECT o.timezone FROM organizations o WHERE o.id = NEW.organization_id), 'UTC'))::date;
  END IF;
  IF TG_OP = 'UPDATE' AND OLD.on_market_date IS NOT NULL THEN
    NEW.on_market_date := OLD.on_market_date;
  END IF;
  RETURN NEW;
END
$fn$;--> statement-breakpoint
CREATE TRIGGER properties_keep_on_market_date BEFORE INSERT OR UPDATE OF status, on_market_date ON properties
  FOR EACH ROW EXECUTE FUNCTION agency_keep_on_market_date();--> statement-breakpoint
-- Listings that are or were on the market before this migration: the day they were entered, the best
-- date there is (property_changes keeps status changes only since migration 0021, and no creations).
-- Without touching updated_at: the records do not change for a replica beyond gaining the field.
-- Row-level security is forced on properties: the update runs as agency_system, as in migration 0031.
ALTER TABLE "properties" DISABLE TRIGGER properties_touch_updated_at;--> statement-breakpoint
DO $$
BEGIN
  IF pg_has_role(current_user, 'agency_system', 'MEMBER') THEN
    SET LOCAL ROLE agency_system;
  END IF;
END
$$;--> statement-breakpoint
UPDATE "properties" AS p SET "on_market_date" = (p.created_at AT TIME ZONE coalesce(
    (SELECT o.timezone FROM organizations o WHERE o.id = p.organization_id), 'UTC'))::date
  WHERE p.status <> 'DRAFT';--> statement-breakpoint
RESET ROLE;--> statement-breakpoint
ALTER TABLE "properties" ENABLE TRIGGER properties_touch_updated_at;
