CREATE TABLE "email_settings" (
	"organization_id" text PRIMARY KEY NOT NULL,
	"sender_name" text,
	"reply_to" text,
	"alert_address" text,
	"hourly_limit" integer DEFAULT 200 NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "email_suppressions" (
	"organization_id" text NOT NULL,
	"address" text NOT NULL,
	"reason" text NOT NULL,
	"email_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "email_suppressions_organization_id_address_pk" PRIMARY KEY("organization_id","address")
);
--> statement-breakpoint
CREATE TABLE "email_templates" (
	"organization_id" text NOT NULL,
	"kind" text NOT NULL,
	"language" text NOT NULL,
	"subject" text NOT NULL,
	"html" text NOT NULL,
	"text" text NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "email_templates_organization_id_kind_language_pk" PRIMARY KEY("organization_id","kind","language")
);
--> statement-breakpoint
CREATE TABLE "emails" (
	"id" text NOT NULL,
	"organization_id" text NOT NULL,
	"kind" text NOT NULL,
	"ref_id" text NOT NULL,
	"revision" integer DEFAULT 0 NOT NULL,
	"status" text DEFAULT 'QUEUED' NOT NULL,
	"reason" text,
	"contact_id" text,
	"to_address" text,
	"language" text,
	"subject" text,
	"html" text,
	"text" text,
	"ics" text,
	"transport" text,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp with time zone DEFAULT now() NOT NULL,
	"sent_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "emails_organization_id_id_pk" PRIMARY KEY("organization_id","id")
);
--> statement-breakpoint
ALTER TABLE "organizations" ADD COLUMN "reminder_channels" text[] DEFAULT '{MESSAGING}'::text[] NOT NULL;--> statement-breakpoint
ALTER TABLE "contacts" ADD COLUMN "preferred_language" text;--> statement-breakpoint
ALTER TABLE "email_settings" ADD CONSTRAINT "email_settings_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "email_suppressions" ADD CONSTRAINT "email_suppressions_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "email_templates" ADD CONSTRAINT "email_templates_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "emails" ADD CONSTRAINT "emails_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "emails_change_idx" ON "emails" USING btree ("organization_id","kind","ref_id","revision");--> statement-breakpoint
CREATE INDEX "emails_due_idx" ON "emails" USING btree ("next_attempt_at") WHERE "emails"."status" IN ('QUEUED', 'SENDING');--> statement-breakpoint
CREATE INDEX "emails_organization_id_created_at_idx" ON "emails" USING btree ("organization_id","created_at","id");--> statement-breakpoint
CREATE INDEX "emails_contact_id_idx" ON "emails" USING btree ("organization_id","contact_id");--> statement-breakpoint
CREATE INDEX "emails_sent_at_idx" ON "emails" USING btree ("organization_id","sent_at") WHERE "emails"."sent_at" IS NOT NULL;--> statement-breakpoint
SELECT agency_enable_tenant_rls('email_settings');--> statement-breakpoint
SELECT agency_enable_tenant_rls('email_templates');--> statement-breakpoint
SELECT agency_enable_tenant_rls('emails');--> statement-breakpoint
SELECT agency_enable_tenant_rls('email_suppressions');--> statement-breakpoint
-- Issue 41 (decision 0267). A time-ordered id made in SQL, as the service makes them (ids.ts): the
-- prefix, 9 base62 characters of milliseconds, 13 random ones (not secret: a Message-ID shows it).
CREATE FUNCTION agency_new_id(prefix text) RETURNS text LANGUAGE plpgsql VOLATILE AS $fn$
DECLARE
  alphabet constant text := '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
  rest bigint := floor(extract(epoch FROM clock_timestamp()) * 1000);
  stamp text := '';
  tail text := '';
BEGIN
  FOR i IN 1..9 LOOP
    stamp := substr(alphabet, (rest % 62)::int + 1, 1) || stamp;
    rest := rest / 62;
  END LOOP;
  FOR i IN 1..13 LOOP
    tail := tail || substr(alphabet, floor(random() * 62)::int + 1, 1);
  END LOOP;
  RETURN prefix || '_' || stamp || tail;
END
$fn$;--> statement-breakpoint
-- The emails a change calls for are queued in the transaction of the change, whoever writes (booking
-- page, back office, visitor's link, MCP, a script): one row per kind, thing and revision, rendered and
-- sent later by the worker's email.send job. A visit in the past calls for nothing.
CREATE FUNCTION agency_queue_email(org text, kind text, ref text, revision integer) RETURNS void
LANGUAGE sql AS $fn$
  INSERT INTO emails (id, organization_id, kind, ref_id, revision)
  VALUES (agency_new_id('eml'), org, kind, ref, revision)
  ON CONFLICT (organization_id, kind, ref_id, revision) DO NOTHING
$fn$;--> statement-breakpoint
CREATE FUNCTION agency_queue_appointment_emails() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  IF NEW.starts_at <= now() THEN
    RETURN NULL;
  END IF;
  IF TG_OP = 'INSERT' THEN
    IF NEW.status IN ('SCHEDULED', 'CONFIRMED') THEN
      IF NEW.contact_id IS NOT NULL THEN
        PERFORM agency_queue_email(NEW.organization_id, 'VISIT_CONFIRMATION', NEW.id, NEW.sequence);
      END IF;
      IF NEW.source = 'BOOKING' THEN
        PERFORM agency_queue_email(NEW.organization_id, 'BOOKING_ALERT', NEW.id, NEW.sequence);
      END IF;
    END IF;
  ELSIF NEW.contact_id IS NOT NULL THEN
    IF NEW.status = 'CANCELLED' AND OLD.status IN ('SCHEDULED', 'CONFIRMED') THEN
      PERFORM agency_queue_email(NEW.organization_id, 'VISIT_CANCELLED', NEW.id, NEW.sequence);
    ELSIF NEW.status IN ('SCHEDULED', 'CONFIRMED')
      AND (NEW.starts_at <> OLD.starts_at OR NEW.ends_at <> OLD.ends_at) THEN
      PERFORM agency_queue_email(NEW.organization_id, 'VISIT_UPDATED', NEW.id, NEW.sequence);
    END IF;
  END IF;
  RETURN NULL;
END
$fn$;--> statement-breakpoint
CREATE TRIGGER appointments_queue_emails AFTER INSERT OR UPDATE OF starts_at, ends_at, status ON appointments
  FOR EACH ROW EXECUTE FUNCTION agency_queue_appointment_emails();--> statement-breakpoint
CREATE FUNCTION agency_queue_lead_emails() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  PERFORM agency_queue_email(NEW.organization_id, TG_ARGV[0], NEW.id, 0);
  RETURN NULL;
END
$fn$;--> statement-breakpoint
CREATE TRIGGER leads_queue_emails AFTER INSERT ON leads
  FOR EACH ROW EXECUTE FUNCTION agency_queue_lead_emails('LEAD_ALERT');--> statement-breakpoint
CREATE TRIGGER visit_requests_queue_emails AFTER INSERT ON visit_requests
  FOR EACH ROW EXECUTE FUNCTION agency_queue_lead_emails('VISIT_REQUEST_ALERT');
