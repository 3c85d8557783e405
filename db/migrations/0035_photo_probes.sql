-- Issue 40 item 2 (decision 0266). Kyero takes an image only by a URL ending in .jpg, .jpeg, .png or .gif;
-- a photo given by another URL is judged by the media type its address answers. photo_probes is the
-- queue of listings with such photos not probed yet: the worker's photos.probe job claims due rows,
-- records each answer as contentType in the photos JSON and deletes the row (or delays it after a
-- failure). Written by triggers on properties, so every writer (listing API, back office, import, MCP)
-- enqueues in its own transaction.
CREATE TABLE "photo_probes" (
	"organization_id" text NOT NULL,
	"property_id" text NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"due_at" timestamp with time zone DEFAULT now() NOT NULL,
	"locked_until" timestamp with time zone,
	"last_error" text,
	CONSTRAINT "photo_probes_organization_id_property_id_pk" PRIMARY KEY("organization_id","property_id")
);
--> statement-breakpoint
ALTER TABLE "photo_probes" ADD CONSTRAINT "photo_probes_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "photo_probes" ADD CONSTRAINT "photo_probes_property_fk" FOREIGN KEY ("organization_id","property_id") REFERENCES "public"."properties"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "photo_probes_due_at_idx" ON "photo_probes" USING btree ("due_at");--> statement-breakpoint
SELECT agency_enable_tenant_rls('photo_probes');--> statement-breakpoint
-- Whether a photos array holds a photo given by URL with no image file ending and no contentType yet.
CREATE FUNCTION agency_photos_unprobed(photos jsonb) RETURNS boolean LANGUAGE sql IMMUTABLE AS $fn$
  SELECT EXISTS (
    SELECT 1 FROM jsonb_array_elements(photos) AS photo
    WHERE jsonb_typeof(photo) = 'object' AND NOT photo ? 'sizes' AND NOT photo ? 'contentType'
      AND photo->>'url' ~* '^https?://' AND photo->>'url' !~* '\.(gif|jpe?g|png)$'
  )
$fn$;--> statement-breakpoint
-- A listing written with such photos is due now (an earlier row keeps its attempts: a failing address is
-- not hammered by edits). An organization being deleted is skipped, as in migration 0033.
CREATE FUNCTION agency_enqueue_photo_probes() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  INSERT INTO photo_probes (organization_id, property_id, due_at)
  SELECT written.organization_id, written.id, now()
  FROM written
  WHERE agency_photos_unprobed(written.photos)
    AND EXISTS (SELECT 1 FROM organizations o WHERE o.id = written.organization_id)
  ON CONFLICT (organization_id, property_id) DO UPDATE SET due_at = LEAST(photo_probes.due_at, excluded.due_at);
  RETURN NULL;
END
$fn$;--> statement-breakpoint
CREATE TRIGGER properties_photo_probes_insert AFTER INSERT ON properties REFERENCING NEW TABLE AS written
  FOR EACH STATEMENT EXECUTE FUNCTION agency_enqueue_photo_probes();--> statement-breakpoint
CREATE TRIGGER properties_photo_probes_update AFTER UPDATE ON properties REFERENCING NEW TABLE AS written
  FOR EACH STATEMENT EXECUTE FUNCTION agency_enqueue_photo_probes();
