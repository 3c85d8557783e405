import { describe, expect, it } from 'vitest';
import { canonicalTimeZone } from '../../../src/platform/time/clock-time.ts';
import {
  freeSlots,
  gridSlots,
  isoWeekday,
  wallClock,
  windowsOn,
  zonedTimeToUtc,
  type SlotRules,
} from '../../../src/features/booking/booking.slots.ts';

const iso = (date: Date | null) => date?.toISOString() ?? null;

const rules = (overrides: Partial<SlotRules> = {}): SlotRules => ({
  timezone: 'Europe/Madrid',
  weekdays: [1, 2, 3, 4, 5],
  startTime: '09:00',
  endTime: '18:00',
  weeklyHours: [],
  slotMinutes: 30,
  bufferMinutes: 0,
  horizonDays: 10_000,
  minNoticeMinutes: 0,
  ...overrides,
});

describe('zonedTimeToUtc', () => {
  it('converts ordinary wall times with the offset of that date', () => {
    expect(iso(zonedTimeToUtc('2027-01-15', '09:00', 'Europe/Madrid'))).toBe('2027-01-15T08:00:00.000Z');
    expect(iso(zonedTimeToUtc('2027-07-15', '09:00', 'Europe/Madrid'))).toBe('2027-07-15T07:00:00.000Z');
    expect(iso(zonedTimeToUtc('2027-07-15', '09:00', 'America/New_York'))).toBe('2027-07-15T13:00:00.000Z');
    expect(iso(zonedTimeToUtc('2027-01-15', '09:00', 'Asia/Kolkata'))).toBe('2027-01-15T03:30:00.000Z');
    expect(iso(zonedTimeToUtc('2027-01-15', '00:00', 'UTC'))).toBe('2027-01-15T00:00:00.000Z');
    // A zone far east of UTC: local midnight is the previous UTC day.
    expect(iso(zonedTimeToUtc('2027-01-15', '00:30', 'Pacific/Auckland'))).toBe('2027-01-14T11:30:00.000Z');
  });

  it('returns null for a wall time skipped by the spring-forward change', () => {
    // Europe/Madrid, 2027-03-28: 02:00 CET jumps to 03:00 CEST.
    expect(zonedTimeToUtc('2027-03-28', '02:00', 'Europe/Madrid')).toBeNull();
    expect(zonedTimeToUtc('2027-03-28', '02:59', 'Europe/Madrid')).toBeNull();
    expect(iso(zonedTimeToUtc('2027-03-28', '01:59', 'Europe/Madrid'))).toBe('2027-03-28T00:59:00.000Z');
    expect(iso(zonedTimeToUtc('2027-03-28', '03:00', 'Europe/Madrid'))).toBe('2027-03-28T01:00:00.000Z');
    // America/New_York, 2027-03-14: 02:00 EST jumps to 03:00 EDT.
    expect(zonedTimeToUtc('2027-03-14', '02:30', 'America/New_York')).toBeNull();
    expect(iso(zonedTimeToUtc('2027-03-14', '03:00', 'America/New_York'))).toBe('2027-03-14T07:00:00.000Z');
  });

  it('takes the first occurrence of a wall time repeated by the fall-back change', () => {
    // Europe/Madrid, 2027-10-31: 03:00 CEST goes back to 02:00 CET, so 02:xx happens twice.
    expect(iso(zonedTimeToUtc('2027-10-31', '02:30', 'Europe/Madrid'))).toBe('2027-10-31T00:30:00.000Z');
    expect(iso(zonedTimeToUtc('2027-10-31', '03:00', 'Europe/Madrid'))).toBe('2027-10-31T02:00:00.000Z');
    expect(iso(zonedTimeToUtc('2027-11-07', '01:30', 'America/New_York'))).toBe('2027-11-07T05:30:00.000Z');
    expect(iso(zonedTimeToUtc('2027-11-07', '02:00', 'America/New_York'))).toBe('2027-11-07T07:00:00.000Z');
  });

  it('round-trips through wallClock', () => {
    for (const [date, time, zone] of [
      ['2027-03-28', '03:30', 'Europe/Madrid'],
      ['2027-10-31', '01:00', 'Europe/Madrid'],
      ['2027-06-30', '23:45', 'Australia/Sydney'],
      ['2027-04-04', '02:30', 'Australia/Lord_Howe'],
    ] as const) {
      const instant = zonedTimeToUtc(date, time, zone);
      expect(instant, `${date} ${time} ${zone}`).not.toBeNull();
      expect(wallClock((instant as Date).getTime(), zone)).toEqual({ date, time });
    }
  });
});

describe('gridSlots', () => {
  const sundayNights = rules({ weeklyHours: [{ weekday: 7, startTime: '01:00', endTime: '04:00' }] });

  it('skips the slots that do not exist on the spring-forward day', () => {
    const slots = gridSlots(sundayNights, ['2027-03-28']);
    expect(slots.map((s) => s.time)).toEqual(['01:00', '01:30', '03:00', '03:30']);
    expect(slots.map((s) => new Date(s.startsAt).toISOString())).toEqual([
      '2027-03-28T00:00:00.000Z',
      '2027-03-28T00:30:00.000Z',
      '2027-03-28T01:00:00.000Z',
      '2027-03-28T01:30:00.000Z',
    ]);
  });

  it('offers a repeated wall time once on the fall-back day', () => {
    const slots = gridSlots(sundayNights, ['2027-10-31']);
    expect(slots.map((s) => s.time)).toEqual(['01:00', '01:30', '02:00', '02:30', '03:00', '03:30']);
    const starts = slots.map((s) => s.startsAt);
    expect(new Set(starts).size).toBe(starts.length);
    expect([...starts].sort((a, b) => a - b)).toEqual(starts);
    expect(new Date(slots[4]?.startsAt ?? 0).toISOString()).toBe('2027-10-31T02:00:00.000Z');
  });

  it('keeps the wall-clock grid on both sides of a change and lasts slotMinutes of real time', () => {
    const [friday] = gridSlots(rules(), ['2027-03-26']);
    const [monday] = gridSlots(rules(), ['2027-03-29']);
    expect(new Date(friday?.startsAt ?? 0).toISOString()).toBe('2027-03-26T08:00:00.000Z');
    expect(new Date(monday?.startsAt ?? 0).toISOString()).toBe('2027-03-29T07:00:00.000Z');
    expect((monday?.endsAt ?? 0) - (monday?.startsAt ?? 0)).toBe(30 * 60_000);
  });

  it('uses per-weekday windows instead of the default hours, split days included', () => {
    const split = rules({
      slotMinutes: 60,
      weeklyHours: [
        { weekday: 1, startTime: '16:00', endTime: '18:00' },
        { weekday: 1, startTime: '09:00', endTime: '11:30' },
      ],
    });
    // 2027-03-29 is a Monday, 03-30 a Tuesday (default hours), 03-27 a Saturday (no hours).
    expect(isoWeekday('2027-03-29')).toBe(1);
    expect(gridSlots(split, ['2027-03-29']).map((s) => s.time)).toEqual(['09:00', '10:00', '16:00', '17:00']);
    expect(gridSlots(split, ['2027-03-30'])).toHaveLength(9);
    expect(gridSlots(split, ['2027-03-27'])).toEqual([]);
    expect(windowsOn(split, 6)).toEqual([]);
  });
});

describe('gridSlots: windows ending at 24:00', () => {
  const lateNights = (timezone: string) =>
    rules({
      timezone,
      weekdays: [1, 2, 3, 4, 5, 6, 7],
      startTime: '22:00',
      endTime: '24:00',
      slotMinutes: 60,
    });
  const spans = (slots: ReturnType<typeof gridSlots>) =>
    slots.map((s) => `${s.time} ${new Date(s.startsAt).toISOString()}-${new Date(s.endsAt).toISOString()}`);

  it('reads 24:00 as minute 1440: the last slot ends at midnight of its own day', () => {
    expect(windowsOn(lateNights('UTC'), 1)).toEqual([{ start: 1320, end: 1440 }]);
    expect(spans(gridSlots(lateNights('Europe/Madrid'), ['2027-03-29']))).toEqual([
      '22:00 2027-03-29T20:00:00.000Z-2027-03-29T21:00:00.000Z',
      '23:00 2027-03-29T21:00:00.000Z-2027-03-29T22:00:00.000Z',
    ]);
    // 30-minute slots fill the window to the end; none starts at 24:00 or spills into the next day.
    const halves = gridSlots(rules({ ...lateNights('UTC'), slotMinutes: 30 }), ['2027-03-29']);
    expect(halves.map((s) => s.time)).toEqual(['22:00', '22:30', '23:00', '23:30']);
    expect(new Date(halves.at(-1)?.endsAt ?? 0).toISOString()).toBe('2027-03-30T00:00:00.000Z');
  });

  it('keeps the slot before midnight on the days a DST change happens at midnight (America/Santiago)', () => {
    // 2027-04-03 24:00 -03 goes back to 23:00 -04 (23:xx happens twice): 23:00 is offered once, its
    // first occurrence, lasting 60 real minutes.
    expect(spans(gridSlots(lateNights('America/Santiago'), ['2027-04-03']))).toEqual([
      '22:00 2027-04-04T01:00:00.000Z-2027-04-04T02:00:00.000Z',
      '23:00 2027-04-04T02:00:00.000Z-2027-04-04T03:00:00.000Z',
    ]);
    // 2027-09-04 24:00 -04 jumps to 01:00 -03: the next day's 00:00 does not exist, the slot still ends
    // at the instant the day ends.
    expect(spans(gridSlots(lateNights('America/Santiago'), ['2027-09-04']))).toEqual([
      '22:00 2027-09-05T02:00:00.000Z-2027-09-05T03:00:00.000Z',
      '23:00 2027-09-05T03:00:00.000Z-2027-09-05T04:00:00.000Z',
    ]);
    expect(wallClock(Date.parse('2027-09-05T04:00:00.000Z'), 'America/Santiago')).toEqual({
      date: '2027-09-05',
      time: '01:00',
    });
  });
});

describe('freeSlots', () => {
  const day = gridSlots(rules(), ['2027-03-30']);
  const at = (time: string) => Date.parse(`2027-03-30T${time}:00+02:00`);

  it('keeps bufferMinutes free on both sides of a busy interval', () => {
    const busy = [{ startsAt: at('12:00'), endsAt: at('12:30') }];
    const free = freeSlots(rules({ bufferMinutes: 15 }), day, busy, at('00:00')).map((s) => s.time);
    expect(free).toContain('11:00');
    expect(free).not.toContain('11:30');
    expect(free).not.toContain('12:00');
    expect(free).not.toContain('12:30');
    expect(free).toContain('13:00');
    // Without a buffer, back-to-back appointments are fine.
    const tight = freeSlots(rules(), day, busy, at('00:00')).map((s) => s.time);
    expect(tight).toEqual(expect.arrayContaining(['11:30', '12:30']));
    expect(tight).not.toContain('12:00');
  });

  it('leaves out the past, the minimum notice and what lies beyond the horizon', () => {
    const now = at('10:10');
    const free = freeSlots(rules({ minNoticeMinutes: 60 }), day, [], now).map((s) => s.time);
    expect(free[0]).toBe('11:30');
    const horizon = freeSlots(
      rules({ horizonDays: 1 }),
      gridSlots(rules(), ['2027-03-30', '2027-03-31']),
      [],
      at('12:00'),
    );
    expect(horizon.at(-1)?.date).toBe('2027-03-31');
    expect(horizon.at(-1)?.time).toBe('12:00');
  });
});

describe('canonicalTimeZone', () => {
  it('accepts IANA names in any case and aliases, and refuses offsets and unknown names', () => {
    expect(canonicalTimeZone('europe/madrid')).toBe('Europe/Madrid');
    expect(canonicalTimeZone('UTC')).toBe('UTC');
    expect(canonicalTimeZone('Mars/Olympus')).toBeNull();
    expect(canonicalTimeZone('+01:00')).toBeNull();
    expect(canonicalTimeZone('')).toBeNull();
  });
});
