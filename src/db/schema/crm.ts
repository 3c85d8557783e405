import {
  bigint,
  boolean,
  date,
  foreignKey,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { tenantId } from './platform.ts';
import { createdAt, updatedAt, money } from './columns.ts';
import { agents, properties } from './portal.ts';
import { CONTACT_SOURCES } from './contacts.values.ts';
import { contacts } from './contacts.ts';

// ---------------------------------------------------------------------------------------------
// CRM (issue 4). Glossary
// - pipeline: an ordered list of stages a deal moves through; stage kind OPEN, WON or LOST.
// - deal: a potential sale/rental with a contact, in one stage of one pipeline; its status follows
//   the kind of its stage (OPEN/WON/LOST).
// - usage event: something a contact did in the customer's own product (SPEC "POST /v1/usage/events");
//   raw detail is kept for a while, daily aggregates per contact and name for good.
// ---------------------------------------------------------------------------------------------

// The value sets of this area's text columns: each column is typed with its set (`$type`, no SQL of its
// own), and the features' schemas and mappers use the same lists.

/** What entering a stage means for a deal: still open, won, or lost. A deal's status is its stage's kind. */
export const STAGE_KINDS = ['OPEN', 'WON', 'LOST'] as const;
export type StageKind = (typeof STAGE_KINDS)[number];
export type DealStatus = StageKind;
/** What the client wants to do (docs/decisions/0141-deal-value-sets.md). */
export const DEAL_INTENTS = [
  'PURCHASE',
  'SALE',
  'RENTAL',
  'LETTING',
  'INVESTMENT',
  'VALUATION',
  'OTHER',
] as const;
/** Where the deal came from: the contact sources (the same list), so a deal can inherit its contact's. */
export const DEAL_LEAD_SOURCES = CONTACT_SOURCES;
export const SAAS_BILLING_PERIODS = ['MONTHLY', 'QUARTERLY', 'YEARLY'] as const;
export type DealIntent = (typeof DEAL_INTENTS)[number];
export type DealLeadSource = (typeof DEAL_LEAD_SOURCES)[number];
export type SaasBillingPeriod = (typeof SAAS_BILLING_PERIODS)[number];

export const pipelines = pgTable(
  'pipelines',
  {
    id: text('id').notNull(),
    organizationId: tenantId(),
    name: text('name').notNull(),
    isDefault: boolean('is_default').notNull().default(false),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.id] }),
    index('pipelines_organization_id_created_at_idx').on(t.organizationId, t.createdAt),
  ],
);

export const pipelineStages = pgTable(
  'pipeline_stages',
  {
    id: text('id').notNull(),
    organizationId: tenantId(),
    pipelineId: text('pipeline_id').notNull(),
    name: text('name').notNull(),
    /** OPEN, WON or LOST: what entering the stage means for the deal's status. */
    kind: text('kind').$type<StageKind>().notNull(),
    /** Win probability of a deal in this stage, 0-100. */
    probability: integer('probability').notNull(),
    position: integer('position').notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.id] }),
    foreignKey({
      name: 'pipeline_stages_pipeline_id_pipelines_id_fk',
      columns: [t.organizationId, t.pipelineId],
      foreignColumns: [pipelines.organizationId, pipelines.id],
    }).onDelete('cascade'),
    index('pipeline_stages_pipeline_id_position_idx').on(t.pipelineId, t.position),
  ],
);

export const deals = pgTable(
  'deals',
  {
    id: text('id').notNull(),
    organizationId: tenantId(),
    code: text('code').notNull(),
    title: text('title').notNull(),
    value: money('value').notNull().default(0),
    currency: text('currency').notNull(),
    probability: integer('probability').notNull(),
    status: text('status').$type<DealStatus>().notNull(),
    intent: text('intent').$type<DealIntent>().notNull(),
    leadSource: text('lead_source').$type<DealLeadSource>().notNull(),
    lostReason: text('lost_reason'),
    aiCreated: boolean('ai_created').notNull().default(false),
    agentId: text('agent_id'),
    /** Null once the contact was erased (issue 21): the deal stays, the link is cut. */
    contactId: text('contact_id'),
    propertyId: text('property_id'),
    pipelineId: text('pipeline_id').notNull(),
    stageId: text('stage_id').notNull(),
    stageEnteredAt: timestamp('stage_entered_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    expectedCloseDate: timestamp('expected_close_date', { withTimezone: true, mode: 'date' }),
    closedAt: timestamp('closed_at', { withTimezone: true, mode: 'date' }),
    saasPlanId: text('saas_plan_id'),
    saasPlanName: text('saas_plan_name'),
    saasBillingPeriod: text('saas_billing_period').$type<SaasBillingPeriod>(),
    saasMrrAmount: money('saas_mrr_amount'),
    trialStartedAt: timestamp('trial_started_at', { withTimezone: true, mode: 'date' }),
    trialEndsAt: timestamp('trial_ends_at', { withTimezone: true, mode: 'date' }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.id] }),
    foreignKey({
      name: 'deals_agent_id_agents_id_fk',
      columns: [t.organizationId, t.agentId],
      foreignColumns: [agents.organizationId, agents.id],
    }).onDelete('set null'),
    foreignKey({
      name: 'deals_contact_id_contacts_id_fk',
      columns: [t.organizationId, t.contactId],
      foreignColumns: [contacts.organizationId, contacts.id],
    }).onDelete('set null'),
    foreignKey({
      name: 'deals_property_id_properties_id_fk',
      columns: [t.organizationId, t.propertyId],
      foreignColumns: [properties.organizationId, properties.id],
    }).onDelete('set null'),
    foreignKey({
      name: 'deals_pipeline_id_pipelines_id_fk',
      columns: [t.organizationId, t.pipelineId],
      foreignColumns: [pipelines.organizationId, pipelines.id],
    }).onDelete('restrict'),
    foreignKey({
      name: 'deals_stage_id_pipeline_stages_id_fk',
      columns: [t.organizationId, t.stageId],
      foreignColumns: [pipelineStages.organizationId, pipelineStages.id],
    }).onDelete('restrict'),
    uniqueIndex('deals_organization_id_code_key').on(t.organizationId, t.code),
    index('deals_organization_id_created_at_idx').on(t.organizationId, t.createdAt.desc(), t.id),
    index('deals_organization_id_pipeline_id_stage_id_idx').on(t.organizationId, t.pipelineId, t.stageId),
    index('deals_organization_id_status_idx').on(t.organizationId, t.status, t.createdAt.desc()),
    index('deals_organization_id_expected_close_date_idx').on(t.organizationId, t.expectedCloseDate),
    index('deals_organization_id_updated_at_idx').on(t.organizationId, t.updatedAt, t.id),
    index('deals_agent_id_idx').on(t.agentId),
    index('deals_contact_id_idx').on(t.contactId),
    index('deals_stage_id_idx').on(t.stageId),
  ],
);

/** Every stage move of a deal (issue 21): the timeline's deal moves, kept as long as the deal. */
export const dealStageChanges = pgTable(
  'deal_stage_changes',
  {
    id: text('id').notNull(),
    organizationId: tenantId(),
    dealId: text('deal_id').notNull(),
    pipelineId: text('pipeline_id').notNull(),
    fromStageId: text('from_stage_id').notNull(),
    fromStageName: text('from_stage_name').notNull(),
    toStageId: text('to_stage_id').notNull(),
    toStageName: text('to_stage_name').notNull(),
    /** The deal's status after the move: OPEN, WON or LOST. */
    status: text('status').$type<DealStatus>().notNull(),
    lostReason: text('lost_reason'),
    automated: boolean('automated').notNull().default(false),
    /** The event actor's kind: USER, AUTOMATION, API. */
    actorKind: text('actor_kind').notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.id] }),
    foreignKey({
      name: 'deal_stage_changes_deal_id_deals_id_fk',
      columns: [t.organizationId, t.dealId],
      foreignColumns: [deals.organizationId, deals.id],
    }).onDelete('cascade'),
    index('deal_stage_changes_deal_id_created_at_idx').on(t.dealId, t.createdAt.desc(), t.id),
    index('deal_stage_changes_organization_id_idx').on(t.organizationId),
  ],
);

/** Raw usage events, kept USAGE_DETAIL_RETENTION_DAYS and purged by the worker. */
export const usageEvents = pgTable(
  'usage_events',
  {
    id: bigint('id', { mode: 'number' }).notNull().generatedAlwaysAsIdentity(),
    organizationId: tenantId(),
    contactId: text('contact_id').notNull(),
    name: text('name').notNull(),
    label: text('label'),
    props: jsonb('props').$type<Record<string, unknown>>(),
    companyId: text('company_id'),
    actorLabel: text('actor_label'),
    occurredAt: timestamp('occurred_at', { withTimezone: true, mode: 'date' }).notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.id] }),
    foreignKey({
      name: 'usage_events_contact_id_contacts_id_fk',
      columns: [t.organizationId, t.contactId],
      foreignColumns: [contacts.organizationId, contacts.id],
    }).onDelete('cascade'),
    index('usage_events_contact_id_occurred_at_idx').on(t.contactId, t.occurredAt),
    index('usage_events_created_at_idx').on(t.createdAt),
  ],
);

/** Per contact, UTC day and event name: how many, first and last time. Kept for good. */
export const usageDaily = pgTable(
  'usage_daily',
  {
    organizationId: tenantId(),
    contactId: text('contact_id').notNull(),
    day: date('day', { mode: 'string' }).notNull(),
    name: text('name').notNull(),
    count: bigint('count', { mode: 'number' }).notNull().default(0),
    firstOccurredAt: timestamp('first_occurred_at', { withTimezone: true, mode: 'date' }).notNull(),
    lastOccurredAt: timestamp('last_occurred_at', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.contactId, t.day, t.name] }),
    foreignKey({
      name: 'usage_daily_contact_id_contacts_id_fk',
      columns: [t.organizationId, t.contactId],
      foreignColumns: [contacts.organizationId, contacts.id],
    }).onDelete('cascade'),
  ],
);

export type PipelineRow = typeof pipelines.$inferSelect;
export type PipelineStageRow = typeof pipelineStages.$inferSelect;
export type DealRow = typeof deals.$inferSelect;
