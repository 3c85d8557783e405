import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  date,
  doublePrecision,
  foreignKey,
  index,
  integer,
  jsonb,
  numeric,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { createdAt, updatedAt, money, PORTAL_VISIBLE } from './columns.ts';
import type {
  AddressVisibility,
  PropertyStatus,
  PropertyType,
  TransactionType,
} from '../../shared/property-vocabulary.ts';
import { organizations, tenantId } from './platform.ts';

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

/** Per-organization counters behind human-readable codes (`CT-000042`). */
export const organizationCounters = pgTable(
  'organization_counters',
  {
    organizationId: tenantId(),
    name: text('name').notNull(),
    value: bigint('value', { mode: 'number' }).notNull().default(0),
    /** When the value last changed: the feeds' Last-Modified (migration 0024). */
    changedAt: timestamp('changed_at', { withTimezone: true }).notNull().defaultNow(),
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
  /** Most appointments a day (the agent's calendar day); absent or null: no limit (issue 26). */
  maxPerDay?: number | null;
}

export const agents = pgTable(
  'agents',
  {
    id: text('id').notNull(),
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
    primaryKey({ columns: [t.organizationId, t.id] }),
    uniqueIndex('agents_organization_id_booking_slug_key').on(t.organizationId, t.bookingSlug),
    index('agents_organization_id_created_at_idx').on(t.organizationId, t.createdAt),
  ],
);

export type PropertyTranslations = Record<string, { title: string; description: string }>;

/**
 * One photo of a listing. A photo given by URL has `url` and `caption` (and maybe `altText`); an
 * uploaded one (decision 0233) also its `id`, its upright original `width` and `height` and the
 * WebP `sizes` made of it, `url` being the largest's.
 */
export interface PropertyPhoto {
  id?: string;
  url: string;
  caption: string | null;
  altText?: string | null;
  width?: number;
  height?: number;
  sizes?: { width: number; height: number; url: string }[];
  /** Uploaded photos since issue 25's JPEG rendition: the widest size as JPEG (feeds that take no WebP). */
  jpegUrl?: string;
  /**
   * Photos given by URL without an image file ending (decision 0266): the media type the URL answered
   * (image/jpeg, image/png, image/gif, image/webp), or null when it is no image or never answered. Absent
   * until probed (the photo_probes queue).
   */
  contentType?: string | null;
  /** When contentType was probed (ISO 8601). */
  probedAt?: string;
}

export const properties = pgTable(
  'properties',
  {
    id: text('id').notNull(),
    organizationId: tenantId(),
    code: text('code').notNull(),
    title: text('title').notNull(),
    description: text('description').notNull().default(''),
    transactionType: text('transaction_type').$type<TransactionType>().notNull(),
    type: text('type').$type<PropertyType>().notNull(),
    status: text('status').$type<PropertyStatus>().notNull().default('ACTIVE'),
    publishedOnPortal: boolean('published_on_portal').notNull().default(true),
    featured: boolean('featured').notNull().default(false),
    price: money('price').notNull(),
    currency: text('currency').notNull(),
    /**
     * The price before the last reduction (migration 0022's trigger: set when the price drops, cleared
     * when it rises or the currency changes). The portal shows it only where the agency allows it.
     */
    previousPrice: money('previous_price'),
    city: text('city').notNull(),
    neighborhood: text('neighborhood'),
    address: text('address'),
    zipCode: text('zip_code'),
    latitude: doublePrecision('latitude'),
    longitude: doublePrecision('longitude'),
    /** Always `address_visibility = 'HIDDEN'` (SPEC's approximate location), kept for the API's field. */
    approximateLocation: boolean('approximate_location').notNull().default(false),
    /** What the portal, feeds and MCP show of the address: EXACT, STREET (no house number), HIDDEN. */
    addressVisibility: text('address_visibility').$type<AddressVisibility>().notNull().default('EXACT'),
    /** Decimals of the coordinates shown outside the agency; null: the visibility's default. */
    coordinatePrecision: integer('coordinate_precision'),
    /** Title and description in languages other than the organization's default: `{ "en": { title, description } }`. */
    translations: jsonb('translations').$type<PropertyTranslations>().notNull().default(sql`'{}'::jsonb`),
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
    agentId: text('agent_id'),
    internalNotes: text('internal_notes'),
    customFields: jsonb('custom_fields').$type<Record<string, unknown>>().notNull().default(sql`'{}'::jsonb`),
    /**
     * The day the listing first went ACTIVE, in the organization's time zone (migration 0032's trigger,
     * whoever writes): RESO's OnMarketDate. Kept when the listing leaves the market and comes back.
     */
    onMarketDate: date('on_market_date', { mode: 'string' }),
    searchCity: text('search_city').notNull(),
    searchNeighborhood: text('search_neighborhood').notNull().default(''),
    searchText: text('search_text').notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    /**
     * When what the portal and the feeds show of the listing last changed (migration 0034's trigger):
     * an edit of internal notes, custom fields or other columns they never show moves updated_at, not
     * this. The portal's and the feeds' `updatedAt`, and their cursor order, read it.
     */
    publicUpdatedAt: timestamp('public_updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.id] }),
    foreignKey({
      name: 'properties_agent_id_agents_id_fk',
      columns: [t.organizationId, t.agentId],
      foreignColumns: [agents.organizationId, agents.id],
    }).onDelete('set null'),
    uniqueIndex('properties_organization_id_code_key').on(t.organizationId, t.code),
    // Plain ascending columns: a backward scan serves `created_at DESC, id DESC` (what the lists ask).
    index('properties_organization_id_created_at_idx').on(t.organizationId, t.createdAt, t.id),
    index('properties_agent_id_idx').on(t.agentId),
    // The agency's listing API in cursor mode (every status): updated_at, then id.
    index('properties_organization_id_updated_at_idx').on(t.organizationId, t.updatedAt, t.id),
    // Portal: partial indexes over the visible stock only, one per sort and per selective filter.
    // Only leakproof comparisons (text equality, float8 and integer ranges) can use them under RLS.
    index('properties_portal_created_at_idx')
      .on(t.organizationId, t.createdAt, t.id)
      .where(PORTAL_VISIBLE),
    index('properties_portal_updated_at_idx')
      .on(t.organizationId, t.publicUpdatedAt, t.id)
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

/** Which field of a property a change row is about. */
export const PROPERTY_CHANGE_KINDS = ['PRICE', 'STATUS'] as const;
export type PropertyChangeKind = (typeof PROPERTY_CHANGE_KINDS)[number];

/**
 * Every price and status change of a property (issue 25), oldest first: GET /v1/listings/{id}/history.
 * A row per changed field, written in the transaction of the change (its creation included, with no
 * previous value), with the actor's kind (SYSTEM for the back office and imports, API for a key).
 */
export const propertyChanges = pgTable(
  'property_changes',
  {
    id: text('id').notNull(),
    organizationId: tenantId(),
    propertyId: text('property_id').notNull(),
    /** PRICE or STATUS. */
    kind: text('kind').$type<PropertyChangeKind>().notNull(),
    previousStatus: text('previous_status').$type<PropertyStatus>(),
    status: text('status').$type<PropertyStatus>(),
    previousPrice: money('previous_price'),
    price: money('price'),
    currency: text('currency'),
    actorKind: text('actor_kind').notNull(),
    /** The agent an API key is bound to, when it is. */
    actorUserId: text('actor_user_id'),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.id] }),
    foreignKey({
      name: 'property_changes_property_id_properties_id_fk',
      columns: [t.organizationId, t.propertyId],
      foreignColumns: [properties.organizationId, properties.id],
    }).onDelete('cascade'),
    index('property_changes_property_id_created_at_idx').on(t.organizationId, t.propertyId, t.createdAt, t.id),
  ],
);
export type PropertyChangeRow = typeof propertyChanges.$inferSelect;

/**
 * A deleted listing, kept for RESO replication (decision 0263): GET /v1/reso/Property walks it as a
 * `Delete` record after the listing is gone. Written by migration 0034's triggers on properties, whoever
 * deletes (never when the organization itself goes); kept as long as the organization is.
 */
export const resoDeletions = pgTable(
  'reso_deletions',
  {
    organizationId: tenantId(),
    /** The listing's id (RESO's ListingKey). */
    propertyId: text('property_id').notNull(),
    /** Its code when it was deleted (RESO's ListingId). */
    code: text('code').notNull(),
    /** When it was deleted, to the microsecond, after its last change: the record's ModificationTimestamp. */
    deletedAt: timestamp('deleted_at', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.propertyId] }),
    // The RESO walk's order, as properties_organization_id_updated_at_idx is for the listings.
    index('reso_deletions_organization_id_deleted_at_idx').on(t.organizationId, t.deletedAt, t.propertyId),
  ],
);

/**
 * The content-type probe queue (decision 0266): a listing with photos given by URL that have no image
 * file ending and no contentType yet has a row here, written by a trigger on properties (whoever writes).
 * The worker's `photos.probe` job claims due rows (FOR UPDATE SKIP LOCKED, a lease), probes, and deletes
 * the row or, after a failure, delays it (its retry delays); gone with the listing.
 */
export const photoProbes = pgTable(
  'photo_probes',
  {
    organizationId: tenantId(),
    propertyId: text('property_id').notNull(),
    /** Failed runs so far: the next delay is read from the retry delays at this index. */
    attempts: integer('attempts').notNull().default(0),
    dueAt: timestamp('due_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    lockedUntil: timestamp('locked_until', { withTimezone: true, mode: 'date' }),
    lastError: text('last_error'),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.propertyId] }),
    foreignKey({
      name: 'photo_probes_property_fk',
      columns: [t.organizationId, t.propertyId],
      foreignColumns: [properties.organizationId, properties.id],
    }).onDelete('cascade'),
    index('photo_probes_due_at_idx').on(t.dueAt),
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

/** Raw portal analytics events, written in batches off the request path. */
export const analyticsEvents = pgTable(
  'analytics_events',
  {
    id: bigint('id', { mode: 'number' }).notNull().generatedAlwaysAsIdentity(),
    organizationId: tenantId(),
    type: text('type').notNull(),
    /** No foreign key: events outlive deleted properties and arrive in bulk. */
    propertyId: text('property_id'),
    referrer: text('referrer'),
    occurredAt: timestamp('occurred_at', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.id] }),
    index('analytics_events_organization_id_occurred_at_idx').on(t.organizationId, t.occurredAt),
  ],
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
