CREATE TABLE "conversations" (
	"id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"contact_id" text NOT NULL,
	"mode" text DEFAULT 'AUTOMATED' NOT NULL,
	"blocked" boolean DEFAULT false NOT NULL,
	"last_inbound_at" timestamp with time zone,
	"last_message_id" text,
	"last_message_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "message_templates" (
	"id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"name" text NOT NULL,
	"language" text NOT NULL,
	"category" text NOT NULL,
	"body" text NOT NULL,
	"variables" text[] DEFAULT '{}'::text[] NOT NULL,
	"status" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "messages" (
	"id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"contact_id" text NOT NULL,
	"chat_message_id" text,
	"direction" text NOT NULL,
	"type" text NOT NULL,
	"body" text NOT NULL,
	"rendered_body" text,
	"status" text NOT NULL,
	"template_id" text,
	"variables" jsonb,
	"usage" jsonb,
	"agent_id" text,
	"failure_reason" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "messaging_numbers" (
	"id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"phone" text NOT NULL,
	"provider_number_id" text NOT NULL,
	"active" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "conversations" ADD CONSTRAINT "conversations_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "conversations" ADD CONSTRAINT "conversations_contact_id_contacts_id_fk" FOREIGN KEY ("contact_id") REFERENCES "public"."contacts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "message_templates" ADD CONSTRAINT "message_templates_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "messages" ADD CONSTRAINT "messages_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "messages" ADD CONSTRAINT "messages_contact_id_contacts_id_fk" FOREIGN KEY ("contact_id") REFERENCES "public"."contacts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "messages" ADD CONSTRAINT "messages_template_id_message_templates_id_fk" FOREIGN KEY ("template_id") REFERENCES "public"."message_templates"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "messages" ADD CONSTRAINT "messages_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agents"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "messaging_numbers" ADD CONSTRAINT "messaging_numbers_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "conversations_organization_id_contact_id_key" ON "conversations" USING btree ("organization_id","contact_id");--> statement-breakpoint
CREATE INDEX "conversations_organization_id_last_message_at_idx" ON "conversations" USING btree ("organization_id","last_message_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "conversations_contact_id_idx" ON "conversations" USING btree ("contact_id");--> statement-breakpoint
CREATE UNIQUE INDEX "message_templates_organization_id_name_language_key" ON "message_templates" USING btree ("organization_id","name","language");--> statement-breakpoint
CREATE INDEX "message_templates_organization_id_created_at_idx" ON "message_templates" USING btree ("organization_id","created_at");--> statement-breakpoint
CREATE INDEX "messages_contact_id_created_at_idx" ON "messages" USING btree ("contact_id","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "messages_organization_id_created_at_idx" ON "messages" USING btree ("organization_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "messages_organization_id_chat_message_id_key" ON "messages" USING btree ("organization_id","chat_message_id");--> statement-breakpoint
CREATE INDEX "messages_queued_created_at_idx" ON "messages" USING btree ("created_at") WHERE status = 'QUEUED';--> statement-breakpoint
CREATE INDEX "messages_template_id_idx" ON "messages" USING btree ("template_id");--> statement-breakpoint
CREATE INDEX "messages_agent_id_idx" ON "messages" USING btree ("agent_id");--> statement-breakpoint
CREATE UNIQUE INDEX "messaging_numbers_organization_id_phone_key" ON "messaging_numbers" USING btree ("organization_id","phone");--> statement-breakpoint
CREATE UNIQUE INDEX "messaging_numbers_one_active_key" ON "messaging_numbers" USING btree ("organization_id") WHERE active;--> statement-breakpoint
CREATE INDEX "messaging_numbers_organization_id_created_at_idx" ON "messaging_numbers" USING btree ("organization_id","created_at");--> statement-breakpoint
-- hand-written below (re-append when regenerating)
SELECT agency_enable_tenant_rls('messaging_numbers');
--> statement-breakpoint
SELECT agency_enable_tenant_rls('message_templates');
--> statement-breakpoint
SELECT agency_enable_tenant_rls('conversations');
--> statement-breakpoint
SELECT agency_enable_tenant_rls('messages');
