// The agency's calendar (issue 26, decision 0236): its time zone, the public holidays and its own
// closed days that close it, its agents' time off, and the reminder offsets. Booking reads what
// takes days and hours away from the slots through `blockedTimes`.
import type { Database, Tx } from '../../db/database.ts';
import { databaseError } from '../../db/errors.ts';
import type { AgentTimeOffRow, ClosureRow } from '../../db/schema.ts';
import { Errors } from '../../platform/errors/errors.ts';
import { pageMeta, pageRequest } from '../../platform/http/pagination.ts';
import { isId, newId } from '../../platform/ids/ids.ts';
import {
  addDays,
  canonicalTimeZone,
  dateIn,
  daysBetween,
  isCalendarDate,
} from '../../platform/time/clock-time.ts';
import { publicHolidays, unknownHolidayPlace } from '../../platform/time/holidays.ts';
import {
  MAX_CLOSURE_SPAN_DAYS,
  type CalendarSettings,
  type Closure,
  type CreateClosureBody,
  type CreateTimeOffBody,
  type ListClosuresQuery,
  type ListTimeOffQuery,
  type TimeOff,
  type UpdateCalendarSettingsBody,
} from './calendar.schema.ts';
import { findMessageTemplate, templateVariables } from '../messaging-setup/index.ts';
import { REMINDER_VARIABLES } from './calendar.reminders.rules.ts';
import * as store from './calendar.store.ts';

const FOREIGN_KEY_VIOLATION = '23503';
/** The longest closure or time off one entry holds. */
const MAX_ENTRY_DAYS = 366;
const DAY_MS = 86_400_000;

function toSettings(row: store.CalendarSettingsRow): CalendarSettings {
  return {
    timezone: row.timezone,
    holidays: row.holidayCountry === null ? null : { country: row.holidayCountry, region: row.holidayRegion },
    reminderOffsetsMinutes: row.reminderOffsetsMinutes,
    reminderTemplateId: row.reminderTemplateId,
  };
}

async function requireSettings(tx: Tx, organizationId: string): Promise<store.CalendarSettingsRow> {
  const row = isId(organizationId, 'org') ? await store.findSettings(tx, organizationId) : null;
  if (!row) throw Errors.notFound('Organization', organizationId);
  return row;
}

/**
 * 404 for an id that is not an organization's (before it reaches the tenant setting, which refuses a
 * malformed id with a 500): the admin routes take any string as orgId.
 */
function requireOrganizationId(organizationId: string): void {
  if (!isId(organizationId, 'org')) throw Errors.notFound('Organization', organizationId);
}

export async function getCalendarSettings(db: Database, organizationId: string): Promise<CalendarSettings> {
  requireOrganizationId(organizationId);
  return toSettings(await db.readTx(organizationId, (tx) => requireSettings(tx, organizationId)));
}

/**
 * Changes the calendar settings of a live organization, mirrored onto its test twin (test keys see
 * the agency's real calendar). A twin's own change is a 400 naming `twinField`. The time zone is
 * stored by its canonical name; a holiday country or region date-holidays does not know is a 400.
 */
export async function updateCalendarSettings(
  db: Database,
  organizationId: string,
  body: UpdateCalendarSettingsBody,
  twinField: string,
): Promise<CalendarSettings> {
  const current = await db.systemTx((tx) => requireSettings(tx, organizationId));
  if (current.liveOrganizationId !== null) {
    throw Errors.invalidField(
      twinField,
      `names the test twin of ${current.liveOrganizationId}: calendar settings are the live organization's (change them there; the twin follows)`,
    );
  }
  const changes: store.SettingsChanges = {};
  if (body.timezone !== undefined) {
    const timezone = canonicalTimeZone(body.timezone);
    if (!timezone)
      throw Errors.invalidField('body.timezone', 'is not an IANA time zone (e.g. Europe/Madrid)');
    changes.timezone = timezone;
  }
  if (body.holidays !== undefined) {
    const place =
      body.holidays === null
        ? null
        : { country: body.holidays.country, region: body.holidays.region ?? null };
    const unknown = place === null ? null : unknownHolidayPlace(place);
    if (unknown) throw Errors.invalidField(`body.holidays.${unknown.field}`, unknown.message);
    changes.holidayCountry = place?.country ?? null;
    changes.holidayRegion = place?.region ?? null;
  }
  if (body.reminderOffsetsMinutes !== undefined) {
    changes.reminderOffsetsMinutes = [...body.reminderOffsetsMinutes].sort((a, b) => b - a);
  }
  if (body.reminderTemplateId !== undefined && body.reminderTemplateId !== null) {
    await requireReminderTemplate(db, organizationId, body.reminderTemplateId);
  }
  if (body.reminderTemplateId !== undefined) changes.reminderTemplateId = body.reminderTemplateId;
  await db.systemTx((tx) => store.updateSettings(tx, organizationId, changes));
  return getCalendarSettings(db, organizationId);
}

/** 400 unless the template is the organization's and a reminder can fill every variable it names. */
async function requireReminderTemplate(
  db: Database,
  organizationId: string,
  templateId: string,
): Promise<void> {
  const template = await db.readTx(organizationId, (tx) =>
    findMessageTemplate(tx, organizationId, templateId),
  );
  if (!template) {
    throw Errors.invalidField(
      'body.reminderTemplateId',
      'does not name a message template of this organization',
    );
  }
  const unknown = templateVariables(template.body).filter((name) => !REMINDER_VARIABLES.includes(name));
  if (unknown.length > 0) {
    throw Errors.invalidField(
      'body.reminderTemplateId',
      `names template ${template.name}, whose variables ${unknown.join(', ')} a reminder cannot fill (it fills ${REMINDER_VARIABLES.join(', ')})`,
    );
  }
}

/** Checks a YYYY-MM-DD beyond its pattern (a real day). */
function requireDate(date: string, field: string): string {
  if (!isCalendarDate(date)) throw Errors.invalidField(field, `is not a calendar date: ${date}`);
  return date;
}

function agencyClosure(row: ClosureRow): Closure {
  return {
    id: row.id,
    source: 'AGENCY',
    startDate: row.startDate,
    endDate: row.endDate,
    name: row.name,
    createdAt: row.createdAt.toISOString(),
  };
}

/** The public holidays and the agency's closures that touch the days `from`..`to`, by first day. */
async function closuresIn(
  tx: Tx,
  organizationId: string,
  settings: store.CalendarSettingsRow,
  from: string,
  to: string,
): Promise<Closure[]> {
  const own = (await store.listClosures(tx, organizationId, from, to)).map(agencyClosure);
  const holidays: Closure[] =
    settings.holidayCountry === null
      ? []
      : publicHolidays(
          { country: settings.holidayCountry, region: settings.holidayRegion },
          from,
          to,
          settings.defaultLanguage,
        ).map((holiday) => ({
          id: null,
          source: 'PUBLIC_HOLIDAY',
          startDate: holiday.date,
          endDate: holiday.date,
          name: holiday.name,
          createdAt: null,
        }));
  return [...own, ...holidays].sort((a, b) => a.startDate.localeCompare(b.startDate));
}

/**
 * The closures that touch the days asked (default: a year from today in the organization's time
 * zone): the agency's own and the public holidays of its holiday settings, computed.
 */
export async function listClosures(
  db: Database,
  organizationId: string,
  query: ListClosuresQuery,
): Promise<Closure[]> {
  requireOrganizationId(organizationId);
  return db.readTx(organizationId, async (tx) => {
    const settings = await requireSettings(tx, organizationId);
    const from = query.from === undefined ? dateIn(settings.timezone) : requireDate(query.from, 'query.from');
    const to = query.to === undefined ? addDays(from, 365) : requireDate(query.to, 'query.to');
    if (to < from) throw Errors.invalidField('query.to', 'must not be before from');
    if (daysBetween(from, to) > MAX_CLOSURE_SPAN_DAYS) {
      throw Errors.invalidField('query.to', `must be at most ${MAX_CLOSURE_SPAN_DAYS} days after from`);
    }
    return closuresIn(tx, organizationId, settings, from, to);
  });
}

/** Adds days the agency is closed (in its time zone): no slot is offered on them. */
export async function createClosure(
  db: Database,
  organizationId: string,
  body: CreateClosureBody,
): Promise<Closure> {
  requireOrganizationId(organizationId);
  const startDate = requireDate(body.startDate, 'body.startDate');
  const endDate = body.endDate === undefined ? startDate : requireDate(body.endDate, 'body.endDate');
  if (endDate < startDate) throw Errors.invalidField('body.endDate', 'must not be before startDate');
  if (daysBetween(startDate, endDate) >= MAX_ENTRY_DAYS) {
    throw Errors.invalidField('body.endDate', `must be within ${MAX_ENTRY_DAYS} days of startDate`);
  }
  return db.tenantTx(organizationId, async (tx) => {
    await requireSettings(tx, organizationId);
    const row = await store.insertClosure(tx, {
      id: newId('clo'),
      organizationId,
      startDate,
      endDate,
      name: body.name.trim(),
    });
    return agencyClosure(row);
  });
}

export async function deleteClosure(db: Database, organizationId: string, id: string): Promise<void> {
  requireOrganizationId(organizationId);
  const deleted = isId(id, 'clo')
    ? await db.tenantTx(organizationId, (tx) => store.deleteClosure(tx, organizationId, id))
    : false;
  if (!deleted) throw Errors.notFound('Closure', id);
}

function toTimeOff(row: AgentTimeOffRow): TimeOff {
  return {
    id: row.id,
    agentId: row.agentId,
    startsAt: row.startsAt.toISOString(),
    endsAt: row.endsAt.toISOString(),
    reason: row.reason,
    createdAt: row.createdAt.toISOString(),
  };
}

function instant(value: string, field: string): Date {
  const parsed = new Date(value);
  if (Number.isNaN(parsed.getTime())) throw Errors.invalidField(field, 'is not a date-time');
  return parsed;
}

/** The time off that ends after `from` (default now), earliest first, paged. */
export async function listTimeOff(db: Database, organizationId: string, query: ListTimeOffQuery) {
  requireOrganizationId(organizationId);
  const page = pageRequest(query);
  const filter = {
    agentId: query.agentId,
    from: query.from === undefined ? new Date() : instant(query.from, 'query.from'),
    to: query.to === undefined ? undefined : instant(query.to, 'query.to'),
  };
  const { items, total } = await db.readTx(organizationId, async (tx) => {
    await requireSettings(tx, organizationId);
    return store.listTimeOff(tx, organizationId, filter, page);
  });
  return { data: items.map(toTimeOff), meta: pageMeta(total, page) };
}

/**
 * Records an agent away from `startsAt` to `endsAt`: no slot of theirs that overlaps it is offered.
 * Appointments already booked in it stay (the agency moves or cancels them). 400 for an agent not
 * the organization's, an end not after the start, or more than a year.
 */
export async function createTimeOff(
  db: Database,
  organizationId: string,
  body: CreateTimeOffBody,
): Promise<TimeOff> {
  requireOrganizationId(organizationId);
  const startsAt = instant(body.startsAt, 'body.startsAt');
  const endsAt = instant(body.endsAt, 'body.endsAt');
  if (endsAt <= startsAt) throw Errors.invalidField('body.endsAt', 'must be later than startsAt');
  if (endsAt.getTime() - startsAt.getTime() > MAX_ENTRY_DAYS * DAY_MS) {
    throw Errors.invalidField('body.endsAt', `must be within ${MAX_ENTRY_DAYS} days of startsAt`);
  }
  const unknownAgent = () =>
    Errors.invalidField('body.agentId', 'does not name an agent of this organization');
  if (!isId(body.agentId, 'agt')) throw unknownAgent();
  try {
    return await db.tenantTx(organizationId, async (tx) => {
      await requireSettings(tx, organizationId);
      const row = await store.insertTimeOff(tx, {
        id: newId('off'),
        organizationId,
        agentId: body.agentId,
        startsAt,
        endsAt,
        reason: body.reason?.trim() || null,
      });
      return toTimeOff(row);
    });
  } catch (error) {
    if (databaseError(error)?.code === FOREIGN_KEY_VIOLATION) throw unknownAgent();
    throw error;
  }
}

export async function deleteTimeOff(db: Database, organizationId: string, id: string): Promise<void> {
  requireOrganizationId(organizationId);
  const deleted = isId(id, 'off')
    ? await db.tenantTx(organizationId, (tx) => store.deleteTimeOff(tx, organizationId, id))
    : false;
  if (!deleted) throw Errors.notFound('Time off', id);
}

/** What takes an agent's slots away between two instants, besides appointments. */
export interface BlockedTimes {
  /** The organization's time zone: closed days are days there. */
  timezone: string;
  /** Closed days (YYYY-MM-DD in `timezone`) with the closure's name. */
  closedDays: Map<string, string>;
  timeOff: { startsAt: number; endsAt: number; reason: string | null }[];
}

/**
 * The closed days (public holidays and the agency's closures) and the agent's time off that touch
 * [from, to), inside the caller's transaction: what booking takes away from the slots.
 */
export async function blockedTimes(
  tx: Tx,
  organizationId: string,
  agentId: string,
  from: Date,
  to: Date,
): Promise<BlockedTimes> {
  const settings = await requireSettings(tx, organizationId);
  // A day in the organization's zone: every instant of the span falls on one of these dates.
  const firstDay = addDays(dateIn(settings.timezone, from.getTime()), -1);
  const lastDay = addDays(dateIn(settings.timezone, to.getTime()), 1);
  const closedDays = new Map<string, string>();
  for (const closure of await closuresIn(tx, organizationId, settings, firstDay, lastDay)) {
    for (let day = closure.startDate; day <= closure.endDate; day = addDays(day, 1)) {
      if (day >= firstDay && day <= lastDay && !closedDays.has(day)) closedDays.set(day, closure.name);
    }
  }
  const timeOff = (await store.timeOffBetween(tx, organizationId, agentId, from, to)).map((entry) => ({
    startsAt: entry.startsAt.getTime(),
    endsAt: entry.endsAt.getTime(),
    reason: entry.reason,
  }));
  return { timezone: settings.timezone, closedDays, timeOff };
}

/** The organization's time zone, inside the caller's transaction. */
export async function organizationTimeZone(tx: Tx, organizationId: string): Promise<string> {
  return (await requireSettings(tx, organizationId)).timezone;
}
