-- Issue 40 item 1 (decision 0263). A deleted listing stays in the RESO walk as a Delete record: one row
-- per deleted listing of an organization (its id and code, when it was deleted), kept as long as the
-- organization is and gone with it. Deletions before this migration are not recorded.
CREATE TABLE "reso_deletions" (
	"organization_id" text NOT NULL,
	"property_id" text NOT NULL,
	"code" text NOT NULL,
	"deleted_at" timestamp with time zone NOT NULL,
	CONSTRAINT "reso_deletions_organization_id_property_id_pk" PRIMARY KEY("organization_id","property_id")
);
--> statement-breakpoint
ALTER TABLE "reso_deletions" ADD CONSTRAINT "reso_deletions_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "reso_deletions_organization_id_deleted_at_idx" ON "reso_deletions" USING btree ("organization_id","deleted_at","property_id");--> statement-breakpoint
SELECT agency_enable_tenant_rls('reso_deletions');--> statement-breakpoint
-- Every deletion of a listing, whoever deletes (back office, listing API, MCP, a script), leaves its RESO
-- Delete record in the deleting statement's transaction (decision 0263). It is dated by the clock at the
-- deletion, never before the listing's last change: `now()` (the transaction's start) could date it
-- before a change that committed while the deleting transaction ran, and a replica that saw that
-- change would never see the deletion. An organization being deleted is skipped, as in migration 0019:
-- its Delete records would go with it (and the row would break the foreign key).
CREATE FUNCTION agency_record_reso_deletions() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  INSERT INTO reso_deletions (organization_id, property_id, code, deleted_at)
  SELECT gone.organization_id, gone.id, gone.code,
    greatest(clock_timestamp(), gone.updated_at + interval '1 microsecond')
  FROM gone
  WHERE EXISTS (SELECT 1 FROM organizations o WHERE o.id = gone.organization_id)
  ON CONFLICT (organization_id, property_id) DO UPDATE
    SET code = excluded.code, deleted_at = excluded.deleted_at;
  RETURN NULL;
END
$fn$;--> statement-breakpoint
CREATE TRIGGER properties_reso_deletions AFTER DELETE ON properties REFERENCING OLD TABLE AS gone
  FOR EACH STATEMENT EXECUTE FUNCTION agency_record_reso_deletions();--> statement-breakpoint
-- A listing's id is generated and never given by a client, so a deleted one does not come back; if one
-- ever did (a restore), its Delete record goes: a key is a listing or a Delete record, never both.
CREATE FUNCTION agency_forget_reso_deletions() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  DELETE FROM reso_deletions d USING created
  WHERE d.organization_id = created.organization_id AND d.property_id = created.id;
  RETURN NULL;
END
$fn$;--> statement-breakpoint
CREATE TRIGGER properties_forget_reso_deletions AFTER INSERT ON properties REFERENCING NEW TABLE AS created
  FOR EACH STATEMENT EXECUTE FUNCTION agency_forget_reso_deletions();
