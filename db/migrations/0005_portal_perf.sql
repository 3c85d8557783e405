DROP INDEX "contacts_search_text_trgm_idx";--> statement-breakpoint
DROP INDEX "properties_portal_city_trgm_idx";--> statement-breakpoint
DROP INDEX "properties_portal_neighborhood_trgm_idx";--> statement-breakpoint
DROP INDEX "contacts_organization_id_created_at_idx";--> statement-breakpoint
DROP INDEX "properties_organization_id_created_at_idx";--> statement-breakpoint
DROP INDEX "properties_portal_created_at_idx";--> statement-breakpoint
DROP INDEX "properties_portal_price_idx";--> statement-breakpoint
DROP INDEX "properties_portal_area_idx";--> statement-breakpoint
DROP INDEX "properties_portal_type_idx";--> statement-breakpoint
DROP INDEX "properties_portal_bedrooms_idx";--> statement-breakpoint
DROP INDEX "properties_portal_featured_idx";--> statement-breakpoint
ALTER TABLE "properties" ADD COLUMN "price_value" double precision GENERATED ALWAYS AS (price::double precision) STORED NOT NULL;--> statement-breakpoint
ALTER TABLE "properties" ADD COLUMN "area_value" double precision GENERATED ALWAYS AS (area::double precision) STORED;--> statement-breakpoint
CREATE INDEX "properties_portal_area_desc_idx" ON "properties" USING btree ("organization_id","area_value" DESC NULLS LAST,"id" DESC NULLS FIRST) WHERE status = 'ACTIVE' AND published_on_portal;--> statement-breakpoint
CREATE INDEX "properties_portal_bathrooms_idx" ON "properties" USING btree ("organization_id","bathrooms","price_value") WHERE status = 'ACTIVE' AND published_on_portal;--> statement-breakpoint
CREATE INDEX "properties_portal_city_idx" ON "properties" USING btree ("organization_id","search_city","price_value","id") WHERE status = 'ACTIVE' AND published_on_portal;--> statement-breakpoint
CREATE INDEX "properties_portal_neighborhood_idx" ON "properties" USING btree ("organization_id","search_neighborhood","price_value") WHERE status = 'ACTIVE' AND published_on_portal;--> statement-breakpoint
CREATE INDEX "contacts_organization_id_created_at_idx" ON "contacts" USING btree ("organization_id","created_at","id","search_text");--> statement-breakpoint
CREATE INDEX "properties_organization_id_created_at_idx" ON "properties" USING btree ("organization_id","created_at","id");--> statement-breakpoint
CREATE INDEX "properties_portal_created_at_idx" ON "properties" USING btree ("organization_id","created_at","id") WHERE status = 'ACTIVE' AND published_on_portal;--> statement-breakpoint
CREATE INDEX "properties_portal_price_idx" ON "properties" USING btree ("organization_id","price_value","id") WHERE status = 'ACTIVE' AND published_on_portal;--> statement-breakpoint
CREATE INDEX "properties_portal_area_idx" ON "properties" USING btree ("organization_id","area_value","id") WHERE status = 'ACTIVE' AND published_on_portal;--> statement-breakpoint
CREATE INDEX "properties_portal_type_idx" ON "properties" USING btree ("organization_id","transaction_type","type","price_value") WHERE status = 'ACTIVE' AND published_on_portal;--> statement-breakpoint
CREATE INDEX "properties_portal_bedrooms_idx" ON "properties" USING btree ("organization_id","bedrooms","price_value") WHERE status = 'ACTIVE' AND published_on_portal;--> statement-breakpoint
CREATE INDEX "properties_portal_featured_idx" ON "properties" USING btree ("organization_id","created_at","id") WHERE status = 'ACTIVE' AND published_on_portal AND featured;