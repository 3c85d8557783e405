-- Issue 40 item 3. The feeds' Last-Modified is the portal version's changed_at (migration 0024), which
-- was now(): the start of the writing transaction, so a long transaction could set it earlier than a
-- version committed before it, and a client holding that version's date got a 304 for a changed feed.
-- Now it is the time of the write itself (clock_timestamp()), never earlier than the previous one (the
-- bumps of one organization queue on its counter row). The feed route gives Last-Modified only once that
-- second is more than a second past (features/feeds/feeds.routes.ts): two changes within one second, with
-- a poll between them, never share a date a client was told.
CREATE OR REPLACE FUNCTION agency_bump_portal_version() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  INSERT INTO organization_counters (organization_id, name, value, changed_at)
  SELECT touched.organization_id, 'portal_version', 1, clock_timestamp()
  FROM (SELECT DISTINCT changed.organization_id FROM changed) AS touched
  WHERE EXISTS (SELECT 1 FROM organizations o WHERE o.id = touched.organization_id)
  ON CONFLICT (organization_id, name)
    DO UPDATE SET value = organization_counters.value + 1,
      changed_at = GREATEST(clock_timestamp(), organization_counters.changed_at);
  RETURN NULL;
END
$fn$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION agency_bump_portal_version_of_organizations() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  INSERT INTO organization_counters (organization_id, name, value, changed_at)
  SELECT changed.id, 'portal_version', 1, clock_timestamp()
  FROM changed
  ON CONFLICT (organization_id, name)
    DO UPDATE SET value = organization_counters.value + 1,
      changed_at = GREATEST(clock_timestamp(), organization_counters.changed_at);
  RETURN NULL;
END
$fn$;
