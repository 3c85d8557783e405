import { sql } from 'drizzle-orm';
import {
  check,
  date,
  foreignKey,
  index,
  integer,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { createdAt } from './columns.ts';
import { appointments } from './contacts.ts';
import { organizations, tenantId } from './platform.ts';
import { agents } from './portal.ts';

// ---------------------------------------------------------------------------------------------
// Calendar (issue 26). Glossary
// - closure: days the whole agency is closed (its own; public holidays come from the organization's
//   holiday country and region, computed, not stored), as dates in the organization's time zone.
// - time off: an agent away from a start instant to an end instant (holidays, a doctor's visit).
// - calendar feed: an agent's appointments as an iCalendar subscription URL; its token's SHA-256 is
//   kept and found before the organization is known (a reference table, like api_keys).
// - reminder: the record that an appointment's reminder at an offset was sent or skipped, once per
//   appointment, offset and start time (a moved appointment is reminded again); a send a crash
//   interrupted is resumed after its lease, with the same dedupe key (decision 0242).
// ---------------------------------------------------------------------------------------------

export const closures = pgTable(
  'closures',
  {
    id: text('id').notNull(),
    organizationId: tenantId(),
    /** First and last closed day, inclusive, in the organization's time zone. */
    startDate: date('start_date', { mode: 'string' }).notNull(),
    endDate: date('end_date', { mode: 'string' }).notNull(),
    name: text('name').notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.id] }),
    index('closures_organization_id_end_date_idx').on(t.organizationId, t.endDate),
    check('closures_dates_check', sql`${t.endDate} >= ${t.startDate}`),
  ],
);
export type ClosureRow = typeof closures.$inferSelect;

export const agentTimeOff = pgTable(
  'agent_time_off',
  {
    id: text('id').notNull(),
    organizationId: tenantId(),
    agentId: text('agent_id').notNull(),
    startsAt: timestamp('starts_at', { withTimezone: true, mode: 'date' }).notNull(),
    endsAt: timestamp('ends_at', { withTimezone: true, mode: 'date' }).notNull(),
    reason: text('reason'),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.id] }),
    foreignKey({
      name: 'agent_time_off_agent_id_agents_id_fk',
      columns: [t.organizationId, t.agentId],
      foreignColumns: [agents.organizationId, agents.id],
    }).onDelete('cascade'),
    index('agent_time_off_agent_id_ends_at_idx').on(t.organizationId, t.agentId, t.endsAt),
    check('agent_time_off_span_check', sql`${t.endsAt} > ${t.startsAt}`),
  ],
);
export type AgentTimeOffRow = typeof agentTimeOff.$inferSelect;

export const appointmentReminders = pgTable(
  'appointment_reminders',
  {
    organizationId: tenantId(),
    appointmentId: text('appointment_id').notNull(),
    offsetMinutes: integer('offset_minutes').notNull(),
    /** The appointment's start the reminder was for: a moved appointment is reminded of its new time. */
    startsAt: timestamp('starts_at', { withTimezone: true, mode: 'date' }).notNull(),
    /**
     * SENDING (decided, being sent), then SENT, FAILED, or SKIPPED with `reason` (no consent, no
     * template, test mode, too late, ...).
     */
    status: text('status').notNull(),
    reason: text('reason'),
    messageId: text('message_id'),
    /**
     * What the messaging platform is given with the send (its idempotency key) and what `message.sent`
     * carries, the same for every attempt: `reminder:<appointment>:<offset>:<start>`. Null when skipped.
     */
    dedupeKey: text('dedupe_key'),
    /**
     * A SENDING row belongs to the worker sending it until then; past it (the worker crashed) the next
     * scan resumes it (decision 0242). Null: a row decided before the lease existed, resumable at once.
     */
    lockedUntil: timestamp('locked_until', { withTimezone: true, mode: 'date' }),
    /** How many times a send was started: 1, more when resumed after a crash. */
    attempts: integer('attempts').notNull().default(0),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.appointmentId, t.offsetMinutes, t.startsAt] }),
    foreignKey({
      name: 'appointment_reminders_appointment_id_appointments_id_fk',
      columns: [t.organizationId, t.appointmentId],
      foreignColumns: [appointments.organizationId, appointments.id],
    }).onDelete('cascade'),
    // The sweep's scan: SENDING rows only, by lease (a handful at most; the table keeps growing).
    index('appointment_reminders_sending_idx')
      .on(t.lockedUntil)
      .where(sql`${t.status} = 'SENDING'`),
  ],
);
export type AppointmentReminderRow = typeof appointmentReminders.$inferSelect;

/**
 * Agents' calendar subscription URLs (issue 26): found by the token's hash before any tenant is known,
 * so a reference table (test/db/colocation.test.ts), one row per agent with a feed. Deleting the agent
 * deletes the row (agents service); the route also needs the agent to exist.
 */
export const calendarFeeds = pgTable(
  'calendar_feeds',
  {
    tokenHash: text('token_hash').primaryKey(),
    organizationId: text('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    agentId: text('agent_id').notNull(),
    tokenPrefix: text('token_prefix').notNull(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('calendar_feeds_organization_id_agent_id_key').on(t.organizationId, t.agentId)],
);
export type CalendarFeedRow = typeof calendarFeeds.$inferSelect;
