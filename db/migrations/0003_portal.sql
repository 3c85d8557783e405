CREATE TABLE "agents" (
	"id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"first_name" text NOT NULL,
	"last_name" text DEFAULT '' NOT NULL,
	"email" text,
	"phone" text,
	"photo_url" text,
	"bio" text,
	"active" boolean DEFAULT true NOT NULL,
	"show_on_portal" boolean DEFAULT true NOT NULL,
	"booking_slug" text,
	"booking" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "analytics_daily" (
	"organization_id" text NOT NULL,
	"day" date NOT NULL,
	"property_id" text DEFAULT '' NOT NULL,
	"type" text NOT NULL,
	"count" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "analytics_daily_organization_id_day_property_id_type_pk" PRIMARY KEY("organization_id","day","property_id","type")
);
--> statement-breakpoint
CREATE TABLE "analytics_events" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "analytics_events_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"organization_id" text NOT NULL,
	"type" text NOT NULL,
	"property_id" text,
	"referrer" text,
	"occurred_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "appointments" (
	"id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"agent_id" text NOT NULL,
	"contact_id" text,
	"property_id" text,
	"type" text NOT NULL,
	"status" text NOT NULL,
	"starts_at" timestamp with time zone NOT NULL,
	"ends_at" timestamp with time zone NOT NULL,
	"source" text DEFAULT 'BOOKING' NOT NULL,
	"notes" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "contacts" (
	"id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"code" text NOT NULL,
	"first_name" text NOT NULL,
	"last_name" text DEFAULT '' NOT NULL,
	"email" text,
	"email_key" text,
	"phone" text,
	"source" text NOT NULL,
	"status" text NOT NULL,
	"type" text NOT NULL,
	"score" integer DEFAULT 0 NOT NULL,
	"owner_id" text,
	"preferred_city" text,
	"preferred_type" text,
	"budget" numeric(14, 2),
	"currency" text,
	"tags" text[] DEFAULT '{}'::text[] NOT NULL,
	"opted_out" boolean DEFAULT false NOT NULL,
	"external_id" text,
	"search_text" text DEFAULT '' NOT NULL,
	"last_activity_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "finder_searches" (
	"id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"contact_id" text NOT NULL,
	"criteria" jsonb NOT NULL,
	"subscribed_to_alerts" boolean DEFAULT false NOT NULL,
	"total" integer NOT NULL,
	"property_ids" text[] NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "leads" (
	"id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"contact_id" text NOT NULL,
	"property_id" text,
	"message" text,
	"interested_in" text,
	"utm" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "organization_counters" (
	"organization_id" text NOT NULL,
	"name" text NOT NULL,
	"value" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "organization_counters_organization_id_name_pk" PRIMARY KEY("organization_id","name")
);
--> statement-breakpoint
CREATE TABLE "portal_settings" (
	"organization_id" text PRIMARY KEY NOT NULL,
	"agency_name" text,
	"logo_url" text,
	"colors" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"contact" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"social_links" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "properties" (
	"id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"code" text NOT NULL,
	"title" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"transaction_type" text NOT NULL,
	"type" text NOT NULL,
	"status" text DEFAULT 'ACTIVE' NOT NULL,
	"published_on_portal" boolean DEFAULT true NOT NULL,
	"featured" boolean DEFAULT false NOT NULL,
	"price" numeric(14, 2) NOT NULL,
	"currency" text NOT NULL,
	"city" text NOT NULL,
	"neighborhood" text,
	"address" text,
	"zip_code" text,
	"latitude" double precision,
	"longitude" double precision,
	"approximate_location" boolean DEFAULT false NOT NULL,
	"portal_latitude" double precision,
	"portal_longitude" double precision,
	"bedrooms" integer DEFAULT 0 NOT NULL,
	"bathrooms" integer DEFAULT 0 NOT NULL,
	"area" numeric(10, 2),
	"amenities" text[] DEFAULT '{}'::text[] NOT NULL,
	"photos" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"agent_id" text,
	"internal_notes" text,
	"custom_fields" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"search_city" text NOT NULL,
	"search_neighborhood" text DEFAULT '' NOT NULL,
	"search_text" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "tasks" (
	"id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"title" text NOT NULL,
	"description" text,
	"type" text DEFAULT 'TODO' NOT NULL,
	"status" text DEFAULT 'PENDING' NOT NULL,
	"due_at" timestamp with time zone,
	"assignee_id" text,
	"contact_id" text,
	"appointment_id" text,
	"completed_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "visit_requests" (
	"id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"contact_id" text NOT NULL,
	"property_id" text NOT NULL,
	"preferred_date" date,
	"preferred_time" text,
	"message" text,
	"status" text DEFAULT 'PENDING' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "agents" ADD CONSTRAINT "agents_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "analytics_daily" ADD CONSTRAINT "analytics_daily_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "analytics_events" ADD CONSTRAINT "analytics_events_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "appointments" ADD CONSTRAINT "appointments_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "appointments" ADD CONSTRAINT "appointments_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agents"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "appointments" ADD CONSTRAINT "appointments_contact_id_contacts_id_fk" FOREIGN KEY ("contact_id") REFERENCES "public"."contacts"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "appointments" ADD CONSTRAINT "appointments_property_id_properties_id_fk" FOREIGN KEY ("property_id") REFERENCES "public"."properties"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "contacts" ADD CONSTRAINT "contacts_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "contacts" ADD CONSTRAINT "contacts_owner_id_agents_id_fk" FOREIGN KEY ("owner_id") REFERENCES "public"."agents"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "finder_searches" ADD CONSTRAINT "finder_searches_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "finder_searches" ADD CONSTRAINT "finder_searches_contact_id_contacts_id_fk" FOREIGN KEY ("contact_id") REFERENCES "public"."contacts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "leads" ADD CONSTRAINT "leads_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "leads" ADD CONSTRAINT "leads_contact_id_contacts_id_fk" FOREIGN KEY ("contact_id") REFERENCES "public"."contacts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "leads" ADD CONSTRAINT "leads_property_id_properties_id_fk" FOREIGN KEY ("property_id") REFERENCES "public"."properties"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "organization_counters" ADD CONSTRAINT "organization_counters_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "portal_settings" ADD CONSTRAINT "portal_settings_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "properties" ADD CONSTRAINT "properties_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "properties" ADD CONSTRAINT "properties_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agents"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tasks" ADD CONSTRAINT "tasks_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tasks" ADD CONSTRAINT "tasks_assignee_id_agents_id_fk" FOREIGN KEY ("assignee_id") REFERENCES "public"."agents"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tasks" ADD CONSTRAINT "tasks_contact_id_contacts_id_fk" FOREIGN KEY ("contact_id") REFERENCES "public"."contacts"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tasks" ADD CONSTRAINT "tasks_appointment_id_appointments_id_fk" FOREIGN KEY ("appointment_id") REFERENCES "public"."appointments"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "visit_requests" ADD CONSTRAINT "visit_requests_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "visit_requests" ADD CONSTRAINT "visit_requests_contact_id_contacts_id_fk" FOREIGN KEY ("contact_id") REFERENCES "public"."contacts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "visit_requests" ADD CONSTRAINT "visit_requests_property_id_properties_id_fk" FOREIGN KEY ("property_id") REFERENCES "public"."properties"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "agents_organization_id_booking_slug_key" ON "agents" USING btree ("organization_id","booking_slug");--> statement-breakpoint
CREATE INDEX "agents_organization_id_created_at_idx" ON "agents" USING btree ("organization_id","created_at");--> statement-breakpoint
CREATE INDEX "analytics_events_organization_id_occurred_at_idx" ON "analytics_events" USING btree ("organization_id","occurred_at");--> statement-breakpoint
CREATE INDEX "appointments_organization_id_starts_at_idx" ON "appointments" USING btree ("organization_id","starts_at");--> statement-breakpoint
CREATE INDEX "appointments_agent_id_starts_at_idx" ON "appointments" USING btree ("agent_id","starts_at");--> statement-breakpoint
CREATE INDEX "appointments_contact_id_idx" ON "appointments" USING btree ("contact_id");--> statement-breakpoint
CREATE UNIQUE INDEX "contacts_organization_id_code_key" ON "contacts" USING btree ("organization_id","code");--> statement-breakpoint
CREATE UNIQUE INDEX "contacts_organization_id_phone_key" ON "contacts" USING btree ("organization_id","phone");--> statement-breakpoint
CREATE UNIQUE INDEX "contacts_organization_id_email_key_key" ON "contacts" USING btree ("organization_id","email_key");--> statement-breakpoint
CREATE INDEX "contacts_organization_id_created_at_idx" ON "contacts" USING btree ("organization_id","created_at" DESC NULLS LAST,"id");--> statement-breakpoint
CREATE INDEX "finder_searches_organization_id_created_at_idx" ON "finder_searches" USING btree ("organization_id","created_at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "finder_searches_contact_id_idx" ON "finder_searches" USING btree ("contact_id");--> statement-breakpoint
CREATE INDEX "finder_searches_alerts_idx" ON "finder_searches" USING btree ("organization_id","created_at") WHERE subscribed_to_alerts;--> statement-breakpoint
CREATE INDEX "leads_organization_id_created_at_idx" ON "leads" USING btree ("organization_id","created_at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "leads_contact_id_idx" ON "leads" USING btree ("contact_id");--> statement-breakpoint
CREATE UNIQUE INDEX "properties_organization_id_code_key" ON "properties" USING btree ("organization_id","code");--> statement-breakpoint
CREATE INDEX "properties_organization_id_created_at_idx" ON "properties" USING btree ("organization_id","created_at" DESC NULLS LAST,"id");--> statement-breakpoint
CREATE INDEX "properties_agent_id_idx" ON "properties" USING btree ("agent_id");--> statement-breakpoint
CREATE INDEX "properties_portal_created_at_idx" ON "properties" USING btree ("organization_id","created_at" DESC NULLS LAST,"id") WHERE status = 'ACTIVE' AND published_on_portal;--> statement-breakpoint
CREATE INDEX "properties_portal_price_idx" ON "properties" USING btree ("organization_id","price","id") WHERE status = 'ACTIVE' AND published_on_portal;--> statement-breakpoint
CREATE INDEX "properties_portal_area_idx" ON "properties" USING btree ("organization_id","area","id") WHERE status = 'ACTIVE' AND published_on_portal;--> statement-breakpoint
CREATE INDEX "properties_portal_type_idx" ON "properties" USING btree ("organization_id","transaction_type","type","price") WHERE status = 'ACTIVE' AND published_on_portal;--> statement-breakpoint
CREATE INDEX "properties_portal_bedrooms_idx" ON "properties" USING btree ("organization_id","bedrooms","price") WHERE status = 'ACTIVE' AND published_on_portal;--> statement-breakpoint
CREATE INDEX "properties_portal_featured_idx" ON "properties" USING btree ("organization_id","created_at" DESC NULLS LAST) WHERE status = 'ACTIVE' AND published_on_portal AND featured;--> statement-breakpoint
CREATE INDEX "properties_portal_geo_idx" ON "properties" USING btree ("organization_id","portal_latitude","portal_longitude") WHERE status = 'ACTIVE' AND published_on_portal;--> statement-breakpoint
CREATE INDEX "properties_portal_city_trgm_idx" ON "properties" USING gin ("search_city" gin_trgm_ops) WHERE status = 'ACTIVE' AND published_on_portal;--> statement-breakpoint
CREATE INDEX "properties_portal_neighborhood_trgm_idx" ON "properties" USING gin ("search_neighborhood" gin_trgm_ops) WHERE status = 'ACTIVE' AND published_on_portal;--> statement-breakpoint
CREATE INDEX "properties_portal_text_trgm_idx" ON "properties" USING gin ("search_text" gin_trgm_ops) WHERE status = 'ACTIVE' AND published_on_portal;--> statement-breakpoint
CREATE INDEX "properties_portal_amenities_idx" ON "properties" USING gin ("amenities") WHERE status = 'ACTIVE' AND published_on_portal;--> statement-breakpoint
CREATE INDEX "tasks_organization_id_status_due_at_idx" ON "tasks" USING btree ("organization_id","status","due_at");--> statement-breakpoint
CREATE INDEX "tasks_assignee_id_status_due_at_idx" ON "tasks" USING btree ("assignee_id","status","due_at");--> statement-breakpoint
CREATE INDEX "visit_requests_organization_id_created_at_idx" ON "visit_requests" USING btree ("organization_id","created_at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "visit_requests_contact_id_idx" ON "visit_requests" USING btree ("contact_id");--> statement-breakpoint
-- An agent's active appointments never overlap: two parallel bookings of one slot cannot both commit.
ALTER TABLE "appointments" ADD CONSTRAINT "appointments_no_overlap"
  EXCLUDE USING gist ("agent_id" WITH =, tstzrange("starts_at", "ends_at") WITH &&)
  WHERE ("status" IN ('SCHEDULED', 'CONFIRMED'));
--> statement-breakpoint
SELECT agency_enable_tenant_rls('organization_counters');
--> statement-breakpoint
SELECT agency_enable_tenant_rls('agents');
--> statement-breakpoint
SELECT agency_enable_tenant_rls('properties');
--> statement-breakpoint
SELECT agency_enable_tenant_rls('portal_settings');
--> statement-breakpoint
SELECT agency_enable_tenant_rls('contacts');
--> statement-breakpoint
SELECT agency_enable_tenant_rls('leads');
--> statement-breakpoint
SELECT agency_enable_tenant_rls('visit_requests');
--> statement-breakpoint
SELECT agency_enable_tenant_rls('appointments');
--> statement-breakpoint
SELECT agency_enable_tenant_rls('tasks');
--> statement-breakpoint
SELECT agency_enable_tenant_rls('finder_searches');
--> statement-breakpoint
SELECT agency_enable_tenant_rls('analytics_events');
--> statement-breakpoint
SELECT agency_enable_tenant_rls('analytics_daily');
--> statement-breakpoint
-- Identity columns (analytics_events.id) draw from sequences the request roles must be able to use.
GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO agency_app, agency_system;
--> statement-breakpoint
ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT USAGE, SELECT ON SEQUENCES TO agency_app, agency_system;
