-- The portal version (decision 0225): a per-organization counter, `organization_counters` row
-- `portal_version`, bumped in the same transaction as any write that changes what the public portal
-- shows (properties, agents, portal settings, the organization's own row), by statement-level
-- triggers, so no write path (admin API, CSV import, future ones) can forget it. The response cache
-- keys every answer by it. One bump per statement and organization, whatever the rows touched.
-- An organization being deleted is skipped (its counters go with it; the row would break the FK).
CREATE FUNCTION agency_bump_portal_version() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  INSERT INTO organization_counters (organization_id, name, value)
  SELECT DISTINCT changed.organization_id, 'portal_version', 1
  FROM changed
  WHERE EXISTS (SELECT 1 FROM organizations o WHERE o.id = changed.organization_id)
  ON CONFLICT (organization_id, name) DO UPDATE SET value = organization_counters.value + 1;
  RETURN NULL;
END
$fn$;
--> statement-breakpoint
CREATE FUNCTION agency_bump_portal_version_of_organizations() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  INSERT INTO organization_counters (organization_id, name, value)
  SELECT changed.id, 'portal_version', 1
  FROM changed
  ON CONFLICT (organization_id, name) DO UPDATE SET value = organization_counters.value + 1;
  RETURN NULL;
END
$fn$;
--> statement-breakpoint
DO $$
DECLARE
  target text;
BEGIN
  FOREACH target IN ARRAY ARRAY['properties', 'agents', 'portal_settings'] LOOP
    EXECUTE format(
      'CREATE TRIGGER %1$s_portal_version_insert AFTER INSERT ON %1$I REFERENCING NEW TABLE AS changed '
      'FOR EACH STATEMENT EXECUTE FUNCTION agency_bump_portal_version()', target);
    EXECUTE format(
      'CREATE TRIGGER %1$s_portal_version_update AFTER UPDATE ON %1$I REFERENCING NEW TABLE AS changed '
      'FOR EACH STATEMENT EXECUTE FUNCTION agency_bump_portal_version()', target);
    EXECUTE format(
      'CREATE TRIGGER %1$s_portal_version_delete AFTER DELETE ON %1$I REFERENCING OLD TABLE AS changed '
      'FOR EACH STATEMENT EXECUTE FUNCTION agency_bump_portal_version()', target);
  END LOOP;
END
$$;
--> statement-breakpoint
CREATE TRIGGER organizations_portal_version_update AFTER UPDATE ON organizations
  REFERENCING NEW TABLE AS changed
  FOR EACH STATEMENT EXECUTE FUNCTION agency_bump_portal_version_of_organizations();
