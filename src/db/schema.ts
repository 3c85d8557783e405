/**
 * Table definitions (drizzle-kit reads this file to generate db/migrations).
 *
 * Glossary
 * - organization: a real-estate agency, the tenant. Every row of every other table carries its
 *   `organization_id`, and Row-Level Security (migration 0001) hides rows of other tenants.
 * - test twin: the organization's sandbox, a second organization row whose
 *   `live_organization_id` points at the live one. Test-mode keys act on the twin; its events
 *   carry `livemode: false`. Plan, activity and read-only state follow the live organization.
 * - key: an API key (publishable, secret, read-only secret). Only its SHA-256 is stored.
 * - scope: a permission string such as `contacts:read`; access level: 1-3, 3 = support approved.
 * - event: an immutable record of a change, written in the transaction of that change.
 * - idempotency record: the stored outcome of a POST sent with an Idempotency-Key.
 */
import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  date,
  doublePrecision,
  index,
  integer,
  jsonb,
  numeric,
  pgTable,
  primaryKey,
  smallint,
  text,
  timestamp,
  uniqueIndex,
  type AnyPgColumn,
} from 'drizzle-orm/pg-core';
import type { KeyMode, KeyType } from '../platform/auth/keys.ts';
import type { Plan } from '../platform/auth/plans.ts';

const createdAt = () => timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow();
const updatedAt = () => timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow();


export const organizations = pgTable(
  'organizations',
  {
    id: text('id').primaryKey(),
    name: text('name').notNull(),
    plan: text('plan').$type<Plan>().notNull(),
    isActive: boolean('is_active').notNull().default(true),
    readOnly: boolean('read_only').notNull().default(false),
    /** Organization-wide writes per minute; null = the plan's default. */
    writeLimitPerMinute: integer('write_limit_per_minute'),
    defaultCountry: text('default_country').notNull().default('US'),
    defaultCurrency: text('default_currency').notNull().default('USD'),
    /** Set on a test twin: the live organization it mirrors. */
    liveOrganizationId: text('live_organization_id').references((): AnyPgColumn => organizations.id, {
      onDelete: 'cascade',
    }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex('organizations_live_organization_id_key').on(t.liveOrganizationId)],
);

export const KEY_STATUSES = ['active', 'suspended', 'deactivated'] as const;
export type KeyStatus = (typeof KEY_STATUSES)[number];

export const apiKeys = pgTable(
  'api_keys',
  {
    id: text('id').primaryKey(),
    /** The organization the key acts on: the test twin for test-mode keys. */
    organizationId: text('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    type: text('type').$type<KeyType>().notNull(),
    mode: text('mode').$type<KeyMode>().notNull(),
    /** Lowercase hex SHA-256 of the full key; the key itself is never stored. */
    keyHash: text('key_hash').notNull(),
    /** First characters of the key, shown in listings so people can tell keys apart. */
    keyPrefix: text('key_prefix').notNull(),
    name: text('name'),
    scopes: text('scopes').array().notNull(),
    accessLevel: smallint('access_level').notNull().default(1),
    status: text('status').$type<KeyStatus>().notNull().default('active'),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }),
    rateLimitPerMinute: integer('rate_limit_per_minute'),
    writeLimitPerMinute: integer('write_limit_per_minute'),
    agentId: text('agent_id'),
    lastUsedAt: timestamp('last_used_at', { withTimezone: true, mode: 'date' }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('api_keys_key_hash_key').on(t.keyHash),
    index('api_keys_organization_id_created_at_idx').on(t.organizationId, t.createdAt),
  ],
);

export const events = pgTable(
  'events',
  {
    id: text('id').primaryKey(),
    organizationId: text('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    type: text('type').notNull(),
    livemode: boolean('livemode').notNull(),
    actor: jsonb('actor').$type<{ kind: string; userId: string | null }>().notNull(),
    data: jsonb('data').$type<Record<string, unknown>>().notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date', precision: 3 }).notNull().defaultNow(),
  },
  (t) => [
    index('events_organization_id_type_created_at_idx').on(t.organizationId, t.type, t.createdAt.desc()),
    index('events_organization_id_created_at_idx').on(t.organizationId, t.createdAt.desc()),
  ],
);

export const IDEMPOTENCY_STATUSES = ['in_progress', 'completed'] as const;
export type IdempotencyStatus = (typeof IDEMPOTENCY_STATUSES)[number];

export const idempotencyKeys = pgTable(
  'idempotency_keys',
  {
    organizationId: text('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    key: text('key').notNull(),
    /** SHA-256 of method, route and body: a reuse with anything else is a 409. */
    fingerprint: text('fingerprint').notNull(),
    status: text('status').$type<IdempotencyStatus>().notNull(),
    responseStatus: integer('response_status'),
    responseBody: text('response_body'),
    /** While in progress: when a crashed request's claim lapses and a retry may run it again. */
    lockedUntil: timestamp('locked_until', { withTimezone: true, mode: 'date' }),
    createdAt: createdAt(),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' })
      .notNull()
      .default(sql`now() + interval '24 hours'`),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.key] }),
    index('idempotency_keys_expires_at_idx').on(t.expiresAt),
  ],
);

export type OrganizationRow = typeof organizations.$inferSelect;
export type ApiKeyRow = typeof apiKeys.$inferSelect;
export type EventRow = typeof events.$inferSelect;

// ---------------------------------------------------------------------------------------------
// Portal, leads, booking, finder and analytics (issue 3). Glossary
// - agent: a person of the agency shown on the portal; bookable when it has a booking slug and
//   booking hours. Agents are not users of this service (there are no logins): an API key may be
//   bound to one.
// - property: a listing. The portal shows only ACTIVE ones with `published_on_portal`.
// - contact: a person the agency talks to; portal forms upsert one by phone, then by email.
// - lead / visit request / finder search: what a portal form leaves behind, tied to a contact.
// - appointment: a booked slot in an agent's calendar; active ones never overlap (constraint).
// - analytics event: a portal page event; raw rows plus daily aggregates per property and type.
// `search_*` columns hold lowercase, accent-free text (fold() in properties.store.ts) so portal
// filters match "malaga" to "Málaga" through trigram indexes without the unaccent extension.
// ---------------------------------------------------------------------------------------------

const money = (name: string) => numeric(name, { precision: 14, scale: 2, mode: 'number' });
const tenantId = () =>
  text('organization_id')
    .notNull()
    .references(() => organizations.id, { onDelete: 'cascade' });
const PORTAL_VISIBLE = sql`status = 'ACTIVE' AND published_on_portal`;

/** Per-organization counters behind human-readable codes (`CT-000042`). */
export const organizationCounters = pgTable(
  'organization_counters',
  {
    organizationId: tenantId(),
    name: text('name').notNull(),
    value: bigint('value', { mode: 'number' }).notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.organizationId, t.name] })],
);

/** Booking settings of an agent, as the admin API takes and shows them. */
export interface AgentBookingSettings {
  autoConfirm: boolean;
  timezone: string;
  /** ISO weekdays (1 = Monday) with the default hours. */
  weekdays: number[];
  startTime: string;
  endTime: string;
  /** Per-weekday hours that replace the default hours on that day. */
  weeklyHours: { weekday: number; startTime: string; endTime: string }[];
  slotMinutes: number;
  bufferMinutes: number;
  horizonDays: number;
  minNoticeMinutes: number;
}

export const agents = pgTable(
  'agents',
  {
    id: text('id').primaryKey(),
    organizationId: tenantId(),
    firstName: text('first_name').notNull(),
    lastName: text('last_name').notNull().default(''),
    email: text('email'),
    phone: text('phone'),
    photoUrl: text('photo_url'),
    bio: text('bio'),
    active: boolean('active').notNull().default(true),
    showOnPortal: boolean('show_on_portal').notNull().default(true),
    bookingSlug: text('booking_slug'),
    booking: jsonb('booking').$type<AgentBookingSettings>(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('agents_organization_id_booking_slug_key').on(t.organizationId, t.bookingSlug),
    index('agents_organization_id_created_at_idx').on(t.organizationId, t.createdAt),
  ],
);

export interface PropertyPhoto {
  url: string;
  caption: string | null;
}

export const properties = pgTable(
  'properties',
  {
    id: text('id').primaryKey(),
    organizationId: tenantId(),
    code: text('code').notNull(),
    title: text('title').notNull(),
    description: text('description').notNull().default(''),
    transactionType: text('transaction_type').notNull(),
    type: text('type').notNull(),
    status: text('status').notNull().default('ACTIVE'),
    publishedOnPortal: boolean('published_on_portal').notNull().default(true),
    featured: boolean('featured').notNull().default(false),
    price: money('price').notNull(),
    currency: text('currency').notNull(),
    city: text('city').notNull(),
    neighborhood: text('neighborhood'),
    address: text('address'),
    zipCode: text('zip_code'),
    latitude: doublePrecision('latitude'),
    longitude: doublePrecision('longitude'),
    approximateLocation: boolean('approximate_location').notNull().default(false),
    /** The coordinates the portal shows and filters on: rounded to 2 decimals when approximate. */
    portalLatitude: doublePrecision('portal_latitude'),
    portalLongitude: doublePrecision('portal_longitude'),
    bedrooms: integer('bedrooms').notNull().default(0),
    bathrooms: integer('bathrooms').notNull().default(0),
    area: numeric('area', { precision: 10, scale: 2, mode: 'number' }),
    /**
     * float8 copies of price and area for the portal's filters, sorts and indexes: float8 comparisons
     * are leakproof, numeric ones are not, so under row-level security only these can be index
     * conditions (docs/performance.md §2). Exact for numeric(14,2)/(10,2) magnitudes and in the same order.
     */
    priceValue: doublePrecision('price_value')
      .generatedAlwaysAs(sql`price::double precision`)
      .notNull(),
    areaValue: doublePrecision('area_value').generatedAlwaysAs(sql`area::double precision`),
    amenities: text('amenities').array().notNull().default(sql`'{}'::text[]`),
    photos: jsonb('photos').$type<PropertyPhoto[]>().notNull().default(sql`'[]'::jsonb`),
    agentId: text('agent_id').references(() => agents.id, { onDelete: 'set null' }),
    internalNotes: text('internal_notes'),
    customFields: jsonb('custom_fields').$type<Record<string, unknown>>().notNull().default(sql`'{}'::jsonb`),
    searchCity: text('search_city').notNull(),
    searchNeighborhood: text('search_neighborhood').notNull().default(''),
    searchText: text('search_text').notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('properties_organization_id_code_key').on(t.organizationId, t.code),
    // Plain ascending columns: a backward scan serves `created_at DESC, id DESC` (what the lists ask).
    index('properties_organization_id_created_at_idx').on(t.organizationId, t.createdAt, t.id),
    index('properties_agent_id_idx').on(t.agentId),
    // Portal: partial indexes over the visible stock only, one per sort and per selective filter.
    // Only leakproof comparisons (text equality, float8 and integer ranges) can use them under RLS.
    index('properties_portal_created_at_idx')
      .on(t.organizationId, t.createdAt, t.id)
      .where(PORTAL_VISIBLE),
    index('properties_portal_price_idx').on(t.organizationId, t.priceValue, t.id).where(PORTAL_VISIBLE),
    index('properties_portal_area_idx').on(t.organizationId, t.areaValue, t.id).where(PORTAL_VISIBLE),
    // area desc keeps unknown areas last: its own order, not the backward scan of the one above.
    index('properties_portal_area_desc_idx')
      .on(t.organizationId, t.areaValue.desc().nullsLast(), t.id.desc().nullsFirst())
      .where(PORTAL_VISIBLE),
    index('properties_portal_type_idx')
      .on(t.organizationId, t.transactionType, t.type, t.priceValue)
      .where(PORTAL_VISIBLE),
    index('properties_portal_bedrooms_idx')
      .on(t.organizationId, t.bedrooms, t.priceValue)
      .where(PORTAL_VISIBLE),
    index('properties_portal_bathrooms_idx')
      .on(t.organizationId, t.bathrooms, t.priceValue)
      .where(PORTAL_VISIBLE),
    // city/neighborhood are resolved to the agency's exact folded values, then `= ANY(...)`.
    index('properties_portal_city_idx')
      .on(t.organizationId, t.searchCity, t.priceValue, t.id)
      .where(PORTAL_VISIBLE),
    index('properties_portal_neighborhood_idx')
      .on(t.organizationId, t.searchNeighborhood, t.priceValue)
      .where(PORTAL_VISIBLE),
    index('properties_portal_featured_idx')
      .on(t.organizationId, t.createdAt, t.id)
      .where(sql`status = 'ACTIVE' AND published_on_portal AND featured`),
    index('properties_portal_geo_idx')
      .on(t.organizationId, t.portalLatitude, t.portalLongitude)
      .where(PORTAL_VISIBLE),
    index('properties_portal_text_trgm_idx')
      .using('gin', sql`${t.searchText} gin_trgm_ops`)
      .where(PORTAL_VISIBLE),
    index('properties_portal_amenities_idx').using('gin', t.amenities).where(PORTAL_VISIBLE),
  ],
);

/** Portal settings: one row per organization, created on first change. */
export const portalSettings = pgTable('portal_settings', {
  organizationId: text('organization_id')
    .primaryKey()
    .references(() => organizations.id, { onDelete: 'cascade' }),
  agencyName: text('agency_name'),
  logoUrl: text('logo_url'),
  colors: jsonb('colors').$type<Record<string, string>>().notNull().default(sql`'{}'::jsonb`),
  contact: jsonb('contact').$type<Record<string, string | null>>().notNull().default(sql`'{}'::jsonb`),
  socialLinks: jsonb('social_links').$type<Record<string, string>>().notNull().default(sql`'{}'::jsonb`),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
});

export const contacts = pgTable(
  'contacts',
  {
    id: text('id').primaryKey(),
    organizationId: tenantId(),
    code: text('code').notNull(),
    firstName: text('first_name').notNull(),
    lastName: text('last_name').notNull().default(''),
    email: text('email'),
    /** Lowercased email: the dedupe key. */
    emailKey: text('email_key'),
    /** E.164. */
    phone: text('phone'),
    source: text('source').notNull(),
    status: text('status').notNull(),
    type: text('type').notNull(),
    score: integer('score').notNull().default(0),
    ownerId: text('owner_id').references(() => agents.id, { onDelete: 'set null' }),
    preferredCity: text('preferred_city'),
    preferredType: text('preferred_type'),
    budget: money('budget'),
    currency: text('currency'),
    tags: text('tags').array().notNull().default(sql`'{}'::text[]`),
    optedOut: boolean('opted_out').notNull().default(false),
    externalId: text('external_id'),
    /** Lowercase, accent-free name, email and phone digits for `q`. */
    searchText: text('search_text').notNull().default(''),
    lastActivityAt: timestamp('last_activity_at', { withTimezone: true, mode: 'date' }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('contacts_organization_id_code_key').on(t.organizationId, t.code),
    uniqueIndex('contacts_organization_id_phone_key').on(t.organizationId, t.phone),
    uniqueIndex('contacts_organization_id_email_key_key').on(t.organizationId, t.emailKey),
    // The list's default order (`created_at DESC, id DESC` by a backward scan) and `q`: under RLS
    // `LIKE` is not leakproof, so `q` is a filter over one organization's entries; with search_text
    // in the index the count is an index-only scan (no heap), docs/performance.md.
    index('contacts_organization_id_created_at_idx').on(
      t.organizationId,
      t.createdAt,
      t.id,
      t.searchText,
    ),
    index('contacts_organization_id_status_idx').on(t.organizationId, t.status, t.createdAt.desc()),
    index('contacts_organization_id_source_idx').on(t.organizationId, t.source, t.createdAt.desc()),
    index('contacts_organization_id_type_idx').on(t.organizationId, t.type, t.createdAt.desc()),
    index('contacts_owner_id_idx').on(t.ownerId),
    index('contacts_tags_idx').using('gin', t.tags),
    index('contacts_organization_id_external_id_idx').on(t.organizationId, t.externalId),
    // Few contacts opt out: a partial index keeps `optedOut=true` (the messaging block list) cheap.
    index('contacts_organization_id_opted_out_idx')
      .on(t.organizationId, t.createdAt.desc())
      .where(sql`opted_out`),
  ],
);

export const leads = pgTable(
  'leads',
  {
    id: text('id').primaryKey(),
    organizationId: tenantId(),
    contactId: text('contact_id')
      .notNull()
      .references(() => contacts.id, { onDelete: 'cascade' }),
    propertyId: text('property_id').references(() => properties.id, { onDelete: 'set null' }),
    message: text('message'),
    interestedIn: text('interested_in'),
    utm: jsonb('utm').$type<Record<string, string>>().notNull().default(sql`'{}'::jsonb`),
    createdAt: createdAt(),
  },
  (t) => [
    index('leads_organization_id_created_at_idx').on(t.organizationId, t.createdAt.desc()),
    index('leads_contact_id_idx').on(t.contactId),
  ],
);

export const visitRequests = pgTable(
  'visit_requests',
  {
    id: text('id').primaryKey(),
    organizationId: tenantId(),
    contactId: text('contact_id')
      .notNull()
      .references(() => contacts.id, { onDelete: 'cascade' }),
    propertyId: text('property_id')
      .notNull()
      .references(() => properties.id, { onDelete: 'cascade' }),
    preferredDate: date('preferred_date', { mode: 'string' }),
    preferredTime: text('preferred_time'),
    message: text('message'),
    status: text('status').notNull().default('PENDING'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index('visit_requests_organization_id_created_at_idx').on(t.organizationId, t.createdAt.desc()),
    index('visit_requests_contact_id_idx').on(t.contactId),
  ],
);

/** Appointment statuses that hold a slot: the no-overlap constraint covers only these. */
export const ACTIVE_APPOINTMENT_STATUSES = ['SCHEDULED', 'CONFIRMED'] as const;

export const appointments = pgTable(
  'appointments',
  {
    id: text('id').primaryKey(),
    organizationId: tenantId(),
    agentId: text('agent_id')
      .notNull()
      .references(() => agents.id, { onDelete: 'cascade' }),
    contactId: text('contact_id').references(() => contacts.id, { onDelete: 'set null' }),
    propertyId: text('property_id').references(() => properties.id, { onDelete: 'set null' }),
    type: text('type').notNull(),
    status: text('status').notNull(),
    startsAt: timestamp('starts_at', { withTimezone: true, mode: 'date' }).notNull(),
    endsAt: timestamp('ends_at', { withTimezone: true, mode: 'date' }).notNull(),
    source: text('source').notNull().default('BOOKING'),
    notes: text('notes'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index('appointments_organization_id_starts_at_idx').on(t.organizationId, t.startsAt),
    index('appointments_agent_id_starts_at_idx').on(t.agentId, t.startsAt),
    index('appointments_contact_id_idx').on(t.contactId),
    // The no-overlap exclusion constraint is in the migration (drizzle-kit cannot express it).
  ],
);

export const tasks = pgTable(
  'tasks',
  {
    id: text('id').primaryKey(),
    organizationId: tenantId(),
    title: text('title').notNull(),
    description: text('description'),
    type: text('type').notNull().default('TODO'),
    status: text('status').notNull().default('PENDING'),
    dueAt: timestamp('due_at', { withTimezone: true, mode: 'date' }),
    assigneeId: text('assignee_id').references(() => agents.id, { onDelete: 'set null' }),
    contactId: text('contact_id').references(() => contacts.id, { onDelete: 'set null' }),
    appointmentId: text('appointment_id').references(() => appointments.id, { onDelete: 'set null' }),
    completedAt: timestamp('completed_at', { withTimezone: true, mode: 'date' }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index('tasks_organization_id_status_due_at_idx').on(t.organizationId, t.status, t.dueAt),
    index('tasks_assignee_id_status_due_at_idx').on(t.assigneeId, t.status, t.dueAt),
    // Issue 4: the task list's default order (dueAt) and due-date ranges without a status filter,
    // the contactId filter, and the ON DELETE SET NULL of a deleted contact or appointment.
    index('tasks_organization_id_due_at_idx').on(t.organizationId, t.dueAt),
    index('tasks_contact_id_idx').on(t.contactId),
    index('tasks_appointment_id_idx').on(t.appointmentId),
  ],
);

export const finderSearches = pgTable(
  'finder_searches',
  {
    id: text('id').primaryKey(),
    organizationId: tenantId(),
    contactId: text('contact_id')
      .notNull()
      .references(() => contacts.id, { onDelete: 'cascade' }),
    criteria: jsonb('criteria').$type<Record<string, unknown>>().notNull(),
    subscribedToAlerts: boolean('subscribed_to_alerts').notNull().default(false),
    total: integer('total').notNull(),
    propertyIds: text('property_ids').array().notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    index('finder_searches_organization_id_created_at_idx').on(t.organizationId, t.createdAt.desc()),
    index('finder_searches_contact_id_idx').on(t.contactId),
    index('finder_searches_alerts_idx')
      .on(t.organizationId, t.createdAt)
      .where(sql`subscribed_to_alerts`),
  ],
);

/** Raw portal analytics events, written in batches off the request path. */
export const analyticsEvents = pgTable(
  'analytics_events',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    organizationId: tenantId(),
    type: text('type').notNull(),
    /** No foreign key: events outlive deleted properties and arrive in bulk. */
    propertyId: text('property_id'),
    referrer: text('referrer'),
    occurredAt: timestamp('occurred_at', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (t) => [index('analytics_events_organization_id_occurred_at_idx').on(t.organizationId, t.occurredAt)],
);

/** Daily counts per organization, property ('' = none) and type, kept up to date by each batch. */
export const analyticsDaily = pgTable(
  'analytics_daily',
  {
    organizationId: tenantId(),
    day: date('day', { mode: 'string' }).notNull(),
    propertyId: text('property_id').notNull().default(''),
    type: text('type').notNull(),
    count: bigint('count', { mode: 'number' }).notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.organizationId, t.day, t.propertyId, t.type] })],
);

export type AgentRow = typeof agents.$inferSelect;
export type PropertyRow = typeof properties.$inferSelect;
export type PortalSettingsRow = typeof portalSettings.$inferSelect;
export type ContactRow = typeof contacts.$inferSelect;
export type AppointmentRow = typeof appointments.$inferSelect;
export type TaskRow = typeof tasks.$inferSelect;

// ---------------------------------------------------------------------------------------------
// CRM (issue 4). Glossary
// - pipeline: an ordered list of stages a deal moves through; stage kind OPEN, WON or LOST.
// - deal: a potential sale/rental with a contact, in one stage of one pipeline; its status follows
//   the kind of its stage (OPEN/WON/LOST).
// - usage event: something a contact did in the customer's own product (SPEC "POST /v1/usage/events");
//   raw detail is kept for a while, daily aggregates per contact and name for good.
// ---------------------------------------------------------------------------------------------

export const pipelines = pgTable(
  'pipelines',
  {
    id: text('id').primaryKey(),
    organizationId: tenantId(),
    name: text('name').notNull(),
    isDefault: boolean('is_default').notNull().default(false),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index('pipelines_organization_id_created_at_idx').on(t.organizationId, t.createdAt)],
);

export const pipelineStages = pgTable(
  'pipeline_stages',
  {
    id: text('id').primaryKey(),
    organizationId: tenantId(),
    pipelineId: text('pipeline_id')
      .notNull()
      .references(() => pipelines.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    /** OPEN, WON or LOST: what entering the stage means for the deal's status. */
    kind: text('kind').notNull(),
    /** Win probability of a deal in this stage, 0-100. */
    probability: integer('probability').notNull(),
    position: integer('position').notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index('pipeline_stages_pipeline_id_position_idx').on(t.pipelineId, t.position)],
);

export const deals = pgTable(
  'deals',
  {
    id: text('id').primaryKey(),
    organizationId: tenantId(),
    code: text('code').notNull(),
    title: text('title').notNull(),
    value: money('value').notNull().default(0),
    currency: text('currency').notNull(),
    probability: integer('probability').notNull(),
    status: text('status').notNull(),
    intent: text('intent').notNull(),
    leadSource: text('lead_source').notNull(),
    lostReason: text('lost_reason'),
    aiCreated: boolean('ai_created').notNull().default(false),
    agentId: text('agent_id').references(() => agents.id, { onDelete: 'set null' }),
    contactId: text('contact_id')
      .notNull()
      .references(() => contacts.id, { onDelete: 'cascade' }),
    propertyId: text('property_id').references(() => properties.id, { onDelete: 'set null' }),
    pipelineId: text('pipeline_id')
      .notNull()
      .references(() => pipelines.id, { onDelete: 'restrict' }),
    stageId: text('stage_id')
      .notNull()
      .references(() => pipelineStages.id, { onDelete: 'restrict' }),
    stageEnteredAt: timestamp('stage_entered_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    expectedCloseDate: timestamp('expected_close_date', { withTimezone: true, mode: 'date' }),
    closedAt: timestamp('closed_at', { withTimezone: true, mode: 'date' }),
    saasPlanId: text('saas_plan_id'),
    saasPlanName: text('saas_plan_name'),
    saasBillingPeriod: text('saas_billing_period'),
    saasMrrAmount: money('saas_mrr_amount'),
    trialStartedAt: timestamp('trial_started_at', { withTimezone: true, mode: 'date' }),
    trialEndsAt: timestamp('trial_ends_at', { withTimezone: true, mode: 'date' }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('deals_organization_id_code_key').on(t.organizationId, t.code),
    index('deals_organization_id_created_at_idx').on(t.organizationId, t.createdAt.desc(), t.id),
    index('deals_organization_id_pipeline_id_stage_id_idx').on(t.organizationId, t.pipelineId, t.stageId),
    index('deals_organization_id_status_idx').on(t.organizationId, t.status, t.createdAt.desc()),
    index('deals_organization_id_expected_close_date_idx').on(t.organizationId, t.expectedCloseDate),
    index('deals_agent_id_idx').on(t.agentId),
    index('deals_contact_id_idx').on(t.contactId),
    index('deals_stage_id_idx').on(t.stageId),
  ],
);

/** Raw usage events, kept USAGE_DETAIL_RETENTION_DAYS and purged by the worker. */
export const usageEvents = pgTable(
  'usage_events',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    organizationId: tenantId(),
    contactId: text('contact_id')
      .notNull()
      .references(() => contacts.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    label: text('label'),
    props: jsonb('props').$type<Record<string, unknown>>(),
    companyId: text('company_id'),
    actorLabel: text('actor_label'),
    occurredAt: timestamp('occurred_at', { withTimezone: true, mode: 'date' }).notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    index('usage_events_contact_id_occurred_at_idx').on(t.contactId, t.occurredAt),
    index('usage_events_created_at_idx').on(t.createdAt),
  ],
);

/** Per contact, UTC day and event name: how many, first and last time. Kept for good. */
export const usageDaily = pgTable(
  'usage_daily',
  {
    organizationId: tenantId(),
    contactId: text('contact_id')
      .notNull()
      .references(() => contacts.id, { onDelete: 'cascade' }),
    day: date('day', { mode: 'string' }).notNull(),
    name: text('name').notNull(),
    count: bigint('count', { mode: 'number' }).notNull().default(0),
    firstOccurredAt: timestamp('first_occurred_at', { withTimezone: true, mode: 'date' }).notNull(),
    lastOccurredAt: timestamp('last_occurred_at', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.organizationId, t.contactId, t.day, t.name] })],
);

// ---------------------------------------------------------------------------------------------
// Conversations over the messaging channel (issue 5). Glossary
// - messaging number: the agency's business number on the messaging platform; at most one active
//   per organization (partial unique index). `provider_number_id` is the platform's id of it.
// - template: a pre-approved message with `{{variables}}`; only APPROVED ones may be sent.
// - conversation: one per contact, created by its first message; `mode` HUMAN when a person has
//   taken it over in the inbox (the API then never sends), `blocked` when the agency blocked it.
// - window: the 24 hours after the contact's last inbound message, when free text may be sent.
// - message: one row per message either way; an outbound one goes QUEUED -> SENT (or FAILED), then
//   DELIVERED and READ as the platform reports receipts.
// ---------------------------------------------------------------------------------------------

export const messagingNumbers = pgTable(
  'messaging_numbers',
  {
    id: text('id').primaryKey(),
    organizationId: tenantId(),
    /** E.164. */
    phone: text('phone').notNull(),
    providerNumberId: text('provider_number_id').notNull(),
    active: boolean('active').notNull().default(true),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('messaging_numbers_organization_id_phone_key').on(t.organizationId, t.phone),
    uniqueIndex('messaging_numbers_one_active_key').on(t.organizationId).where(sql`active`),
    index('messaging_numbers_organization_id_created_at_idx').on(t.organizationId, t.createdAt),
  ],
);

export const messageTemplates = pgTable(
  'message_templates',
  {
    id: text('id').primaryKey(),
    organizationId: tenantId(),
    name: text('name').notNull(),
    language: text('language').notNull(),
    category: text('category').notNull(),
    body: text('body').notNull(),
    /** Variable names of the body, in order of first appearance. */
    variables: text('variables').array().notNull().default(sql`'{}'::text[]`),
    status: text('status').notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('message_templates_organization_id_name_language_key').on(
      t.organizationId,
      t.name,
      t.language,
    ),
    index('message_templates_organization_id_created_at_idx').on(t.organizationId, t.createdAt),
  ],
);

export const conversations = pgTable(
  'conversations',
  {
    id: text('id').primaryKey(),
    organizationId: tenantId(),
    contactId: text('contact_id')
      .notNull()
      .references(() => contacts.id, { onDelete: 'cascade' }),
    mode: text('mode').notNull().default('AUTOMATED'),
    blocked: boolean('blocked').notNull().default(false),
    lastInboundAt: timestamp('last_inbound_at', { withTimezone: true, mode: 'date' }),
    lastMessageId: text('last_message_id'),
    lastMessageAt: timestamp('last_message_at', { withTimezone: true, mode: 'date' }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('conversations_organization_id_contact_id_key').on(t.organizationId, t.contactId),
    // GET /v1/conversations: most recent first, the id breaking ties.
    index('conversations_organization_id_last_message_at_idx').on(
      t.organizationId,
      t.lastMessageAt.desc(),
      t.id.desc(),
    ),
    index('conversations_contact_id_idx').on(t.contactId),
  ],
);

export const messages = pgTable(
  'messages',
  {
    id: text('id').primaryKey(),
    organizationId: tenantId(),
    contactId: text('contact_id')
      .notNull()
      .references(() => contacts.id, { onDelete: 'cascade' }),
    /** The platform's id (outbound: once sent; inbound: as received). */
    chatMessageId: text('chat_message_id'),
    direction: text('direction').notNull(),
    type: text('type').notNull(),
    /** Free text, or the template's body with its `{{variables}}`. */
    body: text('body').notNull(),
    renderedBody: text('rendered_body'),
    status: text('status').notNull(),
    templateId: text('template_id').references(() => messageTemplates.id, { onDelete: 'set null' }),
    variables: jsonb('variables').$type<Record<string, string>>(),
    usage: jsonb('usage').$type<{ category: string; billable: boolean }>(),
    agentId: text('agent_id').references(() => agents.id, { onDelete: 'set null' }),
    /** Why the platform refused it (FAILED). */
    failureReason: text('failure_reason'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index('messages_contact_id_created_at_idx').on(t.contactId, t.createdAt.desc(), t.id.desc()),
    index('messages_organization_id_created_at_idx').on(t.organizationId, t.createdAt),
    // Receipts and inbound retries find a message by the platform's id.
    uniqueIndex('messages_organization_id_chat_message_id_key').on(t.organizationId, t.chatMessageId),
    // The sweep of sends a crash interrupted (jobs.ts): QUEUED is a state of seconds.
    index('messages_queued_created_at_idx').on(t.createdAt).where(sql`status = 'QUEUED'`),
    index('messages_template_id_idx').on(t.templateId),
    index('messages_agent_id_idx').on(t.agentId),
  ],
);

export type MessagingNumberRow = typeof messagingNumbers.$inferSelect;
export type MessageTemplateRow = typeof messageTemplates.$inferSelect;
export type ConversationRow = typeof conversations.$inferSelect;
export type MessageRow = typeof messages.$inferSelect;

export type PipelineRow = typeof pipelines.$inferSelect;
export type PipelineStageRow = typeof pipelineStages.$inferSelect;
export type DealRow = typeof deals.$inferSelect;

// ---------------------------------------------------------------------------------------------
// Webhooks (issue 6). Glossary
// - subscription: a URL of the organization that receives the events matching its `event_types`
//   (exact `deal.won`, object wildcard `contact.*`, or `*`), signed with its secret.
// - delivery: one event for one subscription. The table is the queue itself: a worker claims due
//   PENDING rows with FOR UPDATE SKIP LOCKED and leases them (`locked_until`), so a crashed
//   worker's rows come back when the lease lapses. Deliveries are created in the transaction that
//   records the event (src/platform/events/record.ts).
// - attempt: one HTTP POST of a delivery, as the delivery log shows it.
// ---------------------------------------------------------------------------------------------

export const WEBHOOK_DELIVERY_STATUSES = ['PENDING', 'SUCCEEDED', 'FAILED'] as const;
export type WebhookDeliveryStatus = (typeof WEBHOOK_DELIVERY_STATUSES)[number];

export const webhookSubscriptions = pgTable(
  'webhook_subscriptions',
  {
    id: text('id').primaryKey(),
    organizationId: tenantId(),
    url: text('url').notNull(),
    eventTypes: text('event_types').array().notNull(),
    description: text('description').notNull().default(''),
    enabled: boolean('enabled').notNull().default(true),
    /** Signing secret (`whsec_…`); stored as is because every delivery is signed with it. */
    secret: text('secret').notNull(),
    /** The secret before the last rotation: it signs too until `previous_secret_expires_at`. */
    previousSecret: text('previous_secret'),
    previousSecretExpiresAt: timestamp('previous_secret_expires_at', { withTimezone: true, mode: 'date' }),
    /** Why the service disabled it (GONE, FAILING); null when enabled or disabled by the owner. */
    disabledReason: text('disabled_reason'),
    /** Start of the current run of failed attempts; a success clears it. */
    failingSince: timestamp('failing_since', { withTimezone: true, mode: 'date' }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index('webhook_subscriptions_organization_id_created_at_idx').on(t.organizationId, t.createdAt, t.id)],
);

export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    id: text('id').primaryKey(),
    organizationId: tenantId(),
    subscriptionId: text('subscription_id')
      .notNull()
      .references(() => webhookSubscriptions.id, { onDelete: 'cascade' }),
    eventId: text('event_id')
      .notNull()
      .references(() => events.id, { onDelete: 'cascade' }),
    eventType: text('event_type').notNull(),
    status: text('status').$type<WebhookDeliveryStatus>().notNull().default('PENDING'),
    attemptCount: integer('attempt_count').notNull().default(0),
    /** When the next attempt is due (PENDING only). */
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true, mode: 'date' }),
    /** Lease of the worker that claimed it; the row is claimable again once it has passed. */
    lockedUntil: timestamp('locked_until', { withTimezone: true, mode: 'date' }),
    /** Token of the current claim: a worker whose lease lapsed cannot overwrite a newer claim. */
    claimId: text('claim_id'),
    lastStatusCode: integer('last_status_code'),
    lastError: text('last_error'),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date', precision: 3 }).notNull().defaultNow(),
    updatedAt: updatedAt(),
    completedAt: timestamp('completed_at', { withTimezone: true, mode: 'date' }),
  },
  (t) => [
    // The claim walks the subscriptions with PENDING rows and takes each one's due rows in order
    // (webhooks.store.ts claimDue): a subscription's backlog is never scanned to reach another's.
    index('webhook_deliveries_pending_idx')
      .on(t.subscriptionId, t.nextAttemptAt)
      .where(sql`status = 'PENDING'`),
    index('webhook_deliveries_subscription_id_created_at_idx').on(t.subscriptionId, t.createdAt.desc(), t.id),
    index('webhook_deliveries_subscription_id_status_idx').on(t.subscriptionId, t.status, t.createdAt.desc()),
    index('webhook_deliveries_subscription_id_event_type_idx').on(
      t.subscriptionId,
      t.eventType,
      t.createdAt.desc(),
    ),
    index('webhook_deliveries_event_id_idx').on(t.eventId),
  ],
);

export const webhookAttempts = pgTable(
  'webhook_attempts',
  {
    id: text('id').primaryKey(),
    organizationId: tenantId(),
    deliveryId: text('delivery_id')
      .notNull()
      .references(() => webhookDeliveries.id, { onDelete: 'cascade' }),
    attempt: integer('attempt').notNull(),
    startedAt: timestamp('started_at', { withTimezone: true, mode: 'date', precision: 3 }).notNull(),
    durationMs: integer('duration_ms').notNull(),
    /** HTTP status of the answer; null when none came (network error, timeout, blocked address). */
    statusCode: integer('status_code'),
    error: text('error'),
    /** The first 2 KB of the answer's body. */
    responseBody: text('response_body'),
  },
  (t) => [index('webhook_attempts_delivery_id_attempt_idx').on(t.deliveryId, t.attempt)],
);

export type WebhookSubscriptionRow = typeof webhookSubscriptions.$inferSelect;
export type WebhookDeliveryRow = typeof webhookDeliveries.$inferSelect;
export type WebhookAttemptRow = typeof webhookAttempts.$inferSelect;
