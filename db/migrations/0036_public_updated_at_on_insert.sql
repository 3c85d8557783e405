-- Issue 40 item 3, after migration 0034: a new listing was last shown as it was last changed. A writer
-- that gives updated_at (an import, a copy of a stock) gets the same public_updated_at, never the insert's
-- now(); writers still cannot set public_updated_at themselves.
CREATE OR REPLACE FUNCTION agency_touch_property() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  IF TG_OP = 'INSERT' THEN
    NEW.public_updated_at := NEW.updated_at;
    RETURN NEW;
  END IF;
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
CREATE TRIGGER properties_touch_updated_at BEFORE INSERT OR UPDATE ON properties
  FOR EACH ROW EXECUTE FUNCTION agency_touch_property();
