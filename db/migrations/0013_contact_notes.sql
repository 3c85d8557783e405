CREATE TABLE "contact_notes" (
	"id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"contact_id" text NOT NULL,
	"body" text NOT NULL,
	"author_agent_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "contact_notes" ADD CONSTRAINT "contact_notes_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "contact_notes" ADD CONSTRAINT "contact_notes_contact_id_contacts_id_fk" FOREIGN KEY ("contact_id") REFERENCES "public"."contacts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "contact_notes" ADD CONSTRAINT "contact_notes_author_agent_id_agents_id_fk" FOREIGN KEY ("author_agent_id") REFERENCES "public"."agents"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "contact_notes_contact_id_created_at_idx" ON "contact_notes" USING btree ("contact_id","created_at" DESC NULLS LAST,"id");--> statement-breakpoint
CREATE INDEX "contact_notes_organization_id_idx" ON "contact_notes" USING btree ("organization_id");--> statement-breakpoint
CREATE INDEX "contact_notes_author_agent_id_idx" ON "contact_notes" USING btree ("author_agent_id");--> statement-breakpoint
SELECT agency_enable_tenant_rls('contact_notes');
