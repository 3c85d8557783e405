CREATE TABLE "event_sequences" (
	"organization_id" text PRIMARY KEY NOT NULL,
	"last_sequence" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "events" ADD COLUMN "sequence" bigint;--> statement-breakpoint
ALTER TABLE "event_sequences" ADD CONSTRAINT "event_sequences_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "appointments_organization_id_updated_at_idx" ON "appointments" USING btree ("organization_id","updated_at","id");--> statement-breakpoint
CREATE INDEX "contacts_organization_id_updated_at_idx" ON "contacts" USING btree ("organization_id","updated_at","id");--> statement-breakpoint
CREATE INDEX "deals_organization_id_updated_at_idx" ON "deals" USING btree ("organization_id","updated_at","id");--> statement-breakpoint
CREATE UNIQUE INDEX "events_organization_id_sequence_key" ON "events" USING btree ("organization_id","sequence");--> statement-breakpoint
CREATE INDEX "events_organization_id_type_sequence_idx" ON "events" USING btree ("organization_id","type","sequence");--> statement-breakpoint
CREATE INDEX "events_created_at_idx" ON "events" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "properties_portal_updated_at_idx" ON "properties" USING btree ("organization_id","updated_at","id") WHERE status = 'ACTIVE' AND published_on_portal;--> statement-breakpoint
CREATE INDEX "tasks_organization_id_updated_at_idx" ON "tasks" USING btree ("organization_id","updated_at","id");--> statement-breakpoint
-- The event log (docs/sync.md, decision 0186): every event gets its organization's next `sequence`
-- when its transaction commits, never before. A deferred constraint trigger fires at COMMIT and
-- advances the organization's counter row, whose lock it then holds for the last instant of the
-- commit: two transactions of one organization stamp and commit in the same order, and a reader that
-- sees sequence N has already seen every sequence below it (no gaps, no late arrivals below a cursor).
-- A rolled-back transaction takes its stamps with it, so the numbers have no holes either.
SELECT agency_enable_tenant_rls('event_sequences');
--> statement-breakpoint
CREATE OR REPLACE FUNCTION agency_stamp_event_sequence() RETURNS trigger LANGUAGE plpgsql AS $fn$
DECLARE
  next_sequence bigint;
BEGIN
  INSERT INTO event_sequences AS s (organization_id, last_sequence)
  VALUES (NEW.organization_id, 1)
  ON CONFLICT (organization_id) DO UPDATE SET last_sequence = s.last_sequence + 1
  RETURNING s.last_sequence INTO next_sequence;
  UPDATE events SET sequence = next_sequence WHERE id = NEW.id;
  RETURN NULL;
END
$fn$;
--> statement-breakpoint
CREATE CONSTRAINT TRIGGER events_stamp_sequence AFTER INSERT ON events
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION agency_stamp_event_sequence();
--> statement-breakpoint
-- The events recorded before this migration, numbered in the order they were recorded.
SET LOCAL ROLE agency_system;
--> statement-breakpoint
UPDATE events e SET sequence = n.sequence
FROM (
  SELECT id, row_number() OVER (PARTITION BY organization_id ORDER BY created_at, id) AS sequence FROM events
) n
WHERE e.id = n.id;
--> statement-breakpoint
INSERT INTO event_sequences (organization_id, last_sequence)
SELECT organization_id, max(sequence) FROM events GROUP BY organization_id;
--> statement-breakpoint
RESET ROLE;
--> statement-breakpoint
-- Incremental sync (decision 0190): a cursor walk finds changed rows by updated_at. Every write of
-- the service sets it, but the database changes rows by itself too: ON DELETE SET NULL clears a
-- deleted contact's, agent's or appointment's references. This trigger moves updated_at on any
-- update that changes the row, so those changes reach a mirror too. Unchanged rows keep it.
CREATE OR REPLACE FUNCTION agency_touch_updated_at() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  -- TG_ARGV: generated columns, not computed yet in NEW, left out of the comparison.
  IF (to_jsonb(NEW) - coalesce(TG_ARGV, '{}')) IS DISTINCT FROM (to_jsonb(OLD) - coalesce(TG_ARGV, '{}')) THEN
    NEW.updated_at := now();
  END IF;
  RETURN NEW;
END
$fn$;
--> statement-breakpoint
CREATE TRIGGER contacts_touch_updated_at BEFORE UPDATE ON contacts
  FOR EACH ROW EXECUTE FUNCTION agency_touch_updated_at();
--> statement-breakpoint
CREATE TRIGGER deals_touch_updated_at BEFORE UPDATE ON deals
  FOR EACH ROW EXECUTE FUNCTION agency_touch_updated_at();
--> statement-breakpoint
CREATE TRIGGER tasks_touch_updated_at BEFORE UPDATE ON tasks
  FOR EACH ROW EXECUTE FUNCTION agency_touch_updated_at();
--> statement-breakpoint
CREATE TRIGGER appointments_touch_updated_at BEFORE UPDATE ON appointments
  FOR EACH ROW EXECUTE FUNCTION agency_touch_updated_at();
--> statement-breakpoint
CREATE TRIGGER properties_touch_updated_at BEFORE UPDATE ON properties
  FOR EACH ROW EXECUTE FUNCTION agency_touch_updated_at('price_value', 'area_value');
