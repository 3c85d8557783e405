import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  smallint,
  text,
  timestamp,
  uniqueIndex,
  type AnyPgColumn,
} from 'drizzle-orm/pg-core';
import type { Plan } from '../../shared/plans.ts';
import { createdAt, updatedAt } from './columns.ts';

/** Plans an organization can be on (platform/auth/plans.ts says what each allows). */
export { PLANS, type Plan } from '../../shared/plans.ts';
/** API key types (platform/auth/keys.ts makes and reads them). */
export type KeyType = 'publishable' | 'secret' | 'read_only_secret';
/** A live key acts on the organization, a test key on its test twin. */
export type KeyMode = 'live' | 'test';

/**
 * The platform's tables: organizations, API keys, events, idempotency records.
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
 * - tenant table: a table whose rows belong to one organization. Its primary key, unique keys and
 *   foreign keys to other tenant tables all include `organization_id`, so the schema can be
 *   distributed by tenant (Citus, docs/scaling.md; decision 0222, test/db/colocation.test.ts).
 * - reference table: a table read before the organization is known (organizations, api_keys by key
 *   hash, console links and sessions by token hash); it keeps global keys and would be copied to
 *   every node, not split by tenant.
 */

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
    /** MCP results show phone numbers and emails masked (issue 21): for agencies that give AI agents no personal data. */
    mcpMaskPersonalData: boolean('mcp_mask_personal_data').notNull().default(false),
    /** The portal shows a reduced listing's previous price (`previousPrice`, issue 25). */
    showPriceDrops: boolean('show_price_drops').notNull().default(false),
    /** The language of listings' own title and description, and the portal's fallback (issue 25, ISO 639-1). */
    defaultLanguage: text('default_language').notNull().default('en'),
    /** The other languages the portal serves (listings' translations), default language excluded. */
    otherLanguages: text('other_languages').array().notNull().default(sql`'{}'::text[]`),
    /**
     * The syndication feeds' URL token (issue 25 item 7), as its SHA-256: the URL is shown once, when the
     * token is made; null: no feeds. Read before the organization is known, like an API key's hash.
     */
    feedTokenHash: text('feed_token_hash'),
    /** The token's first characters, to recognise a feed URL (`AbCd…`). */
    feedTokenPrefix: text('feed_token_prefix'),
    feedTokenCreatedAt: timestamp('feed_token_created_at', { withTimezone: true }),
    /**
     * The organization's IANA time zone (issue 26): its closures' dates, and the default of its agents'
     * booking hours. Stored by its canonical name.
     */
    timezone: text('timezone').notNull().default('UTC'),
    /** Public holidays close the agency (issue 26): ISO 3166-1 country and, optionally, region (date-holidays). */
    holidayCountry: text('holiday_country'),
    holidayRegion: text('holiday_region'),
    /** Minutes before an appointment its reminders are sent (issue 26); empty: none. */
    reminderOffsetsMinutes: integer('reminder_offsets_minutes')
      .array()
      .notNull()
      .default(sql`'{1440,120}'::integer[]`),
    /** The APPROVED message template reminders are sent with (issue 26); null: no reminders sent. */
    reminderTemplateId: text('reminder_template_id'),
    /** How reminders reach the visitor (issue 41): MESSAGING (the template above) and/or EMAIL. */
    reminderChannels: text('reminder_channels')
      .array()
      .notNull()
      .default(sql`'{MESSAGING}'::text[]`),
    /** Set on a test twin: the live organization it mirrors. */
    liveOrganizationId: text('live_organization_id').references((): AnyPgColumn => organizations.id, {
      onDelete: 'cascade',
    }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('organizations_live_organization_id_key').on(t.liveOrganizationId),
    uniqueIndex('organizations_feed_token_hash_key').on(t.feedTokenHash),
  ],
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
    /**
     * Made without naming scopes: it also holds its type's default scopes as features add them (the
     * SPEC's "full scope set"); `scopes` keeps what it was given (decision 0272).
     */
    scopesFollowDefaults: boolean('scopes_follow_defaults').notNull().default(false),
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
    id: text('id').notNull(),
    organizationId: text('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    type: text('type').notNull(),
    livemode: boolean('livemode').notNull(),
    actor: jsonb('actor').$type<{ kind: string; userId: string | null }>().notNull(),
    data: jsonb('data').$type<Record<string, unknown>>().notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date', precision: 3 }).notNull().defaultNow(),
    /**
     * The event's place in its organization's log (1, 2, 3... without gaps), stamped at commit by the
     * deferred trigger of migration 0011, in commit order: NULL only inside the recording transaction.
     */
    sequence: bigint('sequence', { mode: 'number' }),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.id] }),
    index('events_organization_id_type_created_at_idx').on(t.organizationId, t.type, t.createdAt.desc()),
    index('events_organization_id_created_at_idx').on(t.organizationId, t.createdAt.desc()),
    // The event log: `after` paging in either order, and a type filter over it.
    uniqueIndex('events_organization_id_sequence_key').on(t.organizationId, t.sequence),
    index('events_organization_id_type_sequence_idx').on(t.organizationId, t.type, t.sequence),
    // The retention purge (EVENT_LOG_RETENTION_DAYS) takes the oldest first, across organizations.
    index('events_created_at_idx').on(t.createdAt),
  ],
);

/** The last `events.sequence` stamped per organization: the counter the commit-time trigger advances. */
export const eventSequences = pgTable('event_sequences', {
  organizationId: text('organization_id')
    .primaryKey()
    .references(() => organizations.id, { onDelete: 'cascade' }),
  lastSequence: bigint('last_sequence', { mode: 'number' }).notNull(),
});

export const IDEMPOTENCY_STATUSES = ['in_progress', 'completed'] as const;
export type IdempotencyStatus = (typeof IDEMPOTENCY_STATUSES)[number];

export const idempotencyKeys = pgTable(
  'idempotency_keys',
  {
    /**
     * The organization the key is scoped to, or OPERATOR_IDEMPOTENCY_SCOPE for the operator's own POSTs
     * (no foreign key since migration 0026: that scope names no organization; rows expire in 24 h).
     */
    organizationId: text('organization_id').notNull(),
    key: text('key').notNull(),
    /** SHA-256 of method, route and body: a reuse with anything else is a 409. */
    fingerprint: text('fingerprint').notNull(),
    status: text('status').$type<IdempotencyStatus>().notNull(),
    responseStatus: integer('response_status'),
    /** The response's bytes, sealed with SECRETS_KEY (`enc:v1:…`; migration 0010, decision 0160). */
    responseBody: text('response_body'),
    /**
     * Only on records written before migration 0028 (a claim committed apart from its request's
     * effects): when such a claim lapses. Claims now commit with the request's effects (decision 0246).
     */
    lockedUntil: timestamp('locked_until', { withTimezone: true, mode: 'date' }),
    /**
     * In progress: the last recovery point a request committed before an effect outside the database
     * (`message_queued`), and what it recorded there; a retry resumes from it (decision 0246).
     */
    recoveryPoint: text('recovery_point'),
    recoveryData: jsonb('recovery_data'),
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

/** The `organization_id` of every tenant table: the organization's rows go when it goes. */
export const tenantId = () =>
  text('organization_id')
    .notNull()
    .references(() => organizations.id, { onDelete: 'cascade' });
