-- Issue 25 (the agency's listing API). property_changes keeps every price and status change of a
-- property, written in the transaction of the change, for GET /v1/listings/{id}/history; its rows go
-- with their property. properties gets an index on (organization_id, updated_at, id) over every
-- status: the listing API's cursor mode (the portal's updated_at index covers the visible stock only).
-- History starts with this migration: existing properties have no rows until they change.
CREATE TABLE "property_changes" (
	"id" text NOT NULL,
	"organization_id" text NOT NULL,
	"property_id" text NOT NULL,
	"kind" text NOT NULL,
	"previous_status" text,
	"status" text,
	"previous_price" numeric(14, 2),
	"price" numeric(14, 2),
	"currency" text,
	"actor_kind" text NOT NULL,
	"actor_user_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "property_changes_organization_id_id_pk" PRIMARY KEY("organization_id","id")
);
--> statement-breakpoint
ALTER TABLE "property_changes" ADD CONSTRAINT "property_changes_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "property_changes" ADD CONSTRAINT "property_changes_property_id_properties_id_fk" FOREIGN KEY ("organization_id","property_id") REFERENCES "public"."properties"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "property_changes_property_id_created_at_idx" ON "property_changes" USING btree ("organization_id","property_id","created_at","id");--> statement-breakpoint
CREATE INDEX "properties_organization_id_updated_at_idx" ON "properties" USING btree ("organization_id","updated_at","id");--> statement-breakpoint
SELECT agency_enable_tenant_rls('property_changes');
