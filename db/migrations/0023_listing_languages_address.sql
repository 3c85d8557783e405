-- Issue 25 items 4 and 5. Languages: a listing's title and description are in its organization's
-- default_language; properties.translations holds them in other languages, and other_languages says
-- which the portal serves (picked by `lang` or Accept-Language, the default otherwise). Address privacy:
-- properties.address_visibility (EXACT, STREET, HIDDEN) and coordinate_precision (decimals shown outside
-- the agency; null: the visibility's default) replace the single approximate_location flag, which stays
-- as `address_visibility = 'HIDDEN'` (SPEC's approximate location is that level): existing approximate
-- listings become HIDDEN, with the 2 decimals they had.
ALTER TABLE "organizations" ADD COLUMN "default_language" text DEFAULT 'en' NOT NULL;--> statement-breakpoint
ALTER TABLE "organizations" ADD COLUMN "other_languages" text[] DEFAULT '{}'::text[] NOT NULL;--> statement-breakpoint
ALTER TABLE "properties" ADD COLUMN "address_visibility" text DEFAULT 'EXACT' NOT NULL;--> statement-breakpoint
ALTER TABLE "properties" ADD COLUMN "coordinate_precision" integer;--> statement-breakpoint
ALTER TABLE "properties" ADD COLUMN "translations" jsonb DEFAULT '{}'::jsonb NOT NULL;--> statement-breakpoint
UPDATE "properties" SET "address_visibility" = 'HIDDEN' WHERE "approximate_location";
