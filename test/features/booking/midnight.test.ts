/**
 * Working hours that end at 24:00 (decision 0252): an end time may be 24:00 (midnight at the end of
 * that day, in the agent's zone), a start time never; the availability then offers the slot that ends
 * at midnight and booking it works, also on a day whose midnight a DST change moves.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { busyPublishableKey, createAgent, createTenant, FAST, type Tenant } from '../../helpers/factories.ts';
import { api, expectError, expectStatus } from '../../helpers/http.ts';
import { buildTestApp } from '../../helpers/test-app.ts';

const DAY = 86_400_000;

let app: FastifyInstance;
let tenant: Tenant;
let key: string;
let sequence = 0;

const bookingPath = (id: string) => `/v1/agents/${id}/booking`;
const dateIn = (days: number) => new Date(Date.now() + days * DAY).toISOString().slice(0, 10);
const monthOf = (date: string) => ({ year: date.slice(0, 4), month: String(Number(date.slice(5, 7)) - 1) });

function patchBooking(agentId: string, body: Record<string, unknown>) {
  return api(app, 'PATCH', bookingPath(agentId), { key: tenant.secret.key, body });
}

async function slotsOn(slug: string, date: string): Promise<string[]> {
  const body = expectStatus(
    await api(app, 'GET', `/v1/booking/${slug}/availability`, { key, query: monthOf(date) }),
    200,
  );
  const days = body.data.data.availableDates as { date: string; slots: string[] }[];
  return days.find((day) => day.date === date)?.slots ?? [];
}

function book(slug: string, date: string, startTime: string) {
  return api(app, 'POST', `/v1/booking/${slug}`, {
    key,
    body: { firstName: 'Irene', lastName: 'Soler', phone: '+34611222444', date, startTime },
  });
}

/** An agent with a fresh slug, booking turned on through PATCH /v1/agents/{id}/booking. */
async function agentWith(booking: Record<string, unknown>) {
  sequence += 1;
  const agent = await createAgent(app, tenant.org.id, { firstName: 'Nora' });
  const slug = `nora-${Date.now().toString(36)}-${sequence}`;
  const answer = expectStatus(await patchBooking(agent.id, { bookingSlug: slug, booking }), 200).data;
  return { id: agent.id, slug, answer };
}

beforeAll(async () => {
  app = await buildTestApp();
  tenant = await createTenant(app, { secret: FAST });
  key = await busyPublishableKey(app, tenant.org.id);
});
afterAll(async () => {
  await app.close();
});

describe('working hours ending at 24:00', () => {
  it('accepts endTime 24:00, reads it back, offers the slot ending at midnight and books it', async () => {
    const agent = await agentWith({
      timezone: 'Europe/Madrid',
      weekdays: [1, 2, 3, 4, 5, 6, 7],
      startTime: '21:00',
      endTime: '24:00',
      slotMinutes: 60,
      minNoticeMinutes: 0,
    });
    expect(agent.answer.booking).toMatchObject({ startTime: '21:00', endTime: '24:00' });
    const read = expectStatus(await api(app, 'GET', bookingPath(agent.id), { key: tenant.secret.key }), 200);
    expect(read.data.booking).toMatchObject({ startTime: '21:00', endTime: '24:00' });

    const date = dateIn(5);
    expect(await slotsOn(agent.slug, date)).toEqual(['21:00', '22:00', '23:00']);
    const receipt = expectStatus(await book(agent.slug, date, '23:00'), 201).data.data;
    // 23:00-24:00 in Madrid: the visit ends at the local midnight that starts the next day.
    const next = new Date(Date.parse(`${date}T00:00:00Z`) + DAY).toISOString().slice(0, 10);
    const offsetHours = (Date.parse(`${next}T00:00:00Z`) - Date.parse(receipt.endsAt)) / 3_600_000;
    expect([1, 2], JSON.stringify(receipt)).toContain(offsetHours);
    expect(Date.parse(receipt.endsAt) - Date.parse(receipt.startsAt)).toBe(60 * 60_000);
    expect(await slotsOn(agent.slug, date)).toEqual(['21:00', '22:00']);
  });

  it("a closure of the next day leaves the slot ending at midnight; one of the slot's own day does not", async () => {
    const org = await createTenant(app, { secret: FAST });
    const closures = (startDate: string) =>
      api(app, 'POST', '/v1/calendar/closures', {
        key: org.secret.key,
        body: { startDate, name: 'Closed' },
      });
    const agent = await createAgent(app, org.org.id, {
      bookingSlug: 'night-owl',
      booking: { timezone: 'UTC', weekdays: [1, 2, 3, 4, 5, 6, 7], startTime: '23:00', endTime: '24:00' },
    });
    const slugKey = org.publishable.key;
    const slots = async (date: string) =>
      (
        expectStatus(
          await api(app, 'GET', `/v1/booking/${agent.bookingSlug}/availability`, {
            key: slugKey,
            query: monthOf(date),
          }),
          200,
        ).data.data.availableDates as { date: string; slots: string[] }[]
      ).find((day) => day.date === date)?.slots ?? [];
    const date = dateIn(6);
    expectStatus(await closures(dateIn(7)), 201);
    expect(await slots(date)).toEqual(['23:00', '23:30']);
    expectStatus(await closures(date), 201);
    expect(await slots(date)).toEqual([]);
  });

  it('accepts 24:00 as the end of a weeklyHours range, the slot before midnight being offered', async () => {
    const agent = await agentWith({
      timezone: 'UTC',
      weekdays: [],
      weeklyHours: [1, 2, 3, 4, 5, 6, 7].flatMap((weekday) => [
        { weekday, startTime: '08:00', endTime: '09:00' },
        { weekday, startTime: '23:30', endTime: '24:00' },
      ]),
      slotMinutes: 30,
      minNoticeMinutes: 0,
    });
    expect(agent.answer.booking.weeklyHours[1]).toEqual({ weekday: 1, startTime: '23:30', endTime: '24:00' });
    const date = dateIn(4);
    expect(await slotsOn(agent.slug, date)).toEqual(['08:00', '08:30', '23:30']);
    const receipt = expectStatus(await book(agent.slug, date, '23:30'), 201).data.data;
    const next = new Date(Date.parse(`${date}T00:00:00Z`) + DAY).toISOString().slice(0, 10);
    expect(receipt).toMatchObject({ startsAt: `${date}T23:30:00.000Z`, endsAt: `${next}T00:00:00.000Z` });
  });

  it('offers 23:00 on the days a DST change happens at midnight (America/Santiago)', async () => {
    const agent = await agentWith({
      timezone: 'America/Santiago',
      weekdays: [6],
      startTime: '22:00',
      endTime: '24:00',
      slotMinutes: 60,
      minNoticeMinutes: 0,
      horizonDays: 730,
    });
    const year = new Date().getUTCFullYear() + 1;
    // The Saturdays before the first Sundays of April (clocks go back at midnight) and September
    // (clocks jump from 24:00 to 01:00: the next day's 00:00 does not exist).
    const saturdayBefore = (month: number) => {
      for (let day = 1; ; day++) {
        const date = new Date(Date.UTC(year, month, day));
        if (date.getUTCDay() === 0) return new Date(date.getTime() - DAY).toISOString().slice(0, 10);
      }
    };
    const fallBack = saturdayBefore(3);
    const springForward = saturdayBefore(8);
    for (const date of [fallBack, springForward]) {
      expect(await slotsOn(agent.slug, date), date).toEqual(['22:00', '23:00']);
      const receipt = expectStatus(await book(agent.slug, date, '23:00'), 201).data.data;
      expect(Date.parse(receipt.endsAt) - Date.parse(receipt.startsAt), date).toBe(60 * 60_000);
    }
  });
});

describe('working hours: 24:00 and beyond refused where they do not belong', () => {
  it('400 naming the field for startTime 24:00 and for 24:01 or 25:00 anywhere', async () => {
    const agent = await createAgent(app, tenant.org.id, { firstName: 'Olga' });
    const range = (startTime: string, endTime: string) => ({
      booking: { timezone: 'UTC', weeklyHours: [{ weekday: 1, startTime, endTime }] },
    });
    const cases: [Record<string, unknown>, string][] = [
      [{ booking: { timezone: 'UTC', startTime: '24:00' } }, 'body.booking.startTime'],
      [{ booking: { timezone: 'UTC', endTime: '24:01' } }, 'body.booking.endTime'],
      [{ booking: { timezone: 'UTC', endTime: '25:00' } }, 'body.booking.endTime'],
      [{ booking: { timezone: 'UTC', startTime: '25:00' } }, 'body.booking.startTime'],
      [range('24:00', '24:00'), 'body.booking.weeklyHours[0].startTime'],
      [range('23:00', '24:01'), 'body.booking.weeklyHours[0].endTime'],
      [range('23:00', '25:00'), 'body.booking.weeklyHours[0].endTime'],
    ];
    for (const [body, field] of cases) {
      const error = expectError(await patchBooking(agent.id, body), 400, 'VALIDATION_ERROR');
      const fields = (error.details ?? []).map((d: { field: string }) => d.field);
      expect(fields, `${JSON.stringify(body)}: ${error.message}`).toContain(field);
    }
    // An end before the start stays refused with 24:00 as the start's neighbour.
    const backwards = expectError(
      await patchBooking(agent.id, { booking: { timezone: 'UTC', startTime: '23:59', endTime: '00:00' } }),
      400,
      'VALIDATION_ERROR',
    );
    expect(backwards.details?.[0]?.field).toBe('body.booking.endTime');
    // The booking itself never starts at 24:00.
    const bookable = await agentWith({ timezone: 'UTC', weekdays: [1, 2, 3, 4, 5, 6, 7], endTime: '24:00' });
    const late = expectError(await book(bookable.slug, dateIn(3), '24:00'), 400, 'VALIDATION_ERROR');
    expect(late.details?.[0]?.field).toBe('body.startTime');
  });
});
