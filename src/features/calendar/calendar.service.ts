// The agency's calendar (issue 26, decision 0236): its time zone, the public holidays and its own
// closed days that close it, its agents' time off, and the reminder offsets. Booking reads what
// takes days and hours away from the slots through `blockedTimes`.
import type { Database, Tx } from '../../db/database.ts';
import { databaseError } from '../../db/errors.ts';
import type { AgentTimeOffRow, ClosureRow } from '../../db/schema.ts';
import type { Caller } from '../../platform/auth/caller.ts';
import { Errors } from '../../platform/errors/errors.ts';
import { pageMeta, pageRequest } from '../../platform/http/pagination.ts';
import { isId, newId } from '../../platform/ids/ids.ts';
import { readAs, writeAs } from '../../platform/tenancy/caller-tx.ts';
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
  REMINDER_CHANNELS,
  type ReminderChannel,
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
    reminderChannels: row.reminderChannels as ReminderChannel[],
  };
}

async function requireSettings(tx: Tx, organizationId: string): Promise<store.CalendarSettingsRow> {
  const row = isId(organizationId, 'org') ? await store.findSettings(tx, organizationId) : null;
  if (!row) throw Errors.notFound('Organization', organizationId);
  return row;
}

/** The caller's organization's calendar settings. */
export async function getCalendarSettings(db: Database, caller: Caller): Promise<CalendarSettings> {
  return toSettings(await readAs(db, caller, (tx) => requireSettings(tx, caller.organization.id)));
}

/**
 * Changes the calendar settings of the caller's live organization, mirrored onto its test twin (test
 * keys see the agency's real calendar). A twin's own change is a 400 naming `twinField` (the request
 * field that chose the twin: the key, or the admin path's organization). The time zone is stored by its
 * canonical name; a holiday country or region date-holidays does not know is a 400.
 */
export async function updateCalendarSettings(
  db: Database,
  caller: Caller,
  body: UpdateCalendarSettingsBody,
  twinField: string,
): Promise<CalendarSettings> {
  const { id: organizationId, livemode, liveOrganizationId } = caller.organization;
  if (!livemode) {
    throw Errors.invalidField(
      twinField,
      `names the test twin of ${liveOrganizationId}: calendar settings are the live organization's (change them there; the twin follows)`,
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
    await requireReminderTemplate(db, caller, body.reminderTemplateId);
  }
  if (body.reminderTemplateId !== undefined) changes.reminderTemplateId = body.reminderTemplateId;
  if (body.reminderChannels !== undefined) {
    changes.reminderChannels = REMINDER_CHANNELS.filter((channel) =>
      body.reminderChannels?.includes(channel),
    );
  }
  // The organizations table is a reference table, and the twin's row changes with the live one's:
  // written in a system transaction, by the caller's (live) organization id.
  await db.systemTx((tx) => store.updateSettings(tx, organizationId, changes));
  return getCalendarSettings(db, caller);
}

/** 400 unless the template is the organization's and a reminder can fill every variable it names. */
async function requireReminderTemplate(db: Database, caller: Caller, templateId: string): Promise<void> {
  const template = await readAs(db, caller, (tx) =>
    findMessageTemplate(tx, caller.organization.id, templateId),
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
  caller: Caller,
  query: ListClosuresQuery,
): Promise<Closure[]> {
  const organizationId = caller.organization.id;
  return readAs(db, caller, async (tx) => {
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
export async function createClosure(db: Database, caller: Caller, body: CreateClosureBody): Promise<Closure> {
  const organizationId = caller.organization.id;
  const startDate = requireDate(body.startDate, 'body.startDate');
  const endDate = body.endDate === undefined ? startDate : requireDate(body.endDate, 'body.endDate');
  if (endDate < startDate) throw Errors.invalidField('body.endDate', 'must not be before startDate');
  if (daysBetween(startDate, endDate) >= MAX_ENTRY_DAYS) {
    throw Errors.invalidField('body.endDate', `must be within ${MAX_ENTRY_DAYS} days of startDate`);
  }
  return writeAs(db, caller, async (tx) => {
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

/** Deletes one of the agency's closures: its days are bookable again. 404 for an unknown id. */
export async function deleteClosure(db: Database, caller: Caller, id: string): Promise<void> {
  const deleted = isId(id, 'clo')
    ? await writeAs(db, caller, (tx) => store.deleteClosure(tx, caller.organization.id, id))
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
export async function listTimeOff(db: Database, caller: Caller, query: ListTimeOffQuery) {
  const page = pageRequest(query);
  const filter = {
    agentId: query.agentId,
    from: query.from === undefined ? new Date() : instant(query.from, 'query.from'),
    to: query.to === undefined ? undefined : instant(query.to, 'query.to'),
  };
  const { items, total } = await readAs(db, caller, (tx) =>
    store.listTimeOff(tx, caller.organization.id, filter, page),
  );
  return { data: items.map(toTimeOff), meta: pageMeta(total, page) };
}

/**
 * Records an agent away from `startsAt` to `endsAt`: no slot of theirs that overlaps it is offered.
 * Appointments already booked in it stay (the agency moves or cancels them). 400 for an agent not
 * the organization's, an end not after the start, or more than a year.
 */
export async function createTimeOff(db: Database, caller: Caller, body: CreateTimeOffBody): Promise<TimeOff> {
  const organizationId = caller.organization.id;
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
    return await writeAs(db, caller, async (tx) => {
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

/** Deletes an agent's time off: their slots in it are offered again. 404 for an unknown id. */
export async function deleteTimeOff(db: Database, caller: Caller, id: string): Promise<void> {
  const deleted = isId(id, 'off')
    ? await writeAs(db, caller, (tx) => store.deleteTimeOff(tx, caller.organization.id, id))
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
