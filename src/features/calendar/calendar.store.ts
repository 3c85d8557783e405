// The calendar's SQL: an organization's calendar settings (columns of organizations, a reference
// table written in system transactions), its closures, its agents' time off, and their appointments as
// calendars show them. Reminders have their own file (calendar.reminders.store.ts).
import { and, asc, eq, gt, gte, lt, lte, or, type SQL } from 'drizzle-orm';
import { countOf, totalOf, type Tx } from '../../db/database.ts';
import {
  agentTimeOff,
  appointments,
  calendarFeeds,
  closures,
  contacts,
  organizations,
  properties,
  type AgentTimeOffRow,
  type CalendarFeedRow,
  type ClosureRow,
} from '../../db/schema.ts';
import type { PageRequest } from '../../platform/http/pagination.ts';

export interface CalendarSettingsRow {
  timezone: string;
  holidayCountry: string | null;
  holidayRegion: string | null;
  reminderOffsetsMinutes: number[];
  reminderTemplateId: string | null;
  reminderChannels: string[];
  defaultLanguage: string;
  liveOrganizationId: string | null;
}

export async function findSettings(tx: Tx, organizationId: string): Promise<CalendarSettingsRow | null> {
  const rows = await tx
    .select({
      timezone: organizations.timezone,
      holidayCountry: organizations.holidayCountry,
      holidayRegion: organizations.holidayRegion,
      reminderOffsetsMinutes: organizations.reminderOffsetsMinutes,
      reminderTemplateId: organizations.reminderTemplateId,
      reminderChannels: organizations.reminderChannels,
      defaultLanguage: organizations.defaultLanguage,
      liveOrganizationId: organizations.liveOrganizationId,
    })
    .from(organizations)
    .where(eq(organizations.id, organizationId))
    .limit(1);
  return rows[0] ?? null;
}

export type SettingsChanges = Partial<
  Pick<
    CalendarSettingsRow,
    | 'timezone'
    | 'holidayCountry'
    | 'holidayRegion'
    | 'reminderOffsetsMinutes'
    | 'reminderTemplateId'
    | 'reminderChannels'
  >
>;

/**
 * Writes the settings of the live organization and of its test twin, which mirrors them but for the
 * reminder template (a template of the live organization; a twin sends no reminders).
 */
export async function updateSettings(
  tx: Tx,
  liveOrganizationId: string,
  changes: SettingsChanges,
): Promise<void> {
  const { reminderTemplateId, ...mirrored } = changes;
  if (Object.keys(mirrored).length > 0) {
    await tx
      .update(organizations)
      .set(mirrored)
      .where(
        or(
          eq(organizations.id, liveOrganizationId),
          eq(organizations.liveOrganizationId, liveOrganizationId),
        ),
      );
  }
  if (reminderTemplateId !== undefined) {
    await tx
      .update(organizations)
      .set({ reminderTemplateId })
      .where(eq(organizations.id, liveOrganizationId));
  }
}

/** The agency's closures that touch the days from `from` to `to` (inclusive), by first day. */
export async function listClosures(
  tx: Tx,
  organizationId: string,
  from: string,
  to: string,
): Promise<ClosureRow[]> {
  return tx
    .select()
    .from(closures)
    .where(
      and(
        eq(closures.organizationId, organizationId),
        gte(closures.endDate, from),
        lte(closures.startDate, to),
      ),
    )
    .orderBy(asc(closures.startDate), asc(closures.id))
    .limit(1000);
}

export async function insertClosure(tx: Tx, row: typeof closures.$inferInsert): Promise<ClosureRow> {
  const [inserted] = await tx.insert(closures).values(row).returning();
  return inserted as ClosureRow;
}

export async function deleteClosure(tx: Tx, organizationId: string, id: string): Promise<boolean> {
  const rows = await tx
    .delete(closures)
    .where(and(eq(closures.organizationId, organizationId), eq(closures.id, id)))
    .returning({ id: closures.id });
  return rows.length > 0;
}

export interface TimeOffFilter {
  agentId?: string;
  /** Ending after. */
  from: Date;
  /** Starting before. */
  to?: Date;
}

function timeOffWhere(organizationId: string, filter: TimeOffFilter): SQL | undefined {
  return and(
    eq(agentTimeOff.organizationId, organizationId),
    filter.agentId === undefined ? undefined : eq(agentTimeOff.agentId, filter.agentId),
    gt(agentTimeOff.endsAt, filter.from),
    filter.to === undefined ? undefined : lt(agentTimeOff.startsAt, filter.to),
  );
}

export async function listTimeOff(
  tx: Tx,
  organizationId: string,
  filter: TimeOffFilter,
  page: PageRequest,
): Promise<{ items: AgentTimeOffRow[]; total: number }> {
  const where = timeOffWhere(organizationId, filter);
  const rows = await tx
    .select({ row: agentTimeOff, total: countOf(agentTimeOff, where) })
    .from(agentTimeOff)
    .where(where)
    .orderBy(asc(agentTimeOff.startsAt), asc(agentTimeOff.id))
    .limit(page.limit)
    .offset(page.offset);
  return { items: rows.map((r) => r.row), total: await totalOf(tx, rows, page, agentTimeOff, where) };
}

/** An agent's time off that overlaps [from, to): what booking takes away from the slots. */
export async function timeOffBetween(
  tx: Tx,
  organizationId: string,
  agentId: string,
  from: Date,
  to: Date,
): Promise<{ startsAt: Date; endsAt: Date; reason: string | null }[]> {
  return tx
    .select({ startsAt: agentTimeOff.startsAt, endsAt: agentTimeOff.endsAt, reason: agentTimeOff.reason })
    .from(agentTimeOff)
    .where(timeOffWhere(organizationId, { agentId, from, to }))
    .orderBy(asc(agentTimeOff.startsAt))
    .limit(1000);
}

export async function insertTimeOff(tx: Tx, row: typeof agentTimeOff.$inferInsert): Promise<AgentTimeOffRow> {
  const [inserted] = await tx.insert(agentTimeOff).values(row).returning();
  return inserted as AgentTimeOffRow;
}

export async function deleteTimeOff(tx: Tx, organizationId: string, id: string): Promise<boolean> {
  const rows = await tx
    .delete(agentTimeOff)
    .where(and(eq(agentTimeOff.organizationId, organizationId), eq(agentTimeOff.id, id)))
    .returning({ id: agentTimeOff.id });
  return rows.length > 0;
}

/** An appointment as a calendar shows it: with its contact's and listing's details. */
export interface CalendarAppointment {
  id: string;
  agentId: string;
  contactId: string | null;
  type: string;
  status: string;
  startsAt: Date;
  endsAt: Date;
  /** iCalendar's SEQUENCE, kept by the database (migration 0029). */
  sequence: number;
  createdAt: Date;
  updatedAt: Date;
  contactFirstName: string | null;
  contactLastName: string | null;
  contactPhone: string | null;
  contactEmail: string | null;
  propertyCode: string | null;
  propertyTitle: string | null;
  propertyAddress: string | null;
  propertyCity: string | null;
}

const calendarColumns = {
  id: appointments.id,
  agentId: appointments.agentId,
  contactId: appointments.contactId,
  type: appointments.type,
  status: appointments.status,
  startsAt: appointments.startsAt,
  endsAt: appointments.endsAt,
  sequence: appointments.sequence,
  createdAt: appointments.createdAt,
  updatedAt: appointments.updatedAt,
  contactFirstName: contacts.firstName,
  contactLastName: contacts.lastName,
  contactPhone: contacts.phone,
  contactEmail: contacts.email,
  propertyCode: properties.code,
  propertyTitle: properties.title,
  propertyAddress: properties.address,
  propertyCity: properties.city,
};

function calendarQuery(tx: Tx, where: SQL | undefined) {
  return tx
    .select(calendarColumns)
    .from(appointments)
    .leftJoin(
      contacts,
      and(eq(contacts.organizationId, appointments.organizationId), eq(contacts.id, appointments.contactId)),
    )
    .leftJoin(
      properties,
      and(
        eq(properties.organizationId, appointments.organizationId),
        eq(properties.id, appointments.propertyId),
      ),
    )
    .where(where);
}

export async function findCalendarAppointment(
  tx: Tx,
  organizationId: string,
  id: string,
): Promise<CalendarAppointment | null> {
  const rows = await calendarQuery(
    tx,
    and(eq(appointments.organizationId, organizationId), eq(appointments.id, id)),
  ).limit(1);
  return rows[0] ?? null;
}

/** An agent's appointments starting in [from, to), cancelled ones included, by start, at most `limit`. */
export async function agentCalendar(
  tx: Tx,
  organizationId: string,
  agentId: string,
  range: { from: Date; to: Date; limit: number },
): Promise<CalendarAppointment[]> {
  return calendarQuery(
    tx,
    and(
      eq(appointments.organizationId, organizationId),
      eq(appointments.agentId, agentId),
      gte(appointments.startsAt, range.from),
      lt(appointments.startsAt, range.to),
    ),
  )
    .orderBy(asc(appointments.startsAt))
    .limit(range.limit);
}

/** The agent a calendar token's hash names (read before any tenant is known), or null. */
export async function findFeedByHash(tx: Tx, tokenHash: string): Promise<CalendarFeedRow | null> {
  const rows = await tx.select().from(calendarFeeds).where(eq(calendarFeeds.tokenHash, tokenHash)).limit(1);
  return rows[0] ?? null;
}

export async function listFeeds(tx: Tx, organizationId: string): Promise<CalendarFeedRow[]> {
  return tx
    .select()
    .from(calendarFeeds)
    .where(eq(calendarFeeds.organizationId, organizationId))
    .orderBy(asc(calendarFeeds.createdAt))
    .limit(1000);
}

/** Replaces (or with null, removes) an agent's feed token. */
export async function setFeed(
  tx: Tx,
  organizationId: string,
  agentId: string,
  token: { hash: string; prefix: string } | null,
): Promise<CalendarFeedRow | null> {
  await tx
    .delete(calendarFeeds)
    .where(and(eq(calendarFeeds.organizationId, organizationId), eq(calendarFeeds.agentId, agentId)));
  if (token === null) return null;
  const [row] = await tx
    .insert(calendarFeeds)
    .values({ tokenHash: token.hash, tokenPrefix: token.prefix, organizationId, agentId })
    .returning();
  return row ?? null;
}
