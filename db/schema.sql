--
-- PostgreSQL database dump
--

SET statement_timeout = 0;
SET lock_timeout = 0;
SET idle_in_transaction_session_timeout = 0;
SET client_encoding = 'UTF8';
SET standard_conforming_strings = on;
SELECT pg_catalog.set_config('search_path', '', false);
SET check_function_bodies = false;
SET xmloption = content;
SET client_min_messages = warning;
SET row_security = off;

--
-- Name: drizzle; Type: SCHEMA; Schema: -; Owner: -
--

CREATE SCHEMA drizzle;

--
-- Name: agency_enable_tenant_rls(regclass, text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.agency_enable_tenant_rls(target regclass, tenant_column text DEFAULT 'organization_id'::text) RETURNS void
    LANGUAGE plpgsql
    AS $$
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
$$;

SET default_tablespace = '';

SET default_table_access_method = heap;

--
-- Name: __drizzle_migrations; Type: TABLE; Schema: drizzle; Owner: -
--

CREATE TABLE drizzle.__drizzle_migrations (
    id integer NOT NULL,
    hash text NOT NULL,
    created_at bigint
);

--
-- Name: __drizzle_migrations_id_seq; Type: SEQUENCE; Schema: drizzle; Owner: -
--

CREATE SEQUENCE drizzle.__drizzle_migrations_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

--
-- Name: __drizzle_migrations_id_seq; Type: SEQUENCE OWNED BY; Schema: drizzle; Owner: -
--

ALTER SEQUENCE drizzle.__drizzle_migrations_id_seq OWNED BY drizzle.__drizzle_migrations.id;

--
-- Name: api_keys; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.api_keys (
    id text NOT NULL,
    organization_id text NOT NULL,
    type text NOT NULL,
    mode text NOT NULL,
    key_hash text NOT NULL,
    key_prefix text NOT NULL,
    name text,
    scopes text[] NOT NULL,
    access_level smallint DEFAULT 1 NOT NULL,
    status text DEFAULT 'active'::text NOT NULL,
    expires_at timestamp with time zone,
    rate_limit_per_minute integer,
    write_limit_per_minute integer,
    agent_id text,
    last_used_at timestamp with time zone,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL
);

ALTER TABLE ONLY public.api_keys FORCE ROW LEVEL SECURITY;

--
-- Name: events; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.events (
    id text NOT NULL,
    organization_id text NOT NULL,
    type text NOT NULL,
    livemode boolean NOT NULL,
    actor jsonb NOT NULL,
    data jsonb NOT NULL,
    created_at timestamp(3) with time zone DEFAULT now() NOT NULL
);

ALTER TABLE ONLY public.events FORCE ROW LEVEL SECURITY;

--
-- Name: idempotency_keys; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.idempotency_keys (
    organization_id text NOT NULL,
    key text NOT NULL,
    fingerprint text NOT NULL,
    status text NOT NULL,
    response_status integer,
    response_body text,
    locked_until timestamp with time zone,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    expires_at timestamp with time zone DEFAULT (now() + '24:00:00'::interval) NOT NULL
);

ALTER TABLE ONLY public.idempotency_keys FORCE ROW LEVEL SECURITY;

--
-- Name: organizations; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.organizations (
    id text NOT NULL,
    name text NOT NULL,
    plan text NOT NULL,
    is_active boolean DEFAULT true NOT NULL,
    read_only boolean DEFAULT false NOT NULL,
    write_limit_per_minute integer,
    default_country text DEFAULT 'US'::text NOT NULL,
    default_currency text DEFAULT 'USD'::text NOT NULL,
    live_organization_id text,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL
);

ALTER TABLE ONLY public.organizations FORCE ROW LEVEL SECURITY;

--
-- Name: __drizzle_migrations id; Type: DEFAULT; Schema: drizzle; Owner: -
--

ALTER TABLE ONLY drizzle.__drizzle_migrations ALTER COLUMN id SET DEFAULT nextval('drizzle.__drizzle_migrations_id_seq'::regclass);

--
-- Name: __drizzle_migrations __drizzle_migrations_pkey; Type: CONSTRAINT; Schema: drizzle; Owner: -
--

ALTER TABLE ONLY drizzle.__drizzle_migrations
    ADD CONSTRAINT __drizzle_migrations_pkey PRIMARY KEY (id);

--
-- Name: api_keys api_keys_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.api_keys
    ADD CONSTRAINT api_keys_pkey PRIMARY KEY (id);

--
-- Name: events events_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.events
    ADD CONSTRAINT events_pkey PRIMARY KEY (id);

--
-- Name: idempotency_keys idempotency_keys_organization_id_key_pk; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.idempotency_keys
    ADD CONSTRAINT idempotency_keys_organization_id_key_pk PRIMARY KEY (organization_id, key);

--
-- Name: organizations organizations_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.organizations
    ADD CONSTRAINT organizations_pkey PRIMARY KEY (id);

--
-- Name: api_keys_key_hash_key; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX api_keys_key_hash_key ON public.api_keys USING btree (key_hash);

--
-- Name: api_keys_organization_id_created_at_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX api_keys_organization_id_created_at_idx ON public.api_keys USING btree (organization_id, created_at);

--
-- Name: events_organization_id_created_at_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX events_organization_id_created_at_idx ON public.events USING btree (organization_id, created_at DESC NULLS LAST);

--
-- Name: events_organization_id_type_created_at_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX events_organization_id_type_created_at_idx ON public.events USING btree (organization_id, type, created_at DESC NULLS LAST);

--
-- Name: idempotency_keys_expires_at_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idempotency_keys_expires_at_idx ON public.idempotency_keys USING btree (expires_at);

--
-- Name: organizations_live_organization_id_key; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX organizations_live_organization_id_key ON public.organizations USING btree (live_organization_id);

--
-- Name: api_keys api_keys_organization_id_organizations_id_fk; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.api_keys
    ADD CONSTRAINT api_keys_organization_id_organizations_id_fk FOREIGN KEY (organization_id) REFERENCES public.organizations(id) ON DELETE CASCADE;

--
-- Name: events events_organization_id_organizations_id_fk; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.events
    ADD CONSTRAINT events_organization_id_organizations_id_fk FOREIGN KEY (organization_id) REFERENCES public.organizations(id) ON DELETE CASCADE;

--
-- Name: idempotency_keys idempotency_keys_organization_id_organizations_id_fk; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.idempotency_keys
    ADD CONSTRAINT idempotency_keys_organization_id_organizations_id_fk FOREIGN KEY (organization_id) REFERENCES public.organizations(id) ON DELETE CASCADE;

--
-- Name: organizations organizations_live_organization_id_organizations_id_fk; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.organizations
    ADD CONSTRAINT organizations_live_organization_id_organizations_id_fk FOREIGN KEY (live_organization_id) REFERENCES public.organizations(id) ON DELETE CASCADE;

--
-- Name: api_keys; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.api_keys ENABLE ROW LEVEL SECURITY;

--
-- Name: events; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.events ENABLE ROW LEVEL SECURITY;

--
-- Name: idempotency_keys; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.idempotency_keys ENABLE ROW LEVEL SECURITY;

--
-- Name: organizations; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.organizations ENABLE ROW LEVEL SECURITY;

--
-- Name: api_keys system_access; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY system_access ON public.api_keys TO agency_system USING (true) WITH CHECK (true);

--
-- Name: events system_access; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY system_access ON public.events TO agency_system USING (true) WITH CHECK (true);

--
-- Name: idempotency_keys system_access; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY system_access ON public.idempotency_keys TO agency_system USING (true) WITH CHECK (true);

--
-- Name: organizations system_access; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY system_access ON public.organizations TO agency_system USING (true) WITH CHECK (true);

--
-- Name: api_keys tenant_isolation; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY tenant_isolation ON public.api_keys TO agency_app USING ((organization_id = NULLIF(current_setting('app.organization_id'::text, true), ''::text))) WITH CHECK ((organization_id = NULLIF(current_setting('app.organization_id'::text, true), ''::text)));

--
-- Name: events tenant_isolation; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY tenant_isolation ON public.events TO agency_app USING ((organization_id = NULLIF(current_setting('app.organization_id'::text, true), ''::text))) WITH CHECK ((organization_id = NULLIF(current_setting('app.organization_id'::text, true), ''::text)));

--
-- Name: idempotency_keys tenant_isolation; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY tenant_isolation ON public.idempotency_keys TO agency_app USING ((organization_id = NULLIF(current_setting('app.organization_id'::text, true), ''::text))) WITH CHECK ((organization_id = NULLIF(current_setting('app.organization_id'::text, true), ''::text)));

--
-- Name: organizations tenant_isolation; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY tenant_isolation ON public.organizations TO agency_app USING ((id = NULLIF(current_setting('app.organization_id'::text, true), ''::text))) WITH CHECK ((id = NULLIF(current_setting('app.organization_id'::text, true), ''::text)));

--
-- PostgreSQL database dump complete
--
