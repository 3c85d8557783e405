CREATE TABLE "contact_consents" (
	"id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"contact_id" text NOT NULL,
	"channel" text NOT NULL,
	"status" text NOT NULL,
	"source" text NOT NULL,
	"actor_kind" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "deal_stage_changes" (
	"id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"deal_id" text NOT NULL,
	"pipeline_id" text NOT NULL,
	"from_stage_id" text NOT NULL,
	"from_stage_name" text NOT NULL,
	"to_stage_id" text NOT NULL,
	"to_stage_name" text NOT NULL,
	"status" text NOT NULL,
	"lost_reason" text,
	"automated" boolean DEFAULT false NOT NULL,
	"actor_kind" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "deals" DROP CONSTRAINT "deals_contact_id_contacts_id_fk";
--> statement-breakpoint
ALTER TABLE "deals" ALTER COLUMN "contact_id" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "organizations" ADD COLUMN "mcp_mask_personal_data" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "leads" ADD COLUMN "referrer" text;--> statement-breakpoint
ALTER TABLE "leads" ADD COLUMN "outcome" text;--> statement-breakpoint
ALTER TABLE "leads" ADD COLUMN "matched_on" text;--> statement-breakpoint
ALTER TABLE "visit_requests" ADD COLUMN "appointment_id" text;--> statement-breakpoint
ALTER TABLE "visit_requests" ADD COLUMN "decline_reason" text;--> statement-breakpoint
ALTER TABLE "visit_requests" ADD COLUMN "decided_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "contact_consents" ADD CONSTRAINT "contact_consents_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "contact_consents" ADD CONSTRAINT "contact_consents_contact_id_contacts_id_fk" FOREIGN KEY ("contact_id") REFERENCES "public"."contacts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "deal_stage_changes" ADD CONSTRAINT "deal_stage_changes_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "deal_stage_changes" ADD CONSTRAINT "deal_stage_changes_deal_id_deals_id_fk" FOREIGN KEY ("deal_id") REFERENCES "public"."deals"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "contact_consents_contact_id_channel_created_at_idx" ON "contact_consents" USING btree ("contact_id","channel","created_at" DESC NULLS LAST,"id");--> statement-breakpoint
CREATE INDEX "contact_consents_organization_id_idx" ON "contact_consents" USING btree ("organization_id");--> statement-breakpoint
CREATE INDEX "deal_stage_changes_deal_id_created_at_idx" ON "deal_stage_changes" USING btree ("deal_id","created_at" DESC NULLS LAST,"id");--> statement-breakpoint
CREATE INDEX "deal_stage_changes_organization_id_idx" ON "deal_stage_changes" USING btree ("organization_id");--> statement-breakpoint
ALTER TABLE "visit_requests" ADD CONSTRAINT "visit_requests_appointment_id_appointments_id_fk" FOREIGN KEY ("appointment_id") REFERENCES "public"."appointments"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "deals" ADD CONSTRAINT "deals_contact_id_contacts_id_fk" FOREIGN KEY ("contact_id") REFERENCES "public"."contacts"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "leads_organization_id_outcome_created_at_idx" ON "leads" USING btree ("organization_id","outcome","created_at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "visit_requests_appointment_id_idx" ON "visit_requests" USING btree ("appointment_id");--> statement-breakpoint

SELECT agency_enable_tenant_rls('contact_consents');--> statement-breakpoint
SELECT agency_enable_tenant_rls('deal_stage_changes');
