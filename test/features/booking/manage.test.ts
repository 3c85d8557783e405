// A visitor's manage link (issue 26, decision 0237), over HTTP with no key at all: the token of the
// booking answer's `manageUrl` shows the visit, lists the slots it may move to (its own counting as
// free), moves it (checked as a booking; one winner when two visitors race for a slot) and cancels it,
// each change recorded as `appointment.updated` and told to the agent by a NOTIFICATION task. A token
// that is not ours, names a deleted visit, or a visit that has started answers 404 and changes nothing.
import { sql } from 'drizzle-orm';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../../src/db/database.ts';
import { busyPublishableKey, createAgent, createProperty, createTenant } from '../../helpers/factories.ts';
import { admin, api, expectError, expectStatus } from '../../helpers/http.ts';
import { buildTestApp, testDatabase } from '../../helpers/test-app.ts';

const DAY = 86_400_000;
const MINUTE = 60_000;
const ALL_WEEK = [1, 2, 3, 4, 5, 6, 7];

let app: FastifyInstance;
let orgId: string;
/** Publishable key of the booking page (the visitor's calls below send none). */
let key: string;
let sequence = 0;

interface Visit {
  appointmentId: string;
  startsAt: string;
  endsAt: string;
  status: string;
  token: string;
}

async function rows<T>(query: ReturnType<typeof sql>): Promise<T[]> {
  const db = await testDatabase();
  return db.systemTx((tx) => queryRows<T>(tx, query));
}

const utcDate = (offsetDays: number) => new Date(Date.now() + offsetDays * DAY).toISOString().slice(0, 10);
const monthOf = (date: string) => ({ year: date.slice(0, 4), month: String(Number(date.slice(5, 7)) - 1) });
const at = (date: string, time: string) => `${date}T${time}:00.000Z`;

/** A bookable agent (UTC unless overridden, every day 09:00-18:00, 30-minute slots). */
async function bookableAgent(booking: Record<string, unknown> = {}, fields: Record<string, unknown> = {}) {
  sequence += 1;
  const slug = `manage-${Date.now().toString(36)}-${sequence}`;
  const agent = await createAgent(app, orgId, {
    bookingSlug: slug,
    booking: { timezone: 'UTC', weekdays: ALL_WEEK, ...booking },
    ...fields,
  });
  return { id: agent.id, slug, photoUrl: agent.photoUrl as string };
}

/** Books on the page (publishable key) and keeps the token of the manage link. */
async function book(slug: string, date: string, startTime: string, fields: Record<string, unknown> = {}) {
  sequence += 1;
  const body = { firstName: 'Marta', lastName: 'Gil', phone: `+3461150${1000 + sequence}`, ...fields };
  const response = await api(app, 'POST', `/v1/booking/${slug}`, { key, body: { ...body, date, startTime } });
  const receipt = expectStatus(response, 201).data.data;
  const token = new URL(receipt.manageUrl).pathname.replace(/^\/visits\//, '');
  return { ...receipt, token } as Visit;
}

/** The visitor's own call: no X-API-Key, no other header but the body's. */
function visitor(method: 'GET' | 'POST', path: string, body?: unknown, query?: Record<string, string>) {
  return app.inject({
    method,
    url: `/v1/booking/manage/${path}`,
    query,
    payload: body as InjectOptions['payload'],
  });
}

async function slotsOn(path: string, date: string, apiKey?: string): Promise<string[]> {
  const response = apiKey
    ? await app.inject({ url: path, headers: { 'x-api-key': apiKey }, query: monthOf(date) })
    : await visitor('GET', path, undefined, monthOf(date));
  const body = expectStatus(response, 200);
  const result = body.data.data;
  return (
    (result.availableDates as { date: string; slots: string[] }[]).find((d) => d.date === date)?.slots ?? []
  );
}
const pageSlots = (slug: string, date: string) => slotsOn(`/v1/booking/${slug}/availability`, date, key);

const updates = (appointmentId: string) =>
  rows<{ data: { appointment: Record<string, unknown>; changes: string[] }; actor: unknown }>(
    sql`SELECT data, actor FROM events WHERE organization_id = ${orgId} AND type = 'appointment.updated'
          AND data->'appointment'->>'id' = ${appointmentId} ORDER BY created_at, id`,
  );
const visitorTasks = (appointmentId: string) =>
  rows<Record<string, unknown>>(
    sql`SELECT title, description, type, status, assignee_id, contact_id FROM tasks
          WHERE appointment_id = ${appointmentId} AND title LIKE 'Visit %' ORDER BY created_at, id`,
  );
/** The appointment's row, its times as ISO instants. */
async function rowOf(appointmentId: string) {
  const [row] = await rows<{ status: string; notes: string | null; starts_at: string; ends_at: string }>(
    sql`SELECT status, notes, starts_at, ends_at FROM appointments WHERE id = ${appointmentId}`,
  );
  const iso = (value: unknown) => new Date(value as string).toISOString();
  return (
    row && { status: row.status, notes: row.notes, startsAt: iso(row.starts_at), endsAt: iso(row.ends_at) }
  );
}

beforeAll(async () => {
  app = await buildTestApp();
  const tenant = await createTenant(app);
  orgId = tenant.org.id;
  key = await busyPublishableKey(app, orgId);
});
afterAll(async () => {
  await app.close();
});

describe('GET /v1/booking/manage/{token}', () => {
  it("shows the visit without a key: times, the agent's wall clock, agent and listing", async () => {
    const agent = await bookableAgent(
      { timezone: 'Europe/Madrid' },
      { firstName: 'Elena', lastName: 'Vidal' },
    );
    const property = await createProperty(app, orgId);
    const date = utcDate(6);
    const visit = await book(agent.slug, date, '10:00', { propertyId: property.id, type: 'VALUATION' });
    const response = await visitor('GET', visit.token);
    const body = expectStatus(response, 200);
    // Double-wrapped as every booking answer (decision 0259).
    expect(Object.keys(body)).toEqual(['data']);
    expect(Object.keys(body.data)).toEqual(['data']);
    expect(body.data.data).toEqual({
      appointmentId: visit.appointmentId,
      status: 'SCHEDULED',
      type: 'VALUATION',
      startsAt: visit.startsAt,
      endsAt: visit.endsAt,
      timezone: 'Europe/Madrid',
      date,
      startTime: '10:00',
      agent: { fullName: 'Elena Vidal', photoUrl: agent.photoUrl, slug: agent.slug },
      propertyId: property.id,
      canChange: true,
    });
    // 10:00 in Madrid is 08:00 or 09:00 UTC, depending on the season.
    expect([at(date, '08:00'), at(date, '09:00')]).toContain(visit.startsAt);
  });
});

describe('GET /v1/booking/manage/{token}/availability', () => {
  it("lists the agent's free slots, the visit's own time counting as free, and nobody else's", async () => {
    const agent = await bookableAgent();
    const date = utcDate(7);
    const visit = await book(agent.slug, date, '12:00');
    await book(agent.slug, date, '14:00', { firstName: 'Other' });
    const page = await pageSlots(agent.slug, date);
    expect(page).not.toContain('12:00');
    expect(page).not.toContain('14:00');
    const own = await slotsOn(`${visit.token}/availability`, date);
    expect(own).toEqual([...page, '12:00'].sort());
    expect(own).not.toContain('14:00');
  });
});

describe('POST /v1/booking/manage/{token}/move', () => {
  it('moves the visit: event, agent task, row times; the old slot is free again and the new one taken', async () => {
    const agent = await bookableAgent();
    const from = utcDate(8);
    const to = utcDate(9);
    const visit = await book(agent.slug, from, '10:00');
    const moved = expectStatus(
      await visitor('POST', `${visit.token}/move`, { date: to, startTime: '15:00' }),
      200,
    );
    expect(moved.data.data).toMatchObject({
      appointmentId: visit.appointmentId,
      status: 'SCHEDULED',
      startsAt: at(to, '15:00'),
      endsAt: at(to, '15:30'),
      date: to,
      startTime: '15:00',
      canChange: true,
    });
    expect(await rowOf(visit.appointmentId)).toMatchObject({
      startsAt: at(to, '15:00'),
      endsAt: at(to, '15:30'),
    });

    const events = await updates(visit.appointmentId);
    expect(events).toHaveLength(1);
    expect(events[0]?.data.changes).toEqual(['endsAt', 'startsAt']);
    expect(events[0]?.data.appointment).toMatchObject({ startsAt: at(to, '15:00'), endsAt: at(to, '15:30') });
    expect(events[0]?.actor).toEqual({ kind: 'API', userId: null });
    expect(await visitorTasks(visit.appointmentId)).toEqual([
      {
        title: `Visit moved by the visitor to ${to} 15:00 (UTC)`,
        description: `It was on ${from} 10:00 (UTC).`,
        type: 'NOTIFICATION',
        status: 'PENDING',
        assignee_id: agent.id,
        contact_id: expect.stringMatching(/^ct_/),
      },
    ]);

    expect(await pageSlots(agent.slug, from)).toContain('10:00');
    expect(await pageSlots(agent.slug, to)).not.toContain('15:00');
    // The same link keeps working, on the new time.
    expect(expectStatus(await visitor('GET', visit.token), 200).data.data.startsAt).toBe(at(to, '15:00'));
  });

  it('gives two visitors racing for one free slot exactly one 200; the other gets 409 DUPLICATE', async () => {
    const agent = await bookableAgent();
    const date = utcDate(10);
    const first = await book(agent.slug, date, '09:00');
    const second = await book(agent.slug, date, '09:30', { firstName: 'Pablo' });
    const responses = await Promise.all(
      [first, second].map((v) => visitor('POST', `${v.token}/move`, { date, startTime: '16:00' })),
    );
    const statuses = responses.map((r) => r.statusCode).sort();
    expect(statuses, responses.map((r) => r.body).join('\n')).toEqual([200, 409]);
    const loser = responses.find((r) => r.statusCode === 409);
    expect(expectError(loser as (typeof responses)[0], 409, 'DUPLICATE').message).toContain(
      `${date} 16:00 is no longer available`,
    );
    const winner = responses[0]?.statusCode === 200 ? first : second;
    const other = winner === first ? second : first;
    const holders = await rows<{ id: string }>(
      sql`SELECT id FROM appointments WHERE agent_id = ${agent.id} AND starts_at = ${at(date, '16:00')}::timestamptz`,
    );
    expect(holders).toEqual([{ id: winner.appointmentId }]);
    // The loser's visit is where it was, with nothing recorded and nobody told.
    expect((await rowOf(other.appointmentId))?.startsAt).toBe(other.startsAt);
    expect(await updates(other.appointmentId)).toEqual([]);
    expect(await visitorTasks(other.appointmentId)).toEqual([]);
    expect(await updates(winner.appointmentId)).toHaveLength(1);
  });

  it('409 DUPLICATE for a taken slot, 400 naming the field for one never offered; nothing changes', async () => {
    const agent = await bookableAgent({ horizonDays: 30 });
    const date = utcDate(11);
    const visit = await book(agent.slug, date, '10:00');
    await book(agent.slug, date, '11:00', { firstName: 'Other' });
    const taken = expectError(
      await visitor('POST', `${visit.token}/move`, { date, startTime: '11:00' }),
      409,
      'DUPLICATE',
    );
    expect(taken.message).toContain('/v1/booking/manage/{token}/availability');
    for (const [day, startTime, field] of [
      [date, '11:15', 'body.startTime'], // off the grid
      [date, '08:00', 'body.startTime'], // before the hours
      [date, '18:00', 'body.startTime'], // ends after the hours
      [utcDate(-1), '11:00', 'body.date'], // past
      [utcDate(45), '11:00', 'body.date'], // beyond the horizon
    ] as const) {
      const error = expectError(
        await visitor('POST', `${visit.token}/move`, { date: day, startTime }),
        400,
        'VALIDATION_ERROR',
      );
      expect(error.details, `${day} ${startTime}`).toEqual([
        { field, message: expect.stringContaining('availability') },
      ]);
    }
    expect((await rowOf(visit.appointmentId))?.startsAt).toBe(visit.startsAt);
    expect(await updates(visit.appointmentId)).toEqual([]);
    expect(await visitorTasks(visit.appointmentId)).toEqual([]);
  });
});

describe('POST /v1/booking/manage/{token}/cancel', () => {
  it('cancels once: status, event, agent task, free slot; again answers the same with nothing recorded', async () => {
    const agent = await bookableAgent({ autoConfirm: true });
    const date = utcDate(12);
    const visit = await book(agent.slug, date, '11:00');
    expect(visit.status).toBe('CONFIRMED');
    const cancelled = expectStatus(
      await visitor('POST', `${visit.token}/cancel`, { reason: 'I found another flat' }),
      200,
    ).data.data;
    expect(cancelled).toMatchObject({
      appointmentId: visit.appointmentId,
      status: 'CANCELLED',
      canChange: false,
    });
    expect(await rowOf(visit.appointmentId)).toMatchObject({
      status: 'CANCELLED',
      notes: 'Cancelled: by the visitor: I found another flat',
    });
    const events = await updates(visit.appointmentId);
    expect(events).toHaveLength(1);
    expect(events[0]?.data.changes).toContain('status');
    expect(events[0]?.data.appointment.status).toBe('CANCELLED');
    const tasks = await visitorTasks(visit.appointmentId);
    expect(tasks).toEqual([
      expect.objectContaining({
        title: `Visit cancelled by the visitor: ${date} 11:00 (UTC)`,
        description: 'Reason given: I found another flat',
        type: 'NOTIFICATION',
        assignee_id: agent.id,
      }),
    ]);
    expect(await pageSlots(agent.slug, date)).toContain('11:00');

    // Again, without a body: the cancelled visit, no second event or task.
    expect(expectStatus(await visitor('POST', `${visit.token}/cancel`), 200).data.data).toEqual(cancelled);
    expect(await updates(visit.appointmentId)).toHaveLength(1);
    expect(await visitorTasks(visit.appointmentId)).toHaveLength(1);
    // A cancelled visit is still shown, but cannot be moved.
    expect(expectStatus(await visitor('GET', visit.token), 200).data.data.status).toBe('CANCELLED');
    expectError(await visitor('POST', `${visit.token}/move`, { date, startTime: '15:00' }), 409, 'CONFLICT');
    expect(await pageSlots(agent.slug, date)).toContain('15:00');
  });

  it('takes no body at all, and refuses a COMPLETED visit with 409', async () => {
    const agent = await bookableAgent();
    const date = utcDate(13);
    const plain = await book(agent.slug, date, '09:00');
    expectStatus(await visitor('POST', `${plain.token}/cancel`), 200);
    expect((await visitorTasks(plain.appointmentId))[0]?.description).toBe('No reason given.');

    const done = await book(agent.slug, date, '10:00');
    expectStatus(
      await admin(app, 'PATCH', `/admin/v1/organizations/${orgId}/appointments/${done.appointmentId}`, {
        status: 'COMPLETED',
      }),
      200,
    );
    expectError(await visitor('POST', `${done.token}/cancel`, {}), 409, 'CONFLICT');
    expect((await rowOf(done.appointmentId))?.status).toBe('COMPLETED');
  });
});

describe('links that are not ours, or no longer valid', () => {
  /** Every route of the link answers 404 for `token`. */
  async function allNotFound(token: string, date: string) {
    const calls = [
      visitor('GET', token),
      visitor('GET', `${token}/availability`),
      visitor('POST', `${token}/move`, { date, startTime: '15:00' }),
      visitor('POST', `${token}/cancel`, {}),
    ];
    for (const response of await Promise.all(calls)) expectError(response, 404, 'NOT_FOUND');
  }

  it('404 for a malformed token, a changed signature, or a signature moved to another visit', async () => {
    const agent = await bookableAgent();
    const date = utcDate(14);
    const visit = await book(agent.slug, date, '10:00');
    const another = await book(agent.slug, date, '11:00', { firstName: 'Other' });
    const [org, appointment, keyId, signature] = visit.token.split('.') as [string, string, string, string];
    const flip = (text: string, index: number) =>
      text.slice(0, index) + (text[index] === '0' ? '1' : '0') + text.slice(index + 1);
    const tampered = [
      'not-a-token',
      `${org}.${appointment}.${keyId}`,
      `${visit.token}.extra`,
      `${org}.${appointment}.${keyId}.${flip(signature, 0)}`,
      `${org}.${appointment}.${keyId}.${flip(signature, signature.length - 1)}`,
      `${org}.${appointment}.${flip(keyId, 0)}.${signature}`,
      `${org}.${another.appointmentId}.${keyId}.${signature}`,
    ];
    for (const token of tampered) await allNotFound(token, date);
    // Neither visit was touched, and the genuine links still work.
    for (const v of [visit, another]) {
      expect((await rowOf(v.appointmentId))?.status).toBe('SCHEDULED');
      expect(await updates(v.appointmentId)).toEqual([]);
      expectStatus(await visitor('GET', v.token), 200);
    }
  });

  it('404 once the visit was deleted', async () => {
    const agent = await bookableAgent();
    const date = utcDate(15);
    const visit = await book(agent.slug, date, '10:00');
    expectStatus(
      await admin(app, 'DELETE', `/admin/v1/organizations/${orgId}/appointments/${visit.appointmentId}`),
      200,
    );
    await allNotFound(visit.token, date);
  });

  it('404 once the visit has started, with the visit left as it was', async () => {
    const agent = await bookableAgent();
    const date = utcDate(16);
    const visit = await book(agent.slug, date, '10:00');
    const startsAt = new Date(Date.now() - 5 * MINUTE).toISOString();
    const endsAt = new Date(Date.now() + 25 * MINUTE).toISOString();
    expectStatus(
      await admin(app, 'PATCH', `/admin/v1/organizations/${orgId}/appointments/${visit.appointmentId}`, {
        startsAt,
        endsAt,
      }),
      200,
    );
    const before = await updates(visit.appointmentId);
    const error = expectError(await visitor('GET', visit.token), 404, 'NOT_FOUND');
    expect(error.message).toContain('expired when the visit began');
    await allNotFound(visit.token, date);
    expect(await rowOf(visit.appointmentId)).toMatchObject({ status: 'SCHEDULED', startsAt, endsAt });
    expect(await updates(visit.appointmentId)).toEqual(before);
    expect(await visitorTasks(visit.appointmentId)).toEqual([]);
  });
});
