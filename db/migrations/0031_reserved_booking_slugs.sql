-- Issue 40 item 6 (decision 0252). `agents` and `manage` are routes under /v1/booking/ (the agents list,
-- the visitors' manage links), so the API now refuses them as booking slugs; an agent that held one had
-- its page shadowed (`manage`) or would have (`agents`). Each such agent gets `<slug>-agent-<end of its
-- id>`, free in its organization since agent ids are unique. No event is recorded: a repair of data the
-- API can no longer write, listed in docs/changelog.md. Row-level security is forced on agents, so the
-- update runs as agency_system (its policy sees every organization), then the role is reset for the rest
-- of the migration.
DO $$
BEGIN
  IF pg_has_role(current_user, 'agency_system', 'MEMBER') THEN
    SET LOCAL ROLE agency_system;
  END IF;
END
$$;--> statement-breakpoint
UPDATE agents
SET booking_slug = booking_slug || '-agent-' || lower(right(id, 8)), updated_at = now()
WHERE lower(booking_slug) IN ('agents', 'manage');--> statement-breakpoint
RESET ROLE;
