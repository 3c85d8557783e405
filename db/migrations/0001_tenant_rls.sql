-- Tenant isolation, the second wall behind the `organization_id` filter every store writes.
--
-- Two NOLOGIN roles, entered with SET LOCAL ROLE by src/db/database.ts:
--   agency_app    every request: sees only rows whose organization_id equals the transaction-local
--                 setting app.organization_id (nothing at all when it is unset);
--   agency_system explicit cross-tenant work (key lookup, worker jobs, operator admin).
-- Tables are FORCE'd so that the owner that runs migrations is bound by the policies too.
-- Roles are cluster-wide: creation tolerates another database's migration creating them first.
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'agency_app') THEN
    BEGIN
      CREATE ROLE agency_app NOLOGIN;
    EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL;
    END;
  END IF;
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'agency_system') THEN
    BEGIN
      CREATE ROLE agency_system NOLOGIN;
    EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL;
    END;
  END IF;
END
$$;
--> statement-breakpoint
DO $$
BEGIN
  -- The connecting (owner) role must be able to SET ROLE to both.
  IF NOT pg_has_role(current_user, 'agency_app', 'MEMBER') THEN
    EXECUTE format('GRANT agency_app TO %I', current_user);
  END IF;
  IF NOT pg_has_role(current_user, 'agency_system', 'MEMBER') THEN
    EXECUTE format('GRANT agency_system TO %I', current_user);
  END IF;
END
$$;
--> statement-breakpoint
GRANT USAGE ON SCHEMA public TO agency_app, agency_system;
--> statement-breakpoint
GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO agency_app, agency_system;
--> statement-breakpoint
ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO agency_app, agency_system;
--> statement-breakpoint
-- Every later migration that adds a tenant table calls this once: SELECT agency_enable_tenant_rls('contacts');
CREATE OR REPLACE FUNCTION agency_enable_tenant_rls(target regclass, tenant_column text DEFAULT 'organization_id')
RETURNS void LANGUAGE plpgsql AS $fn$
BEGIN
  EXECUTE format('ALTER TABLE %s ENABLE ROW LEVEL SECURITY', target);
  EXECUTE format('ALTER TABLE %s FORCE ROW LEVEL SECURITY', target);
  EXECUTE format(
    'CREATE POLICY tenant_isolation ON %s AS PERMISSIVE FOR ALL TO agency_app '
    'USING (%I = nullif(current_setting(''app.organization_id'', true), '''')) '
    'WITH CHECK (%I = nullif(current_setting(''app.organization_id'', true), ''''))',
    target, tenant_column, tenant_column);
  EXECUTE format(
    'CREATE POLICY system_access ON %s AS PERMISSIVE FOR ALL TO agency_system USING (true) WITH CHECK (true)',
    target);
END
$fn$;
--> statement-breakpoint
SELECT agency_enable_tenant_rls('organizations', 'id');
--> statement-breakpoint
SELECT agency_enable_tenant_rls('api_keys');
--> statement-breakpoint
SELECT agency_enable_tenant_rls('events');
--> statement-breakpoint
SELECT agency_enable_tenant_rls('idempotency_keys');
