import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../../src/db/database.ts';
import {
  createAgent,
  createProperty,
  createTenant,
  type Tenant,
  busyPublishableKey,
} from '../../helpers/factories.ts';
import { api, expectError, expectStatus } from '../../helpers/http.ts';
import { buildTestApp, testDatabase } from '../../helpers/test-app.ts';

const DAY = 86_400_000;
const ALL_WEEK = [1, 2, 3, 4, 5, 6, 7];

let app: FastifyInstance;
let tenant: Tenant;
let other: Tenant;
/** Publishable key with raised limits: these tests send many requests. */
let key: string;
let slugSequence = 0;

interface Availability {
  configured: boolean;
  timezone: string | null;
  slotMinutes: number | null;
  month: number;
  year: number;
  availableDates: { date: string; slots: string[] }[];
}

async function rows<T>(query: ReturnType<typeof sql>): Promise<T[]> {
  const db = await testDatabase();
  return db.systemTx((tx) => queryRows<T>(tx, query));
}

/** A bookable agent of `orgId` (UTC, every day 09:00-18:00, 30-minute slots unless overridden). */
async function bookableAgent(
  orgId: string,
  booking: Record<string, unknown> = {},
  fields: Record<string, unknown> = {},
) {
  slugSequence += 1;
  const slug = `agent-${Date.now().toString(36)}-${slugSequence}`;
  const agent = await createAgent(app, orgId, {
    bookingSlug: slug,
    booking: { timezone: 'UTC', weekdays: ALL_WEEK, ...booking },
    ...fields,
  });
  return { id: agent.id, slug };
}

async function availability(
  slug: string,
  query: Record<string, string> = {},
  apiKey = key,
): Promise<Availability> {
  const body = expectStatus(
    await api(app, 'GET', `/v1/booking/${slug}/availability`, { key: apiKey, query }),
    200,
  );
  expect(Object.keys(body)).toEqual(['data']);
  expect(Object.keys(body.data)).toEqual(['data']);
  return body.data.data;
}

const monthOf = (date: string) => ({ year: date.slice(0, 4), month: String(Number(date.slice(5, 7)) - 1) });
const slotsOn = (result: Availability, date: string) =>
  result.availableDates.find((d) => d.date === date)?.slots ?? [];
const utcDate = (offsetDays: number) => new Date(Date.now() + offsetDays * DAY).toISOString().slice(0, 10);

function book(slug: string, body: Record<string, unknown>, apiKey = key) {
  return api(app, 'POST', `/v1/booking/${slug}`, {
    key: apiKey,
    body: { firstName: 'Marta', lastName: 'Gil', phone: '+34611222333', ...body },
  });
}

/** The last Sunday of a month (EU DST changes), or the n-th Sunday (US ones), as YYYY-MM-DD. */
function sunday(year: number, month: number, nth: number | 'last'): string {
  const sundays: string[] = [];
  for (let day = 1; day <= 31; day++) {
    const date = new Date(Date.UTC(year, month, day));
    if (date.getUTCMonth() !== month) break;
    if (date.getUTCDay() === 0) sundays.push(date.toISOString().slice(0, 10));
  }
  return (nth === 'last' ? sundays.at(-1) : sundays[nth - 1]) as string;
}

beforeAll(async () => {
  app = await buildTestApp();
  tenant = await createTenant(app);
  other = await createTenant(app);
  key = await busyPublishableKey(app, tenant.org.id);
});
afterAll(async () => {
  await app.close();
});

describe('GET /v1/booking/agents', () => {
  it('lists the bookable agents of the agency, double-wrapped, by name', async () => {
    const org = await createTenant(app);
    const zoe = await createAgent(app, org.org.id, {
      firstName: 'Zoe',
      lastName: 'Marín',
      bookingSlug: 'zoe',
      booking: { timezone: 'Europe/Madrid', autoConfirm: true, slotMinutes: 45 },
    });
    await createAgent(app, org.org.id, {
      firstName: 'Ana',
      bookingSlug: 'ana',
      booking: { timezone: 'UTC' },
    });
    await createAgent(app, org.org.id, { firstName: 'NoSlug', booking: { timezone: 'UTC' } });
    await createAgent(app, org.org.id, { firstName: 'NoSettings', bookingSlug: 'no-settings' });
    await createAgent(app, org.org.id, {
      firstName: 'Away',
      bookingSlug: 'away',
      booking: { timezone: 'UTC' },
      active: false,
    });
    await createAgent(app, other.org.id, {
      firstName: 'Stranger',
      bookingSlug: 'stranger',
      booking: { timezone: 'UTC' },
    });

    const body = expectStatus(await api(app, 'GET', '/v1/booking/agents', { key: org.publishable.key }), 200);
    expect(Object.keys(body)).toEqual(['data']);
    expect(body.data.data.map((a: { firstName: string }) => a.firstName)).toEqual(['Ana', 'Zoe']);
    expect(body.data.data[1]).toEqual({
      id: zoe.id,
      slug: 'zoe',
      firstName: 'Zoe',
      lastName: 'Marín',
      fullName: 'Zoe Marín',
      photoUrl: zoe.photoUrl,
      autoConfirm: true,
      slotMinutes: 45,
      timezone: 'Europe/Madrid',
    });
  });
});

describe('GET /v1/booking/{slug}/availability', () => {
  it('lists the free slots of a future month on the agent grid, only dates with slots', async () => {
    // Monday to Friday, 09:00-12:00 UTC, hourly.
    const agent = await bookableAgent(tenant.org.id, {
      weekdays: [1, 2, 3, 4, 5],
      startTime: '09:00',
      endTime: '12:00',
      slotMinutes: 60,
      horizonDays: 400,
    });
    const target = new Date(Date.now() + 70 * DAY);
    const year = target.getUTCFullYear();
    const month = target.getUTCMonth();
    const result = await availability(agent.slug, { month: String(month), year: String(year) });
    expect(result).toMatchObject({ configured: true, timezone: 'UTC', slotMinutes: 60, month, year });
    const weekdays = Array.from({ length: 31 }, (_, i) => new Date(Date.UTC(year, month, i + 1)))
      .filter((d) => d.getUTCMonth() === month && d.getUTCDay() !== 0 && d.getUTCDay() !== 6)
      .map((d) => d.toISOString().slice(0, 10));
    expect(result.availableDates.map((d) => d.date)).toEqual(weekdays);
    for (const day of result.availableDates) expect(day.slots).toEqual(['09:00', '10:00', '11:00']);
  });

  it('leaves out the past and the minimum notice in the current month', async () => {
    const agent = await bookableAgent(tenant.org.id, {
      startTime: '00:00',
      endTime: '23:59',
      slotMinutes: 60,
    });
    const before = Date.now();
    const today = new Date(before).toISOString().slice(0, 10);
    const result = await availability(agent.slug, monthOf(today));
    const after = Date.now();
    const instants = result.availableDates.flatMap((d) =>
      d.slots.map((s) => Date.parse(`${d.date}T${s}:00Z`)),
    );
    for (const instant of instants) expect(instant).toBeGreaterThanOrEqual(before + 60 * 60_000);
    expect(result.availableDates.every((d) => d.date >= today)).toBe(true);
    // The first slot is the first full hour after the notice (unless that falls in the next month).
    const firstExpected = [before, after].map((t) => Math.ceil((t + 60 * 60_000) / 3_600_000) * 3_600_000);
    const firstSlot = new Date(firstExpected[0] as number).toISOString();
    if (firstSlot.slice(0, 7) === today.slice(0, 7) && firstSlot.slice(11, 16) <= '22:00') {
      expect(firstExpected).toContain(instants[0]);
    }
    // Month and year default to the agent's current ones.
    expect(await availability(agent.slug)).toEqual({ ...result, availableDates: expect.any(Array) });
  });

  it('stops at the horizon', async () => {
    const agent = await bookableAgent(tenant.org.id, { horizonDays: 3 });
    const last = new Date(Date.now() + 3 * DAY).toISOString().slice(0, 10);
    const dates = [
      ...(await availability(agent.slug, monthOf(utcDate(0)))).availableDates,
      ...(monthOf(last).month === monthOf(utcDate(0)).month
        ? []
        : (await availability(agent.slug, monthOf(last))).availableDates),
    ].map((d) => d.date);
    expect(dates.length).toBeGreaterThan(0);
    expect(dates.every((date) => date <= last)).toBe(true);
    expect((await availability(agent.slug, monthOf(utcDate(40)))).availableDates).toEqual([]);
  });

  it('takes booked appointments and their buffer away', async () => {
    const agent = await bookableAgent(tenant.org.id, { bufferMinutes: 15, horizonDays: 60 });
    const date = utcDate(9);
    expectStatus(await book(agent.slug, { date, startTime: '12:00' }), 201);
    const slots = slotsOn(await availability(agent.slug, monthOf(date)), date);
    expect(slots).toContain('11:00');
    expect(slots).not.toContain('11:30');
    expect(slots).not.toContain('12:00');
    expect(slots).not.toContain('12:30');
    expect(slots).toContain('13:00');
  });

  it('uses per-weekday hours (split days) over the default hours', async () => {
    const agent = await bookableAgent(tenant.org.id, {
      weekdays: [2],
      startTime: '09:00',
      endTime: '10:00',
      slotMinutes: 30,
      horizonDays: 400,
      weeklyHours: [
        { weekday: 1, startTime: '09:00', endTime: '10:00' },
        { weekday: 1, startTime: '16:00', endTime: '17:00' },
      ],
    });
    const target = new Date(Date.now() + 70 * DAY);
    const result = await availability(agent.slug, {
      month: String(target.getUTCMonth()),
      year: String(target.getUTCFullYear()),
    });
    for (const day of result.availableDates) {
      const weekday = new Date(`${day.date}T00:00:00Z`).getUTCDay();
      expect(day.slots).toEqual(weekday === 1 ? ['09:00', '09:30', '16:00', '16:30'] : ['09:00', '09:30']);
      expect([1, 2]).toContain(weekday);
    }
    expect(result.availableDates.length).toBeGreaterThanOrEqual(8);
  });

  it('answers configured: false without dates when the agent has no hours or no settings', async () => {
    const noHours = await bookableAgent(tenant.org.id, { weekdays: [], weeklyHours: [] });
    expect(await availability(noHours.slug)).toMatchObject({
      configured: false,
      timezone: 'UTC',
      slotMinutes: 30,
      availableDates: [],
    });
    await createAgent(app, tenant.org.id, { bookingSlug: 'slug-without-settings' });
    expect(await availability('slug-without-settings')).toMatchObject({
      configured: false,
      timezone: null,
      slotMinutes: null,
      availableDates: [],
    });
  });

  it('400 for a month outside 0-11 or an absurd year, naming the parameter', async () => {
    const agent = await bookableAgent(tenant.org.id);
    for (const [query, field] of [
      [{ month: '12', year: '2027' }, 'query.month'],
      [{ month: '-1', year: '2027' }, 'query.month'],
      [{ month: 'march', year: '2027' }, 'query.month'],
      [{ month: '1', year: '1999' }, 'query.year'],
      [{ month: '1', year: '2027', day: '3' }, 'query.day'],
    ] as const) {
      const error = expectError(
        await api(app, 'GET', `/v1/booking/${agent.slug}/availability`, { key, query }),
        400,
        'VALIDATION_ERROR',
      );
      expect(error.message).toContain(field);
    }
  });

  it("404 for an unknown slug, another agency's slug or an inactive agent, all alike", async () => {
    const theirs = await bookableAgent(other.org.id);
    const away = await bookableAgent(tenant.org.id, {}, { active: false });
    for (const slug of [theirs.slug, away.slug, 'no-such-agent']) {
      const error = expectError(
        await api(app, 'GET', `/v1/booking/${slug}/availability`, { key }),
        404,
        'NOT_FOUND',
      );
      expect(error.message).toBe(`Booking page ${slug} not found`);
    }
    // The owner's key does see it.
    await availability(theirs.slug, {}, other.publishable.key);
  });
});

describe('POST /v1/booking/{slug}', () => {
  it('books a free slot: CONFIRMED with autoConfirm, contact, notification task and event in one go', async () => {
    const agent = await bookableAgent(tenant.org.id, { autoConfirm: true, slotMinutes: 45 });
    const property = await createProperty(app, tenant.org.id);
    const date = utcDate(6);
    const response = await book(agent.slug, {
      date,
      startTime: '10:30',
      phone: '+34 611 999 001',
      email: 'marta@example.com',
      type: 'VALUATION',
      propertyId: property.id,
      notes: 'Ring twice',
    });
    const body = expectStatus(response, 201);
    expect(Object.keys(body)).toEqual(['data']);
    const receipt = body.data.data;
    expect(receipt).toEqual({
      appointmentId: expect.stringMatching(/^apt_/),
      status: 'CONFIRMED',
      ownerNotified: true,
      startsAt: `${date}T10:30:00.000Z`,
      endsAt: `${date}T11:15:00.000Z`,
      agentId: agent.id,
      contactId: expect.stringMatching(/^ct_/),
      manageUrl: expect.stringMatching(
        new RegExp(
          `^http://localhost(:80)?/visits/${tenant.org.id}\\.${'apt_\\w+'}\\.[0-9a-f]{8}\\.[\\w-]{22}$`,
        ),
      ),
    });

    const [appointment] = await rows<Record<string, unknown>>(
      sql`SELECT organization_id, agent_id, contact_id, property_id, type, status, source, notes FROM appointments WHERE id = ${receipt.appointmentId}`,
    );
    expect(appointment).toEqual({
      organization_id: tenant.org.id,
      agent_id: agent.id,
      contact_id: receipt.contactId,
      property_id: property.id,
      type: 'VALUATION',
      status: 'CONFIRMED',
      source: 'BOOKING',
      notes: 'Ring twice',
    });
    const [contact] = await rows<Record<string, unknown>>(
      sql`SELECT first_name, last_name, phone, email, source, owner_id FROM contacts WHERE id = ${receipt.contactId}`,
    );
    expect(contact).toEqual({
      first_name: 'Marta',
      last_name: 'Gil',
      phone: '+34611999001',
      email: 'marta@example.com',
      source: 'BOOKING',
      owner_id: agent.id,
    });
    const tasks = await rows<Record<string, unknown>>(
      sql`SELECT title, type, status, assignee_id, contact_id, due_at FROM tasks WHERE appointment_id = ${receipt.appointmentId}`,
    );
    expect(tasks).toHaveLength(1);
    expect(tasks[0]).toMatchObject({
      title: `New booking: Marta Gil on ${date} 10:30`,
      type: 'NOTIFICATION',
      status: 'PENDING',
      assignee_id: agent.id,
      contact_id: receipt.contactId,
    });
    expect(Math.abs(new Date(tasks[0]?.due_at as string).getTime() - Date.now())).toBeLessThan(60_000);

    const events = await rows<{
      type: string;
      data: Record<string, Record<string, unknown>>;
      actor: unknown;
    }>(
      sql`SELECT type, data, actor FROM events WHERE organization_id = ${tenant.org.id} AND type = 'appointment.created' AND data->'appointment'->>'id' = ${receipt.appointmentId}`,
    );
    expect(events).toHaveLength(1);
    expect(events[0]?.data.appointment).toEqual({
      id: receipt.appointmentId,
      agentId: agent.id,
      contactId: receipt.contactId,
      propertyId: property.id,
      type: 'VALUATION',
      status: 'CONFIRMED',
      startsAt: receipt.startsAt,
      endsAt: receipt.endsAt,
      timezone: 'UTC',
      source: 'BOOKING',
      notes: 'Ring twice',
    });
    expect(events[0]?.data.contact).toMatchObject({ id: receipt.contactId, fullName: 'Marta Gil' });
    expect(events[0]?.actor).toEqual({ kind: 'API', userId: null });
    const contactEvents = await rows<{ type: string }>(
      sql`SELECT type FROM events WHERE organization_id = ${tenant.org.id} AND type = 'contact.created' AND data->'contact'->>'id' = ${receipt.contactId}`,
    );
    expect(contactEvents).toHaveLength(1);

    // The slot is gone from the page.
    expect(slotsOn(await availability(agent.slug, monthOf(date)), date)).not.toContain('10:30');
  });

  it('books SCHEDULED without autoConfirm, SHOWING by default, reading a national phone in the agency country', async () => {
    const agent = await bookableAgent(tenant.org.id);
    const date = utcDate(7);
    const receipt = expectStatus(
      await book(agent.slug, { date, startTime: '09:00', phone: '(415) 555-2671', lastName: undefined }),
      201,
    ).data.data;
    expect(receipt.status).toBe('SCHEDULED');
    const [appointment] = await rows<{ type: string; status: string }>(
      sql`SELECT type, status FROM appointments WHERE id = ${receipt.appointmentId}`,
    );
    expect(appointment).toEqual({ type: 'SHOWING', status: 'SCHEDULED' });
    const [contact] = await rows<{ phone: string }>(
      sql`SELECT phone FROM contacts WHERE id = ${receipt.contactId}`,
    );
    expect(contact?.phone).toBe('+14155552671');
  });

  it('gives two parallel bookings of one slot exactly one 201; the others get 409 DUPLICATE', async () => {
    const agent = await bookableAgent(tenant.org.id);
    const date = utcDate(8);
    const responses = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        book(agent.slug, { date, startTime: '15:00', firstName: `Racer ${i}`, phone: `+3461100000${i}` }),
      ),
    );
    const statuses = responses.map((r) => r.statusCode).sort();
    expect(statuses, responses.map((r) => r.body).join('\n')).toEqual([201, 409, 409, 409, 409, 409]);
    for (const response of responses.filter((r) => r.statusCode === 409)) {
      expect(expectError(response, 409, 'DUPLICATE').message).toContain('no longer available');
    }
    const [count] = await rows<{ n: string }>(
      sql`SELECT count(*)::text AS n FROM appointments WHERE agent_id = ${agent.id} AND status IN ('SCHEDULED', 'CONFIRMED')`,
    );
    expect(count?.n).toBe('1');
    // The losers left nothing behind: one contact, one task, one appointment event.
    const [tasks] = await rows<{ n: string }>(
      sql`SELECT count(*)::text AS n FROM tasks WHERE assignee_id = ${agent.id}`,
    );
    expect(tasks?.n).toBe('1');
  });

  it('409 DUPLICATE only for a slot the agent offers that is taken; 400 naming the field for one never offered', async () => {
    const agent = await bookableAgent(tenant.org.id, { weekdays: [1, 2, 3, 4, 5], horizonDays: 30 });
    // A weekday 10 days ahead, and the Saturday of some week ahead.
    const days = Array.from({ length: 14 }, (_, i) => utcDate(10 + i));
    const weekday = days.find((d) => ![0, 6].includes(new Date(`${d}T00:00:00Z`).getUTCDay())) as string;
    const saturday = days.find((d) => new Date(`${d}T00:00:00Z`).getUTCDay() === 6) as string;
    expectStatus(await book(agent.slug, { date: weekday, startTime: '11:00' }), 201);
    const taken = expectError(
      await book(agent.slug, { date: weekday, startTime: '11:00' }),
      409,
      'DUPLICATE',
    );
    expect(taken.message).toContain(`${weekday} 11:00 is no longer available`);
    for (const [date, startTime, field] of [
      [weekday, '11:15', 'body.startTime'], // off the 30-minute grid
      [weekday, '18:00', 'body.startTime'], // ends after the hours
      [weekday, '08:30', 'body.startTime'], // before the hours
      [saturday, '11:00', 'body.date'], // a day off
      [utcDate(-2), '11:00', 'body.date'], // past
      [utcDate(45), '11:00', 'body.date'], // beyond the 30-day horizon
    ] as const) {
      const error = expectError(await book(agent.slug, { date, startTime }), 400, 'VALIDATION_ERROR');
      expect(error.details, `${date} ${startTime}`).toEqual([
        { field, message: expect.stringContaining('availability') },
      ]);
    }
    const unconfigured = await bookableAgent(tenant.org.id, { weekdays: [] });
    const none = expectError(
      await book(unconfigured.slug, { date: weekday, startTime: '11:00' }),
      400,
      'VALIDATION_ERROR',
    );
    expect(none.details?.[0]?.field).toBe('body.date');
    expect(none.message).toContain('takes no online bookings');
  });

  it('400 naming each invalid field', async () => {
    const agent = await bookableAgent(tenant.org.id);
    const date = utcDate(5);
    const cases: [Record<string, unknown>, string][] = [
      [{ firstName: 'M' }, 'body.firstName'],
      [{ firstName: 'x'.repeat(101) }, 'body.firstName'],
      [{ phone: '123' }, 'body.phone'],
      [{ phone: '+34 000 000 000' }, 'body.phone'],
      [{ email: 'nope' }, 'body.email'],
      [{ date: '2027-02-30' }, 'body.date'],
      [{ date: '27-02-01' }, 'body.date'],
      [{ startTime: '9:00' }, 'body.startTime'],
      [{ startTime: '25:00' }, 'body.startTime'],
      [{ type: 'DINNER' }, 'body.type'],
      [{ propertyId: 'prop_0000000000000000000000' }, 'body.propertyId'],
      [{ agentId: agent.id }, 'body.agentId'],
    ];
    for (const [override, field] of cases) {
      const error = expectError(
        await book(agent.slug, { date, startTime: '10:00', ...override }),
        400,
        'VALIDATION_ERROR',
      );
      expect(error.message, JSON.stringify(override)).toContain(field);
    }
    const missing = expectError(
      await api(app, 'POST', `/v1/booking/${agent.slug}`, { key, body: { firstName: 'Marta' } }),
      400,
      'VALIDATION_ERROR',
    );
    expect((missing.details ?? []).map((d) => d.field).sort()).toEqual([
      'body.date',
      'body.phone',
      'body.startTime',
    ]);
    // An unpublished property is as wrong as a made-up one.
    const hidden = await createProperty(app, tenant.org.id, { publishedOnPortal: false });
    expectError(
      await book(agent.slug, { date, startTime: '10:00', propertyId: hidden.id }),
      400,
      'VALIDATION_ERROR',
    );
    // Nothing was booked by the failed attempts.
    expect(slotsOn(await availability(agent.slug, monthOf(date)), date)).toContain('10:00');
  });

  it("404 for another agency's slug: its agent stays untouched", async () => {
    const theirs = await bookableAgent(other.org.id);
    const date = utcDate(5);
    const error = expectError(await book(theirs.slug, { date, startTime: '10:00' }), 404, 'NOT_FOUND');
    expect(error.message).toBe(`Booking page ${theirs.slug} not found`);
    expect(slotsOn(await availability(theirs.slug, monthOf(date), other.publishable.key), date)).toContain(
      '10:00',
    );
  });
});

describe('booking across DST changes (agent time zone)', () => {
  const year = new Date().getUTCFullYear() + 1;
  const springMadrid = sunday(year, 2, 'last');
  const fallMadrid = sunday(year, 9, 'last');

  async function madridAgent() {
    return bookableAgent(tenant.org.id, {
      timezone: 'Europe/Madrid',
      weekdays: [1, 2, 3, 4, 5],
      startTime: '09:00',
      endTime: '11:00',
      weeklyHours: [{ weekday: 7, startTime: '01:00', endTime: '04:00' }],
      slotMinutes: 30,
      horizonDays: 730,
    });
  }

  it('skips the missing hour on the spring-forward Sunday and offers the repeated hour once in autumn', async () => {
    const agent = await madridAgent();
    const march = await availability(agent.slug, { month: '2', year: String(year) });
    expect(march.timezone).toBe('Europe/Madrid');
    expect(slotsOn(march, springMadrid)).toEqual(['01:00', '01:30', '03:00', '03:30']);
    const october = await availability(agent.slug, { month: '9', year: String(year) });
    expect(slotsOn(october, fallMadrid)).toEqual(['01:00', '01:30', '02:00', '02:30', '03:00', '03:30']);
    // Weekdays keep 09:00 local on both sides of the change.
    const mondayAfter = new Date(Date.parse(`${springMadrid}T00:00:00Z`) + DAY).toISOString().slice(0, 10);
    expect(slotsOn(march, mondayAfter)).toEqual(['09:00', '09:30', '10:00', '10:30']);
  });

  it('stores the right UTC instants for slots on and around the change days', async () => {
    const agent = await madridAgent();
    const fridayBefore = new Date(Date.parse(`${springMadrid}T00:00:00Z`) - 2 * DAY)
      .toISOString()
      .slice(0, 10);
    const mondayAfter = new Date(Date.parse(`${springMadrid}T00:00:00Z`) + DAY).toISOString().slice(0, 10);
    const expectations: [string, string, string][] = [
      [fridayBefore, '09:00', `${fridayBefore}T08:00:00.000Z`],
      [mondayAfter, '09:00', `${mondayAfter}T07:00:00.000Z`],
      [springMadrid, '01:30', `${springMadrid}T00:30:00.000Z`],
      [springMadrid, '03:00', `${springMadrid}T01:00:00.000Z`],
      [fallMadrid, '02:30', `${fallMadrid}T00:30:00.000Z`],
      [fallMadrid, '03:00', `${fallMadrid}T02:00:00.000Z`],
    ];
    for (const [date, startTime, startsAt] of expectations) {
      const receipt = expectStatus(await book(agent.slug, { date, startTime }), 201).data.data;
      expect(receipt.startsAt, `${date} ${startTime}`).toBe(startsAt);
      expect(Date.parse(receipt.endsAt) - Date.parse(receipt.startsAt)).toBe(30 * 60_000);
    }
    // A wall time that does not exist is no slot.
    const gap = expectError(
      await book(agent.slug, { date: springMadrid, startTime: '02:30' }),
      400,
      'VALIDATION_ERROR',
    );
    expect(gap.details?.[0]?.field).toBe('body.startTime');
    const left = await availability(agent.slug, { month: '9', year: String(year) });
    expect(slotsOn(left, fallMadrid)).toEqual(['01:00', '01:30', '02:00', '03:30']);
  });

  it('handles America/New_York (second Sunday of March, first Sunday of November)', async () => {
    const agent = await bookableAgent(tenant.org.id, {
      timezone: 'America/New_York',
      weekdays: [],
      weeklyHours: [{ weekday: 7, startTime: '00:00', endTime: '04:00' }],
      slotMinutes: 60,
      horizonDays: 730,
    });
    const spring = sunday(year, 2, 2);
    const fall = sunday(year, 10, 1);
    expect(slotsOn(await availability(agent.slug, { month: '2', year: String(year) }), spring)).toEqual([
      '00:00',
      '01:00',
      '03:00',
    ]);
    expect(slotsOn(await availability(agent.slug, { month: '10', year: String(year) }), fall)).toEqual([
      '00:00',
      '01:00',
      '02:00',
      '03:00',
    ]);
    const receipt = expectStatus(await book(agent.slug, { date: fall, startTime: '01:00' }), 201).data.data;
    expect(receipt.startsAt).toBe(`${fall}T05:00:00.000Z`);
    const after = expectStatus(await book(agent.slug, { date: fall, startTime: '02:00' }), 201).data.data;
    expect(after.startsAt).toBe(`${fall}T07:00:00.000Z`);
  });
});
