/**
 * Booking slots, computed in the agent's IANA time zone with nothing but Node's Intl.
 *
 * A slot is a wall-clock time on the agent's calendar ("2027-03-29 09:30" in Europe/Madrid) and
 * the instant it names. Wall times are laid out on the agent's grid day by day, then turned into
 * instants; that is what keeps a 09:00 slot at 09:00 local on both sides of a DST change. On the
 * spring-forward day a wall time that does not exist is skipped; on the fall-back day a wall time
 * that happens twice is offered once, at its first occurrence.
 */

import { minutesOf } from '../../platform/time/clock-time.ts';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** The hours part of an agent's booking settings (AgentBookingSettings in db/schema.ts). */
export interface BookingHours {
  /** ISO weekdays (1 = Monday) that use the default hours. */
  weekdays: number[];
  startTime: string;
  /** 24:00 allowed: the window runs to midnight at the end of its day. */
  endTime: string;
  /** Per-weekday windows; a weekday listed here uses only these windows. */
  weeklyHours: { weekday: number; startTime: string; endTime: string }[];
}

export interface SlotRules extends BookingHours {
  timezone: string;
  slotMinutes: number;
  bufferMinutes: number;
  horizonDays: number;
  minNoticeMinutes: number;
  /** Most appointments a day on the agent's calendar; absent or null: no limit. */
  maxPerDay?: number | null;
}

/** A candidate slot: the agent's wall-clock date and time, and the instants it spans. */
export interface Slot {
  date: string;
  time: string;
  startsAt: number;
  endsAt: number;
}

export interface BusyInterval {
  startsAt: number;
  endsAt: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

// Building a DateTimeFormat costs ~100x a format call, and zones are few: keep one per zone.
function formatter(zone: string): Intl.DateTimeFormat {
  let found = formatters.get(zone);
  if (!found) {
    found = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(zone, found);
  }
  return found;
}

/** The wall clock of `instant` in `zone`, as milliseconds of the same fields read as UTC. */
function wallMs(instant: number, zone: string): number {
  const fields: Record<string, number> = {};
  for (const part of formatter(zone).formatToParts(instant)) {
    if (part.type !== 'literal') fields[part.type] = Number(part.value);
  }
  return Date.UTC(
    fields.year as number,
    (fields.month as number) - 1,
    fields.day as number,
    fields.hour as number,
    fields.minute as number,
    fields.second as number,
  );
}

/** Milliseconds `zone` is ahead of UTC at `instant` (Europe/Madrid in summer: 2 h). */
export function zoneOffsetMs(instant: number, zone: string): number {
  const whole = instant - (((instant % 1000) + 1000) % 1000);
  return wallMs(whole, zone) - whole;
}

/** The agent's calendar date (YYYY-MM-DD) and time (HH:MM) at `instant`. */
export function wallClock(instant: number, zone: string): { date: string; time: string } {
  const iso = new Date(wallMs(instant, zone)).toISOString();
  return { date: iso.slice(0, 10), time: iso.slice(11, 16) };
}

function dateMs(date: string): number {
  const [year, month, day] = date.split('-').map(Number) as [number, number, number];
  return Date.UTC(year, month - 1, day);
}

function timeOf(minutes: number): string {
  return `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;
}

/**
 * Turns one calendar day's wall-clock minutes into instants. UTC offsets span -12 h..+14 h, so the
 * instant of any wall time that day lies between the offsets seen 14 h before its midnight and
 * 14 h after its end; when those agree (every day but a change day) one subtraction is exact,
 * otherwise each candidate offset is tried and kept only if it gives the wall time back.
 */
function dayConverter(date: string, zone: string): (minutes: number) => number | null {
  const midnight = dateMs(date);
  const before = zoneOffsetMs(midnight - 14 * HOUR, zone);
  const after = zoneOffsetMs(midnight + DAY + 14 * HOUR, zone);
  if (before === after) return (minutes) => midnight + minutes * MINUTE - before;
  return (minutes) => {
    const wall = midnight + minutes * MINUTE;
    const matches = [wall - before, wall - after].filter((instant) => wallMs(instant, zone) === wall);
    // None: the wall time falls in the spring-forward gap. Two: it happens twice; take the first.
    return matches.length === 0 ? null : Math.min(...matches);
  };
}

/**
 * The instant a wall-clock date and time name in `zone`: null when that time does not exist there
 * (skipped by a spring-forward change); the earlier instant when it happens twice (fall back).
 */
export function zonedTimeToUtc(date: string, time: string, zone: string): Date | null {
  const instant = dayConverter(date, zone)(minutesOf(time));
  return instant === null ? null : new Date(instant);
}

/** ISO weekday (1 = Monday .. 7 = Sunday) of a calendar date. */
export function isoWeekday(date: string): number {
  return new Date(dateMs(date)).getUTCDay() || 7;
}

/**
 * The windows (minutes since midnight) the agent works on an ISO weekday. An end of 24:00 is 1440: the
 * window reaches the end of its own day, wall clock, so a 60-minute grid lays its last slot at 23:00
 * whatever the day's length (a slot's end instant is its start plus its length, never "24:00" read
 * as a time of the next day, which on a midnight DST change may not exist).
 */
export function windowsOn(hours: BookingHours, weekday: number): { start: number; end: number }[] {
  const specific = hours.weeklyHours.filter((entry) => entry.weekday === weekday);
  const windows = specific.length > 0 ? specific : hours.weekdays.includes(weekday) ? [hours] : [];
  return windows.map((w) => ({ start: minutesOf(w.startTime), end: minutesOf(w.endTime) }));
}

/** True when the hours give at least one window in the week (SPEC's `configured`). */
export function hasHours(hours: BookingHours): boolean {
  return [1, 2, 3, 4, 5, 6, 7].some((weekday) => windowsOn(hours, weekday).length > 0);
}

/** Every calendar date of a month (0-based, as the API takes it), as YYYY-MM-DD. */
export function datesOfMonth(year: number, month: number): string[] {
  const count = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  return Array.from({ length: count }, (_, i) =>
    new Date(Date.UTC(year, month, i + 1)).toISOString().slice(0, 10),
  );
}

/**
 * The grid slots of the given dates, before anything is taken away: each window from its start,
 * every `slotMinutes`, as long as the slot ends inside the window (in wall-clock time). A wall time
 * that does not exist is skipped and one that repeats is offered once.
 */
export function gridSlots(rules: SlotRules, dates: string[]): Slot[] {
  const slots: Slot[] = [];
  for (const date of dates) {
    const toInstant = dayConverter(date, rules.timezone);
    const times = new Set<number>();
    for (const window of windowsOn(rules, isoWeekday(date))) {
      for (let start = window.start; start + rules.slotMinutes <= window.end; start += rules.slotMinutes) {
        times.add(start);
      }
    }
    for (const minutes of [...times].sort((a, b) => a - b)) {
      const startsAt = toInstant(minutes);
      if (startsAt === null) continue;
      slots.push({ date, time: timeOf(minutes), startsAt, endsAt: startsAt + rules.slotMinutes * MINUTE });
    }
  }
  return slots;
}

/** The span of instants a busy interval must overlap to matter to these slots (buffer included). */
export function busySpan(rules: SlotRules, slots: Slot[]): { from: Date; to: Date } | null {
  if (slots.length === 0) return null;
  const buffer = rules.bufferMinutes * MINUTE;
  return {
    from: new Date(Math.min(...slots.map((s) => s.startsAt)) - buffer),
    to: new Date(Math.max(...slots.map((s) => s.endsAt)) + buffer),
  };
}

/**
 * The slots still bookable at `now`: not earlier than the minimum notice, starting within the
 * horizon, and at least `bufferMinutes` away from every busy interval.
 */
export function freeSlots(rules: SlotRules, slots: Slot[], busy: BusyInterval[], now: number): Slot[] {
  const earliest = now + rules.minNoticeMinutes * MINUTE;
  const latest = now + rules.horizonDays * DAY;
  const buffer = rules.bufferMinutes * MINUTE;
  return slots.filter(
    (slot) =>
      slot.startsAt >= earliest &&
      slot.startsAt <= latest &&
      !busy.some((b) => b.startsAt < slot.endsAt + buffer && b.endsAt > slot.startsAt - buffer),
  );
}

/**
 * The dates of a month worth laying slots out for: the agent's calendar dates from the one the
 * minimum notice ends on to the one the horizon ends on (earlier and later ones hold no free slot).
 */
export function bookableDates(rules: SlotRules, year: number, month: number, now: number): string[] {
  const first = wallClock(now + rules.minNoticeMinutes * MINUTE, rules.timezone).date;
  const last = wallClock(now + rules.horizonDays * DAY, rules.timezone).date;
  return datesOfMonth(year, month).filter((date) => date >= first && date <= last);
}

/** Free slots grouped by date, only dates with at least one slot (SPEC's `availableDates`). */
export function groupByDate(slots: Slot[]): { date: string; slots: string[] }[] {
  const byDate = new Map<string, string[]>();
  for (const slot of slots) {
    const times = byDate.get(slot.date) ?? [];
    times.push(slot.time);
    byDate.set(slot.date, times);
  }
  return [...byDate].map(([date, times]) => ({ date, slots: times }));
}

/** What closes slots besides appointments: closed days of the organization and the agent's time off. */
export interface SlotBlocks {
  /** The organization's zone: closed days are its calendar days. */
  timezone: string;
  closedDays: ReadonlyMap<string, string>;
  timeOff: readonly BusyInterval[];
}

/**
 * Why a slot is not offered although it is on the agent's grid: it touches a closed day of the
 * organization (a public holiday or one of its closures, named), or overlaps the agent's time off;
 * null when neither. Time off is not given a reason: the booking page is public.
 */
export function blockedBy(
  slot: Slot,
  blocks: SlotBlocks,
): { field: 'date' | 'startTime'; message: string } | null {
  for (const day of new Set([
    wallClock(slot.startsAt, blocks.timezone).date,
    wallClock(slot.endsAt - 1, blocks.timezone).date,
  ])) {
    const name = blocks.closedDays.get(day);
    if (name !== undefined) return { field: 'date', message: `is a day the agency is closed (${name})` };
  }
  if (blocks.timeOff.some((off) => off.startsAt < slot.endsAt && off.endsAt > slot.startsAt)) {
    return { field: 'startTime', message: 'falls in time the agent is away' };
  }
  return null;
}

/**
 * The slots on dates that already hold the agent's `maxPerDay` appointments left out (the agent's
 * calendar days); all of them when there is no maximum.
 */
export function underDailyMaximum(rules: SlotRules, slots: Slot[], busy: BusyInterval[]): Slot[] {
  const max = rules.maxPerDay ?? null;
  if (max === null) return slots;
  const perDay = new Map<string, number>();
  for (const appointment of busy) {
    const day = wallClock(appointment.startsAt, rules.timezone).date;
    perDay.set(day, (perDay.get(day) ?? 0) + 1);
  }
  return slots.filter((slot) => (perDay.get(slot.date) ?? 0) < max);
}
