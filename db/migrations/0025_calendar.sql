-- Issue 26 (booking an agency can run its week on). Organizations get a time zone (the default of
-- their agents' booking hours and the zone of their closures), a holiday country and region (public
-- holidays computed with date-holidays, not stored), reminder offsets (24 h and 2 h) and the message
-- template reminders go with. New tenant tables: closures (the agency's own closed days),
-- agent_time_off, appointment_reminders (one row per appointment, offset and start: what makes a
-- reminder go once); calendar_feeds is a reference table found by its token's hash (agents' iCalendar
-- subscription URLs). The reminder scan reads the active
-- appointments by start across organizations: a partial index on starts_at serves it.
CREATE TABLE "agent_time_off" (
	"id" text NOT NULL,
	"organization_id" text NOT NULL,
	"agent_id" text NOT NULL,
	"starts_at" timestamp with time zone NOT NULL,
	"ends_at" timestamp with time zone NOT NULL,
	"reason" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "agent_time_off_organization_id_id_pk" PRIMARY KEY("organization_id","id"),
	CONSTRAINT "agent_time_off_span_check" CHECK ("agent_time_off"."ends_at" > "agent_time_off"."starts_at")
);
--> statement-breakpoint
CREATE TABLE "appointment_reminders" (
	"organization_id" text NOT NULL,
	"appointment_id" text NOT NULL,
	"offset_minutes" integer NOT NULL,
	"starts_at" timestamp with time zone NOT NULL,
	"status" text NOT NULL,
	"reason" text,
	"message_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "appointment_reminders_organization_id_appointment_id_offset_minutes_starts_at_pk" PRIMARY KEY("organization_id","appointment_id","offset_minutes","starts_at")
);
--> statement-breakpoint
CREATE TABLE "calendar_feeds" (
	"token_hash" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"agent_id" text NOT NULL,
	"token_prefix" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "closures" (
	"id" text NOT NULL,
	"organization_id" text NOT NULL,
	"start_date" date NOT NULL,
	"end_date" date NOT NULL,
	"name" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "closures_organization_id_id_pk" PRIMARY KEY("organization_id","id"),
	CONSTRAINT "closures_dates_check" CHECK ("closures"."end_date" >= "closures"."start_date")
);
--> statement-breakpoint
ALTER TABLE "organizations" ADD COLUMN "timezone" text DEFAULT 'UTC' NOT NULL;--> statement-breakpoint
ALTER TABLE "organizations" ADD COLUMN "holiday_country" text;--> statement-breakpoint
ALTER TABLE "organizations" ADD COLUMN "holiday_region" text;--> statement-breakpoint
ALTER TABLE "organizations" ADD COLUMN "reminder_offsets_minutes" integer[] DEFAULT '{1440,120}'::integer[] NOT NULL;--> statement-breakpoint
ALTER TABLE "organizations" ADD COLUMN "reminder_template_id" text;--> statement-breakpoint
ALTER TABLE "agent_time_off" ADD CONSTRAINT "agent_time_off_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "agent_time_off" ADD CONSTRAINT "agent_time_off_agent_id_agents_id_fk" FOREIGN KEY ("organization_id","agent_id") REFERENCES "public"."agents"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "appointment_reminders" ADD CONSTRAINT "appointment_reminders_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "appointment_reminders" ADD CONSTRAINT "appointment_reminders_appointment_id_appointments_id_fk" FOREIGN KEY ("organization_id","appointment_id") REFERENCES "public"."appointments"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "calendar_feeds" ADD CONSTRAINT "calendar_feeds_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "closures" ADD CONSTRAINT "closures_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "agent_time_off_agent_id_ends_at_idx" ON "agent_time_off" USING btree ("organization_id","agent_id","ends_at");--> statement-breakpoint
CREATE UNIQUE INDEX "calendar_feeds_organization_id_agent_id_key" ON "calendar_feeds" USING btree ("organization_id","agent_id");--> statement-breakpoint
CREATE INDEX "closures_organization_id_end_date_idx" ON "closures" USING btree ("organization_id","end_date");--> statement-breakpoint
CREATE INDEX "appointments_active_starts_at_idx" ON "appointments" USING btree ("starts_at") WHERE "appointments"."status" IN ('SCHEDULED', 'CONFIRMED');--> statement-breakpoint
SELECT agency_enable_tenant_rls('closures');--> statement-breakpoint
SELECT agency_enable_tenant_rls('agent_time_off');--> statement-breakpoint
SELECT agency_enable_tenant_rls('appointment_reminders');--> statement-breakpoint
SELECT agency_enable_tenant_rls('calendar_feeds');
