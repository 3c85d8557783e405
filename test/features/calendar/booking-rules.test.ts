/**
 * What booking respects of the agency's week (issue 26), through the booking page (availability and
 * POST /v1/booking/{slug}) and the v1 create: wall-clock slots across DST changes stored at the right
 * instant; public holidays of the organization's region, agency closures (days in the organization's
 * zone) and agent time off, which take slots away and make a booking a 400 until deleted; split
 * working days; the buffer, the minimum notice and the daily maximum; and the organization's zone as
 * the agents' default. Every date is computed from now.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { busyPublishableKey, createAgent, createTenant, type Tenant } from '../../helpers/factories.ts';
import { admin, api, expectError, expectStatus } from '../../helpers/http.ts';
import { buildTestApp } from '../../helpers/test-app.ts';

const DAY = 86_400_000;
const ALL_WEEK = [1, 2, 3, 4, 5, 6, 7];
const FAST = { rateLimitPerMinute: 100_000, writeLimitPerMinute: 100_000 };
const MORNING = ['09:00', '10:00', '11:00'];

interface Agency {
  tenant: Tenant;
  secret: string;
  /** Publishable key with raised limits, for the booking page. */
  key: string;
}

let app: FastifyInstance;
let utc: Agency;
let slugSequence = 0;

/** An organization with its calendar settings changed by `settings` (through the admin API). */
async function agency(settings?: Record<string, unknown>): Promise<Agency> {
  const tenant = await createTenant(app, { secret: FAST });
  if (settings) {
    const url = `/admin/v1/organizations/${tenant.org.id}/calendar`;
    expectStatus(await admin(app, 'PATCH', url, settings), 200);
  }
  return { tenant, secret: tenant.secret.key, key: await busyPublishableKey(app, tenant.org.id) };
}

/** A bookable agent: every day 09:00-12:00, hourly, no notice, a two-year horizon, unless overridden. */
async function bookableAgent(org: Agency, booking: Record<string, unknown> = {}) {
  slugSequence += 1;
  const slug = `rules-${Date.now().toString(36)}-${slugSequence}`;
  const agent = await createAgent(app, org.tenant.org.id, {
    bookingSlug: slug,
    booking: {
      weekdays: ALL_WEEK,
      startTime: '09:00',
      endTime: '12:00',
      slotMinutes: 60,
      minNoticeMinutes: 0,
      horizonDays: 730,
      ...booking,
    },
  });
  return { id: agent.id, slug, booking: agent.booking as Record<string, unknown> };
}

async function availability(org: Agency, slug: string, date: string) {
  const query = { year: date.slice(0, 4), month: String(Number(date.slice(5, 7)) - 1) };
  return expectStatus(await api(app, 'GET', `/v1/booking/${slug}/availability`, { key: org.key, query }), 200)
    .data.data as { timezone: string; availableDates: { date: string; slots: string[] }[] };
}

async function slotsOn(org: Agency, slug: string, date: string): Promise<string[]> {
  return (await availability(org, slug, date)).availableDates.find((d) => d.date === date)?.slots ?? [];
}

let phoneSequence = Math.floor(Math.random() * 900_000);
function book(org: Agency, slug: string, date: string, startTime: string) {
  phoneSequence += 1;
  const phone = `+34622${String(phoneSequence).padStart(6, '0')}`;
  const body = { firstName: 'Marta', phone, date, startTime };
  return api(app, 'POST', `/v1/booking/${slug}`, { key: org.key, body });
}

/** Books and returns the receipt. */
async function booked(org: Agency, slug: string, date: string, startTime: string) {
  const receipt = expectStatus(await book(org, slug, date, startTime), 201).data.data;
  return receipt as Record<'appointmentId' | 'contactId' | 'startsAt' | 'endsAt', string>;
}

function createV1(org: Agency, body: Record<string, unknown>) {
  return api(app, 'POST', '/v1/appointments', { key: org.secret, body });
}

/** The single field a 400 names, with its message. */
function refused(response: Parameters<typeof expectError>[0]) {
  const details = expectError(response, 400, 'VALIDATION_ERROR').details ?? [];
  expect(details).toHaveLength(1);
  return details[0] as { field: string; message: string };
}

const utcDate = (days: number) => new Date(Date.now() + days * DAY).toISOString().slice(0, 10);
const nextDay = (date: string, days = 1) =>
  new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY).toISOString().slice(0, 10);

/** The next `MM-DD` at least `minDays` from now. */
function next(monthDay: string, minDays = 3): string {
  const earliest = utcDate(minDays);
  const year = Number(earliest.slice(0, 4));
  return `${year}-${monthDay}` >= earliest ? `${year}-${monthDay}` : `${year + 1}-${monthDay}`;
}

/** The next last Sunday of a month (0-based) at least `minDays` from now (EU DST changes). */
function nextLastSunday(month: number, minDays = 3): string {
  const earliest = utcDate(minDays);
  for (let year = Number(earliest.slice(0, 4)); ; year++) {
    const last = new Date(Date.UTC(year, month + 1, 0));
    last.setUTCDate(last.getUTCDate() - last.getUTCDay());
    const date = last.toISOString().slice(0, 10);
    if (date >= earliest) return date;
  }
}

beforeAll(async () => {
  app = await buildTestApp();
  utc = await agency();
});
afterAll(async () => {
  await app.close();
});

describe('DST changes in the agent time zone', () => {
  const spring = nextLastSunday(2);
  const fall = nextLastSunday(9);

  it('Europe/Madrid: 09:00-11:00 local on both change Sundays, stored at 07:00Z in summer and 08:00Z in winter', async () => {
    expect(new Date(`${spring}T00:00:00Z`).getUTCDay()).toBe(0);
    const agent = await bookableAgent(utc, { timezone: 'Europe/Madrid' });
    const saturday = nextDay(spring, -1);
    const expected: [string, string][] = [
      [saturday, `${saturday}T08:00:00.000Z`],
      [spring, `${spring}T07:00:00.000Z`],
      [fall, `${fall}T08:00:00.000Z`],
    ];
    for (const [date, startsAt] of expected) {
      expect(await slotsOn(utc, agent.slug, date), date).toEqual(MORNING);
      const receipt = await booked(utc, agent.slug, date, '09:00');
      expect(receipt.startsAt, date).toBe(startsAt);
      expect(Date.parse(receipt.endsAt) - Date.parse(receipt.startsAt)).toBe(3_600_000);
      expect(await slotsOn(utc, agent.slug, date), date).toEqual(['10:00', '11:00']);
    }
  });

  it('America/Bogota (no DST): 09:00 is 14:00Z on the same days', async () => {
    const agent = await bookableAgent(utc, { timezone: 'America/Bogota' });
    for (const date of [spring, fall]) {
      expect(await slotsOn(utc, agent.slug, date), date).toEqual(MORNING);
      expect((await booked(utc, agent.slug, date, '09:00')).startsAt).toBe(`${date}T14:00:00.000Z`);
    }
  });
});

describe('public holidays of the organization region', () => {
  it('close 1 January for Madrid and Catalonia, 11 September only for Catalonia; a booking then is a 400 naming the holiday', async () => {
    const madrid = await agency({ timezone: 'Europe/Madrid', holidays: { country: 'ES', region: 'MD' } });
    const catalonia = await agency({ timezone: 'Europe/Madrid', holidays: { country: 'ES', region: 'CT' } });
    const newYear = next('01-01');
    const diada = next('09-11');
    const madridAgent = await bookableAgent(madrid, { timezone: 'Europe/Madrid' });
    const cataloniaAgent = await bookableAgent(catalonia, { timezone: 'Europe/Madrid' });

    expect(await slotsOn(madrid, madridAgent.slug, newYear)).toEqual([]);
    expect(await slotsOn(catalonia, cataloniaAgent.slug, newYear)).toEqual([]);
    expect(await slotsOn(madrid, madridAgent.slug, diada)).toEqual(MORNING);
    expect(await slotsOn(catalonia, cataloniaAgent.slug, diada)).toEqual([]);
    expect(await slotsOn(catalonia, cataloniaAgent.slug, nextDay(diada, -1))).toEqual(MORNING);

    for (const [org, agent, date] of [
      [madrid, madridAgent, newYear],
      [catalonia, cataloniaAgent, diada],
    ] as const) {
      const list = await api(app, 'GET', '/v1/calendar/closures', {
        key: org.secret,
        query: { from: date, to: date },
      });
      const [holiday] = expectStatus(list, 200).data;
      expect(holiday).toMatchObject({ source: 'PUBLIC_HOLIDAY', name: expect.any(String) });
      const error = refused(await book(org, agent.slug, date, '10:00'));
      expect(error).toEqual({ field: 'body.date', message: expect.stringContaining(holiday.name) });
    }
    // The v1 create follows the same rule.
    const { contactId } = await booked(madrid, madridAgent.slug, diada, '09:00');
    const v1 = refused(
      await createV1(madrid, { agentId: madridAgent.id, contactId, date: newYear, startTime: '10:00' }),
    );
    expect(v1.field).toBe('body.date');
  });
});

describe('agency closures and agent time off', () => {
  it('a closure empties its days (in the organization zone) and refuses bookings on them until deleted', async () => {
    const org = await agency({ timezone: 'Europe/Madrid' });
    const agent = await bookableAgent(org, { timezone: 'Europe/Madrid' });
    const day = utcDate(10);
    const closure = expectStatus(
      await api(app, 'POST', '/v1/calendar/closures', {
        key: org.secret,
        body: { startDate: day, name: 'Inventory day' },
      }),
      201,
    ).data;
    expect(await slotsOn(org, agent.slug, day)).toEqual([]);
    expect(await slotsOn(org, agent.slug, nextDay(day))).toEqual(MORNING);
    const error = refused(await book(org, agent.slug, day, '10:00'));
    expect(error).toEqual({ field: 'body.date', message: expect.stringContaining('Inventory day') });
    const { contactId } = await booked(org, agent.slug, nextDay(day), '09:00');
    const v1 = { agentId: agent.id, contactId, date: day, startTime: '10:00' };
    expect(refused(await createV1(org, v1)).field).toBe('body.date');

    const url = `/v1/calendar/closures/${closure.id}`;
    expectStatus(await api(app, 'DELETE', url, { key: org.secret }), 200);
    expect(await slotsOn(org, agent.slug, day)).toEqual(MORNING);
    expectStatus(await createV1(org, v1), 201);
    await booked(org, agent.slug, day, '11:00');
  });

  it("closed days are the organization's: Tokyo's day covers 15:00Z the day before to 15:00Z for a UTC agent", async () => {
    const org = await agency({ timezone: 'Asia/Tokyo' });
    const agent = await bookableAgent(org, { timezone: 'UTC', startTime: '09:00', endTime: '18:00' });
    const day = utcDate(12);
    const body = { startDate: day, name: 'Tokyo closing' };
    expectStatus(await api(app, 'POST', '/v1/calendar/closures', { key: org.secret, body }), 201);
    const early = ['09:00', '10:00', '11:00', '12:00', '13:00', '14:00'];
    const late = ['15:00', '16:00', '17:00'];
    expect(await slotsOn(org, agent.slug, nextDay(day, -1))).toEqual(early);
    expect(await slotsOn(org, agent.slug, day)).toEqual(late);
    expect(refused(await book(org, agent.slug, day, '14:00')).field).toBe('body.date');
    await booked(org, agent.slug, day, '15:00');
  });

  it('time off takes the slots it overlaps and refuses them (400 body.startTime, no reason shown) until deleted', async () => {
    const org = await agency();
    const agent = await bookableAgent(org, { timezone: 'UTC' });
    const day = utcDate(9);
    const away = async (startsAt: string, endsAt: string) =>
      expectStatus(
        await api(app, 'POST', '/v1/calendar/time-off', {
          key: org.secret,
          body: { agentId: agent.id, startsAt, endsAt, reason: 'Dentist' },
        }),
        201,
      ).data.id as string;
    // Half an hour of 10:00-11:00, and the whole next day.
    const dentist = await away(`${day}T10:30:00Z`, `${day}T11:00:00Z`);
    const wholeDay = await away(`${nextDay(day)}T00:00:00Z`, `${nextDay(day, 2)}T00:00:00Z`);
    expect(await slotsOn(org, agent.slug, day)).toEqual(['09:00', '11:00']);
    expect(await slotsOn(org, agent.slug, nextDay(day))).toEqual([]);
    expect(await slotsOn(org, agent.slug, nextDay(day, 2))).toEqual(MORNING);
    // Another agent of the organization is not away.
    const colleague = await bookableAgent(org, { timezone: 'UTC' });
    expect(await slotsOn(org, colleague.slug, day)).toEqual(MORNING);

    for (const [date, time] of [
      [day, '10:00'],
      [nextDay(day), '09:00'],
    ]) {
      const error = refused(await book(org, agent.slug, date as string, time as string));
      expect(error.field).toBe('body.startTime');
      expect(error.message).not.toContain('Dentist');
    }
    const { contactId } = await booked(org, agent.slug, day, '09:00');
    const v1 = { agentId: agent.id, contactId, date: day, startTime: '10:00' };
    expect(refused(await createV1(org, v1)).field).toBe('body.startTime');

    for (const id of [dentist, wholeDay]) {
      expectStatus(await api(app, 'DELETE', `/v1/calendar/time-off/${id}`, { key: org.secret }), 200);
    }
    expect(await slotsOn(org, agent.slug, day)).toEqual(['10:00', '11:00']);
    expect(await slotsOn(org, agent.slug, nextDay(day))).toEqual(MORNING);
    expectStatus(await createV1(org, v1), 201);
    await booked(org, agent.slug, nextDay(day), '09:00');
  });
});

describe('working hours and spacing', () => {
  it('refuses overlapping ranges of one weekday; two separate ranges give slots in both and none between', async () => {
    const url = `/admin/v1/organizations/${utc.tenant.org.id}/agents`;
    const overlapping = await admin(app, 'POST', url, {
      firstName: 'Split',
      lastName: 'Overlap',
      booking: {
        timezone: 'UTC',
        weeklyHours: [
          { weekday: 2, startTime: '09:00', endTime: '12:00' },
          { weekday: 2, startTime: '11:30', endTime: '13:00' },
        ],
      },
    });
    expect(refused(overlapping)).toEqual({
      field: 'body.booking.weeklyHours[1]',
      message: expect.stringContaining('overlaps weeklyHours[0]'),
    });
    const weeklyHours = ALL_WEEK.flatMap((weekday) => [
      { weekday, startTime: '15:00', endTime: '17:00' },
      { weekday, startTime: '09:00', endTime: '11:00' },
    ]);
    const agent = await bookableAgent(utc, { timezone: 'UTC', weeklyHours });
    const day = utcDate(8);
    expect(await slotsOn(utc, agent.slug, day)).toEqual(['09:00', '10:00', '15:00', '16:00']);
    expect(await slotsOn(utc, agent.slug, nextDay(day))).toEqual(['09:00', '10:00', '15:00', '16:00']);
    expect(refused(await book(utc, agent.slug, day, '12:00')).field).toBe('body.startTime');
    expect((await booked(utc, agent.slug, day, '15:00')).startsAt).toBe(`${day}T15:00:00.000Z`);
  });

  it('keeps the buffer free around a booking: 10:00-10:30 with 30 minutes takes 09:30 and 10:30 too', async () => {
    const agent = await bookableAgent(utc, { timezone: 'UTC', slotMinutes: 30, bufferMinutes: 30 });
    const day = utcDate(7);
    expect(await slotsOn(utc, agent.slug, day)).toEqual([
      '09:00',
      '09:30',
      '10:00',
      '10:30',
      '11:00',
      '11:30',
    ]);
    await booked(utc, agent.slug, day, '10:00');
    expect(await slotsOn(utc, agent.slug, day)).toEqual(['09:00', '11:00', '11:30']);
    for (const time of ['09:30', '10:30']) {
      expectError(await book(utc, agent.slug, day, time), 409, 'DUPLICATE');
    }
    await booked(utc, agent.slug, day, '11:00');
  });

  it('offers nothing within a minimum notice of 24 hours', async () => {
    const agent = await bookableAgent(utc, {
      timezone: 'UTC',
      startTime: '00:00',
      endTime: '23:59',
      minNoticeMinutes: 1440,
      horizonDays: 60,
    });
    const before = Date.now();
    const months = [...new Set([utcDate(0), utcDate(3)].map((d) => d.slice(0, 7)))];
    const instants: number[] = [];
    for (const month of months) {
      for (const { date, slots } of (await availability(utc, agent.slug, `${month}-01`)).availableDates) {
        instants.push(...slots.map((slot) => Date.parse(`${date}T${slot}:00Z`)));
      }
    }
    const after = Date.now();
    expect(instants.length).toBeGreaterThan(0);
    expect(Math.min(...instants)).toBeGreaterThanOrEqual(before + DAY);
    // The first slot is within two hours of the notice's end (no 23:00 slot on a 00:00-23:59 grid).
    expect(Math.min(...instants)).toBeLessThanOrEqual(after + DAY + 2 * 3_600_000);
    // A slot within the notice is refused.
    const soon = new Date(Math.ceil((Date.now() + 12 * 3_600_000) / 3_600_000) * 3_600_000).toISOString();
    const error = refused(await book(utc, agent.slug, soon.slice(0, 10), soon.slice(11, 16)));
    expect(['body.date', 'body.startTime']).toContain(error.field);
  });

  it('maxPerDay 2: a day with two bookings offers nothing and a third is 409 DUPLICATE; other days and a cancellation', async () => {
    const agent = await bookableAgent(utc, { timezone: 'UTC', maxPerDay: 2 });
    expect(agent.booking.maxPerDay).toBe(2);
    const day = utcDate(11);
    const first = await booked(utc, agent.slug, day, '09:00');
    expect(await slotsOn(utc, agent.slug, day)).toEqual(['10:00', '11:00']);
    await booked(utc, agent.slug, day, '10:00');
    expect(await slotsOn(utc, agent.slug, day)).toEqual([]);
    expect((await availability(utc, agent.slug, day)).availableDates.some((d) => d.date === day)).toBe(false);
    expect(await slotsOn(utc, agent.slug, nextDay(day))).toEqual(MORNING);
    expect(await slotsOn(utc, agent.slug, nextDay(day, -1))).toEqual(MORNING);
    expectError(await book(utc, agent.slug, day, '11:00'), 409, 'DUPLICATE');
    const v1 = { agentId: agent.id, contactId: first.contactId, date: day, startTime: '11:00' };
    expectError(await createV1(utc, v1), 409, 'DUPLICATE');
    await booked(utc, agent.slug, nextDay(day), '11:00');

    // A cancelled appointment no longer counts.
    const cancel = `/v1/appointments/${first.appointmentId}/cancel`;
    expectStatus(await api(app, 'POST', cancel, { key: utc.secret, body: {} }), 200);
    expect(await slotsOn(utc, agent.slug, day)).toEqual(['09:00', '11:00']);
    expectStatus(await createV1(utc, v1), 201);
    expect(await slotsOn(utc, agent.slug, day)).toEqual([]);
  });
});

describe('the daily maximum under concurrency', () => {
  it('parallel bookings of different slots on a day with maxPerDay 1: exactly one wins, the others 409', async () => {
    const agent = await bookableAgent(utc, { timezone: 'UTC', endTime: '15:00', maxPerDay: 1 });
    const day = utcDate(13);
    const times = ['09:00', '10:00', '11:00', '12:00', '13:00', '14:00'];
    const responses = await Promise.all(times.map((time) => book(utc, agent.slug, day, time)));
    const statuses = responses.map((r) => r.statusCode).sort();
    expect(statuses, responses.map((r) => r.body).join('\n')).toEqual([201, 409, 409, 409, 409, 409]);
    expect(await slotsOn(utc, agent.slug, day)).toEqual([]);
  });
});

describe("the organization's time zone as the agents' default", () => {
  it('an agent created without a zone works in the organization zone; one with its own keeps it', async () => {
    const org = await agency({ timezone: 'Asia/Tokyo' });
    const agent = await bookableAgent(org);
    expect(agent.booking.timezone).toBe('Asia/Tokyo');
    const day = utcDate(6);
    expect((await availability(org, agent.slug, day)).timezone).toBe('Asia/Tokyo');
    // 09:00 in Tokyo is midnight UTC.
    expect((await booked(org, agent.slug, day, '09:00')).startsAt).toBe(`${day}T00:00:00.000Z`);
    const own = await bookableAgent(org, { timezone: 'UTC' });
    expect(own.booking.timezone).toBe('UTC');
    expect((await availability(org, own.slug, day)).timezone).toBe('UTC');
  });
});
