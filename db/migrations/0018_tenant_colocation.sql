-- Tenant co-location: every tenant table can be distributed by organization (the Citus co-location
-- rule; decision 0222, docs/scaling.md "Distributing by tenant (Citus)", test/db/colocation.test.ts).
-- Each tenant table's primary key becomes (organization_id, id), and each foreign key between tenant
-- tables becomes (organization_id, x_id) -> (organization_id, id): a row can only point at a row of its
-- own organization, which the code already guaranteed and the database now does too. The reference
-- tables (organizations, api_keys, console_links, console_sessions) keep their global keys.
-- Hand-edited after drizzle-kit generate:
-- - drizzle-kit cannot name the primary keys it drops: they are PostgreSQL's "<table>_pkey".
-- - Order: the old foreign keys go first (they depend on the old primary keys' indexes), then the
--   primary keys are swapped, then the new foreign keys are added.
-- - ON DELETE SET NULL ("x_id") (PostgreSQL 15+): a plain SET NULL on a composite key would null
--   organization_id too and fail on its NOT NULL; only the link is cut, as before.
-- - appointments_no_overlap (0003) gains organization_id WITH = (Citus needs the distribution column
--   in an exclusion constraint); drizzle-kit cannot express it.
-- - The event-sequence trigger function of 0011 finds the event by the whole key.
-- Locks and time: this runs in the one migration transaction. Each primary key is rebuilt under an
-- ACCESS EXCLUSIVE lock, and each new foreign key is validated against every existing row (a scan of
-- the referencing table and a probe per row) under SHARE ROW EXCLUSIVE locks on both tables: writes to
-- the tenant tables wait until it commits. Existing rows always reference rows of their own
-- organization, so validation does not fail. Decided: validate here, in one step; a deploy of a few
-- seconds per million rows is acceptable for the installations this service targets, and a half-done
-- state (keys NOT VALID) would need a second migration to finish. An installation too big for that
-- can run the same statements by hand beforehand, adding each foreign key NOT VALID and running
-- ALTER TABLE ... VALIDATE CONSTRAINT afterwards (it takes only a SHARE UPDATE EXCLUSIVE lock), and
-- building each new primary key's index first with CREATE UNIQUE INDEX CONCURRENTLY and
-- ADD PRIMARY KEY USING INDEX (docs/scaling.md).
ALTER TABLE "properties" DROP CONSTRAINT "properties_agent_id_agents_id_fk";
--> statement-breakpoint
ALTER TABLE "appointments" DROP CONSTRAINT "appointments_agent_id_agents_id_fk";
--> statement-breakpoint
ALTER TABLE "appointments" DROP CONSTRAINT "appointments_contact_id_contacts_id_fk";
--> statement-breakpoint
ALTER TABLE "appointments" DROP CONSTRAINT "appointments_property_id_properties_id_fk";
--> statement-breakpoint
ALTER TABLE "contact_consents" DROP CONSTRAINT "contact_consents_contact_id_contacts_id_fk";
--> statement-breakpoint
ALTER TABLE "contact_notes" DROP CONSTRAINT "contact_notes_contact_id_contacts_id_fk";
--> statement-breakpoint
ALTER TABLE "contact_notes" DROP CONSTRAINT "contact_notes_author_agent_id_agents_id_fk";
--> statement-breakpoint
ALTER TABLE "contacts" DROP CONSTRAINT "contacts_owner_id_agents_id_fk";
--> statement-breakpoint
ALTER TABLE "finder_searches" DROP CONSTRAINT "finder_searches_contact_id_contacts_id_fk";
--> statement-breakpoint
ALTER TABLE "leads" DROP CONSTRAINT "leads_contact_id_contacts_id_fk";
--> statement-breakpoint
ALTER TABLE "leads" DROP CONSTRAINT "leads_property_id_properties_id_fk";
--> statement-breakpoint
ALTER TABLE "tasks" DROP CONSTRAINT "tasks_assignee_id_agents_id_fk";
--> statement-breakpoint
ALTER TABLE "tasks" DROP CONSTRAINT "tasks_contact_id_contacts_id_fk";
--> statement-breakpoint
ALTER TABLE "tasks" DROP CONSTRAINT "tasks_appointment_id_appointments_id_fk";
--> statement-breakpoint
ALTER TABLE "visit_requests" DROP CONSTRAINT "visit_requests_contact_id_contacts_id_fk";
--> statement-breakpoint
ALTER TABLE "visit_requests" DROP CONSTRAINT "visit_requests_property_id_properties_id_fk";
--> statement-breakpoint
ALTER TABLE "visit_requests" DROP CONSTRAINT "visit_requests_appointment_id_appointments_id_fk";
--> statement-breakpoint
ALTER TABLE "deal_stage_changes" DROP CONSTRAINT "deal_stage_changes_deal_id_deals_id_fk";
--> statement-breakpoint
ALTER TABLE "deals" DROP CONSTRAINT "deals_agent_id_agents_id_fk";
--> statement-breakpoint
ALTER TABLE "deals" DROP CONSTRAINT "deals_contact_id_contacts_id_fk";
--> statement-breakpoint
ALTER TABLE "deals" DROP CONSTRAINT "deals_property_id_properties_id_fk";
--> statement-breakpoint
ALTER TABLE "deals" DROP CONSTRAINT "deals_pipeline_id_pipelines_id_fk";
--> statement-breakpoint
ALTER TABLE "deals" DROP CONSTRAINT "deals_stage_id_pipeline_stages_id_fk";
--> statement-breakpoint
ALTER TABLE "pipeline_stages" DROP CONSTRAINT "pipeline_stages_pipeline_id_pipelines_id_fk";
--> statement-breakpoint
ALTER TABLE "usage_daily" DROP CONSTRAINT "usage_daily_contact_id_contacts_id_fk";
--> statement-breakpoint
ALTER TABLE "usage_events" DROP CONSTRAINT "usage_events_contact_id_contacts_id_fk";
--> statement-breakpoint
ALTER TABLE "conversations" DROP CONSTRAINT "conversations_contact_id_contacts_id_fk";
--> statement-breakpoint
ALTER TABLE "messages" DROP CONSTRAINT "messages_contact_id_contacts_id_fk";
--> statement-breakpoint
ALTER TABLE "messages" DROP CONSTRAINT "messages_template_id_message_templates_id_fk";
--> statement-breakpoint
ALTER TABLE "messages" DROP CONSTRAINT "messages_agent_id_agents_id_fk";
--> statement-breakpoint
ALTER TABLE "webhook_attempts" DROP CONSTRAINT "webhook_attempts_delivery_id_webhook_deliveries_id_fk";
--> statement-breakpoint
ALTER TABLE "webhook_deliveries" DROP CONSTRAINT "webhook_deliveries_subscription_id_webhook_subscriptions_id_fk";
--> statement-breakpoint
ALTER TABLE "webhook_deliveries" DROP CONSTRAINT "webhook_deliveries_event_id_events_id_fk";
--> statement-breakpoint
ALTER TABLE "appointments" DROP CONSTRAINT "appointments_no_overlap";
--> statement-breakpoint
ALTER TABLE "events" DROP CONSTRAINT "events_pkey";
--> statement-breakpoint
ALTER TABLE "agents" DROP CONSTRAINT "agents_pkey";
--> statement-breakpoint
ALTER TABLE "analytics_events" DROP CONSTRAINT "analytics_events_pkey";
--> statement-breakpoint
ALTER TABLE "properties" DROP CONSTRAINT "properties_pkey";
--> statement-breakpoint
ALTER TABLE "appointments" DROP CONSTRAINT "appointments_pkey";
--> statement-breakpoint
ALTER TABLE "contact_consents" DROP CONSTRAINT "contact_consents_pkey";
--> statement-breakpoint
ALTER TABLE "contact_notes" DROP CONSTRAINT "contact_notes_pkey";
--> statement-breakpoint
ALTER TABLE "contacts" DROP CONSTRAINT "contacts_pkey";
--> statement-breakpoint
ALTER TABLE "finder_searches" DROP CONSTRAINT "finder_searches_pkey";
--> statement-breakpoint
ALTER TABLE "leads" DROP CONSTRAINT "leads_pkey";
--> statement-breakpoint
ALTER TABLE "tasks" DROP CONSTRAINT "tasks_pkey";
--> statement-breakpoint
ALTER TABLE "visit_requests" DROP CONSTRAINT "visit_requests_pkey";
--> statement-breakpoint
ALTER TABLE "deal_stage_changes" DROP CONSTRAINT "deal_stage_changes_pkey";
--> statement-breakpoint
ALTER TABLE "deals" DROP CONSTRAINT "deals_pkey";
--> statement-breakpoint
ALTER TABLE "pipeline_stages" DROP CONSTRAINT "pipeline_stages_pkey";
--> statement-breakpoint
ALTER TABLE "pipelines" DROP CONSTRAINT "pipelines_pkey";
--> statement-breakpoint
ALTER TABLE "usage_events" DROP CONSTRAINT "usage_events_pkey";
--> statement-breakpoint
ALTER TABLE "conversations" DROP CONSTRAINT "conversations_pkey";
--> statement-breakpoint
ALTER TABLE "message_templates" DROP CONSTRAINT "message_templates_pkey";
--> statement-breakpoint
ALTER TABLE "messages" DROP CONSTRAINT "messages_pkey";
--> statement-breakpoint
ALTER TABLE "messaging_numbers" DROP CONSTRAINT "messaging_numbers_pkey";
--> statement-breakpoint
ALTER TABLE "webhook_attempts" DROP CONSTRAINT "webhook_attempts_pkey";
--> statement-breakpoint
ALTER TABLE "webhook_deliveries" DROP CONSTRAINT "webhook_deliveries_pkey";
--> statement-breakpoint
ALTER TABLE "webhook_subscriptions" DROP CONSTRAINT "webhook_subscriptions_pkey";
--> statement-breakpoint
ALTER TABLE "request_logs" DROP CONSTRAINT "request_logs_pkey";
--> statement-breakpoint
ALTER TABLE "events" ADD CONSTRAINT "events_organization_id_id_pk" PRIMARY KEY("organization_id","id");
--> statement-breakpoint
ALTER TABLE "agents" ADD CONSTRAINT "agents_organization_id_id_pk" PRIMARY KEY("organization_id","id");
--> statement-breakpoint
ALTER TABLE "analytics_events" ADD CONSTRAINT "analytics_events_organization_id_id_pk" PRIMARY KEY("organization_id","id");
--> statement-breakpoint
ALTER TABLE "properties" ADD CONSTRAINT "properties_organization_id_id_pk" PRIMARY KEY("organization_id","id");
--> statement-breakpoint
ALTER TABLE "appointments" ADD CONSTRAINT "appointments_organization_id_id_pk" PRIMARY KEY("organization_id","id");
--> statement-breakpoint
ALTER TABLE "contact_consents" ADD CONSTRAINT "contact_consents_organization_id_id_pk" PRIMARY KEY("organization_id","id");
--> statement-breakpoint
ALTER TABLE "contact_notes" ADD CONSTRAINT "contact_notes_organization_id_id_pk" PRIMARY KEY("organization_id","id");
--> statement-breakpoint
ALTER TABLE "contacts" ADD CONSTRAINT "contacts_organization_id_id_pk" PRIMARY KEY("organization_id","id");
--> statement-breakpoint
ALTER TABLE "finder_searches" ADD CONSTRAINT "finder_searches_organization_id_id_pk" PRIMARY KEY("organization_id","id");
--> statement-breakpoint
ALTER TABLE "leads" ADD CONSTRAINT "leads_organization_id_id_pk" PRIMARY KEY("organization_id","id");
--> statement-breakpoint
ALTER TABLE "tasks" ADD CONSTRAINT "tasks_organization_id_id_pk" PRIMARY KEY("organization_id","id");
--> statement-breakpoint
ALTER TABLE "visit_requests" ADD CONSTRAINT "visit_requests_organization_id_id_pk" PRIMARY KEY("organization_id","id");
--> statement-breakpoint
ALTER TABLE "deal_stage_changes" ADD CONSTRAINT "deal_stage_changes_organization_id_id_pk" PRIMARY KEY("organization_id","id");
--> statement-breakpoint
ALTER TABLE "deals" ADD CONSTRAINT "deals_organization_id_id_pk" PRIMARY KEY("organization_id","id");
--> statement-breakpoint
ALTER TABLE "pipeline_stages" ADD CONSTRAINT "pipeline_stages_organization_id_id_pk" PRIMARY KEY("organization_id","id");
--> statement-breakpoint
ALTER TABLE "pipelines" ADD CONSTRAINT "pipelines_organization_id_id_pk" PRIMARY KEY("organization_id","id");
--> statement-breakpoint
ALTER TABLE "usage_events" ADD CONSTRAINT "usage_events_organization_id_id_pk" PRIMARY KEY("organization_id","id");
--> statement-breakpoint
ALTER TABLE "conversations" ADD CONSTRAINT "conversations_organization_id_id_pk" PRIMARY KEY("organization_id","id");
--> statement-breakpoint
ALTER TABLE "message_templates" ADD CONSTRAINT "message_templates_organization_id_id_pk" PRIMARY KEY("organization_id","id");
--> statement-breakpoint
ALTER TABLE "messages" ADD CONSTRAINT "messages_organization_id_id_pk" PRIMARY KEY("organization_id","id");
--> statement-breakpoint
ALTER TABLE "messaging_numbers" ADD CONSTRAINT "messaging_numbers_organization_id_id_pk" PRIMARY KEY("organization_id","id");
--> statement-breakpoint
ALTER TABLE "webhook_attempts" ADD CONSTRAINT "webhook_attempts_organization_id_id_pk" PRIMARY KEY("organization_id","id");
--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_organization_id_id_pk" PRIMARY KEY("organization_id","id");
--> statement-breakpoint
ALTER TABLE "webhook_subscriptions" ADD CONSTRAINT "webhook_subscriptions_organization_id_id_pk" PRIMARY KEY("organization_id","id");
--> statement-breakpoint
ALTER TABLE "request_logs" ADD CONSTRAINT "request_logs_organization_id_id_pk" PRIMARY KEY("organization_id","id");
--> statement-breakpoint
ALTER TABLE "properties" ADD CONSTRAINT "properties_agent_id_agents_id_fk" FOREIGN KEY ("organization_id","agent_id") REFERENCES "public"."agents"("organization_id","id") ON DELETE SET NULL ("agent_id") ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "appointments" ADD CONSTRAINT "appointments_agent_id_agents_id_fk" FOREIGN KEY ("organization_id","agent_id") REFERENCES "public"."agents"("organization_id","id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "appointments" ADD CONSTRAINT "appointments_contact_id_contacts_id_fk" FOREIGN KEY ("organization_id","contact_id") REFERENCES "public"."contacts"("organization_id","id") ON DELETE SET NULL ("contact_id") ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "appointments" ADD CONSTRAINT "appointments_property_id_properties_id_fk" FOREIGN KEY ("organization_id","property_id") REFERENCES "public"."properties"("organization_id","id") ON DELETE SET NULL ("property_id") ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "contact_consents" ADD CONSTRAINT "contact_consents_contact_id_contacts_id_fk" FOREIGN KEY ("organization_id","contact_id") REFERENCES "public"."contacts"("organization_id","id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "contact_notes" ADD CONSTRAINT "contact_notes_contact_id_contacts_id_fk" FOREIGN KEY ("organization_id","contact_id") REFERENCES "public"."contacts"("organization_id","id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "contact_notes" ADD CONSTRAINT "contact_notes_author_agent_id_agents_id_fk" FOREIGN KEY ("organization_id","author_agent_id") REFERENCES "public"."agents"("organization_id","id") ON DELETE SET NULL ("author_agent_id") ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "contacts" ADD CONSTRAINT "contacts_owner_id_agents_id_fk" FOREIGN KEY ("organization_id","owner_id") REFERENCES "public"."agents"("organization_id","id") ON DELETE SET NULL ("owner_id") ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "finder_searches" ADD CONSTRAINT "finder_searches_contact_id_contacts_id_fk" FOREIGN KEY ("organization_id","contact_id") REFERENCES "public"."contacts"("organization_id","id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "leads" ADD CONSTRAINT "leads_contact_id_contacts_id_fk" FOREIGN KEY ("organization_id","contact_id") REFERENCES "public"."contacts"("organization_id","id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "leads" ADD CONSTRAINT "leads_property_id_properties_id_fk" FOREIGN KEY ("organization_id","property_id") REFERENCES "public"."properties"("organization_id","id") ON DELETE SET NULL ("property_id") ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "tasks" ADD CONSTRAINT "tasks_assignee_id_agents_id_fk" FOREIGN KEY ("organization_id","assignee_id") REFERENCES "public"."agents"("organization_id","id") ON DELETE SET NULL ("assignee_id") ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "tasks" ADD CONSTRAINT "tasks_contact_id_contacts_id_fk" FOREIGN KEY ("organization_id","contact_id") REFERENCES "public"."contacts"("organization_id","id") ON DELETE SET NULL ("contact_id") ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "tasks" ADD CONSTRAINT "tasks_appointment_id_appointments_id_fk" FOREIGN KEY ("organization_id","appointment_id") REFERENCES "public"."appointments"("organization_id","id") ON DELETE SET NULL ("appointment_id") ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "visit_requests" ADD CONSTRAINT "visit_requests_contact_id_contacts_id_fk" FOREIGN KEY ("organization_id","contact_id") REFERENCES "public"."contacts"("organization_id","id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "visit_requests" ADD CONSTRAINT "visit_requests_property_id_properties_id_fk" FOREIGN KEY ("organization_id","property_id") REFERENCES "public"."properties"("organization_id","id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "visit_requests" ADD CONSTRAINT "visit_requests_appointment_id_appointments_id_fk" FOREIGN KEY ("organization_id","appointment_id") REFERENCES "public"."appointments"("organization_id","id") ON DELETE SET NULL ("appointment_id") ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "deal_stage_changes" ADD CONSTRAINT "deal_stage_changes_deal_id_deals_id_fk" FOREIGN KEY ("organization_id","deal_id") REFERENCES "public"."deals"("organization_id","id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "deals" ADD CONSTRAINT "deals_agent_id_agents_id_fk" FOREIGN KEY ("organization_id","agent_id") REFERENCES "public"."agents"("organization_id","id") ON DELETE SET NULL ("agent_id") ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "deals" ADD CONSTRAINT "deals_contact_id_contacts_id_fk" FOREIGN KEY ("organization_id","contact_id") REFERENCES "public"."contacts"("organization_id","id") ON DELETE SET NULL ("contact_id") ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "deals" ADD CONSTRAINT "deals_property_id_properties_id_fk" FOREIGN KEY ("organization_id","property_id") REFERENCES "public"."properties"("organization_id","id") ON DELETE SET NULL ("property_id") ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "deals" ADD CONSTRAINT "deals_pipeline_id_pipelines_id_fk" FOREIGN KEY ("organization_id","pipeline_id") REFERENCES "public"."pipelines"("organization_id","id") ON DELETE restrict ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "deals" ADD CONSTRAINT "deals_stage_id_pipeline_stages_id_fk" FOREIGN KEY ("organization_id","stage_id") REFERENCES "public"."pipeline_stages"("organization_id","id") ON DELETE restrict ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "pipeline_stages" ADD CONSTRAINT "pipeline_stages_pipeline_id_pipelines_id_fk" FOREIGN KEY ("organization_id","pipeline_id") REFERENCES "public"."pipelines"("organization_id","id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "usage_daily" ADD CONSTRAINT "usage_daily_contact_id_contacts_id_fk" FOREIGN KEY ("organization_id","contact_id") REFERENCES "public"."contacts"("organization_id","id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "usage_events" ADD CONSTRAINT "usage_events_contact_id_contacts_id_fk" FOREIGN KEY ("organization_id","contact_id") REFERENCES "public"."contacts"("organization_id","id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "conversations" ADD CONSTRAINT "conversations_contact_id_contacts_id_fk" FOREIGN KEY ("organization_id","contact_id") REFERENCES "public"."contacts"("organization_id","id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "messages" ADD CONSTRAINT "messages_contact_id_contacts_id_fk" FOREIGN KEY ("organization_id","contact_id") REFERENCES "public"."contacts"("organization_id","id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "messages" ADD CONSTRAINT "messages_template_id_message_templates_id_fk" FOREIGN KEY ("organization_id","template_id") REFERENCES "public"."message_templates"("organization_id","id") ON DELETE SET NULL ("template_id") ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "messages" ADD CONSTRAINT "messages_agent_id_agents_id_fk" FOREIGN KEY ("organization_id","agent_id") REFERENCES "public"."agents"("organization_id","id") ON DELETE SET NULL ("agent_id") ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "webhook_attempts" ADD CONSTRAINT "webhook_attempts_delivery_id_webhook_deliveries_id_fk" FOREIGN KEY ("organization_id","delivery_id") REFERENCES "public"."webhook_deliveries"("organization_id","id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_subscription_id_webhook_subscriptions_id_fk" FOREIGN KEY ("organization_id","subscription_id") REFERENCES "public"."webhook_subscriptions"("organization_id","id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_event_id_events_id_fk" FOREIGN KEY ("organization_id","event_id") REFERENCES "public"."events"("organization_id","id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
-- An agent's active appointments never overlap; the organization leads, as in every key.
ALTER TABLE "appointments" ADD CONSTRAINT "appointments_no_overlap"
  EXCLUDE USING gist ("organization_id" WITH =, "agent_id" WITH =, tstzrange("starts_at", "ends_at") WITH &&)
  WHERE ("status" IN ('SCHEDULED', 'CONFIRMED'));
--> statement-breakpoint
-- The commit-time stamp of 0011 found the event by id alone: no longer an index (the key leads with
-- organization_id), so an event recorded outside a tenant transaction would scan the table.
CREATE OR REPLACE FUNCTION agency_stamp_event_sequence() RETURNS trigger LANGUAGE plpgsql AS $fn$
DECLARE
  next_sequence bigint;
BEGIN
  INSERT INTO event_sequences AS s (organization_id, last_sequence)
  VALUES (NEW.organization_id, 1)
  ON CONFLICT (organization_id) DO UPDATE SET last_sequence = s.last_sequence + 1
  RETURNING s.last_sequence INTO next_sequence;
  UPDATE events SET sequence = next_sequence WHERE organization_id = NEW.organization_id AND id = NEW.id;
  RETURN NULL;
END
$fn$;
--> statement-breakpoint
-- The messaging hook finds a number by id alone, before the organization is known (no longer the key).
CREATE INDEX "messaging_numbers_id_idx" ON "messaging_numbers" USING btree ("id");