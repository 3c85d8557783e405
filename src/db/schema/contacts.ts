// Contacts and what portal forms and the back office attach to them: leads, visit requests, appointments, tasks, finder searches.
import { eq, gt, inArray, lt, sql, type SQL } from 'drizzle-orm';
import {
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
import type { TransactionType } from '../../shared/property-vocabulary.ts';
import { createdAt, updatedAt, money } from './columns.ts';
import { tenantId } from './platform.ts';
import { agents, properties } from './portal.ts';
import type {
  ContactSource,
  ContactStatus,
  ContactType,
  ConsentChannel,
  ConsentStatus,
  LeadOutcome,
  LeadMatchKey,
  PreferredTime,
  VisitRequestStatus,
  AppointmentType,
  AppointmentStatus,
  AppointmentSource,
  TaskType,
  TaskStatus,
} from './contacts.values.ts';

export * from './contacts.values.ts';


export const contacts = pgTable(
  'contacts',
  {
    id: text('id').notNull(),
    organizationId: tenantId(),
    code: text('code').notNull(),
    firstName: text('first_name').notNull(),
    lastName: text('last_name').notNull().default(''),
    email: text('email'),
    /** Lowercased email: the dedupe key. */
    emailKey: text('email_key'),
    /**
     * The language emails reach them in (issue 41, ISO 639-1): from their browser when a portal form
     * first met them, or set in the back office; null: the organization's default language.
     */
    preferredLanguage: text('preferred_language'),
    /** E.164. */
    phone: text('phone'),
    source: text('source').$type<ContactSource>().notNull(),
    status: text('status').$type<ContactStatus>().notNull(),
    type: text('type').$type<ContactType>().notNull(),
    score: integer('score').notNull().default(0),
    ownerId: text('owner_id'),
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
    primaryKey({ columns: [t.organizationId, t.id] }),
    foreignKey({
      name: 'contacts_owner_id_agents_id_fk',
      columns: [t.organizationId, t.ownerId],
      foreignColumns: [agents.organizationId, agents.id],
    }).onDelete('set null'),
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
    index('contacts_organization_id_updated_at_idx').on(t.organizationId, t.updatedAt, t.id),
    // Few contacts opt out: a partial index keeps `optedOut=true` (the messaging block list) cheap.
    index('contacts_organization_id_opted_out_idx')
      .on(t.organizationId, t.createdAt.desc())
      .where(sql`opted_out`),
  ],
);

/** Free-text notes on a contact (issue 21): written through v1 and the timeline's first source. */
export const contactNotes = pgTable(
  'contact_notes',
  {
    id: text('id').notNull(),
    organizationId: tenantId(),
    contactId: text('contact_id').notNull(),
    body: text('body').notNull(),
    /** The agent the writing key acts for, if any. */
    authorAgentId: text('author_agent_id'),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.id] }),
    foreignKey({
      name: 'contact_notes_contact_id_contacts_id_fk',
      columns: [t.organizationId, t.contactId],
      foreignColumns: [contacts.organizationId, contacts.id],
    }).onDelete('cascade'),
    foreignKey({
      name: 'contact_notes_author_agent_id_agents_id_fk',
      columns: [t.organizationId, t.authorAgentId],
      foreignColumns: [agents.organizationId, agents.id],
    }).onDelete('set null'),
    index('contact_notes_contact_id_created_at_idx').on(t.contactId, t.createdAt.desc(), t.id),
    index('contact_notes_organization_id_idx').on(t.organizationId),
    index('contact_notes_author_agent_id_idx').on(t.authorAgentId),
  ],
);

/**
 * A contact's consent per channel (issue 21), as a history: every grant or revocation is a row, the
 * newest per channel is the current state. Channels MESSAGING, EMAIL, PHONE; status GRANTED or REVOKED.
 */
export const contactConsents = pgTable(
  'contact_consents',
  {
    id: text('id').notNull(),
    organizationId: tenantId(),
    contactId: text('contact_id').notNull(),
    channel: text('channel').$type<ConsentChannel>().notNull(),
    status: text('status').$type<ConsentStatus>().notNull(),
    /** Where it was given or withdrawn: a form, an API call, an inbound STOP... */
    source: text('source').notNull(),
    /** The actor kind that recorded it (API, USER, SYSTEM...). */
    actorKind: text('actor_kind').notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.id] }),
    foreignKey({
      name: 'contact_consents_contact_id_contacts_id_fk',
      columns: [t.organizationId, t.contactId],
      foreignColumns: [contacts.organizationId, contacts.id],
    }).onDelete('cascade'),
    index('contact_consents_contact_id_channel_created_at_idx').on(t.contactId, t.channel, t.createdAt.desc(), t.id),
    index('contact_consents_organization_id_idx').on(t.organizationId),
  ],
);

export const leads = pgTable(
  'leads',
  {
    id: text('id').notNull(),
    organizationId: tenantId(),
    contactId: text('contact_id').notNull(),
    propertyId: text('property_id'),
    message: text('message'),
    interestedIn: text('interested_in').$type<TransactionType>(),
    utm: jsonb('utm').$type<Record<string, string>>().notNull().default(sql`'{}'::jsonb`),
    /** The page the form was sent from (issue 21). */
    referrer: text('referrer'),
    /** CREATED or MATCHED: whether the lead made a new contact or found one; null before issue 21. */
    outcome: text('outcome').$type<LeadOutcome>(),
    /** What a MATCHED lead matched on: EMAIL or PHONE. */
    matchedOn: text('matched_on').$type<LeadMatchKey>(),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.id] }),
    foreignKey({
      name: 'leads_contact_id_contacts_id_fk',
      columns: [t.organizationId, t.contactId],
      foreignColumns: [contacts.organizationId, contacts.id],
    }).onDelete('cascade'),
    foreignKey({
      name: 'leads_property_id_properties_id_fk',
      columns: [t.organizationId, t.propertyId],
      foreignColumns: [properties.organizationId, properties.id],
    }).onDelete('set null'),
    index('leads_organization_id_outcome_created_at_idx').on(t.organizationId, t.outcome, t.createdAt.desc()),
    index('leads_organization_id_created_at_idx').on(t.organizationId, t.createdAt.desc()),
    index('leads_contact_id_idx').on(t.contactId),
    // GET /v1/leads filters (issue 21): by property, and by the utm source the form carried.
    index('leads_organization_id_property_id_created_at_idx').on(t.organizationId, t.propertyId, t.createdAt.desc()),
    index('leads_organization_id_utm_source_created_at_idx').on(
      t.organizationId,
      sql`(${t.utm} ->> 'source')`,
      t.createdAt.desc(),
    ),
  ],
);

export const visitRequests = pgTable(
  'visit_requests',
  {
    id: text('id').notNull(),
    organizationId: tenantId(),
    contactId: text('contact_id').notNull(),
    propertyId: text('property_id').notNull(),
    preferredDate: date('preferred_date', { mode: 'string' }),
    preferredTime: text('preferred_time').$type<PreferredTime>(),
    message: text('message'),
    status: text('status').$type<VisitRequestStatus>().notNull().default('PENDING'),
    /** The appointment a confirmation made (issue 21). */
    appointmentId: text('appointment_id'),
    declineReason: text('decline_reason'),
    /** When it was confirmed or declined. */
    decidedAt: timestamp('decided_at', { withTimezone: true, mode: 'date' }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.id] }),
    foreignKey({
      name: 'visit_requests_contact_id_contacts_id_fk',
      columns: [t.organizationId, t.contactId],
      foreignColumns: [contacts.organizationId, contacts.id],
    }).onDelete('cascade'),
    foreignKey({
      name: 'visit_requests_property_id_properties_id_fk',
      columns: [t.organizationId, t.propertyId],
      foreignColumns: [properties.organizationId, properties.id],
    }).onDelete('cascade'),
    foreignKey({
      name: 'visit_requests_appointment_id_appointments_id_fk',
      columns: [t.organizationId, t.appointmentId],
      foreignColumns: [appointments.organizationId, appointments.id],
    }).onDelete('set null'),
    index('visit_requests_appointment_id_idx').on(t.appointmentId),
    index('visit_requests_organization_id_created_at_idx').on(t.organizationId, t.createdAt.desc()),
    index('visit_requests_contact_id_idx').on(t.contactId),
    // GET /v1/visit-requests?status= (issue 21).
    index('visit_requests_organization_id_status_created_at_idx').on(t.organizationId, t.status, t.createdAt.desc()),
  ],
);

/** Appointment statuses that hold a slot: the no-overlap constraint covers only these. */
export const ACTIVE_APPOINTMENT_STATUSES = ['SCHEDULED', 'CONFIRMED'] as const;

/**
 * The conditions that pick an agent's appointments holding time in [from, to) (no `to`: from `from`
 * on), the rows the no-overlap constraint compares: the slot check, busy intervals, upcoming visits.
 */
export function agentTimeHeld(organizationId: string, agentId: string, from: Date, to: Date | null): SQL[] {
  return [
    eq(appointments.organizationId, organizationId),
    eq(appointments.agentId, agentId),
    inArray(appointments.status, [...ACTIVE_APPOINTMENT_STATUSES]),
    ...(to === null ? [] : [lt(appointments.startsAt, to)]),
    gt(appointments.endsAt, from),
  ];
}

export const appointments = pgTable(
  'appointments',
  {
    id: text('id').notNull(),
    organizationId: tenantId(),
    agentId: text('agent_id').notNull(),
    contactId: text('contact_id'),
    propertyId: text('property_id'),
    type: text('type').$type<AppointmentType>().notNull(),
    status: text('status').$type<AppointmentStatus>().notNull(),
    startsAt: timestamp('starts_at', { withTimezone: true, mode: 'date' }).notNull(),
    endsAt: timestamp('ends_at', { withTimezone: true, mode: 'date' }).notNull(),
    source: text('source').$type<AppointmentSource>().notNull().default('BOOKING'),
    notes: text('notes'),
    /**
     * iCalendar's SEQUENCE (RFC 5545 3.8.7.4): 0 when made, one more at each significant revision (start,
     * end or status changed), kept by a trigger whoever writes (migration 0029, decision 0253).
     */
    sequence: integer('sequence').notNull().default(0),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.id] }),
    foreignKey({
      name: 'appointments_agent_id_agents_id_fk',
      columns: [t.organizationId, t.agentId],
      foreignColumns: [agents.organizationId, agents.id],
    }).onDelete('cascade'),
    foreignKey({
      name: 'appointments_contact_id_contacts_id_fk',
      columns: [t.organizationId, t.contactId],
      foreignColumns: [contacts.organizationId, contacts.id],
    }).onDelete('set null'),
    foreignKey({
      name: 'appointments_property_id_properties_id_fk',
      columns: [t.organizationId, t.propertyId],
      foreignColumns: [properties.organizationId, properties.id],
    }).onDelete('set null'),
    index('appointments_organization_id_starts_at_idx').on(t.organizationId, t.startsAt),
    index('appointments_agent_id_starts_at_idx').on(t.agentId, t.startsAt),
    index('appointments_contact_id_idx').on(t.contactId),
    // Incremental sync (`updatedAfter`, `cursor`): keyset order (updatedAt, id).
    index('appointments_organization_id_updated_at_idx').on(t.organizationId, t.updatedAt, t.id),
    // The reminder scan (issue 26): active appointments by start, across organizations.
    index('appointments_active_starts_at_idx')
      .on(t.startsAt)
      .where(sql`${t.status} IN ('SCHEDULED', 'CONFIRMED')`),
    // The no-overlap exclusion constraint (organization, agent, time range) is in the migrations
    // (0003, then 0018): drizzle-kit cannot express it.
  ],
);

export const tasks = pgTable(
  'tasks',
  {
    id: text('id').notNull(),
    organizationId: tenantId(),
    title: text('title').notNull(),
    description: text('description'),
    type: text('type').$type<TaskType>().notNull().default('TODO'),
    status: text('status').$type<TaskStatus>().notNull().default('PENDING'),
    dueAt: timestamp('due_at', { withTimezone: true, mode: 'date' }),
    assigneeId: text('assignee_id'),
    contactId: text('contact_id'),
    appointmentId: text('appointment_id'),
    completedAt: timestamp('completed_at', { withTimezone: true, mode: 'date' }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.id] }),
    foreignKey({
      name: 'tasks_assignee_id_agents_id_fk',
      columns: [t.organizationId, t.assigneeId],
      foreignColumns: [agents.organizationId, agents.id],
    }).onDelete('set null'),
    foreignKey({
      name: 'tasks_contact_id_contacts_id_fk',
      columns: [t.organizationId, t.contactId],
      foreignColumns: [contacts.organizationId, contacts.id],
    }).onDelete('set null'),
    foreignKey({
      name: 'tasks_appointment_id_appointments_id_fk',
      columns: [t.organizationId, t.appointmentId],
      foreignColumns: [appointments.organizationId, appointments.id],
    }).onDelete('set null'),
    index('tasks_organization_id_status_due_at_idx').on(t.organizationId, t.status, t.dueAt),
    index('tasks_assignee_id_status_due_at_idx').on(t.assigneeId, t.status, t.dueAt),
    // Issue 4: the task list's default order (dueAt) and due-date ranges without a status filter,
    // the contactId filter, and the ON DELETE SET NULL of a deleted contact or appointment.
    index('tasks_organization_id_due_at_idx').on(t.organizationId, t.dueAt),
    index('tasks_contact_id_idx').on(t.contactId),
    index('tasks_appointment_id_idx').on(t.appointmentId),
    index('tasks_organization_id_updated_at_idx').on(t.organizationId, t.updatedAt, t.id),
  ],
);

export const finderSearches = pgTable(
  'finder_searches',
  {
    id: text('id').notNull(),
    organizationId: tenantId(),
    contactId: text('contact_id').notNull(),
    criteria: jsonb('criteria').$type<Record<string, unknown>>().notNull(),
    subscribedToAlerts: boolean('subscribed_to_alerts').notNull().default(false),
    total: integer('total').notNull(),
    propertyIds: text('property_ids').array().notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.id] }),
    foreignKey({
      name: 'finder_searches_contact_id_contacts_id_fk',
      columns: [t.organizationId, t.contactId],
      foreignColumns: [contacts.organizationId, contacts.id],
    }).onDelete('cascade'),
    index('finder_searches_organization_id_created_at_idx').on(t.organizationId, t.createdAt.desc()),
    index('finder_searches_contact_id_idx').on(t.contactId),
    index('finder_searches_alerts_idx')
      .on(t.organizationId, t.createdAt)
      .where(sql`subscribed_to_alerts`),
  ],
);

export type ContactConsentRow = typeof contactConsents.$inferSelect;
export type ContactRow = typeof contacts.$inferSelect;
export type AppointmentRow = typeof appointments.$inferSelect;
export type TaskRow = typeof tasks.$inferSelect;
