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
-- Name: btree_gist; Type: EXTENSION; Schema: -; Owner: -
--

CREATE EXTENSION IF NOT EXISTS btree_gist WITH SCHEMA public;

--
-- Name: EXTENSION btree_gist; Type: COMMENT; Schema: -; Owner: -
--

COMMENT ON EXTENSION btree_gist IS 'support for indexing common datatypes in GiST';

--
-- Name: pg_trgm; Type: EXTENSION; Schema: -; Owner: -
--

CREATE EXTENSION IF NOT EXISTS pg_trgm WITH SCHEMA public;

--
-- Name: EXTENSION pg_trgm; Type: COMMENT; Schema: -; Owner: -
--

COMMENT ON EXTENSION pg_trgm IS 'text similarity measurement and index searching based on trigrams';

--
-- Name: agency_appointment_sequence(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.agency_appointment_sequence() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
  IF NEW.starts_at IS DISTINCT FROM OLD.starts_at OR NEW.ends_at IS DISTINCT FROM OLD.ends_at
     OR NEW.status IS DISTINCT FROM OLD.status THEN
    NEW.sequence := OLD.sequence + 1;
  ELSE
    NEW.sequence := OLD.sequence;
  END IF;
  RETURN NEW;
END
$$;

--
-- Name: agency_bump_portal_version(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.agency_bump_portal_version() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
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
$$;

--
-- Name: agency_bump_portal_version_of_organizations(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.agency_bump_portal_version_of_organizations() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
  INSERT INTO organization_counters (organization_id, name, value, changed_at)
  SELECT changed.id, 'portal_version', 1, clock_timestamp()
  FROM changed
  ON CONFLICT (organization_id, name)
    DO UPDATE SET value = organization_counters.value + 1,
      changed_at = GREATEST(clock_timestamp(), organization_counters.changed_at);
  RETURN NULL;
END
$$;

--
-- Name: agency_bump_portal_version_of_properties(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.agency_bump_portal_version_of_properties() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
  INSERT INTO organization_counters (organization_id, name, value, changed_at)
  SELECT touched.organization_id, 'portal_version', 1, clock_timestamp()
  FROM (
    SELECT DISTINCT n.organization_id
    FROM changed AS n
    JOIN previous AS o ON o.organization_id = n.organization_id AND o.id = n.id
    WHERE agency_property_public(n) IS DISTINCT FROM agency_property_public(o)
  ) AS touched
  WHERE EXISTS (SELECT 1 FROM organizations AS org WHERE org.id = touched.organization_id)
  ON CONFLICT (organization_id, name)
    DO UPDATE SET value = organization_counters.value + 1,
      changed_at = GREATEST(clock_timestamp(), organization_counters.changed_at);
  RETURN NULL;
END
$$;

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

--
-- Name: agency_enqueue_photo_probes(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.agency_enqueue_photo_probes() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
  INSERT INTO photo_probes (organization_id, property_id, due_at)
  SELECT written.organization_id, written.id, now()
  FROM written
  WHERE agency_photos_unprobed(written.photos)
    AND EXISTS (SELECT 1 FROM organizations o WHERE o.id = written.organization_id)
  ON CONFLICT (organization_id, property_id) DO UPDATE SET due_at = LEAST(photo_probes.due_at, excluded.due_at);
  RETURN NULL;
END
$$;

--
-- Name: agency_forget_reso_deletions(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.agency_forget_reso_deletions() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
  DELETE FROM reso_deletions d USING created
  WHERE d.organization_id = created.organization_id AND d.property_id = created.id;
  RETURN NULL;
END
$$;

--
-- Name: agency_keep_on_market_date(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.agency_keep_on_market_date() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
  IF NEW.status = 'ACTIVE' AND NEW.on_market_date IS NULL THEN
    NEW.on_market_date := (now() AT TIME ZONE coalesce(
      (SELECT o.timezone FROM organizations o WHERE o.id = NEW.organization_id), 'UTC'))::date;
  END IF;
  IF TG_OP = 'UPDATE' AND OLD.on_market_date IS NOT NULL THEN
    NEW.on_market_date := OLD.on_market_date;
  END IF;
  RETURN NEW;
END
$$;

--
-- Name: agency_keep_previous_price(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.agency_keep_previous_price() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
  IF NEW.currency IS DISTINCT FROM OLD.currency OR NEW.price > OLD.price THEN
    NEW.previous_price := NULL;
  ELSIF NEW.price < OLD.price THEN
    NEW.previous_price := OLD.price;
  END IF;
  RETURN NEW;
END
$$;

--
-- Name: agency_new_id(text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.agency_new_id(prefix text) RETURNS text
    LANGUAGE plpgsql
    AS $$
DECLARE
  alphabet constant text := '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
  rest bigint := floor(extract(epoch FROM clock_timestamp()) * 1000);
  stamp text := '';
  tail text := '';
BEGIN
  FOR i IN 1..9 LOOP
    stamp := substr(alphabet, (rest % 62)::int + 1, 1) || stamp;
    rest := rest / 62;
  END LOOP;
  FOR i IN 1..13 LOOP
    tail := tail || substr(alphabet, floor(random() * 62)::int + 1, 1);
  END LOOP;
  RETURN prefix || '_' || stamp || tail;
END
$$;

--
-- Name: agency_photos_unprobed(jsonb); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.agency_photos_unprobed(photos jsonb) RETURNS boolean
    LANGUAGE sql IMMUTABLE
    AS $_$
  SELECT EXISTS (
    SELECT 1 FROM jsonb_array_elements(photos) AS photo
    WHERE jsonb_typeof(photo) = 'object' AND NOT photo ? 'sizes' AND NOT photo ? 'contentType'
      AND photo->>'url' ~* '^https?://' AND photo->>'url' !~* '\.(gif|jpe?g|png)$'
  )
$_$;

SET default_tablespace = '';

SET default_table_access_method = heap;

--
-- Name: properties; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.properties (
    id text NOT NULL,
    organization_id text NOT NULL,
    code text NOT NULL,
    title text NOT NULL,
    description text DEFAULT ''::text NOT NULL,
    transaction_type text NOT NULL,
    type text NOT NULL,
    status text DEFAULT 'ACTIVE'::text NOT NULL,
    published_on_portal boolean DEFAULT true NOT NULL,
    featured boolean DEFAULT false NOT NULL,
    price numeric(14,2) NOT NULL,
    currency text NOT NULL,
    city text NOT NULL,
    neighborhood text,
    address text,
    zip_code text,
    latitude double precision,
    longitude double precision,
    approximate_location boolean DEFAULT false NOT NULL,
    portal_latitude double precision,
    portal_longitude double precision,
    bedrooms integer DEFAULT 0 NOT NULL,
    bathrooms integer DEFAULT 0 NOT NULL,
    area numeric(10,2),
    amenities text[] DEFAULT '{}'::text[] NOT NULL,
    photos jsonb DEFAULT '[]'::jsonb NOT NULL,
    agent_id text,
    internal_notes text,
    custom_fields jsonb DEFAULT '{}'::jsonb NOT NULL,
    search_city text NOT NULL,
    search_neighborhood text DEFAULT ''::text NOT NULL,
    search_text text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    price_value double precision GENERATED ALWAYS AS ((price)::double precision) STORED NOT NULL,
    area_value double precision GENERATED ALWAYS AS ((area)::double precision) STORED,
    previous_price numeric(14,2),
    address_visibility text DEFAULT 'EXACT'::text NOT NULL,
    coordinate_precision integer,
    translations jsonb DEFAULT '{}'::jsonb NOT NULL,
    on_market_date date,
    public_updated_at timestamp with time zone DEFAULT now() NOT NULL
)
WITH (autovacuum_vacuum_insert_scale_factor='0.01', autovacuum_vacuum_scale_factor='0.02', autovacuum_analyze_scale_factor='0.02');

ALTER TABLE ONLY public.properties FORCE ROW LEVEL SECURITY;

--
-- Name: agency_property_public(public.properties); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.agency_property_public(p public.properties) RETURNS jsonb
    LANGUAGE sql IMMUTABLE
    AS $$
  SELECT to_jsonb(p) - ARRAY['internal_notes', 'custom_fields', 'on_market_date', 'updated_at',
    'public_updated_at', 'price_value', 'area_value', 'search_city', 'search_neighborhood', 'search_text']
$$;

--
-- Name: agency_queue_appointment_emails(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.agency_queue_appointment_emails() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
  IF NEW.starts_at <= now() THEN
    RETURN NULL;
  END IF;
  IF TG_OP = 'INSERT' THEN
    IF NEW.status IN ('SCHEDULED', 'CONFIRMED') THEN
      IF NEW.contact_id IS NOT NULL THEN
        PERFORM agency_queue_email(NEW.organization_id, 'VISIT_CONFIRMATION', NEW.id, NEW.sequence);
      END IF;
      IF NEW.source = 'BOOKING' THEN
        PERFORM agency_queue_email(NEW.organization_id, 'BOOKING_ALERT', NEW.id, NEW.sequence);
      END IF;
    END IF;
  ELSIF NEW.contact_id IS NOT NULL THEN
    IF NEW.status = 'CANCELLED' AND OLD.status IN ('SCHEDULED', 'CONFIRMED') THEN
      PERFORM agency_queue_email(NEW.organization_id, 'VISIT_CANCELLED', NEW.id, NEW.sequence);
    ELSIF NEW.status IN ('SCHEDULED', 'CONFIRMED')
      AND (NEW.starts_at <> OLD.starts_at OR NEW.ends_at <> OLD.ends_at) THEN
      PERFORM agency_queue_email(NEW.organization_id, 'VISIT_UPDATED', NEW.id, NEW.sequence);
    END IF;
  END IF;
  RETURN NULL;
END
$$;

--
-- Name: agency_queue_email(text, text, text, integer); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.agency_queue_email(org text, kind text, ref text, revision integer) RETURNS void
    LANGUAGE sql
    AS $$
  INSERT INTO emails (id, organization_id, kind, ref_id, revision)
  VALUES (agency_new_id('eml'), org, kind, ref, revision)
  ON CONFLICT (organization_id, kind, ref_id, revision) DO NOTHING
$$;

--
-- Name: agency_queue_lead_emails(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.agency_queue_lead_emails() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
  PERFORM agency_queue_email(NEW.organization_id, TG_ARGV[0], NEW.id, 0);
  RETURN NULL;
END
$$;

--
-- Name: agency_record_reso_deletions(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.agency_record_reso_deletions() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
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
$$;

--
-- Name: agency_stamp_event_sequence(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.agency_stamp_event_sequence() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
DECLARE
  next_sequence bigint;
BEGIN
  INSERT INTO event_sequences AS s (organization_id, last_sequence)
  VALUES (NEW.organization_id, 1)
  ON CONFLICT (organization_id) DO UPDATE SET last_sequence = s.last_sequence + 1
  RETURNING s.last_sequence INTO next_sequence;
  UPDATE events SET sequence = next_sequence WHERE organization_id = NEW.organization_id AND id = NEW.id;
  RETURN NULL;
END
$$;

--
-- Name: agency_touch_property(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.agency_touch_property() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    NEW.public_updated_at := NEW.updated_at;
    RETURN NEW;
  END IF;
  -- price_value and area_value are generated: not computed yet in NEW (agency_touch_updated_at's TG_ARGV).
  IF (to_jsonb(NEW) - ARRAY['price_value', 'area_value']) IS DISTINCT FROM
     (to_jsonb(OLD) - ARRAY['price_value', 'area_value']) THEN
    NEW.updated_at := now();
  END IF;
  IF agency_property_public(NEW) IS DISTINCT FROM agency_property_public(OLD) THEN
    NEW.public_updated_at := now();
  ELSE
    NEW.public_updated_at := OLD.public_updated_at;
  END IF;
  RETURN NEW;
END
$$;

--
-- Name: agency_touch_updated_at(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.agency_touch_updated_at() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
  -- TG_ARGV: generated columns, not computed yet in NEW, left out of the comparison.
  IF (to_jsonb(NEW) - coalesce(TG_ARGV, '{}')) IS DISTINCT FROM (to_jsonb(OLD) - coalesce(TG_ARGV, '{}')) THEN
    NEW.updated_at := now();
  END IF;
  RETURN NEW;
END
$$;

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
-- Name: agent_time_off; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.agent_time_off (
    id text NOT NULL,
    organization_id text NOT NULL,
    agent_id text NOT NULL,
    starts_at timestamp with time zone NOT NULL,
    ends_at timestamp with time zone NOT NULL,
    reason text,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT agent_time_off_span_check CHECK ((ends_at > starts_at))
);

ALTER TABLE ONLY public.agent_time_off FORCE ROW LEVEL SECURITY;

--
-- Name: agents; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.agents (
    id text NOT NULL,
    organization_id text NOT NULL,
    first_name text NOT NULL,
    last_name text DEFAULT ''::text NOT NULL,
    email text,
    phone text,
    photo_url text,
    bio text,
    active boolean DEFAULT true NOT NULL,
    show_on_portal boolean DEFAULT true NOT NULL,
    booking_slug text,
    booking jsonb,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL
);

ALTER TABLE ONLY public.agents FORCE ROW LEVEL SECURITY;

--
-- Name: analytics_daily; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.analytics_daily (
    organization_id text NOT NULL,
    day date NOT NULL,
    property_id text DEFAULT ''::text NOT NULL,
    type text NOT NULL,
    count bigint DEFAULT 0 NOT NULL
);

ALTER TABLE ONLY public.analytics_daily FORCE ROW LEVEL SECURITY;

--
-- Name: analytics_events; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.analytics_events (
    id bigint NOT NULL,
    organization_id text NOT NULL,
    type text NOT NULL,
    property_id text,
    referrer text,
    occurred_at timestamp with time zone NOT NULL
);

ALTER TABLE ONLY public.analytics_events FORCE ROW LEVEL SECURITY;

--
-- Name: analytics_events_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.analytics_events ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.analytics_events_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

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
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    scopes_follow_defaults boolean DEFAULT false NOT NULL
);

ALTER TABLE ONLY public.api_keys FORCE ROW LEVEL SECURITY;

--
-- Name: appointment_reminders; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.appointment_reminders (
    organization_id text NOT NULL,
    appointment_id text NOT NULL,
    offset_minutes integer NOT NULL,
    starts_at timestamp with time zone NOT NULL,
    status text NOT NULL,
    reason text,
    message_id text,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    dedupe_key text,
    locked_until timestamp with time zone,
    attempts integer DEFAULT 0 NOT NULL
);

ALTER TABLE ONLY public.appointment_reminders FORCE ROW LEVEL SECURITY;

--
-- Name: appointments; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.appointments (
    id text NOT NULL,
    organization_id text NOT NULL,
    agent_id text NOT NULL,
    contact_id text,
    property_id text,
    type text NOT NULL,
    status text NOT NULL,
    starts_at timestamp with time zone NOT NULL,
    ends_at timestamp with time zone NOT NULL,
    source text DEFAULT 'BOOKING'::text NOT NULL,
    notes text,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    sequence integer DEFAULT 0 NOT NULL
);

ALTER TABLE ONLY public.appointments FORCE ROW LEVEL SECURITY;

--
-- Name: calendar_feeds; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.calendar_feeds (
    token_hash text NOT NULL,
    organization_id text NOT NULL,
    agent_id text NOT NULL,
    token_prefix text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL
);

ALTER TABLE ONLY public.calendar_feeds FORCE ROW LEVEL SECURITY;

--
-- Name: closures; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.closures (
    id text NOT NULL,
    organization_id text NOT NULL,
    start_date date NOT NULL,
    end_date date NOT NULL,
    name text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT closures_dates_check CHECK ((end_date >= start_date))
);

ALTER TABLE ONLY public.closures FORCE ROW LEVEL SECURITY;

--
-- Name: console_links; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.console_links (
    id text NOT NULL,
    organization_id text NOT NULL,
    token_hash text NOT NULL,
    expires_at timestamp with time zone NOT NULL,
    used_at timestamp with time zone,
    created_at timestamp with time zone DEFAULT now() NOT NULL
);

ALTER TABLE ONLY public.console_links FORCE ROW LEVEL SECURITY;

--
-- Name: console_sessions; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.console_sessions (
    id text NOT NULL,
    organization_id text NOT NULL,
    token_hash text NOT NULL,
    link_id text,
    expires_at timestamp with time zone NOT NULL,
    revoked_at timestamp with time zone,
    created_at timestamp with time zone DEFAULT now() NOT NULL
);

ALTER TABLE ONLY public.console_sessions FORCE ROW LEVEL SECURITY;

--
-- Name: contact_consents; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.contact_consents (
    id text NOT NULL,
    organization_id text NOT NULL,
    contact_id text NOT NULL,
    channel text NOT NULL,
    status text NOT NULL,
    source text NOT NULL,
    actor_kind text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL
);

ALTER TABLE ONLY public.contact_consents FORCE ROW LEVEL SECURITY;

--
-- Name: contact_notes; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.contact_notes (
    id text NOT NULL,
    organization_id text NOT NULL,
    contact_id text NOT NULL,
    body text NOT NULL,
    author_agent_id text,
    created_at timestamp with time zone DEFAULT now() NOT NULL
);

ALTER TABLE ONLY public.contact_notes FORCE ROW LEVEL SECURITY;

--
-- Name: contacts; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.contacts (
    id text NOT NULL,
    organization_id text NOT NULL,
    code text NOT NULL,
    first_name text NOT NULL,
    last_name text DEFAULT ''::text NOT NULL,
    email text,
    email_key text,
    phone text,
    source text NOT NULL,
    status text NOT NULL,
    type text NOT NULL,
    score integer DEFAULT 0 NOT NULL,
    owner_id text,
    preferred_city text,
    preferred_type text,
    budget numeric(14,2),
    currency text,
    tags text[] DEFAULT '{}'::text[] NOT NULL,
    opted_out boolean DEFAULT false NOT NULL,
    external_id text,
    search_text text DEFAULT ''::text NOT NULL,
    last_activity_at timestamp with time zone,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    preferred_language text
)
WITH (autovacuum_vacuum_insert_scale_factor='0.01', autovacuum_vacuum_scale_factor='0.02', autovacuum_analyze_scale_factor='0.02');

ALTER TABLE ONLY public.contacts FORCE ROW LEVEL SECURITY;

--
-- Name: conversations; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.conversations (
    id text NOT NULL,
    organization_id text NOT NULL,
    contact_id text NOT NULL,
    mode text DEFAULT 'AUTOMATED'::text NOT NULL,
    blocked boolean DEFAULT false NOT NULL,
    last_inbound_at timestamp with time zone,
    last_message_id text,
    last_message_at timestamp with time zone,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL
);

ALTER TABLE ONLY public.conversations FORCE ROW LEVEL SECURITY;

--
-- Name: deal_stage_changes; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.deal_stage_changes (
    id text NOT NULL,
    organization_id text NOT NULL,
    deal_id text NOT NULL,
    pipeline_id text NOT NULL,
    from_stage_id text NOT NULL,
    from_stage_name text NOT NULL,
    to_stage_id text NOT NULL,
    to_stage_name text NOT NULL,
    status text NOT NULL,
    lost_reason text,
    automated boolean DEFAULT false NOT NULL,
    actor_kind text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL
);

ALTER TABLE ONLY public.deal_stage_changes FORCE ROW LEVEL SECURITY;

--
-- Name: deals; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.deals (
    id text NOT NULL,
    organization_id text NOT NULL,
    code text NOT NULL,
    title text NOT NULL,
    value numeric(14,2) DEFAULT 0 NOT NULL,
    currency text NOT NULL,
    probability integer NOT NULL,
    status text NOT NULL,
    intent text NOT NULL,
    lead_source text NOT NULL,
    lost_reason text,
    ai_created boolean DEFAULT false NOT NULL,
    agent_id text,
    contact_id text,
    property_id text,
    pipeline_id text NOT NULL,
    stage_id text NOT NULL,
    stage_entered_at timestamp with time zone DEFAULT now() NOT NULL,
    expected_close_date timestamp with time zone,
    closed_at timestamp with time zone,
    saas_plan_id text,
    saas_plan_name text,
    saas_billing_period text,
    saas_mrr_amount numeric(14,2),
    trial_started_at timestamp with time zone,
    trial_ends_at timestamp with time zone,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL
);

ALTER TABLE ONLY public.deals FORCE ROW LEVEL SECURITY;

--
-- Name: email_settings; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.email_settings (
    organization_id text NOT NULL,
    sender_name text,
    reply_to text,
    alert_address text,
    hourly_limit integer DEFAULT 200 NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL
);

ALTER TABLE ONLY public.email_settings FORCE ROW LEVEL SECURITY;

--
-- Name: email_suppressions; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.email_suppressions (
    organization_id text NOT NULL,
    address text NOT NULL,
    reason text NOT NULL,
    email_id text,
    created_at timestamp with time zone DEFAULT now() NOT NULL
);

ALTER TABLE ONLY public.email_suppressions FORCE ROW LEVEL SECURITY;

--
-- Name: email_templates; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.email_templates (
    organization_id text NOT NULL,
    kind text NOT NULL,
    language text NOT NULL,
    subject text NOT NULL,
    html text NOT NULL,
    text text NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL
);

ALTER TABLE ONLY public.email_templates FORCE ROW LEVEL SECURITY;

--
-- Name: emails; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.emails (
    id text NOT NULL,
    organization_id text NOT NULL,
    kind text NOT NULL,
    ref_id text NOT NULL,
    revision integer DEFAULT 0 NOT NULL,
    status text DEFAULT 'QUEUED'::text NOT NULL,
    reason text,
    contact_id text,
    to_address text,
    language text,
    subject text,
    html text,
    text text,
    ics text,
    transport text,
    attempts integer DEFAULT 0 NOT NULL,
    next_attempt_at timestamp with time zone DEFAULT now() NOT NULL,
    sent_at timestamp with time zone,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL
);

ALTER TABLE ONLY public.emails FORCE ROW LEVEL SECURITY;

--
-- Name: event_sequences; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.event_sequences (
    organization_id text NOT NULL,
    last_sequence bigint NOT NULL
);

ALTER TABLE ONLY public.event_sequences FORCE ROW LEVEL SECURITY;

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
    created_at timestamp(3) with time zone DEFAULT now() NOT NULL,
    sequence bigint
);

ALTER TABLE ONLY public.events FORCE ROW LEVEL SECURITY;

--
-- Name: finder_searches; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.finder_searches (
    id text NOT NULL,
    organization_id text NOT NULL,
    contact_id text NOT NULL,
    criteria jsonb NOT NULL,
    subscribed_to_alerts boolean DEFAULT false NOT NULL,
    total integer NOT NULL,
    property_ids text[] NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL
);

ALTER TABLE ONLY public.finder_searches FORCE ROW LEVEL SECURITY;

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
    expires_at timestamp with time zone DEFAULT (now() + '24:00:00'::interval) NOT NULL,
    recovery_point text,
    recovery_data jsonb
);

ALTER TABLE ONLY public.idempotency_keys FORCE ROW LEVEL SECURITY;

--
-- Name: COLUMN idempotency_keys.response_body; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.idempotency_keys.response_body IS 'Stored response body, sealed (AES-256-GCM, SECRETS_KEY): enc:v1:<key id>:<data>';

--
-- Name: leads; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.leads (
    id text NOT NULL,
    organization_id text NOT NULL,
    contact_id text NOT NULL,
    property_id text,
    message text,
    interested_in text,
    utm jsonb DEFAULT '{}'::jsonb NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    referrer text,
    outcome text,
    matched_on text
);

ALTER TABLE ONLY public.leads FORCE ROW LEVEL SECURITY;

--
-- Name: message_templates; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.message_templates (
    id text NOT NULL,
    organization_id text NOT NULL,
    name text NOT NULL,
    language text NOT NULL,
    category text NOT NULL,
    body text NOT NULL,
    variables text[] DEFAULT '{}'::text[] NOT NULL,
    status text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL
);

ALTER TABLE ONLY public.message_templates FORCE ROW LEVEL SECURITY;

--
-- Name: messages; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.messages (
    id text NOT NULL,
    organization_id text NOT NULL,
    contact_id text NOT NULL,
    chat_message_id text,
    direction text NOT NULL,
    type text NOT NULL,
    body text NOT NULL,
    rendered_body text,
    status text NOT NULL,
    template_id text,
    variables jsonb,
    usage jsonb,
    agent_id text,
    failure_reason text,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL
);

ALTER TABLE ONLY public.messages FORCE ROW LEVEL SECURITY;

--
-- Name: messaging_numbers; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.messaging_numbers (
    id text NOT NULL,
    organization_id text NOT NULL,
    phone text NOT NULL,
    provider_number_id text NOT NULL,
    active boolean DEFAULT true NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL
);

ALTER TABLE ONLY public.messaging_numbers FORCE ROW LEVEL SECURITY;

--
-- Name: organization_counters; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.organization_counters (
    organization_id text NOT NULL,
    name text NOT NULL,
    value bigint DEFAULT 0 NOT NULL,
    changed_at timestamp with time zone DEFAULT now() NOT NULL
);

ALTER TABLE ONLY public.organization_counters FORCE ROW LEVEL SECURITY;

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
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    mcp_mask_personal_data boolean DEFAULT false NOT NULL,
    show_price_drops boolean DEFAULT false NOT NULL,
    default_language text DEFAULT 'en'::text NOT NULL,
    other_languages text[] DEFAULT '{}'::text[] NOT NULL,
    feed_token_hash text,
    feed_token_prefix text,
    feed_token_created_at timestamp with time zone,
    timezone text DEFAULT 'UTC'::text NOT NULL,
    holiday_country text,
    holiday_region text,
    reminder_offsets_minutes integer[] DEFAULT '{1440,120}'::integer[] NOT NULL,
    reminder_template_id text,
    reminder_channels text[] DEFAULT '{MESSAGING}'::text[] NOT NULL
);

ALTER TABLE ONLY public.organizations FORCE ROW LEVEL SECURITY;

--
-- Name: photo_probes; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.photo_probes (
    organization_id text NOT NULL,
    property_id text NOT NULL,
    attempts integer DEFAULT 0 NOT NULL,
    due_at timestamp with time zone DEFAULT now() NOT NULL,
    locked_until timestamp with time zone,
    last_error text
);

ALTER TABLE ONLY public.photo_probes FORCE ROW LEVEL SECURITY;

--
-- Name: pipeline_stages; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.pipeline_stages (
    id text NOT NULL,
    organization_id text NOT NULL,
    pipeline_id text NOT NULL,
    name text NOT NULL,
    kind text NOT NULL,
    probability integer NOT NULL,
    "position" integer NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL
);

ALTER TABLE ONLY public.pipeline_stages FORCE ROW LEVEL SECURITY;

--
-- Name: pipelines; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.pipelines (
    id text NOT NULL,
    organization_id text NOT NULL,
    name text NOT NULL,
    is_default boolean DEFAULT false NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL
);

ALTER TABLE ONLY public.pipelines FORCE ROW LEVEL SECURITY;

--
-- Name: portal_settings; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.portal_settings (
    organization_id text NOT NULL,
    agency_name text,
    logo_url text,
    colors jsonb DEFAULT '{}'::jsonb NOT NULL,
    contact jsonb DEFAULT '{}'::jsonb NOT NULL,
    social_links jsonb DEFAULT '{}'::jsonb NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL
);

ALTER TABLE ONLY public.portal_settings FORCE ROW LEVEL SECURITY;

--
-- Name: property_changes; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.property_changes (
    id text NOT NULL,
    organization_id text NOT NULL,
    property_id text NOT NULL,
    kind text NOT NULL,
    previous_status text,
    status text,
    previous_price numeric(14,2),
    price numeric(14,2),
    currency text,
    actor_kind text NOT NULL,
    actor_user_id text,
    created_at timestamp with time zone DEFAULT now() NOT NULL
);

ALTER TABLE ONLY public.property_changes FORCE ROW LEVEL SECURITY;

--
-- Name: request_logs; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.request_logs (
    id bigint NOT NULL,
    organization_id text NOT NULL,
    at timestamp(3) with time zone NOT NULL,
    request_id text NOT NULL,
    key_id text,
    key_prefix text,
    method text NOT NULL,
    path text NOT NULL,
    operation_id text,
    mcp_tool text,
    status integer NOT NULL,
    error_code text,
    error_message text,
    latency_ms integer NOT NULL,
    ip text
);

ALTER TABLE ONLY public.request_logs FORCE ROW LEVEL SECURITY;

--
-- Name: request_logs_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.request_logs ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.request_logs_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

--
-- Name: reso_deletions; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.reso_deletions (
    organization_id text NOT NULL,
    property_id text NOT NULL,
    code text NOT NULL,
    deleted_at timestamp with time zone NOT NULL
);

ALTER TABLE ONLY public.reso_deletions FORCE ROW LEVEL SECURITY;

--
-- Name: tasks; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.tasks (
    id text NOT NULL,
    organization_id text NOT NULL,
    title text NOT NULL,
    description text,
    type text DEFAULT 'TODO'::text NOT NULL,
    status text DEFAULT 'PENDING'::text NOT NULL,
    due_at timestamp with time zone,
    assignee_id text,
    contact_id text,
    appointment_id text,
    completed_at timestamp with time zone,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL
);

ALTER TABLE ONLY public.tasks FORCE ROW LEVEL SECURITY;

--
-- Name: usage_daily; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.usage_daily (
    organization_id text NOT NULL,
    contact_id text NOT NULL,
    day date NOT NULL,
    name text NOT NULL,
    count bigint DEFAULT 0 NOT NULL,
    first_occurred_at timestamp with time zone NOT NULL,
    last_occurred_at timestamp with time zone NOT NULL
);

ALTER TABLE ONLY public.usage_daily FORCE ROW LEVEL SECURITY;

--
-- Name: usage_events; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.usage_events (
    id bigint NOT NULL,
    organization_id text NOT NULL,
    contact_id text NOT NULL,
    name text NOT NULL,
    label text,
    props jsonb,
    company_id text,
    actor_label text,
    occurred_at timestamp with time zone NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL
);

ALTER TABLE ONLY public.usage_events FORCE ROW LEVEL SECURITY;

--
-- Name: usage_events_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.usage_events ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.usage_events_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

--
-- Name: visit_requests; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.visit_requests (
    id text NOT NULL,
    organization_id text NOT NULL,
    contact_id text NOT NULL,
    property_id text NOT NULL,
    preferred_date date,
    preferred_time text,
    message text,
    status text DEFAULT 'PENDING'::text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    appointment_id text,
    decline_reason text,
    decided_at timestamp with time zone
);

ALTER TABLE ONLY public.visit_requests FORCE ROW LEVEL SECURITY;

--
-- Name: webhook_attempts; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.webhook_attempts (
    id text NOT NULL,
    organization_id text NOT NULL,
    delivery_id text NOT NULL,
    attempt integer NOT NULL,
    started_at timestamp(3) with time zone NOT NULL,
    duration_ms integer,
    status_code integer,
    error text,
    response_body text,
    subscription_id text NOT NULL,
    request_headers jsonb,
    response_headers jsonb
);

ALTER TABLE ONLY public.webhook_attempts FORCE ROW LEVEL SECURITY;

--
-- Name: webhook_deliveries; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.webhook_deliveries (
    id text NOT NULL,
    organization_id text NOT NULL,
    subscription_id text NOT NULL,
    event_id text NOT NULL,
    event_type text NOT NULL,
    status text DEFAULT 'PENDING'::text NOT NULL,
    attempt_count integer DEFAULT 0 NOT NULL,
    next_attempt_at timestamp with time zone,
    locked_until timestamp with time zone,
    claim_id text,
    last_status_code integer,
    last_error text,
    created_at timestamp(3) with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    completed_at timestamp with time zone
);

ALTER TABLE ONLY public.webhook_deliveries FORCE ROW LEVEL SECURITY;

--
-- Name: webhook_subscriptions; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.webhook_subscriptions (
    id text NOT NULL,
    organization_id text NOT NULL,
    url text NOT NULL,
    event_types text[] NOT NULL,
    description text DEFAULT ''::text NOT NULL,
    enabled boolean DEFAULT true NOT NULL,
    secret text NOT NULL,
    previous_secret text,
    previous_secret_expires_at timestamp with time zone,
    disabled_reason text,
    failing_since timestamp with time zone,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL
);

ALTER TABLE ONLY public.webhook_subscriptions FORCE ROW LEVEL SECURITY;

--
-- Name: COLUMN webhook_subscriptions.secret; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.webhook_subscriptions.secret IS 'Signing secret, sealed (AES-256-GCM, SECRETS_KEY): enc:v1:<key id>:<data>';

--
-- Name: COLUMN webhook_subscriptions.previous_secret; Type: COMMENT; Schema: public; Owner: -
--

COMMENT ON COLUMN public.webhook_subscriptions.previous_secret IS 'Secret before the last rotation, sealed like secret';

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
-- Name: agent_time_off agent_time_off_organization_id_id_pk; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.agent_time_off
    ADD CONSTRAINT agent_time_off_organization_id_id_pk PRIMARY KEY (organization_id, id);

--
-- Name: agents agents_organization_id_id_pk; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.agents
    ADD CONSTRAINT agents_organization_id_id_pk PRIMARY KEY (organization_id, id);

--
-- Name: analytics_daily analytics_daily_organization_id_day_property_id_type_pk; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.analytics_daily
    ADD CONSTRAINT analytics_daily_organization_id_day_property_id_type_pk PRIMARY KEY (organization_id, day, property_id, type);

--
-- Name: analytics_events analytics_events_organization_id_id_pk; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.analytics_events
    ADD CONSTRAINT analytics_events_organization_id_id_pk PRIMARY KEY (organization_id, id);

--
-- Name: api_keys api_keys_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.api_keys
    ADD CONSTRAINT api_keys_pkey PRIMARY KEY (id);

--
-- Name: appointment_reminders appointment_reminders_organization_id_appointment_id_offset_min; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.appointment_reminders
    ADD CONSTRAINT appointment_reminders_organization_id_appointment_id_offset_min PRIMARY KEY (organization_id, appointment_id, offset_minutes, starts_at);

--
-- Name: appointments appointments_no_overlap; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.appointments
    ADD CONSTRAINT appointments_no_overlap EXCLUDE USING gist (organization_id WITH =, agent_id WITH =, tstzrange(starts_at, ends_at) WITH &&) WHERE ((status = ANY (ARRAY['SCHEDULED'::text, 'CONFIRMED'::text])));

--
-- Name: appointments appointments_organization_id_id_pk; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.appointments
    ADD CONSTRAINT appointments_organization_id_id_pk PRIMARY KEY (organization_id, id);

--
-- Name: calendar_feeds calendar_feeds_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.calendar_feeds
    ADD CONSTRAINT calendar_feeds_pkey PRIMARY KEY (token_hash);

--
-- Name: closures closures_organization_id_id_pk; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.closures
    ADD CONSTRAINT closures_organization_id_id_pk PRIMARY KEY (organization_id, id);

--
-- Name: console_links console_links_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.console_links
    ADD CONSTRAINT console_links_pkey PRIMARY KEY (id);

--
-- Name: console_sessions console_sessions_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.console_sessions
    ADD CONSTRAINT console_sessions_pkey PRIMARY KEY (id);

--
-- Name: contact_consents contact_consents_organization_id_id_pk; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.contact_consents
    ADD CONSTRAINT contact_consents_organization_id_id_pk PRIMARY KEY (organization_id, id);

--
-- Name: contact_notes contact_notes_organization_id_id_pk; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.contact_notes
    ADD CONSTRAINT contact_notes_organization_id_id_pk PRIMARY KEY (organization_id, id);

--
-- Name: contacts contacts_organization_id_id_pk; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.contacts
    ADD CONSTRAINT contacts_organization_id_id_pk PRIMARY KEY (organization_id, id);

--
-- Name: conversations conversations_organization_id_id_pk; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.conversations
    ADD CONSTRAINT conversations_organization_id_id_pk PRIMARY KEY (organization_id, id);

--
-- Name: deal_stage_changes deal_stage_changes_organization_id_id_pk; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.deal_stage_changes
    ADD CONSTRAINT deal_stage_changes_organization_id_id_pk PRIMARY KEY (organization_id, id);

--
-- Name: deals deals_organization_id_id_pk; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.deals
    ADD CONSTRAINT deals_organization_id_id_pk PRIMARY KEY (organization_id, id);

--
-- Name: email_settings email_settings_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.email_settings
    ADD CONSTRAINT email_settings_pkey PRIMARY KEY (organization_id);

--
-- Name: email_suppressions email_suppressions_organization_id_address_pk; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.email_suppressions
    ADD CONSTRAINT email_suppressions_organization_id_address_pk PRIMARY KEY (organization_id, address);

--
-- Name: email_templates email_templates_organization_id_kind_language_pk; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.email_templates
    ADD CONSTRAINT email_templates_organization_id_kind_language_pk PRIMARY KEY (organization_id, kind, language);

--
-- Name: emails emails_organization_id_id_pk; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.emails
    ADD CONSTRAINT emails_organization_id_id_pk PRIMARY KEY (organization_id, id);

--
-- Name: event_sequences event_sequences_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.event_sequences
    ADD CONSTRAINT event_sequences_pkey PRIMARY KEY (organization_id);

--
-- Name: events events_organization_id_id_pk; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.events
    ADD CONSTRAINT events_organization_id_id_pk PRIMARY KEY (organization_id, id);

--
-- Name: finder_searches finder_searches_organization_id_id_pk; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.finder_searches
    ADD CONSTRAINT finder_searches_organization_id_id_pk PRIMARY KEY (organization_id, id);

--
-- Name: idempotency_keys idempotency_keys_organization_id_key_pk; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.idempotency_keys
    ADD CONSTRAINT idempotency_keys_organization_id_key_pk PRIMARY KEY (organization_id, key);

--
-- Name: idempotency_keys idempotency_keys_response_body_sealed; Type: CHECK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE public.idempotency_keys
    ADD CONSTRAINT idempotency_keys_response_body_sealed CHECK (((response_body IS NULL) OR starts_with(response_body, 'enc:v1:'::text))) NOT VALID;

--
-- Name: leads leads_organization_id_id_pk; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.leads
    ADD CONSTRAINT leads_organization_id_id_pk PRIMARY KEY (organization_id, id);

--
-- Name: message_templates message_templates_organization_id_id_pk; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.message_templates
    ADD CONSTRAINT message_templates_organization_id_id_pk PRIMARY KEY (organization_id, id);

--
-- Name: messages messages_organization_id_id_pk; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.messages
    ADD CONSTRAINT messages_organization_id_id_pk PRIMARY KEY (organization_id, id);

--
-- Name: messaging_numbers messaging_numbers_organization_id_id_pk; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.messaging_numbers
    ADD CONSTRAINT messaging_numbers_organization_id_id_pk PRIMARY KEY (organization_id, id);

--
-- Name: organization_counters organization_counters_organization_id_name_pk; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.organization_counters
    ADD CONSTRAINT organization_counters_organization_id_name_pk PRIMARY KEY (organization_id, name);

--
-- Name: organizations organizations_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.organizations
    ADD CONSTRAINT organizations_pkey PRIMARY KEY (id);

--
-- Name: photo_probes photo_probes_organization_id_property_id_pk; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.photo_probes
    ADD CONSTRAINT photo_probes_organization_id_property_id_pk PRIMARY KEY (organization_id, property_id);

--
-- Name: pipeline_stages pipeline_stages_organization_id_id_pk; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.pipeline_stages
    ADD CONSTRAINT pipeline_stages_organization_id_id_pk PRIMARY KEY (organization_id, id);

--
-- Name: pipelines pipelines_organization_id_id_pk; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.pipelines
    ADD CONSTRAINT pipelines_organization_id_id_pk PRIMARY KEY (organization_id, id);

--
-- Name: portal_settings portal_settings_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.portal_settings
    ADD CONSTRAINT portal_settings_pkey PRIMARY KEY (organization_id);

--
-- Name: properties properties_organization_id_id_pk; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.properties
    ADD CONSTRAINT properties_organization_id_id_pk PRIMARY KEY (organization_id, id);

--
-- Name: property_changes property_changes_organization_id_id_pk; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.property_changes
    ADD CONSTRAINT property_changes_organization_id_id_pk PRIMARY KEY (organization_id, id);

--
-- Name: request_logs request_logs_organization_id_id_pk; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.request_logs
    ADD CONSTRAINT request_logs_organization_id_id_pk PRIMARY KEY (organization_id, id);

--
-- Name: reso_deletions reso_deletions_organization_id_property_id_pk; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.reso_deletions
    ADD CONSTRAINT reso_deletions_organization_id_property_id_pk PRIMARY KEY (organization_id, property_id);

--
-- Name: tasks tasks_organization_id_id_pk; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.tasks
    ADD CONSTRAINT tasks_organization_id_id_pk PRIMARY KEY (organization_id, id);

--
-- Name: usage_daily usage_daily_organization_id_contact_id_day_name_pk; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.usage_daily
    ADD CONSTRAINT usage_daily_organization_id_contact_id_day_name_pk PRIMARY KEY (organization_id, contact_id, day, name);

--
-- Name: usage_events usage_events_organization_id_id_pk; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.usage_events
    ADD CONSTRAINT usage_events_organization_id_id_pk PRIMARY KEY (organization_id, id);

--
-- Name: visit_requests visit_requests_organization_id_id_pk; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.visit_requests
    ADD CONSTRAINT visit_requests_organization_id_id_pk PRIMARY KEY (organization_id, id);

--
-- Name: webhook_attempts webhook_attempts_organization_id_id_pk; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.webhook_attempts
    ADD CONSTRAINT webhook_attempts_organization_id_id_pk PRIMARY KEY (organization_id, id);

--
-- Name: webhook_deliveries webhook_deliveries_organization_id_id_pk; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.webhook_deliveries
    ADD CONSTRAINT webhook_deliveries_organization_id_id_pk PRIMARY KEY (organization_id, id);

--
-- Name: webhook_subscriptions webhook_subscriptions_organization_id_id_pk; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.webhook_subscriptions
    ADD CONSTRAINT webhook_subscriptions_organization_id_id_pk PRIMARY KEY (organization_id, id);

--
-- Name: webhook_subscriptions webhook_subscriptions_previous_secret_sealed; Type: CHECK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE public.webhook_subscriptions
    ADD CONSTRAINT webhook_subscriptions_previous_secret_sealed CHECK (((previous_secret IS NULL) OR starts_with(previous_secret, 'enc:v1:'::text))) NOT VALID;

--
-- Name: webhook_subscriptions webhook_subscriptions_secret_sealed; Type: CHECK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE public.webhook_subscriptions
    ADD CONSTRAINT webhook_subscriptions_secret_sealed CHECK (starts_with(secret, 'enc:v1:'::text)) NOT VALID;

--
-- Name: agent_time_off_agent_id_ends_at_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX agent_time_off_agent_id_ends_at_idx ON public.agent_time_off USING btree (organization_id, agent_id, ends_at);

--
-- Name: agents_organization_id_booking_slug_key; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX agents_organization_id_booking_slug_key ON public.agents USING btree (organization_id, booking_slug);

--
-- Name: agents_organization_id_created_at_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX agents_organization_id_created_at_idx ON public.agents USING btree (organization_id, created_at);

--
-- Name: analytics_events_organization_id_occurred_at_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX analytics_events_organization_id_occurred_at_idx ON public.analytics_events USING btree (organization_id, occurred_at);

--
-- Name: api_keys_key_hash_key; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX api_keys_key_hash_key ON public.api_keys USING btree (key_hash);

--
-- Name: api_keys_organization_id_created_at_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX api_keys_organization_id_created_at_idx ON public.api_keys USING btree (organization_id, created_at);

--
-- Name: appointment_reminders_sending_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX appointment_reminders_sending_idx ON public.appointment_reminders USING btree (locked_until) WHERE (status = 'SENDING'::text);

--
-- Name: appointments_active_starts_at_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX appointments_active_starts_at_idx ON public.appointments USING btree (starts_at) WHERE (status = ANY (ARRAY['SCHEDULED'::text, 'CONFIRMED'::text]));

--
-- Name: appointments_agent_id_starts_at_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX appointments_agent_id_starts_at_idx ON public.appointments USING btree (agent_id, starts_at);

--
-- Name: appointments_contact_id_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX appointments_contact_id_idx ON public.appointments USING btree (contact_id);

--
-- Name: appointments_organization_id_starts_at_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX appointments_organization_id_starts_at_idx ON public.appointments USING btree (organization_id, starts_at);

--
-- Name: appointments_organization_id_updated_at_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX appointments_organization_id_updated_at_idx ON public.appointments USING btree (organization_id, updated_at, id);

--
-- Name: calendar_feeds_organization_id_agent_id_key; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX calendar_feeds_organization_id_agent_id_key ON public.calendar_feeds USING btree (organization_id, agent_id);

--
-- Name: closures_organization_id_end_date_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX closures_organization_id_end_date_idx ON public.closures USING btree (organization_id, end_date);

--
-- Name: console_links_expires_at_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX console_links_expires_at_idx ON public.console_links USING btree (expires_at);

--
-- Name: console_links_organization_id_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX console_links_organization_id_idx ON public.console_links USING btree (organization_id);

--
-- Name: console_links_token_hash_key; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX console_links_token_hash_key ON public.console_links USING btree (token_hash);

--
-- Name: console_sessions_expires_at_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX console_sessions_expires_at_idx ON public.console_sessions USING btree (expires_at);

--
-- Name: console_sessions_organization_id_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX console_sessions_organization_id_idx ON public.console_sessions USING btree (organization_id);

--
-- Name: console_sessions_token_hash_key; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX console_sessions_token_hash_key ON public.console_sessions USING btree (token_hash);

--
-- Name: contact_consents_contact_id_channel_created_at_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX contact_consents_contact_id_channel_created_at_idx ON public.contact_consents USING btree (contact_id, channel, created_at DESC NULLS LAST, id);

--
-- Name: contact_consents_organization_id_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX contact_consents_organization_id_idx ON public.contact_consents USING btree (organization_id);

--
-- Name: contact_notes_author_agent_id_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX contact_notes_author_agent_id_idx ON public.contact_notes USING btree (author_agent_id);

--
-- Name: contact_notes_contact_id_created_at_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX contact_notes_contact_id_created_at_idx ON public.contact_notes USING btree (contact_id, created_at DESC NULLS LAST, id);

--
-- Name: contact_notes_organization_id_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX contact_notes_organization_id_idx ON public.contact_notes USING btree (organization_id);

--
-- Name: contacts_organization_id_code_key; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX contacts_organization_id_code_key ON public.contacts USING btree (organization_id, code);

--
-- Name: contacts_organization_id_created_at_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX contacts_organization_id_created_at_idx ON public.contacts USING btree (organization_id, created_at, id, search_text);

--
-- Name: contacts_organization_id_email_key_key; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX contacts_organization_id_email_key_key ON public.contacts USING btree (organization_id, email_key);

--
-- Name: contacts_organization_id_external_id_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX contacts_organization_id_external_id_idx ON public.contacts USING btree (organization_id, external_id);

--
-- Name: contacts_organization_id_opted_out_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX contacts_organization_id_opted_out_idx ON public.contacts USING btree (organization_id, created_at DESC NULLS LAST) WHERE opted_out;

--
-- Name: contacts_organization_id_phone_key; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX contacts_organization_id_phone_key ON public.contacts USING btree (organization_id, phone);

--
-- Name: contacts_organization_id_source_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX contacts_organization_id_source_idx ON public.contacts USING btree (organization_id, source, created_at DESC NULLS LAST);

--
-- Name: contacts_organization_id_status_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX contacts_organization_id_status_idx ON public.contacts USING btree (organization_id, status, created_at DESC NULLS LAST);

--
-- Name: contacts_organization_id_type_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX contacts_organization_id_type_idx ON public.contacts USING btree (organization_id, type, created_at DESC NULLS LAST);

--
-- Name: contacts_organization_id_updated_at_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX contacts_organization_id_updated_at_idx ON public.contacts USING btree (organization_id, updated_at, id);

--
-- Name: contacts_owner_id_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX contacts_owner_id_idx ON public.contacts USING btree (owner_id);

--
-- Name: contacts_tags_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX contacts_tags_idx ON public.contacts USING gin (tags);

--
-- Name: conversations_contact_id_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX conversations_contact_id_idx ON public.conversations USING btree (contact_id);

--
-- Name: conversations_organization_id_contact_id_key; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX conversations_organization_id_contact_id_key ON public.conversations USING btree (organization_id, contact_id);

--
-- Name: conversations_organization_id_last_message_at_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX conversations_organization_id_last_message_at_idx ON public.conversations USING btree (organization_id, last_message_at DESC NULLS LAST, id DESC NULLS LAST);

--
-- Name: deal_stage_changes_deal_id_created_at_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX deal_stage_changes_deal_id_created_at_idx ON public.deal_stage_changes USING btree (deal_id, created_at DESC NULLS LAST, id);

--
-- Name: deal_stage_changes_organization_id_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX deal_stage_changes_organization_id_idx ON public.deal_stage_changes USING btree (organization_id);

--
-- Name: deals_agent_id_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX deals_agent_id_idx ON public.deals USING btree (agent_id);

--
-- Name: deals_contact_id_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX deals_contact_id_idx ON public.deals USING btree (contact_id);

--
-- Name: deals_organization_id_code_key; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX deals_organization_id_code_key ON public.deals USING btree (organization_id, code);

--
-- Name: deals_organization_id_created_at_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX deals_organization_id_created_at_idx ON public.deals USING btree (organization_id, created_at DESC NULLS LAST, id);

--
-- Name: deals_organization_id_expected_close_date_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX deals_organization_id_expected_close_date_idx ON public.deals USING btree (organization_id, expected_close_date);

--
-- Name: deals_organization_id_pipeline_id_stage_id_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX deals_organization_id_pipeline_id_stage_id_idx ON public.deals USING btree (organization_id, pipeline_id, stage_id);

--
-- Name: deals_organization_id_status_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX deals_organization_id_status_idx ON public.deals USING btree (organization_id, status, created_at DESC NULLS LAST);

--
-- Name: deals_organization_id_updated_at_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX deals_organization_id_updated_at_idx ON public.deals USING btree (organization_id, updated_at, id);

--
-- Name: deals_stage_id_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX deals_stage_id_idx ON public.deals USING btree (stage_id);

--
-- Name: emails_change_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX emails_change_idx ON public.emails USING btree (organization_id, kind, ref_id, revision);

--
-- Name: emails_contact_id_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX emails_contact_id_idx ON public.emails USING btree (organization_id, contact_id);

--
-- Name: emails_created_at_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX emails_created_at_idx ON public.emails USING btree (created_at);

--
-- Name: emails_due_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX emails_due_idx ON public.emails USING btree (next_attempt_at) WHERE (status = ANY (ARRAY['QUEUED'::text, 'SENDING'::text]));

--
-- Name: emails_id_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX emails_id_idx ON public.emails USING btree (id);

--
-- Name: emails_organization_id_created_at_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX emails_organization_id_created_at_idx ON public.emails USING btree (organization_id, created_at, id);

--
-- Name: emails_sent_at_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX emails_sent_at_idx ON public.emails USING btree (organization_id, sent_at) WHERE (sent_at IS NOT NULL);

--
-- Name: events_created_at_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX events_created_at_idx ON public.events USING btree (created_at);

--
-- Name: events_organization_id_created_at_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX events_organization_id_created_at_idx ON public.events USING btree (organization_id, created_at DESC NULLS LAST);

--
-- Name: events_organization_id_sequence_key; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX events_organization_id_sequence_key ON public.events USING btree (organization_id, sequence);

--
-- Name: events_organization_id_type_created_at_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX events_organization_id_type_created_at_idx ON public.events USING btree (organization_id, type, created_at DESC NULLS LAST);

--
-- Name: events_organization_id_type_sequence_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX events_organization_id_type_sequence_idx ON public.events USING btree (organization_id, type, sequence);

--
-- Name: finder_searches_alerts_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX finder_searches_alerts_idx ON public.finder_searches USING btree (organization_id, created_at) WHERE subscribed_to_alerts;

--
-- Name: finder_searches_contact_id_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX finder_searches_contact_id_idx ON public.finder_searches USING btree (contact_id);

--
-- Name: finder_searches_organization_id_created_at_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX finder_searches_organization_id_created_at_idx ON public.finder_searches USING btree (organization_id, created_at DESC NULLS LAST);

--
-- Name: idempotency_keys_expires_at_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idempotency_keys_expires_at_idx ON public.idempotency_keys USING btree (expires_at);

--
-- Name: leads_contact_id_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX leads_contact_id_idx ON public.leads USING btree (contact_id);

--
-- Name: leads_organization_id_created_at_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX leads_organization_id_created_at_idx ON public.leads USING btree (organization_id, created_at DESC NULLS LAST);

--
-- Name: leads_organization_id_outcome_created_at_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX leads_organization_id_outcome_created_at_idx ON public.leads USING btree (organization_id, outcome, created_at DESC NULLS LAST);

--
-- Name: leads_organization_id_property_id_created_at_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX leads_organization_id_property_id_created_at_idx ON public.leads USING btree (organization_id, property_id, created_at DESC NULLS LAST);

--
-- Name: leads_organization_id_utm_source_created_at_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX leads_organization_id_utm_source_created_at_idx ON public.leads USING btree (organization_id, ((utm ->> 'source'::text)), created_at DESC NULLS LAST);

--
-- Name: message_templates_organization_id_created_at_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX message_templates_organization_id_created_at_idx ON public.message_templates USING btree (organization_id, created_at);

--
-- Name: message_templates_organization_id_name_language_key; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX message_templates_organization_id_name_language_key ON public.message_templates USING btree (organization_id, name, language);

--
-- Name: messages_agent_id_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX messages_agent_id_idx ON public.messages USING btree (agent_id);

--
-- Name: messages_contact_id_created_at_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX messages_contact_id_created_at_idx ON public.messages USING btree (contact_id, created_at DESC NULLS LAST, id DESC NULLS LAST);

--
-- Name: messages_organization_id_chat_message_id_key; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX messages_organization_id_chat_message_id_key ON public.messages USING btree (organization_id, chat_message_id);

--
-- Name: messages_organization_id_created_at_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX messages_organization_id_created_at_idx ON public.messages USING btree (organization_id, created_at);

--
-- Name: messages_queued_created_at_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX messages_queued_created_at_idx ON public.messages USING btree (created_at) WHERE (status = 'QUEUED'::text);

--
-- Name: messages_template_id_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX messages_template_id_idx ON public.messages USING btree (template_id);

--
-- Name: messaging_numbers_id_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX messaging_numbers_id_idx ON public.messaging_numbers USING btree (id);

--
-- Name: messaging_numbers_one_active_key; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX messaging_numbers_one_active_key ON public.messaging_numbers USING btree (organization_id) WHERE active;

--
-- Name: messaging_numbers_organization_id_created_at_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX messaging_numbers_organization_id_created_at_idx ON public.messaging_numbers USING btree (organization_id, created_at);

--
-- Name: messaging_numbers_organization_id_phone_key; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX messaging_numbers_organization_id_phone_key ON public.messaging_numbers USING btree (organization_id, phone);

--
-- Name: organizations_feed_token_hash_key; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX organizations_feed_token_hash_key ON public.organizations USING btree (feed_token_hash);

--
-- Name: organizations_live_organization_id_key; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX organizations_live_organization_id_key ON public.organizations USING btree (live_organization_id);

--
-- Name: photo_probes_due_at_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX photo_probes_due_at_idx ON public.photo_probes USING btree (due_at);

--
-- Name: pipeline_stages_pipeline_id_position_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX pipeline_stages_pipeline_id_position_idx ON public.pipeline_stages USING btree (pipeline_id, "position");

--
-- Name: pipelines_organization_id_created_at_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX pipelines_organization_id_created_at_idx ON public.pipelines USING btree (organization_id, created_at);

--
-- Name: properties_agent_id_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX properties_agent_id_idx ON public.properties USING btree (agent_id);

--
-- Name: properties_organization_id_code_key; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX properties_organization_id_code_key ON public.properties USING btree (organization_id, code);

--
-- Name: properties_organization_id_created_at_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX properties_organization_id_created_at_idx ON public.properties USING btree (organization_id, created_at, id);

--
-- Name: properties_organization_id_updated_at_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX properties_organization_id_updated_at_idx ON public.properties USING btree (organization_id, updated_at, id);

--
-- Name: properties_portal_amenities_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX properties_portal_amenities_idx ON public.properties USING gin (amenities) WHERE ((status = 'ACTIVE'::text) AND published_on_portal);

--
-- Name: properties_portal_area_desc_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX properties_portal_area_desc_idx ON public.properties USING btree (organization_id, area_value DESC NULLS LAST, id DESC) WHERE ((status = 'ACTIVE'::text) AND published_on_portal);

--
-- Name: properties_portal_area_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX properties_portal_area_idx ON public.properties USING btree (organization_id, area_value, id) WHERE ((status = 'ACTIVE'::text) AND published_on_portal);

--
-- Name: properties_portal_bathrooms_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX properties_portal_bathrooms_idx ON public.properties USING btree (organization_id, bathrooms, price_value) WHERE ((status = 'ACTIVE'::text) AND published_on_portal);

--
-- Name: properties_portal_bedrooms_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX properties_portal_bedrooms_idx ON public.properties USING btree (organization_id, bedrooms, price_value) WHERE ((status = 'ACTIVE'::text) AND published_on_portal);

--
-- Name: properties_portal_city_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX properties_portal_city_idx ON public.properties USING btree (organization_id, search_city, price_value, id) WHERE ((status = 'ACTIVE'::text) AND published_on_portal);

--
-- Name: properties_portal_created_at_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX properties_portal_created_at_idx ON public.properties USING btree (organization_id, created_at, id) WHERE ((status = 'ACTIVE'::text) AND published_on_portal);

--
-- Name: properties_portal_featured_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX properties_portal_featured_idx ON public.properties USING btree (organization_id, created_at, id) WHERE ((status = 'ACTIVE'::text) AND published_on_portal AND featured);

--
-- Name: properties_portal_geo_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX properties_portal_geo_idx ON public.properties USING btree (organization_id, portal_latitude, portal_longitude) WHERE ((status = 'ACTIVE'::text) AND published_on_portal);

--
-- Name: properties_portal_neighborhood_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX properties_portal_neighborhood_idx ON public.properties USING btree (organization_id, search_neighborhood, price_value) WHERE ((status = 'ACTIVE'::text) AND published_on_portal);

--
-- Name: properties_portal_price_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX properties_portal_price_idx ON public.properties USING btree (organization_id, price_value, id) WHERE ((status = 'ACTIVE'::text) AND published_on_portal);

--
-- Name: properties_portal_text_trgm_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX properties_portal_text_trgm_idx ON public.properties USING gin (search_text public.gin_trgm_ops) WHERE ((status = 'ACTIVE'::text) AND published_on_portal);

--
-- Name: properties_portal_type_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX properties_portal_type_idx ON public.properties USING btree (organization_id, transaction_type, type, price_value) WHERE ((status = 'ACTIVE'::text) AND published_on_portal);

--
-- Name: properties_portal_updated_at_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX properties_portal_updated_at_idx ON public.properties USING btree (organization_id, public_updated_at, id) WHERE ((status = 'ACTIVE'::text) AND published_on_portal);

--
-- Name: property_changes_property_id_created_at_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX property_changes_property_id_created_at_idx ON public.property_changes USING btree (organization_id, property_id, created_at, id);

--
-- Name: request_logs_at_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX request_logs_at_idx ON public.request_logs USING brin (at);

--
-- Name: request_logs_organization_id_at_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX request_logs_organization_id_at_idx ON public.request_logs USING btree (organization_id, at DESC NULLS LAST, id DESC NULLS LAST);

--
-- Name: request_logs_organization_id_request_id_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX request_logs_organization_id_request_id_idx ON public.request_logs USING btree (organization_id, request_id);

--
-- Name: reso_deletions_organization_id_deleted_at_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX reso_deletions_organization_id_deleted_at_idx ON public.reso_deletions USING btree (organization_id, deleted_at, property_id);

--
-- Name: tasks_appointment_id_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX tasks_appointment_id_idx ON public.tasks USING btree (appointment_id);

--
-- Name: tasks_assignee_id_status_due_at_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX tasks_assignee_id_status_due_at_idx ON public.tasks USING btree (assignee_id, status, due_at);

--
-- Name: tasks_contact_id_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX tasks_contact_id_idx ON public.tasks USING btree (contact_id);

--
-- Name: tasks_organization_id_due_at_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX tasks_organization_id_due_at_idx ON public.tasks USING btree (organization_id, due_at);

--
-- Name: tasks_organization_id_status_due_at_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX tasks_organization_id_status_due_at_idx ON public.tasks USING btree (organization_id, status, due_at);

--
-- Name: tasks_organization_id_updated_at_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX tasks_organization_id_updated_at_idx ON public.tasks USING btree (organization_id, updated_at, id);

--
-- Name: usage_events_contact_id_occurred_at_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX usage_events_contact_id_occurred_at_idx ON public.usage_events USING btree (contact_id, occurred_at);

--
-- Name: usage_events_created_at_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX usage_events_created_at_idx ON public.usage_events USING btree (created_at);

--
-- Name: visit_requests_appointment_id_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX visit_requests_appointment_id_idx ON public.visit_requests USING btree (appointment_id);

--
-- Name: visit_requests_contact_id_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX visit_requests_contact_id_idx ON public.visit_requests USING btree (contact_id);

--
-- Name: visit_requests_organization_id_created_at_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX visit_requests_organization_id_created_at_idx ON public.visit_requests USING btree (organization_id, created_at DESC NULLS LAST);

--
-- Name: visit_requests_organization_id_status_created_at_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX visit_requests_organization_id_status_created_at_idx ON public.visit_requests USING btree (organization_id, status, created_at DESC NULLS LAST);

--
-- Name: webhook_attempts_organization_id_delivery_id_attempt_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX webhook_attempts_organization_id_delivery_id_attempt_idx ON public.webhook_attempts USING btree (organization_id, delivery_id, attempt);

--
-- Name: webhook_attempts_subscription_id_started_at_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX webhook_attempts_subscription_id_started_at_idx ON public.webhook_attempts USING btree (subscription_id, started_at);

--
-- Name: webhook_deliveries_completed_at_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX webhook_deliveries_completed_at_idx ON public.webhook_deliveries USING btree (completed_at) WHERE (completed_at IS NOT NULL);

--
-- Name: webhook_deliveries_event_id_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX webhook_deliveries_event_id_idx ON public.webhook_deliveries USING btree (event_id);

--
-- Name: webhook_deliveries_pending_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX webhook_deliveries_pending_idx ON public.webhook_deliveries USING btree (subscription_id, next_attempt_at) WHERE (status = 'PENDING'::text);

--
-- Name: webhook_deliveries_subscription_id_created_at_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX webhook_deliveries_subscription_id_created_at_idx ON public.webhook_deliveries USING btree (subscription_id, created_at DESC NULLS LAST, id);

--
-- Name: webhook_deliveries_subscription_id_event_type_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX webhook_deliveries_subscription_id_event_type_idx ON public.webhook_deliveries USING btree (subscription_id, event_type, created_at DESC NULLS LAST);

--
-- Name: webhook_deliveries_subscription_id_status_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX webhook_deliveries_subscription_id_status_idx ON public.webhook_deliveries USING btree (subscription_id, status, created_at DESC NULLS LAST);

--
-- Name: webhook_subscriptions_organization_id_created_at_idx; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX webhook_subscriptions_organization_id_created_at_idx ON public.webhook_subscriptions USING btree (organization_id, created_at, id);

--
-- Name: agents agents_portal_version_delete; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER agents_portal_version_delete AFTER DELETE ON public.agents REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION public.agency_bump_portal_version();

--
-- Name: agents agents_portal_version_insert; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER agents_portal_version_insert AFTER INSERT ON public.agents REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION public.agency_bump_portal_version();

--
-- Name: agents agents_portal_version_update; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER agents_portal_version_update AFTER UPDATE ON public.agents REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION public.agency_bump_portal_version();

--
-- Name: appointments appointments_queue_emails; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER appointments_queue_emails AFTER INSERT OR UPDATE OF starts_at, ends_at, status ON public.appointments FOR EACH ROW EXECUTE FUNCTION public.agency_queue_appointment_emails();

--
-- Name: appointments appointments_sequence; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER appointments_sequence BEFORE UPDATE ON public.appointments FOR EACH ROW EXECUTE FUNCTION public.agency_appointment_sequence();

--
-- Name: appointments appointments_touch_updated_at; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER appointments_touch_updated_at BEFORE UPDATE ON public.appointments FOR EACH ROW EXECUTE FUNCTION public.agency_touch_updated_at();

--
-- Name: contacts contacts_touch_updated_at; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER contacts_touch_updated_at BEFORE UPDATE ON public.contacts FOR EACH ROW EXECUTE FUNCTION public.agency_touch_updated_at();

--
-- Name: deals deals_touch_updated_at; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER deals_touch_updated_at BEFORE UPDATE ON public.deals FOR EACH ROW EXECUTE FUNCTION public.agency_touch_updated_at();

--
-- Name: events events_stamp_sequence; Type: TRIGGER; Schema: public; Owner: -
--

CREATE CONSTRAINT TRIGGER events_stamp_sequence AFTER INSERT ON public.events DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION public.agency_stamp_event_sequence();

--
-- Name: leads leads_queue_emails; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER leads_queue_emails AFTER INSERT ON public.leads FOR EACH ROW EXECUTE FUNCTION public.agency_queue_lead_emails('LEAD_ALERT');

--
-- Name: organizations organizations_portal_version_update; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER organizations_portal_version_update AFTER UPDATE ON public.organizations REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION public.agency_bump_portal_version_of_organizations();

--
-- Name: portal_settings portal_settings_portal_version_delete; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER portal_settings_portal_version_delete AFTER DELETE ON public.portal_settings REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION public.agency_bump_portal_version();

--
-- Name: portal_settings portal_settings_portal_version_insert; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER portal_settings_portal_version_insert AFTER INSERT ON public.portal_settings REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION public.agency_bump_portal_version();

--
-- Name: portal_settings portal_settings_portal_version_update; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER portal_settings_portal_version_update AFTER UPDATE ON public.portal_settings REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION public.agency_bump_portal_version();

--
-- Name: properties properties_forget_reso_deletions; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER properties_forget_reso_deletions AFTER INSERT ON public.properties REFERENCING NEW TABLE AS created FOR EACH STATEMENT EXECUTE FUNCTION public.agency_forget_reso_deletions();

--
-- Name: properties properties_keep_on_market_date; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER properties_keep_on_market_date BEFORE INSERT OR UPDATE OF status, on_market_date ON public.properties FOR EACH ROW EXECUTE FUNCTION public.agency_keep_on_market_date();

--
-- Name: properties properties_keep_previous_price; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER properties_keep_previous_price BEFORE UPDATE OF price, currency ON public.properties FOR EACH ROW EXECUTE FUNCTION public.agency_keep_previous_price();

--
-- Name: properties properties_photo_probes_insert; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER properties_photo_probes_insert AFTER INSERT ON public.properties REFERENCING NEW TABLE AS written FOR EACH STATEMENT EXECUTE FUNCTION public.agency_enqueue_photo_probes();

--
-- Name: properties properties_photo_probes_update; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER properties_photo_probes_update AFTER UPDATE ON public.properties REFERENCING NEW TABLE AS written FOR EACH STATEMENT EXECUTE FUNCTION public.agency_enqueue_photo_probes();

--
-- Name: properties properties_portal_version_delete; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER properties_portal_version_delete AFTER DELETE ON public.properties REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION public.agency_bump_portal_version();

--
-- Name: properties properties_portal_version_insert; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER properties_portal_version_insert AFTER INSERT ON public.properties REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION public.agency_bump_portal_version();

--
-- Name: properties properties_portal_version_update; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER properties_portal_version_update AFTER UPDATE ON public.properties REFERENCING OLD TABLE AS previous NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION public.agency_bump_portal_version_of_properties();

--
-- Name: properties properties_reso_deletions; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER properties_reso_deletions AFTER DELETE ON public.properties REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION public.agency_record_reso_deletions();

--
-- Name: properties properties_touch_updated_at; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER properties_touch_updated_at BEFORE INSERT OR UPDATE ON public.properties FOR EACH ROW EXECUTE FUNCTION public.agency_touch_property();

--
-- Name: tasks tasks_touch_updated_at; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER tasks_touch_updated_at BEFORE UPDATE ON public.tasks FOR EACH ROW EXECUTE FUNCTION public.agency_touch_updated_at();

--
-- Name: visit_requests visit_requests_queue_emails; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER visit_requests_queue_emails AFTER INSERT ON public.visit_requests FOR EACH ROW EXECUTE FUNCTION public.agency_queue_lead_emails('VISIT_REQUEST_ALERT');

--
-- Name: agent_time_off agent_time_off_agent_id_agents_id_fk; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.agent_time_off
    ADD CONSTRAINT agent_time_off_agent_id_agents_id_fk FOREIGN KEY (organization_id, agent_id) REFERENCES public.agents(organization_id, id) ON DELETE CASCADE;

--
-- Name: agent_time_off agent_time_off_organization_id_organizations_id_fk; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.agent_time_off
    ADD CONSTRAINT agent_time_off_organization_id_organizations_id_fk FOREIGN KEY (organization_id) REFERENCES public.organizations(id) ON DELETE CASCADE;

--
-- Name: agents agents_organization_id_organizations_id_fk; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.agents
    ADD CONSTRAINT agents_organization_id_organizations_id_fk FOREIGN KEY (organization_id) REFERENCES public.organizations(id) ON DELETE CASCADE;

--
-- Name: analytics_daily analytics_daily_organization_id_organizations_id_fk; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.analytics_daily
    ADD CONSTRAINT analytics_daily_organization_id_organizations_id_fk FOREIGN KEY (organization_id) REFERENCES public.organizations(id) ON DELETE CASCADE;

--
-- Name: analytics_events analytics_events_organization_id_organizations_id_fk; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.analytics_events
    ADD CONSTRAINT analytics_events_organization_id_organizations_id_fk FOREIGN KEY (organization_id) REFERENCES public.organizations(id) ON DELETE CASCADE;

--
-- Name: api_keys api_keys_organization_id_organizations_id_fk; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.api_keys
    ADD CONSTRAINT api_keys_organization_id_organizations_id_fk FOREIGN KEY (organization_id) REFERENCES public.organizations(id) ON DELETE CASCADE;

--
-- Name: appointment_reminders appointment_reminders_appointment_id_appointments_id_fk; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.appointment_reminders
    ADD CONSTRAINT appointment_reminders_appointment_id_appointments_id_fk FOREIGN KEY (organization_id, appointment_id) REFERENCES public.appointments(organization_id, id) ON DELETE CASCADE;

--
-- Name: appointment_reminders appointment_reminders_organization_id_organizations_id_fk; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.appointment_reminders
    ADD CONSTRAINT appointment_reminders_organization_id_organizations_id_fk FOREIGN KEY (organization_id) REFERENCES public.organizations(id) ON DELETE CASCADE;

--
-- Name: appointments appointments_agent_id_agents_id_fk; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.appointments
    ADD CONSTRAINT appointments_agent_id_agents_id_fk FOREIGN KEY (organization_id, agent_id) REFERENCES public.agents(organization_id, id) ON DELETE CASCADE;

--
-- Name: appointments appointments_contact_id_contacts_id_fk; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.appointments
    ADD CONSTRAINT appointments_contact_id_contacts_id_fk FOREIGN KEY (organization_id, contact_id) REFERENCES public.contacts(organization_id, id) ON DELETE SET NULL (contact_id);

--
-- Name: appointments appointments_organization_id_organizations_id_fk; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.appointments
    ADD CONSTRAINT appointments_organization_id_organizations_id_fk FOREIGN KEY (organization_id) REFERENCES public.organizations(id) ON DELETE CASCADE;

--
-- Name: appointments appointments_property_id_properties_id_fk; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.appointments
    ADD CONSTRAINT appointments_property_id_properties_id_fk FOREIGN KEY (organization_id, property_id) REFERENCES public.properties(organization_id, id) ON DELETE SET NULL (property_id);

--
-- Name: calendar_feeds calendar_feeds_organization_id_organizations_id_fk; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.calendar_feeds
    ADD CONSTRAINT calendar_feeds_organization_id_organizations_id_fk FOREIGN KEY (organization_id) REFERENCES public.organizations(id) ON DELETE CASCADE;

--
-- Name: closures closures_organization_id_organizations_id_fk; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.closures
    ADD CONSTRAINT closures_organization_id_organizations_id_fk FOREIGN KEY (organization_id) REFERENCES public.organizations(id) ON DELETE CASCADE;

--
-- Name: console_links console_links_organization_id_organizations_id_fk; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.console_links
    ADD CONSTRAINT console_links_organization_id_organizations_id_fk FOREIGN KEY (organization_id) REFERENCES public.organizations(id) ON DELETE CASCADE;

--
-- Name: console_sessions console_sessions_organization_id_organizations_id_fk; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.console_sessions
    ADD CONSTRAINT console_sessions_organization_id_organizations_id_fk FOREIGN KEY (organization_id) REFERENCES public.organizations(id) ON DELETE CASCADE;

--
-- Name: contact_consents contact_consents_contact_id_contacts_id_fk; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.contact_consents
    ADD CONSTRAINT contact_consents_contact_id_contacts_id_fk FOREIGN KEY (organization_id, contact_id) REFERENCES public.contacts(organization_id, id) ON DELETE CASCADE;

--
-- Name: contact_consents contact_consents_organization_id_organizations_id_fk; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.contact_consents
    ADD CONSTRAINT contact_consents_organization_id_organizations_id_fk FOREIGN KEY (organization_id) REFERENCES public.organizations(id) ON DELETE CASCADE;

--
-- Name: contact_notes contact_notes_author_agent_id_agents_id_fk; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.contact_notes
    ADD CONSTRAINT contact_notes_author_agent_id_agents_id_fk FOREIGN KEY (organization_id, author_agent_id) REFERENCES public.agents(organization_id, id) ON DELETE SET NULL (author_agent_id);

--
-- Name: contact_notes contact_notes_contact_id_contacts_id_fk; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.contact_notes
    ADD CONSTRAINT contact_notes_contact_id_contacts_id_fk FOREIGN KEY (organization_id, contact_id) REFERENCES public.contacts(organization_id, id) ON DELETE CASCADE;

--
-- Name: contact_notes contact_notes_organization_id_organizations_id_fk; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.contact_notes
    ADD CONSTRAINT contact_notes_organization_id_organizations_id_fk FOREIGN KEY (organization_id) REFERENCES public.organizations(id) ON DELETE CASCADE;

--
-- Name: contacts contacts_organization_id_organizations_id_fk; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.contacts
    ADD CONSTRAINT contacts_organization_id_organizations_id_fk FOREIGN KEY (organization_id) REFERENCES public.organizations(id) ON DELETE CASCADE;

--
-- Name: contacts contacts_owner_id_agents_id_fk; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.contacts
    ADD CONSTRAINT contacts_owner_id_agents_id_fk FOREIGN KEY (organization_id, owner_id) REFERENCES public.agents(organization_id, id) ON DELETE SET NULL (owner_id);

--
-- Name: conversations conversations_contact_id_contacts_id_fk; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.conversations
    ADD CONSTRAINT conversations_contact_id_contacts_id_fk FOREIGN KEY (organization_id, contact_id) REFERENCES public.contacts(organization_id, id) ON DELETE CASCADE;

--
-- Name: conversations conversations_organization_id_organizations_id_fk; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.conversations
    ADD CONSTRAINT conversations_organization_id_organizations_id_fk FOREIGN KEY (organization_id) REFERENCES public.organizations(id) ON DELETE CASCADE;

--
-- Name: deal_stage_changes deal_stage_changes_deal_id_deals_id_fk; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.deal_stage_changes
    ADD CONSTRAINT deal_stage_changes_deal_id_deals_id_fk FOREIGN KEY (organization_id, deal_id) REFERENCES public.deals(organization_id, id) ON DELETE CASCADE;

--
-- Name: deal_stage_changes deal_stage_changes_organization_id_organizations_id_fk; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.deal_stage_changes
    ADD CONSTRAINT deal_stage_changes_organization_id_organizations_id_fk FOREIGN KEY (organization_id) REFERENCES public.organizations(id) ON DELETE CASCADE;

--
-- Name: deals deals_agent_id_agents_id_fk; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.deals
    ADD CONSTRAINT deals_agent_id_agents_id_fk FOREIGN KEY (organization_id, agent_id) REFERENCES public.agents(organization_id, id) ON DELETE SET NULL (agent_id);

--
-- Name: deals deals_contact_id_contacts_id_fk; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.deals
    ADD CONSTRAINT deals_contact_id_contacts_id_fk FOREIGN KEY (organization_id, contact_id) REFERENCES public.contacts(organization_id, id) ON DELETE SET NULL (contact_id);

--
-- Name: deals deals_organization_id_organizations_id_fk; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.deals
    ADD CONSTRAINT deals_organization_id_organizations_id_fk FOREIGN KEY (organization_id) REFERENCES public.organizations(id) ON DELETE CASCADE;

--
-- Name: deals deals_pipeline_id_pipelines_id_fk; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.deals
    ADD CONSTRAINT deals_pipeline_id_pipelines_id_fk FOREIGN KEY (organization_id, pipeline_id) REFERENCES public.pipelines(organization_id, id) ON DELETE RESTRICT;

--
-- Name: deals deals_property_id_properties_id_fk; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.deals
    ADD CONSTRAINT deals_property_id_properties_id_fk FOREIGN KEY (organization_id, property_id) REFERENCES public.properties(organization_id, id) ON DELETE SET NULL (property_id);

--
-- Name: deals deals_stage_id_pipeline_stages_id_fk; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.deals
    ADD CONSTRAINT deals_stage_id_pipeline_stages_id_fk FOREIGN KEY (organization_id, stage_id) REFERENCES public.pipeline_stages(organization_id, id) ON DELETE RESTRICT;

--
-- Name: email_settings email_settings_organization_id_organizations_id_fk; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.email_settings
    ADD CONSTRAINT email_settings_organization_id_organizations_id_fk FOREIGN KEY (organization_id) REFERENCES public.organizations(id) ON DELETE CASCADE;

--
-- Name: email_suppressions email_suppressions_organization_id_organizations_id_fk; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.email_suppressions
    ADD CONSTRAINT email_suppressions_organization_id_organizations_id_fk FOREIGN KEY (organization_id) REFERENCES public.organizations(id) ON DELETE CASCADE;

--
-- Name: email_templates email_templates_organization_id_organizations_id_fk; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.email_templates
    ADD CONSTRAINT email_templates_organization_id_organizations_id_fk FOREIGN KEY (organization_id) REFERENCES public.organizations(id) ON DELETE CASCADE;

--
-- Name: emails emails_organization_id_organizations_id_fk; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.emails
    ADD CONSTRAINT emails_organization_id_organizations_id_fk FOREIGN KEY (organization_id) REFERENCES public.organizations(id) ON DELETE CASCADE;

--
-- Name: event_sequences event_sequences_organization_id_organizations_id_fk; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.event_sequences
    ADD CONSTRAINT event_sequences_organization_id_organizations_id_fk FOREIGN KEY (organization_id) REFERENCES public.organizations(id) ON DELETE CASCADE;

--
-- Name: events events_organization_id_organizations_id_fk; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.events
    ADD CONSTRAINT events_organization_id_organizations_id_fk FOREIGN KEY (organization_id) REFERENCES public.organizations(id) ON DELETE CASCADE;

--
-- Name: finder_searches finder_searches_contact_id_contacts_id_fk; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.finder_searches
    ADD CONSTRAINT finder_searches_contact_id_contacts_id_fk FOREIGN KEY (organization_id, contact_id) REFERENCES public.contacts(organization_id, id) ON DELETE CASCADE;

--
-- Name: finder_searches finder_searches_organization_id_organizations_id_fk; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.finder_searches
    ADD CONSTRAINT finder_searches_organization_id_organizations_id_fk FOREIGN KEY (organization_id) REFERENCES public.organizations(id) ON DELETE CASCADE;

--
-- Name: leads leads_contact_id_contacts_id_fk; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.leads
    ADD CONSTRAINT leads_contact_id_contacts_id_fk FOREIGN KEY (organization_id, contact_id) REFERENCES public.contacts(organization_id, id) ON DELETE CASCADE;

--
-- Name: leads leads_organization_id_organizations_id_fk; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.leads
    ADD CONSTRAINT leads_organization_id_organizations_id_fk FOREIGN KEY (organization_id) REFERENCES public.organizations(id) ON DELETE CASCADE;

--
-- Name: leads leads_property_id_properties_id_fk; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.leads
    ADD CONSTRAINT leads_property_id_properties_id_fk FOREIGN KEY (organization_id, property_id) REFERENCES public.properties(organization_id, id) ON DELETE SET NULL (property_id);

--
-- Name: message_templates message_templates_organization_id_organizations_id_fk; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.message_templates
    ADD CONSTRAINT message_templates_organization_id_organizations_id_fk FOREIGN KEY (organization_id) REFERENCES public.organizations(id) ON DELETE CASCADE;

--
-- Name: messages messages_agent_id_agents_id_fk; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.messages
    ADD CONSTRAINT messages_agent_id_agents_id_fk FOREIGN KEY (organization_id, agent_id) REFERENCES public.agents(organization_id, id) ON DELETE SET NULL (agent_id);

--
-- Name: messages messages_contact_id_contacts_id_fk; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.messages
    ADD CONSTRAINT messages_contact_id_contacts_id_fk FOREIGN KEY (organization_id, contact_id) REFERENCES public.contacts(organization_id, id) ON DELETE CASCADE;

--
-- Name: messages messages_organization_id_organizations_id_fk; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.messages
    ADD CONSTRAINT messages_organization_id_organizations_id_fk FOREIGN KEY (organization_id) REFERENCES public.organizations(id) ON DELETE CASCADE;

--
-- Name: messages messages_template_id_message_templates_id_fk; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.messages
    ADD CONSTRAINT messages_template_id_message_templates_id_fk FOREIGN KEY (organization_id, template_id) REFERENCES public.message_templates(organization_id, id) ON DELETE SET NULL (template_id);

--
-- Name: messaging_numbers messaging_numbers_organization_id_organizations_id_fk; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.messaging_numbers
    ADD CONSTRAINT messaging_numbers_organization_id_organizations_id_fk FOREIGN KEY (organization_id) REFERENCES public.organizations(id) ON DELETE CASCADE;

--
-- Name: organization_counters organization_counters_organization_id_organizations_id_fk; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.organization_counters
    ADD CONSTRAINT organization_counters_organization_id_organizations_id_fk FOREIGN KEY (organization_id) REFERENCES public.organizations(id) ON DELETE CASCADE;

--
-- Name: organizations organizations_live_organization_id_organizations_id_fk; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.organizations
    ADD CONSTRAINT organizations_live_organization_id_organizations_id_fk FOREIGN KEY (live_organization_id) REFERENCES public.organizations(id) ON DELETE CASCADE;

--
-- Name: photo_probes photo_probes_organization_id_organizations_id_fk; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.photo_probes
    ADD CONSTRAINT photo_probes_organization_id_organizations_id_fk FOREIGN KEY (organization_id) REFERENCES public.organizations(id) ON DELETE CASCADE;

--
-- Name: photo_probes photo_probes_property_fk; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.photo_probes
    ADD CONSTRAINT photo_probes_property_fk FOREIGN KEY (organization_id, property_id) REFERENCES public.properties(organization_id, id) ON DELETE CASCADE;

--
-- Name: pipeline_stages pipeline_stages_organization_id_organizations_id_fk; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.pipeline_stages
    ADD CONSTRAINT pipeline_stages_organization_id_organizations_id_fk FOREIGN KEY (organization_id) REFERENCES public.organizations(id) ON DELETE CASCADE;

--
-- Name: pipeline_stages pipeline_stages_pipeline_id_pipelines_id_fk; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.pipeline_stages
    ADD CONSTRAINT pipeline_stages_pipeline_id_pipelines_id_fk FOREIGN KEY (organization_id, pipeline_id) REFERENCES public.pipelines(organization_id, id) ON DELETE CASCADE;

--
-- Name: pipelines pipelines_organization_id_organizations_id_fk; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.pipelines
    ADD CONSTRAINT pipelines_organization_id_organizations_id_fk FOREIGN KEY (organization_id) REFERENCES public.organizations(id) ON DELETE CASCADE;

--
-- Name: portal_settings portal_settings_organization_id_organizations_id_fk; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.portal_settings
    ADD CONSTRAINT portal_settings_organization_id_organizations_id_fk FOREIGN KEY (organization_id) REFERENCES public.organizations(id) ON DELETE CASCADE;

--
-- Name: properties properties_agent_id_agents_id_fk; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.properties
    ADD CONSTRAINT properties_agent_id_agents_id_fk FOREIGN KEY (organization_id, agent_id) REFERENCES public.agents(organization_id, id) ON DELETE SET NULL (agent_id);

--
-- Name: properties properties_organization_id_organizations_id_fk; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.properties
    ADD CONSTRAINT properties_organization_id_organizations_id_fk FOREIGN KEY (organization_id) REFERENCES public.organizations(id) ON DELETE CASCADE;

--
-- Name: property_changes property_changes_organization_id_organizations_id_fk; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.property_changes
    ADD CONSTRAINT property_changes_organization_id_organizations_id_fk FOREIGN KEY (organization_id) REFERENCES public.organizations(id) ON DELETE CASCADE;

--
-- Name: property_changes property_changes_property_id_properties_id_fk; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.property_changes
    ADD CONSTRAINT property_changes_property_id_properties_id_fk FOREIGN KEY (organization_id, property_id) REFERENCES public.properties(organization_id, id) ON DELETE CASCADE;

--
-- Name: request_logs request_logs_organization_id_organizations_id_fk; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.request_logs
    ADD CONSTRAINT request_logs_organization_id_organizations_id_fk FOREIGN KEY (organization_id) REFERENCES public.organizations(id) ON DELETE CASCADE;

--
-- Name: reso_deletions reso_deletions_organization_id_organizations_id_fk; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.reso_deletions
    ADD CONSTRAINT reso_deletions_organization_id_organizations_id_fk FOREIGN KEY (organization_id) REFERENCES public.organizations(id) ON DELETE CASCADE;

--
-- Name: tasks tasks_appointment_id_appointments_id_fk; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.tasks
    ADD CONSTRAINT tasks_appointment_id_appointments_id_fk FOREIGN KEY (organization_id, appointment_id) REFERENCES public.appointments(organization_id, id) ON DELETE SET NULL (appointment_id);

--
-- Name: tasks tasks_assignee_id_agents_id_fk; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.tasks
    ADD CONSTRAINT tasks_assignee_id_agents_id_fk FOREIGN KEY (organization_id, assignee_id) REFERENCES public.agents(organization_id, id) ON DELETE SET NULL (assignee_id);

--
-- Name: tasks tasks_contact_id_contacts_id_fk; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.tasks
    ADD CONSTRAINT tasks_contact_id_contacts_id_fk FOREIGN KEY (organization_id, contact_id) REFERENCES public.contacts(organization_id, id) ON DELETE SET NULL (contact_id);

--
-- Name: tasks tasks_organization_id_organizations_id_fk; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.tasks
    ADD CONSTRAINT tasks_organization_id_organizations_id_fk FOREIGN KEY (organization_id) REFERENCES public.organizations(id) ON DELETE CASCADE;

--
-- Name: usage_daily usage_daily_contact_id_contacts_id_fk; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.usage_daily
    ADD CONSTRAINT usage_daily_contact_id_contacts_id_fk FOREIGN KEY (organization_id, contact_id) REFERENCES public.contacts(organization_id, id) ON DELETE CASCADE;

--
-- Name: usage_daily usage_daily_organization_id_organizations_id_fk; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.usage_daily
    ADD CONSTRAINT usage_daily_organization_id_organizations_id_fk FOREIGN KEY (organization_id) REFERENCES public.organizations(id) ON DELETE CASCADE;

--
-- Name: usage_events usage_events_contact_id_contacts_id_fk; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.usage_events
    ADD CONSTRAINT usage_events_contact_id_contacts_id_fk FOREIGN KEY (organization_id, contact_id) REFERENCES public.contacts(organization_id, id) ON DELETE CASCADE;

--
-- Name: usage_events usage_events_organization_id_organizations_id_fk; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.usage_events
    ADD CONSTRAINT usage_events_organization_id_organizations_id_fk FOREIGN KEY (organization_id) REFERENCES public.organizations(id) ON DELETE CASCADE;

--
-- Name: visit_requests visit_requests_appointment_id_appointments_id_fk; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.visit_requests
    ADD CONSTRAINT visit_requests_appointment_id_appointments_id_fk FOREIGN KEY (organization_id, appointment_id) REFERENCES public.appointments(organization_id, id) ON DELETE SET NULL (appointment_id);

--
-- Name: visit_requests visit_requests_contact_id_contacts_id_fk; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.visit_requests
    ADD CONSTRAINT visit_requests_contact_id_contacts_id_fk FOREIGN KEY (organization_id, contact_id) REFERENCES public.contacts(organization_id, id) ON DELETE CASCADE;

--
-- Name: visit_requests visit_requests_organization_id_organizations_id_fk; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.visit_requests
    ADD CONSTRAINT visit_requests_organization_id_organizations_id_fk FOREIGN KEY (organization_id) REFERENCES public.organizations(id) ON DELETE CASCADE;

--
-- Name: visit_requests visit_requests_property_id_properties_id_fk; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.visit_requests
    ADD CONSTRAINT visit_requests_property_id_properties_id_fk FOREIGN KEY (organization_id, property_id) REFERENCES public.properties(organization_id, id) ON DELETE CASCADE;

--
-- Name: webhook_attempts webhook_attempts_delivery_id_webhook_deliveries_id_fk; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.webhook_attempts
    ADD CONSTRAINT webhook_attempts_delivery_id_webhook_deliveries_id_fk FOREIGN KEY (organization_id, delivery_id) REFERENCES public.webhook_deliveries(organization_id, id) ON DELETE CASCADE;

--
-- Name: webhook_attempts webhook_attempts_organization_id_organizations_id_fk; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.webhook_attempts
    ADD CONSTRAINT webhook_attempts_organization_id_organizations_id_fk FOREIGN KEY (organization_id) REFERENCES public.organizations(id) ON DELETE CASCADE;

--
-- Name: webhook_deliveries webhook_deliveries_event_id_events_id_fk; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.webhook_deliveries
    ADD CONSTRAINT webhook_deliveries_event_id_events_id_fk FOREIGN KEY (organization_id, event_id) REFERENCES public.events(organization_id, id) ON DELETE CASCADE;

--
-- Name: webhook_deliveries webhook_deliveries_organization_id_organizations_id_fk; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.webhook_deliveries
    ADD CONSTRAINT webhook_deliveries_organization_id_organizations_id_fk FOREIGN KEY (organization_id) REFERENCES public.organizations(id) ON DELETE CASCADE;

--
-- Name: webhook_deliveries webhook_deliveries_subscription_id_webhook_subscriptions_id_fk; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.webhook_deliveries
    ADD CONSTRAINT webhook_deliveries_subscription_id_webhook_subscriptions_id_fk FOREIGN KEY (organization_id, subscription_id) REFERENCES public.webhook_subscriptions(organization_id, id) ON DELETE CASCADE;

--
-- Name: webhook_subscriptions webhook_subscriptions_organization_id_organizations_id_fk; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.webhook_subscriptions
    ADD CONSTRAINT webhook_subscriptions_organization_id_organizations_id_fk FOREIGN KEY (organization_id) REFERENCES public.organizations(id) ON DELETE CASCADE;

--
-- Name: agent_time_off; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.agent_time_off ENABLE ROW LEVEL SECURITY;

--
-- Name: agents; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.agents ENABLE ROW LEVEL SECURITY;

--
-- Name: analytics_daily; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.analytics_daily ENABLE ROW LEVEL SECURITY;

--
-- Name: analytics_events; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.analytics_events ENABLE ROW LEVEL SECURITY;

--
-- Name: api_keys; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.api_keys ENABLE ROW LEVEL SECURITY;

--
-- Name: appointment_reminders; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.appointment_reminders ENABLE ROW LEVEL SECURITY;

--
-- Name: appointments; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.appointments ENABLE ROW LEVEL SECURITY;

--
-- Name: calendar_feeds; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.calendar_feeds ENABLE ROW LEVEL SECURITY;

--
-- Name: closures; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.closures ENABLE ROW LEVEL SECURITY;

--
-- Name: console_links; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.console_links ENABLE ROW LEVEL SECURITY;

--
-- Name: console_sessions; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.console_sessions ENABLE ROW LEVEL SECURITY;

--
-- Name: contact_consents; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.contact_consents ENABLE ROW LEVEL SECURITY;

--
-- Name: contact_notes; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.contact_notes ENABLE ROW LEVEL SECURITY;

--
-- Name: contacts; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.contacts ENABLE ROW LEVEL SECURITY;

--
-- Name: conversations; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.conversations ENABLE ROW LEVEL SECURITY;

--
-- Name: deal_stage_changes; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.deal_stage_changes ENABLE ROW LEVEL SECURITY;

--
-- Name: deals; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.deals ENABLE ROW LEVEL SECURITY;

--
-- Name: email_settings; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.email_settings ENABLE ROW LEVEL SECURITY;

--
-- Name: email_suppressions; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.email_suppressions ENABLE ROW LEVEL SECURITY;

--
-- Name: email_templates; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.email_templates ENABLE ROW LEVEL SECURITY;

--
-- Name: emails; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.emails ENABLE ROW LEVEL SECURITY;

--
-- Name: event_sequences; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.event_sequences ENABLE ROW LEVEL SECURITY;

--
-- Name: events; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.events ENABLE ROW LEVEL SECURITY;

--
-- Name: finder_searches; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.finder_searches ENABLE ROW LEVEL SECURITY;

--
-- Name: idempotency_keys; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.idempotency_keys ENABLE ROW LEVEL SECURITY;

--
-- Name: leads; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.leads ENABLE ROW LEVEL SECURITY;

--
-- Name: message_templates; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.message_templates ENABLE ROW LEVEL SECURITY;

--
-- Name: messages; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.messages ENABLE ROW LEVEL SECURITY;

--
-- Name: messaging_numbers; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.messaging_numbers ENABLE ROW LEVEL SECURITY;

--
-- Name: organization_counters; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.organization_counters ENABLE ROW LEVEL SECURITY;

--
-- Name: organizations; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.organizations ENABLE ROW LEVEL SECURITY;

--
-- Name: photo_probes; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.photo_probes ENABLE ROW LEVEL SECURITY;

--
-- Name: pipeline_stages; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.pipeline_stages ENABLE ROW LEVEL SECURITY;

--
-- Name: pipelines; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.pipelines ENABLE ROW LEVEL SECURITY;

--
-- Name: portal_settings; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.portal_settings ENABLE ROW LEVEL SECURITY;

--
-- Name: properties; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.properties ENABLE ROW LEVEL SECURITY;

--
-- Name: property_changes; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.property_changes ENABLE ROW LEVEL SECURITY;

--
-- Name: request_logs; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.request_logs ENABLE ROW LEVEL SECURITY;

--
-- Name: reso_deletions; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.reso_deletions ENABLE ROW LEVEL SECURITY;

--
-- Name: agent_time_off system_access; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY system_access ON public.agent_time_off TO agency_system USING (true) WITH CHECK (true);

--
-- Name: agents system_access; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY system_access ON public.agents TO agency_system USING (true) WITH CHECK (true);

--
-- Name: analytics_daily system_access; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY system_access ON public.analytics_daily TO agency_system USING (true) WITH CHECK (true);

--
-- Name: analytics_events system_access; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY system_access ON public.analytics_events TO agency_system USING (true) WITH CHECK (true);

--
-- Name: api_keys system_access; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY system_access ON public.api_keys TO agency_system USING (true) WITH CHECK (true);

--
-- Name: appointment_reminders system_access; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY system_access ON public.appointment_reminders TO agency_system USING (true) WITH CHECK (true);

--
-- Name: appointments system_access; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY system_access ON public.appointments TO agency_system USING (true) WITH CHECK (true);

--
-- Name: calendar_feeds system_access; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY system_access ON public.calendar_feeds TO agency_system USING (true) WITH CHECK (true);

--
-- Name: closures system_access; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY system_access ON public.closures TO agency_system USING (true) WITH CHECK (true);

--
-- Name: console_links system_access; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY system_access ON public.console_links TO agency_system USING (true) WITH CHECK (true);

--
-- Name: console_sessions system_access; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY system_access ON public.console_sessions TO agency_system USING (true) WITH CHECK (true);

--
-- Name: contact_consents system_access; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY system_access ON public.contact_consents TO agency_system USING (true) WITH CHECK (true);

--
-- Name: contact_notes system_access; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY system_access ON public.contact_notes TO agency_system USING (true) WITH CHECK (true);

--
-- Name: contacts system_access; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY system_access ON public.contacts TO agency_system USING (true) WITH CHECK (true);

--
-- Name: conversations system_access; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY system_access ON public.conversations TO agency_system USING (true) WITH CHECK (true);

--
-- Name: deal_stage_changes system_access; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY system_access ON public.deal_stage_changes TO agency_system USING (true) WITH CHECK (true);

--
-- Name: deals system_access; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY system_access ON public.deals TO agency_system USING (true) WITH CHECK (true);

--
-- Name: email_settings system_access; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY system_access ON public.email_settings TO agency_system USING (true) WITH CHECK (true);

--
-- Name: email_suppressions system_access; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY system_access ON public.email_suppressions TO agency_system USING (true) WITH CHECK (true);

--
-- Name: email_templates system_access; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY system_access ON public.email_templates TO agency_system USING (true) WITH CHECK (true);

--
-- Name: emails system_access; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY system_access ON public.emails TO agency_system USING (true) WITH CHECK (true);

--
-- Name: event_sequences system_access; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY system_access ON public.event_sequences TO agency_system USING (true) WITH CHECK (true);

--
-- Name: events system_access; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY system_access ON public.events TO agency_system USING (true) WITH CHECK (true);

--
-- Name: finder_searches system_access; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY system_access ON public.finder_searches TO agency_system USING (true) WITH CHECK (true);

--
-- Name: idempotency_keys system_access; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY system_access ON public.idempotency_keys TO agency_system USING (true) WITH CHECK (true);

--
-- Name: leads system_access; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY system_access ON public.leads TO agency_system USING (true) WITH CHECK (true);

--
-- Name: message_templates system_access; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY system_access ON public.message_templates TO agency_system USING (true) WITH CHECK (true);

--
-- Name: messages system_access; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY system_access ON public.messages TO agency_system USING (true) WITH CHECK (true);

--
-- Name: messaging_numbers system_access; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY system_access ON public.messaging_numbers TO agency_system USING (true) WITH CHECK (true);

--
-- Name: organization_counters system_access; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY system_access ON public.organization_counters TO agency_system USING (true) WITH CHECK (true);

--
-- Name: organizations system_access; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY system_access ON public.organizations TO agency_system USING (true) WITH CHECK (true);

--
-- Name: photo_probes system_access; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY system_access ON public.photo_probes TO agency_system USING (true) WITH CHECK (true);

--
-- Name: pipeline_stages system_access; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY system_access ON public.pipeline_stages TO agency_system USING (true) WITH CHECK (true);

--
-- Name: pipelines system_access; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY system_access ON public.pipelines TO agency_system USING (true) WITH CHECK (true);

--
-- Name: portal_settings system_access; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY system_access ON public.portal_settings TO agency_system USING (true) WITH CHECK (true);

--
-- Name: properties system_access; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY system_access ON public.properties TO agency_system USING (true) WITH CHECK (true);

--
-- Name: property_changes system_access; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY system_access ON public.property_changes TO agency_system USING (true) WITH CHECK (true);

--
-- Name: request_logs system_access; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY system_access ON public.request_logs TO agency_system USING (true) WITH CHECK (true);

--
-- Name: reso_deletions system_access; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY system_access ON public.reso_deletions TO agency_system USING (true) WITH CHECK (true);

--
-- Name: tasks system_access; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY system_access ON public.tasks TO agency_system USING (true) WITH CHECK (true);

--
-- Name: usage_daily system_access; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY system_access ON public.usage_daily TO agency_system USING (true) WITH CHECK (true);

--
-- Name: usage_events system_access; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY system_access ON public.usage_events TO agency_system USING (true) WITH CHECK (true);

--
-- Name: visit_requests system_access; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY system_access ON public.visit_requests TO agency_system USING (true) WITH CHECK (true);

--
-- Name: webhook_attempts system_access; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY system_access ON public.webhook_attempts TO agency_system USING (true) WITH CHECK (true);

--
-- Name: webhook_deliveries system_access; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY system_access ON public.webhook_deliveries TO agency_system USING (true) WITH CHECK (true);

--
-- Name: webhook_subscriptions system_access; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY system_access ON public.webhook_subscriptions TO agency_system USING (true) WITH CHECK (true);

--
-- Name: tasks; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.tasks ENABLE ROW LEVEL SECURITY;

--
-- Name: agent_time_off tenant_isolation; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY tenant_isolation ON public.agent_time_off TO agency_app USING ((organization_id = NULLIF(current_setting('app.organization_id'::text, true), ''::text))) WITH CHECK ((organization_id = NULLIF(current_setting('app.organization_id'::text, true), ''::text)));

--
-- Name: agents tenant_isolation; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY tenant_isolation ON public.agents TO agency_app USING ((organization_id = NULLIF(current_setting('app.organization_id'::text, true), ''::text))) WITH CHECK ((organization_id = NULLIF(current_setting('app.organization_id'::text, true), ''::text)));

--
-- Name: analytics_daily tenant_isolation; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY tenant_isolation ON public.analytics_daily TO agency_app USING ((organization_id = NULLIF(current_setting('app.organization_id'::text, true), ''::text))) WITH CHECK ((organization_id = NULLIF(current_setting('app.organization_id'::text, true), ''::text)));

--
-- Name: analytics_events tenant_isolation; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY tenant_isolation ON public.analytics_events TO agency_app USING ((organization_id = NULLIF(current_setting('app.organization_id'::text, true), ''::text))) WITH CHECK ((organization_id = NULLIF(current_setting('app.organization_id'::text, true), ''::text)));

--
-- Name: api_keys tenant_isolation; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY tenant_isolation ON public.api_keys TO agency_app USING ((organization_id = NULLIF(current_setting('app.organization_id'::text, true), ''::text))) WITH CHECK ((organization_id = NULLIF(current_setting('app.organization_id'::text, true), ''::text)));

--
-- Name: appointment_reminders tenant_isolation; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY tenant_isolation ON public.appointment_reminders TO agency_app USING ((organization_id = NULLIF(current_setting('app.organization_id'::text, true), ''::text))) WITH CHECK ((organization_id = NULLIF(current_setting('app.organization_id'::text, true), ''::text)));

--
-- Name: appointments tenant_isolation; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY tenant_isolation ON public.appointments TO agency_app USING ((organization_id = NULLIF(current_setting('app.organization_id'::text, true), ''::text))) WITH CHECK ((organization_id = NULLIF(current_setting('app.organization_id'::text, true), ''::text)));

--
-- Name: calendar_feeds tenant_isolation; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY tenant_isolation ON public.calendar_feeds TO agency_app USING ((organization_id = NULLIF(current_setting('app.organization_id'::text, true), ''::text))) WITH CHECK ((organization_id = NULLIF(current_setting('app.organization_id'::text, true), ''::text)));

--
-- Name: closures tenant_isolation; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY tenant_isolation ON public.closures TO agency_app USING ((organization_id = NULLIF(current_setting('app.organization_id'::text, true), ''::text))) WITH CHECK ((organization_id = NULLIF(current_setting('app.organization_id'::text, true), ''::text)));

--
-- Name: console_links tenant_isolation; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY tenant_isolation ON public.console_links TO agency_app USING ((organization_id = NULLIF(current_setting('app.organization_id'::text, true), ''::text))) WITH CHECK ((organization_id = NULLIF(current_setting('app.organization_id'::text, true), ''::text)));

--
-- Name: console_sessions tenant_isolation; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY tenant_isolation ON public.console_sessions TO agency_app USING ((organization_id = NULLIF(current_setting('app.organization_id'::text, true), ''::text))) WITH CHECK ((organization_id = NULLIF(current_setting('app.organization_id'::text, true), ''::text)));

--
-- Name: contact_consents tenant_isolation; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY tenant_isolation ON public.contact_consents TO agency_app USING ((organization_id = NULLIF(current_setting('app.organization_id'::text, true), ''::text))) WITH CHECK ((organization_id = NULLIF(current_setting('app.organization_id'::text, true), ''::text)));

--
-- Name: contact_notes tenant_isolation; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY tenant_isolation ON public.contact_notes TO agency_app USING ((organization_id = NULLIF(current_setting('app.organization_id'::text, true), ''::text))) WITH CHECK ((organization_id = NULLIF(current_setting('app.organization_id'::text, true), ''::text)));

--
-- Name: contacts tenant_isolation; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY tenant_isolation ON public.contacts TO agency_app USING ((organization_id = NULLIF(current_setting('app.organization_id'::text, true), ''::text))) WITH CHECK ((organization_id = NULLIF(current_setting('app.organization_id'::text, true), ''::text)));

--
-- Name: conversations tenant_isolation; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY tenant_isolation ON public.conversations TO agency_app USING ((organization_id = NULLIF(current_setting('app.organization_id'::text, true), ''::text))) WITH CHECK ((organization_id = NULLIF(current_setting('app.organization_id'::text, true), ''::text)));

--
-- Name: deal_stage_changes tenant_isolation; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY tenant_isolation ON public.deal_stage_changes TO agency_app USING ((organization_id = NULLIF(current_setting('app.organization_id'::text, true), ''::text))) WITH CHECK ((organization_id = NULLIF(current_setting('app.organization_id'::text, true), ''::text)));

--
-- Name: deals tenant_isolation; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY tenant_isolation ON public.deals TO agency_app USING ((organization_id = NULLIF(current_setting('app.organization_id'::text, true), ''::text))) WITH CHECK ((organization_id = NULLIF(current_setting('app.organization_id'::text, true), ''::text)));

--
-- Name: email_settings tenant_isolation; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY tenant_isolation ON public.email_settings TO agency_app USING ((organization_id = NULLIF(current_setting('app.organization_id'::text, true), ''::text))) WITH CHECK ((organization_id = NULLIF(current_setting('app.organization_id'::text, true), ''::text)));

--
-- Name: email_suppressions tenant_isolation; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY tenant_isolation ON public.email_suppressions TO agency_app USING ((organization_id = NULLIF(current_setting('app.organization_id'::text, true), ''::text))) WITH CHECK ((organization_id = NULLIF(current_setting('app.organization_id'::text, true), ''::text)));

--
-- Name: email_templates tenant_isolation; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY tenant_isolation ON public.email_templates TO agency_app USING ((organization_id = NULLIF(current_setting('app.organization_id'::text, true), ''::text))) WITH CHECK ((organization_id = NULLIF(current_setting('app.organization_id'::text, true), ''::text)));

--
-- Name: emails tenant_isolation; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY tenant_isolation ON public.emails TO agency_app USING ((organization_id = NULLIF(current_setting('app.organization_id'::text, true), ''::text))) WITH CHECK ((organization_id = NULLIF(current_setting('app.organization_id'::text, true), ''::text)));

--
-- Name: event_sequences tenant_isolation; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY tenant_isolation ON public.event_sequences TO agency_app USING ((organization_id = NULLIF(current_setting('app.organization_id'::text, true), ''::text))) WITH CHECK ((organization_id = NULLIF(current_setting('app.organization_id'::text, true), ''::text)));

--
-- Name: events tenant_isolation; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY tenant_isolation ON public.events TO agency_app USING ((organization_id = NULLIF(current_setting('app.organization_id'::text, true), ''::text))) WITH CHECK ((organization_id = NULLIF(current_setting('app.organization_id'::text, true), ''::text)));

--
-- Name: finder_searches tenant_isolation; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY tenant_isolation ON public.finder_searches TO agency_app USING ((organization_id = NULLIF(current_setting('app.organization_id'::text, true), ''::text))) WITH CHECK ((organization_id = NULLIF(current_setting('app.organization_id'::text, true), ''::text)));

--
-- Name: idempotency_keys tenant_isolation; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY tenant_isolation ON public.idempotency_keys TO agency_app USING ((organization_id = NULLIF(current_setting('app.organization_id'::text, true), ''::text))) WITH CHECK ((organization_id = NULLIF(current_setting('app.organization_id'::text, true), ''::text)));

--
-- Name: leads tenant_isolation; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY tenant_isolation ON public.leads TO agency_app USING ((organization_id = NULLIF(current_setting('app.organization_id'::text, true), ''::text))) WITH CHECK ((organization_id = NULLIF(current_setting('app.organization_id'::text, true), ''::text)));

--
-- Name: message_templates tenant_isolation; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY tenant_isolation ON public.message_templates TO agency_app USING ((organization_id = NULLIF(current_setting('app.organization_id'::text, true), ''::text))) WITH CHECK ((organization_id = NULLIF(current_setting('app.organization_id'::text, true), ''::text)));

--
-- Name: messages tenant_isolation; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY tenant_isolation ON public.messages TO agency_app USING ((organization_id = NULLIF(current_setting('app.organization_id'::text, true), ''::text))) WITH CHECK ((organization_id = NULLIF(current_setting('app.organization_id'::text, true), ''::text)));

--
-- Name: messaging_numbers tenant_isolation; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY tenant_isolation ON public.messaging_numbers TO agency_app USING ((organization_id = NULLIF(current_setting('app.organization_id'::text, true), ''::text))) WITH CHECK ((organization_id = NULLIF(current_setting('app.organization_id'::text, true), ''::text)));

--
-- Name: organization_counters tenant_isolation; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY tenant_isolation ON public.organization_counters TO agency_app USING ((organization_id = NULLIF(current_setting('app.organization_id'::text, true), ''::text))) WITH CHECK ((organization_id = NULLIF(current_setting('app.organization_id'::text, true), ''::text)));

--
-- Name: organizations tenant_isolation; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY tenant_isolation ON public.organizations TO agency_app USING ((id = NULLIF(current_setting('app.organization_id'::text, true), ''::text))) WITH CHECK ((id = NULLIF(current_setting('app.organization_id'::text, true), ''::text)));

--
-- Name: photo_probes tenant_isolation; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY tenant_isolation ON public.photo_probes TO agency_app USING ((organization_id = NULLIF(current_setting('app.organization_id'::text, true), ''::text))) WITH CHECK ((organization_id = NULLIF(current_setting('app.organization_id'::text, true), ''::text)));

--
-- Name: pipeline_stages tenant_isolation; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY tenant_isolation ON public.pipeline_stages TO agency_app USING ((organization_id = NULLIF(current_setting('app.organization_id'::text, true), ''::text))) WITH CHECK ((organization_id = NULLIF(current_setting('app.organization_id'::text, true), ''::text)));

--
-- Name: pipelines tenant_isolation; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY tenant_isolation ON public.pipelines TO agency_app USING ((organization_id = NULLIF(current_setting('app.organization_id'::text, true), ''::text))) WITH CHECK ((organization_id = NULLIF(current_setting('app.organization_id'::text, true), ''::text)));

--
-- Name: portal_settings tenant_isolation; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY tenant_isolation ON public.portal_settings TO agency_app USING ((organization_id = NULLIF(current_setting('app.organization_id'::text, true), ''::text))) WITH CHECK ((organization_id = NULLIF(current_setting('app.organization_id'::text, true), ''::text)));

--
-- Name: properties tenant_isolation; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY tenant_isolation ON public.properties TO agency_app USING ((organization_id = NULLIF(current_setting('app.organization_id'::text, true), ''::text))) WITH CHECK ((organization_id = NULLIF(current_setting('app.organization_id'::text, true), ''::text)));

--
-- Name: property_changes tenant_isolation; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY tenant_isolation ON public.property_changes TO agency_app USING ((organization_id = NULLIF(current_setting('app.organization_id'::text, true), ''::text))) WITH CHECK ((organization_id = NULLIF(current_setting('app.organization_id'::text, true), ''::text)));

--
-- Name: request_logs tenant_isolation; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY tenant_isolation ON public.request_logs TO agency_app USING ((organization_id = NULLIF(current_setting('app.organization_id'::text, true), ''::text))) WITH CHECK ((organization_id = NULLIF(current_setting('app.organization_id'::text, true), ''::text)));

--
-- Name: reso_deletions tenant_isolation; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY tenant_isolation ON public.reso_deletions TO agency_app USING ((organization_id = NULLIF(current_setting('app.organization_id'::text, true), ''::text))) WITH CHECK ((organization_id = NULLIF(current_setting('app.organization_id'::text, true), ''::text)));

--
-- Name: tasks tenant_isolation; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY tenant_isolation ON public.tasks TO agency_app USING ((organization_id = NULLIF(current_setting('app.organization_id'::text, true), ''::text))) WITH CHECK ((organization_id = NULLIF(current_setting('app.organization_id'::text, true), ''::text)));

--
-- Name: usage_daily tenant_isolation; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY tenant_isolation ON public.usage_daily TO agency_app USING ((organization_id = NULLIF(current_setting('app.organization_id'::text, true), ''::text))) WITH CHECK ((organization_id = NULLIF(current_setting('app.organization_id'::text, true), ''::text)));

--
-- Name: usage_events tenant_isolation; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY tenant_isolation ON public.usage_events TO agency_app USING ((organization_id = NULLIF(current_setting('app.organization_id'::text, true), ''::text))) WITH CHECK ((organization_id = NULLIF(current_setting('app.organization_id'::text, true), ''::text)));

--
-- Name: visit_requests tenant_isolation; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY tenant_isolation ON public.visit_requests TO agency_app USING ((organization_id = NULLIF(current_setting('app.organization_id'::text, true), ''::text))) WITH CHECK ((organization_id = NULLIF(current_setting('app.organization_id'::text, true), ''::text)));

--
-- Name: webhook_attempts tenant_isolation; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY tenant_isolation ON public.webhook_attempts TO agency_app USING ((organization_id = NULLIF(current_setting('app.organization_id'::text, true), ''::text))) WITH CHECK ((organization_id = NULLIF(current_setting('app.organization_id'::text, true), ''::text)));

--
-- Name: webhook_deliveries tenant_isolation; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY tenant_isolation ON public.webhook_deliveries TO agency_app USING ((organization_id = NULLIF(current_setting('app.organization_id'::text, true), ''::text))) WITH CHECK ((organization_id = NULLIF(current_setting('app.organization_id'::text, true), ''::text)));

--
-- Name: webhook_subscriptions tenant_isolation; Type: POLICY; Schema: public; Owner: -
--

CREATE POLICY tenant_isolation ON public.webhook_subscriptions TO agency_app USING ((organization_id = NULLIF(current_setting('app.organization_id'::text, true), ''::text))) WITH CHECK ((organization_id = NULLIF(current_setting('app.organization_id'::text, true), ''::text)));

--
-- Name: usage_daily; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.usage_daily ENABLE ROW LEVEL SECURITY;

--
-- Name: usage_events; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.usage_events ENABLE ROW LEVEL SECURITY;

--
-- Name: visit_requests; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.visit_requests ENABLE ROW LEVEL SECURITY;

--
-- Name: webhook_attempts; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.webhook_attempts ENABLE ROW LEVEL SECURITY;

--
-- Name: webhook_deliveries; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.webhook_deliveries ENABLE ROW LEVEL SECURITY;

--
-- Name: webhook_subscriptions; Type: ROW SECURITY; Schema: public; Owner: -
--

ALTER TABLE public.webhook_subscriptions ENABLE ROW LEVEL SECURITY;

--
-- PostgreSQL database dump complete
--
