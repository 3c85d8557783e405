-- Issue 40 item 4. iCalendar's SEQUENCE (RFC 5545 3.8.7.4) of an appointment: 0 when made, one more at
-- each significant revision (its start, end or status changed), kept here whoever writes (the API, a
-- visitor's manage link, the worker): two changes in the same second still get two numbers.
ALTER TABLE "appointments" ADD COLUMN "sequence" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE OR REPLACE FUNCTION agency_appointment_sequence() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  IF NEW.starts_at IS DISTINCT FROM OLD.starts_at OR NEW.ends_at IS DISTINCT FROM OLD.ends_at
     OR NEW.status IS DISTINCT FROM OLD.status THEN
    NEW.sequence := OLD.sequence + 1;
  ELSE
    NEW.sequence := OLD.sequence;
  END IF;
  RETURN NEW;
END
$fn$;--> statement-breakpoint
CREATE TRIGGER appointments_sequence BEFORE UPDATE ON appointments
  FOR EACH ROW EXECUTE FUNCTION agency_appointment_sequence();
