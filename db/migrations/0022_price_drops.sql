-- Issue 25 item 2. A reduced listing's previous price: properties.previous_price is kept by a trigger,
-- whoever writes (back office, listing API, import): set to the old price when the price drops, cleared
-- when it rises or the currency changes (prices in two currencies do not compare). The portal shows it
-- as `previousPrice` only for an organization with show_price_drops (default off); organization
-- changes already bump the portal version (migration 0019), so cached answers follow the setting.
ALTER TABLE "organizations" ADD COLUMN "show_price_drops" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "properties" ADD COLUMN "previous_price" numeric(14, 2);--> statement-breakpoint
CREATE OR REPLACE FUNCTION agency_keep_previous_price() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  IF NEW.currency IS DISTINCT FROM OLD.currency OR NEW.price > OLD.price THEN
    NEW.previous_price := NULL;
  ELSIF NEW.price < OLD.price THEN
    NEW.previous_price := OLD.price;
  END IF;
  RETURN NEW;
END
$fn$;--> statement-breakpoint
CREATE TRIGGER properties_keep_previous_price BEFORE UPDATE OF price, currency ON properties
  FOR EACH ROW EXECUTE FUNCTION agency_keep_previous_price();
