import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listAppointments } from '../../../src/features/appointments/appointments.read.ts';
import { operatorCallerOf } from '../../../src/platform/auth/credentials.ts';
import { eventCatalog } from '../../../src/platform/events/catalog.ts';
import { pageRequest } from '../../../src/platform/http/pagination.ts';
import {
  busyPublishableKey,
  createAgent,
  createApiKey,
  createContact,
  createProperty,
  createTenant,
  type Tenant,
} from '../../helpers/factories.ts';
import { admin, api, expectError, expectStatus } from '../../helpers/http.ts';
import { buildTestApp, testDatabase } from '../../helpers/test-app.ts';
import { eventsOf, lastEvent, utcDate } from './support.ts';

let app: FastifyInstance;
let tenant: Tenant;
let other: Tenant;
let key: string;
let otherKey: string;

/** The finder search each contact comes from: Marta, looking in a city with no listing. */
const VISITOR = { firstName: 'Marta', city: 'Nowhere' };

const base = (orgId = tenant.org.id) => `/admin/v1/organizations/${orgId}/appointments`;
const at = (iso: string) => new Date(iso).toISOString();

interface Appointment {
  id: string;
  agentId: string;
  contactId: string | null;
  propertyId: string | null;
  type: string;
  status: string;
  startsAt: string;
  endsAt: string;
  durationMinutes: number;
  source: string;
  notes: string | null;
  createdAt: string;
  updatedAt: string;
}

async function create(body: Record<string, unknown>, orgId = tenant.org.id): Promise<Appointment> {
  return expectStatus(await admin(app, 'POST', base(orgId), body), 201).data;
}

async function patch(id: string, body: Record<string, unknown>): Promise<Appointment> {
  return expectStatus(await admin(app, 'PATCH', `${base()}/${id}`, body), 200).data;
}

/** A fresh agent and contact of the tenant: overlaps only concern one agent, so tests never collide. */
async function people(booking?: Record<string, unknown>) {
  const agent = await createAgent(app, tenant.org.id, booking ? { booking } : {});
  const contact = await createContact(app, tenant.org.id, { key, body: VISITOR });
  return { agentId: agent.id, contactId: contact.id };
}

beforeAll(async () => {
  app = await buildTestApp();
  tenant = await createTenant(app);
  other = await createTenant(app);
  key = await busyPublishableKey(app, tenant.org.id);
  otherKey = await busyPublishableKey(app, other.org.id);
});
afterAll(async () => {
  await app.close();
});

describe('admin appointments: happy path', () => {
  it("creates with defaults (SCHEDULED SHOWING, source ADMIN, the agent's slot length) and records appointment.created", async () => {
    const { agentId, contactId } = await people({ timezone: 'Europe/Madrid', slotMinutes: 45 });
    const created = await create({ agentId, contactId, startsAt: '2030-05-06T10:00:00+02:00' });
    expect(created).toMatchObject({
      agentId,
      contactId,
      propertyId: null,
      type: 'SHOWING',
      status: 'SCHEDULED',
      startsAt: '2030-05-06T08:00:00.000Z',
      endsAt: '2030-05-06T08:45:00.000Z',
      durationMinutes: 45,
      source: 'ADMIN',
      notes: null,
    });
    expect(created.id).toMatch(/^apt_/);

    const event = await lastEvent(tenant.org.id, 'appointment.created');
    expect(event.actor).toEqual({ kind: 'SYSTEM', userId: null });
    expect(event.livemode).toBe(true);
    expect(event.data).toEqual({
      appointment: {
        id: created.id,
        agentId,
        contactId,
        propertyId: null,
        type: 'SHOWING',
        status: 'SCHEDULED',
        startsAt: '2030-05-06T08:00:00.000Z',
        endsAt: '2030-05-06T08:45:00.000Z',
        timezone: 'Europe/Madrid',
        source: 'ADMIN',
        notes: null,
      },
      contact: {
        id: contactId,
        firstName: 'Marta',
        lastName: '',
        fullName: 'Marta',
        phone: expect.stringMatching(/^\+3461/),
        email: null,
      },
    });
  });

  it('lasts 30 minutes for an agent without booking settings (event timezone UTC)', async () => {
    const { agentId, contactId } = await people();
    const created = await create({ agentId, contactId, startsAt: '2030-05-06T10:00:00Z' });
    expect(created.durationMinutes).toBe(30);
    expect(created.endsAt).toBe('2030-05-06T10:30:00.000Z');
    const event = await lastEvent(tenant.org.id, 'appointment.created');
    expect((event.data.appointment as { timezone: string }).timezone).toBe('UTC');
  });

  it('takes endsAt or durationMinutes, every type and status, notes and any property of the organization', async () => {
    const { agentId, contactId } = await people();
    const unpublished = await createProperty(app, tenant.org.id, { publishedOnPortal: false });
    const byEnd = await create({
      agentId,
      contactId,
      propertyId: unpublished.id,
      type: 'VALUATION',
      status: 'CONFIRMED',
      startsAt: '2030-05-07T09:00:00Z',
      endsAt: '2030-05-07T10:30:00Z',
      notes: 'Bring the energy certificate',
    });
    expect(byEnd).toMatchObject({
      propertyId: unpublished.id,
      type: 'VALUATION',
      status: 'CONFIRMED',
      durationMinutes: 90,
      notes: 'Bring the energy certificate',
    });
    const byLength = await create({
      agentId,
      contactId,
      type: 'VIDEO_CALL',
      startsAt: '2030-05-07T11:00:00Z',
      durationMinutes: 20,
    });
    expect(byLength.endsAt).toBe('2030-05-07T11:20:00.000Z');
    for (const type of ['MEETING', 'PHONE_CALL']) {
      const made = await create({
        agentId,
        contactId,
        type,
        status: 'COMPLETED',
        startsAt: '2020-01-01T10:00:00Z',
      });
      expect(made.type).toBe(type);
    }
    const noShow = await create({ agentId, contactId, status: 'NO_SHOW', startsAt: '2020-01-01T10:00:00Z' });
    expect(noShow.status).toBe('NO_SHOW');
  });

  it('reads one appointment in the back office and through the API (secret and read-only keys)', async () => {
    const { agentId, contactId } = await people();
    const created = await create({ agentId, contactId, startsAt: '2030-05-08T09:00:00Z' });
    expect(expectStatus(await admin(app, 'GET', `${base()}/${created.id}`), 200).data).toEqual(created);
    for (const apiKey of [tenant.secret.key, tenant.readOnly.key]) {
      const body = expectStatus(
        await api(app, 'GET', `/v1/appointments/${created.id}`, { key: apiKey }),
        200,
      );
      expect(body).toEqual({ data: created });
    }
  });

  it('confirms, moves (keeping the length), resizes and reassigns, recording appointment.updated', async () => {
    const { agentId, contactId } = await people({ timezone: 'America/New_York' });
    const created = await create({
      agentId,
      contactId,
      startsAt: '2030-05-09T14:00:00Z',
      durationMinutes: 60,
    });

    const confirmed = await patch(created.id, { status: 'CONFIRMED' });
    expect(confirmed).toMatchObject({
      status: 'CONFIRMED',
      startsAt: created.startsAt,
      endsAt: created.endsAt,
    });
    let event = await lastEvent(tenant.org.id, 'appointment.updated');
    expect(event.data).toMatchObject({
      appointment: { id: created.id, status: 'CONFIRMED', timezone: 'America/New_York', source: 'ADMIN' },
      contact: { id: contactId, firstName: 'Marta' },
      changes: ['status'],
    });
    expect(event.actor).toEqual({ kind: 'SYSTEM', userId: null });

    const moved = await patch(created.id, { startsAt: '2030-05-09T16:00:00Z' });
    expect(moved).toMatchObject({ startsAt: at('2030-05-09T16:00:00Z'), endsAt: at('2030-05-09T17:00:00Z') });
    const resized = await patch(created.id, { durationMinutes: 15 });
    expect(resized.endsAt).toBe(at('2030-05-09T16:15:00Z'));
    const ended = await patch(created.id, {
      startsAt: '2030-05-09T15:00:00Z',
      endsAt: '2030-05-09T15:50:00Z',
    });
    expect(ended).toMatchObject({ durationMinutes: 50, endsAt: at('2030-05-09T15:50:00Z') });

    const someoneElse = await createAgent(app, tenant.org.id);
    const otherContact = await createContact(app, tenant.org.id, {
      key,
      body: { ...VISITOR, firstName: 'Pablo' },
    });
    const property = await createProperty(app, tenant.org.id);
    const reassigned = await patch(created.id, {
      agentId: someoneElse.id,
      contactId: otherContact.id,
      propertyId: property.id,
      type: 'MEETING',
      notes: 'At the office',
    });
    expect(reassigned).toMatchObject({
      agentId: someoneElse.id,
      contactId: otherContact.id,
      propertyId: property.id,
      type: 'MEETING',
      notes: 'At the office',
    });
    event = await lastEvent(tenant.org.id, 'appointment.updated');
    expect(event.data).toMatchObject({
      appointment: { agentId: someoneElse.id, timezone: 'UTC' },
      contact: { id: otherContact.id, firstName: 'Pablo' },
      changes: ['agentId', 'contactId', 'notes', 'propertyId', 'type'],
    });
    const cleared = await patch(created.id, { propertyId: null, notes: null });
    expect(cleared).toMatchObject({ propertyId: null, notes: null });
  });

  it('deletes, records appointment.deleted, and a second delete is 404', async () => {
    const { agentId, contactId } = await people();
    const created = await create({ agentId, contactId, startsAt: '2030-05-10T09:00:00Z' });
    expect(expectStatus(await admin(app, 'DELETE', `${base()}/${created.id}`), 200)).toEqual({
      data: { id: created.id, deleted: true },
    });
    const event = await lastEvent(tenant.org.id, 'appointment.deleted');
    expect(event.data).toEqual({
      appointment: { id: created.id, deletedAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T.*Z$/) },
    });
    expectError(await admin(app, 'DELETE', `${base()}/${created.id}`), 404, 'NOT_FOUND');
    expectError(await admin(app, 'GET', `${base()}/${created.id}`), 404, 'NOT_FOUND');
    // Its time is free again.
    await create({ agentId, contactId, startsAt: '2030-05-10T09:00:00Z' });
  });

  it('lists the three event types in the catalog', async () => {
    const body = expectStatus(
      await api(app, 'GET', '/v1/events', { key: tenant.secret.key, query: { pageSize: '100' } }),
      200,
    );
    const types = body.data.map((e: { type: string }) => e.type);
    expect(types).toEqual(
      expect.arrayContaining(['appointment.created', 'appointment.updated', 'appointment.deleted']),
    );
    for (const entry of body.data.filter((e: { type: string }) => e.type.startsWith('appointment.'))) {
      expect(() => eventCatalog.check(entry.type, entry.example)).not.toThrow();
    }
  });
});

describe('admin appointments and the contact score', () => {
  it('an appointment raises the contact’s score, cancelling or deleting it lowers it again', async () => {
    const { agentId, contactId } = await people();
    const score = async () =>
      expectStatus(await api(app, 'GET', `/v1/contacts/${contactId}`, { key: tenant.secret.key }), 200).data
        .score as number;
    const before = await score();
    const created = await create({ agentId, contactId, startsAt: '2031-02-03T10:00:00Z' });
    const booked = await score();
    expect(booked).toBeGreaterThan(before);
    await patch(created.id, { status: 'CANCELLED' });
    expect(await score()).toBe(before);
    await patch(created.id, { status: 'CONFIRMED' });
    expect(await score()).toBe(booked);
    expectStatus(await admin(app, 'DELETE', `${base()}/${created.id}`), 200);
    expect(await score()).toBe(before);
  });
});

describe('admin appointments: overlaps', () => {
  it('refuses an active appointment overlapping another of the agent (409 naming it), allows adjacent ones', async () => {
    const { agentId, contactId } = await people();
    const first = await create({ agentId, contactId, startsAt: '2030-06-03T10:00:00Z', durationMinutes: 60 });
    for (const startsAt of ['2030-06-03T10:00:00Z', '2030-06-03T10:59:00Z', '2030-06-03T09:01:00Z']) {
      const error = expectError(
        await admin(app, 'POST', base(), { agentId, contactId, startsAt, durationMinutes: 60 }),
        409,
        'DUPLICATE',
      );
      expect(error.message).toContain(first.id);
      expect((error as { existingId?: string }).existingId).toBe(first.id);
    }
    // A CONFIRMED one blocks too.
    await patch(first.id, { status: 'CONFIRMED' });
    expectError(
      await admin(app, 'POST', base(), {
        agentId,
        contactId,
        startsAt: '2030-06-03T10:30:00Z',
        status: 'CONFIRMED',
      }),
      409,
      'DUPLICATE',
    );
    // Touching ends are not an overlap; another agent is free at the same time.
    await create({ agentId, contactId, startsAt: '2030-06-03T11:00:00Z', durationMinutes: 30 });
    await create({ agentId, contactId, startsAt: '2030-06-03T09:00:00Z', durationMinutes: 60 });
    const colleague = await people();
    await create({ ...colleague, startsAt: '2030-06-03T10:00:00Z', durationMinutes: 60 });
  });

  it('lets inactive statuses overlap, and refuses to bring one back over an active appointment', async () => {
    const { agentId, contactId } = await people();
    const active = await create({
      agentId,
      contactId,
      startsAt: '2030-06-04T10:00:00Z',
      durationMinutes: 60,
    });
    const cancelled = await create({
      agentId,
      contactId,
      status: 'CANCELLED',
      startsAt: '2030-06-04T10:00:00Z',
      durationMinutes: 60,
    });
    const error = expectError(
      await admin(app, 'PATCH', `${base()}/${cancelled.id}`, { status: 'SCHEDULED' }),
      409,
      'DUPLICATE',
    );
    expect(error.message).toContain(active.id);
    expect(expectStatus(await admin(app, 'GET', `${base()}/${cancelled.id}`), 200).data.status).toBe(
      'CANCELLED',
    );
    // Moving it clear first, then reactivating, works.
    await patch(cancelled.id, { startsAt: '2030-06-04T12:00:00Z' });
    expect((await patch(cancelled.id, { status: 'SCHEDULED' })).status).toBe('SCHEDULED');
  });

  it('refuses a move or a reassignment into another active appointment', async () => {
    const { agentId, contactId } = await people();
    const morning = await create({
      agentId,
      contactId,
      startsAt: '2030-06-05T09:00:00Z',
      durationMinutes: 60,
    });
    const noon = await create({ agentId, contactId, startsAt: '2030-06-05T12:00:00Z', durationMinutes: 60 });
    expectError(
      await admin(app, 'PATCH', `${base()}/${noon.id}`, { startsAt: '2030-06-05T09:30:00Z' }),
      409,
      'DUPLICATE',
    );
    expectError(
      await admin(app, 'PATCH', `${base()}/${morning.id}`, { durationMinutes: 240 }),
      409,
      'DUPLICATE',
    );
    // A change of its own time never clashes with itself.
    expect((await patch(morning.id, { durationMinutes: 90 })).durationMinutes).toBe(90);

    const busy = await people();
    await create({ ...busy, startsAt: '2030-06-05T12:30:00Z' });
    expectError(
      await admin(app, 'PATCH', `${base()}/${noon.id}`, { agentId: busy.agentId }),
      409,
      'DUPLICATE',
    );
    expect(expectStatus(await admin(app, 'GET', `${base()}/${noon.id}`), 200).data.agentId).toBe(agentId);
  });

  it('lets exactly one of several parallel overlapping creates commit', async () => {
    const { agentId, contactId } = await people();
    const responses = await Promise.all(
      Array.from({ length: 5 }, (_, i) =>
        admin(app, 'POST', base(), {
          agentId,
          contactId,
          startsAt: `2030-06-06T10:${String(i * 5).padStart(2, '0')}:00Z`,
          durationMinutes: 60,
        }),
      ),
    );
    const statuses = responses.map((r) => r.statusCode).sort();
    expect(statuses, responses.map((r) => r.body).join('\n')).toEqual([201, 409, 409, 409, 409]);
    for (const response of responses.filter((r) => r.statusCode === 409)) {
      expectError(response, 409, 'DUPLICATE');
    }
  });
});

describe('cancelling frees the slot on the booking page', () => {
  it('a booked slot disappears from availability, comes back when the back office cancels, and can be booked again', async () => {
    const slug = `apt-${Date.now().toString(36)}`;
    await createAgent(app, tenant.org.id, {
      bookingSlug: slug,
      booking: { timezone: 'UTC', weekdays: [1, 2, 3, 4, 5, 6, 7], slotMinutes: 60 },
    });
    const date = utcDate(3);
    const month = { year: date.slice(0, 4), month: String(Number(date.slice(5, 7)) - 1) };
    const slotsOn = async () => {
      const body = expectStatus(
        await api(app, 'GET', `/v1/booking/${slug}/availability`, { key, query: month }),
        200,
      );
      return (body.data.data.availableDates as { date: string; slots: string[] }[]).find(
        (d) => d.date === date,
      )?.slots;
    };
    const book = () =>
      api(app, 'POST', `/v1/booking/${slug}`, {
        key,
        body: { firstName: 'Marta', phone: '+34611222333', date, startTime: '10:00' },
      });

    expect(await slotsOn()).toContain('10:00');
    const booked = expectStatus(await book(), 201).data.data;
    expect(await slotsOn()).not.toContain('10:00');
    expectError(await book(), 409, 'DUPLICATE');

    // The booking's appointment is in the back office, source BOOKING; the admin cannot double-book it.
    const appointment = expectStatus(await admin(app, 'GET', `${base()}/${booked.appointmentId}`), 200).data;
    expect(appointment).toMatchObject({
      source: 'BOOKING',
      status: 'SCHEDULED',
      startsAt: `${date}T10:00:00.000Z`,
    });
    expectError(
      await admin(app, 'POST', base(), {
        agentId: booked.agentId,
        contactId: booked.contactId,
        startsAt: `${date}T10:30:00Z`,
      }),
      409,
      'DUPLICATE',
    );

    await patch(booked.appointmentId, { status: 'CANCELLED' });
    const event = await lastEvent(tenant.org.id, 'appointment.updated');
    expect(event.data).toMatchObject({
      appointment: { id: booked.appointmentId, status: 'CANCELLED', source: 'BOOKING', timezone: 'UTC' },
      changes: ['status'],
    });
    expect(await slotsOn()).toContain('10:00');
    const again = expectStatus(await book(), 201).data.data;
    expect(again.appointmentId).not.toBe(booked.appointmentId);
  });

  it('a back-office appointment takes its time off the booking page', async () => {
    const slug = `apt-admin-${Date.now().toString(36)}`;
    const agent = await createAgent(app, tenant.org.id, {
      bookingSlug: slug,
      booking: { timezone: 'UTC', weekdays: [1, 2, 3, 4, 5, 6, 7], slotMinutes: 60 },
    });
    const { id: contactId } = await createContact(app, tenant.org.id, { key, body: VISITOR });
    const date = utcDate(4);
    const query = { year: date.slice(0, 4), month: String(Number(date.slice(5, 7)) - 1) };
    const slots = async () =>
      (
        expectStatus(await api(app, 'GET', `/v1/booking/${slug}/availability`, { key, query }), 200).data.data
          .availableDates as { date: string; slots: string[] }[]
      ).find((d) => d.date === date)?.slots ?? [];
    expect(await slots()).toContain('15:00');
    const created = await create({ agentId: agent.id, contactId, startsAt: `${date}T15:00:00Z` });
    expect(await slots()).not.toContain('15:00');
    await patch(created.id, { status: 'COMPLETED' });
    expect(await slots()).toContain('15:00');
  });
});

describe('GET /v1/appointments', () => {
  let org: Tenant;
  let ids: Record<string, string>;
  let agents: { a: string; b: string };
  let contacts: { x: string; y: string };

  const list = async (query: Record<string, string> = {}, apiKey = org.secret.key) =>
    expectStatus(await api(app, 'GET', '/v1/appointments', { key: apiKey, query }), 200) as {
      data: Appointment[];
      meta: { total: number; page: number; pageSize: number; totalPages: number };
    };
  const names = (body: { data: Appointment[] }) =>
    body.data.map((a) => Object.keys(ids).find((k) => ids[k] === a.id));

  beforeAll(async () => {
    org = await createTenant(app, { secret: { rateLimitPerMinute: 100_000 } });
    const orgKey = await busyPublishableKey(app, org.org.id);
    agents = {
      a: (await createAgent(app, org.org.id)).id,
      b: (await createAgent(app, org.org.id)).id,
    };
    contacts = {
      x: (await createContact(app, org.org.id, { key: orgKey, body: VISITOR })).id,
      y: (await createContact(app, org.org.id, { key: orgKey, body: { ...VISITOR, firstName: 'Pablo' } })).id,
    };
    const make = async (name: string, body: Record<string, unknown>) =>
      (ids[name] = (await create({ agentId: agents.a, contactId: contacts.x, ...body }, org.org.id)).id);
    ids = {};
    // Created out of time order, so "sorted by startsAt" differs from "sorted by creation".
    await make('mar2', { startsAt: '2031-03-02T10:00:00Z', type: 'VALUATION' });
    await make('mar1', { startsAt: '2031-03-01T10:00:00Z', status: 'CONFIRMED' });
    await make('mar1b', { startsAt: '2031-03-01T10:00:00Z', agentId: agents.b, contactId: contacts.y });
    await make('feb', { startsAt: '2031-02-28T23:59:00Z', status: 'CANCELLED', type: 'PHONE_CALL' });
    await make('apr', { startsAt: '2031-04-01T00:00:00Z', agentId: agents.b, status: 'COMPLETED' });
  });

  it('lists every appointment of the organization soonest first, with meta', async () => {
    const body = await list();
    // Same start: the id (creation order) breaks the tie.
    expect(names(body)).toEqual(['feb', 'mar1', 'mar1b', 'mar2', 'apr']);
    expect(body.meta).toEqual({ total: 5, page: 1, pageSize: 20, totalPages: 1 });
    expect(names(await list({}, org.readOnly.key))).toHaveLength(5);
  });

  it('filters by from (inclusive) and to (strict), as dates or date-times', async () => {
    expect(names(await list({ from: '2031-03-01' }))).toEqual(['mar1', 'mar1b', 'mar2', 'apr']);
    expect(names(await list({ to: '2031-03-01' }))).toEqual(['feb']);
    expect(names(await list({ from: '2031-03-01', to: '2031-04-01' }))).toEqual(['mar1', 'mar1b', 'mar2']);
    expect(names(await list({ from: '2031-03-01T10:00:00Z', to: '2031-03-02T10:00:00Z' }))).toEqual([
      'mar1',
      'mar1b',
    ]);
    expect(names(await list({ from: '2031-03-01T11:00:00+01:00' }))).toEqual([
      'mar1',
      'mar1b',
      'mar2',
      'apr',
    ]);
    expect(names(await list({ to: '2031-04-01T00:00:00.001Z' })).at(-1)).toBe('apr');
  });

  it('filters by agentId, contactId, status and type, combined with AND', async () => {
    expect(names(await list({ agentId: agents.b }))).toEqual(['mar1b', 'apr']);
    expect(names(await list({ contactId: contacts.y }))).toEqual(['mar1b']);
    expect(names(await list({ status: 'CONFIRMED' }))).toEqual(['mar1']);
    expect(names(await list({ status: 'SCHEDULED' }))).toEqual(['mar1b', 'mar2']);
    expect(names(await list({ type: 'PHONE_CALL' }))).toEqual(['feb']);
    expect(names(await list({ agentId: agents.a, status: 'SCHEDULED' }))).toEqual(['mar2']);
    expect(names(await list({ agentId: agents.a, from: '2031-03-02', type: 'SHOWING' }))).toEqual([]);
    expect((await list({ agentId: 'agt_unknown' })).meta.total).toBe(0);
  });

  it('sorts by startsAt or createdAt, either way', async () => {
    expect(names(await list({ sortOrder: 'desc' }))).toEqual(['apr', 'mar2', 'mar1b', 'mar1', 'feb']);
    expect(names(await list({ sortBy: 'createdAt' }))).toEqual(['mar2', 'mar1', 'mar1b', 'feb', 'apr']);
    expect(names(await list({ sortBy: 'createdAt', sortOrder: 'desc' }))).toEqual([
      'apr',
      'feb',
      'mar1b',
      'mar1',
      'mar2',
    ]);
  });

  it('pages, and a page past the end is empty with the true meta', async () => {
    const second = await list({ pageSize: '2', page: '2' });
    expect(names(second)).toEqual(['mar1b', 'mar2']);
    expect(second.meta).toEqual({ total: 5, page: 2, pageSize: 2, totalPages: 3 });
    expect(names(await list({ pageSize: '2', page: '3' }))).toEqual(['apr']);
    const past = await list({ pageSize: '2', page: '9' });
    expect(past.data).toEqual([]);
    expect(past.meta).toEqual({ total: 5, page: 9, pageSize: 2, totalPages: 3 });
  });

  it('has the same filters in the back office', async () => {
    const body = expectStatus(
      await admin(app, 'GET', `${base(org.org.id)}?agentId=${agents.b}&sortOrder=desc`),
      200,
    );
    expect(names(body)).toEqual(['apr', 'mar1b']);
  });

  it('offers the MCP read service: a date range by agent and status, soonest first', async () => {
    const db = await testDatabase();
    const page = pageRequest({ pageSize: 10 });
    const [caller, otherCaller] = [
      await operatorCallerOf(db, org.org.id),
      await operatorCallerOf(db, other.org.id),
    ];
    const march = await listAppointments(
      db,
      caller,
      { from: '2031-03-01', to: new Date('2031-04-01T00:00:00Z') },
      page,
    );
    expect(names(march)).toEqual(['mar1', 'mar1b', 'mar2']);
    expect(march.meta.total).toBe(3);
    const ofA = await listAppointments(db, caller, { agentId: agents.a, status: 'SCHEDULED' }, page);
    expect(names(ofA)).toEqual(['mar2']);
    expect(
      (await listAppointments(db, otherCaller, {}, page)).data.every(
        (a) => !Object.values(ids).includes(a.id),
      ),
    ).toBe(true);
    await expect(listAppointments(db, caller, { from: '2031-02-30' }, page)).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
      message: expect.stringContaining('from'),
    });
  });
});

describe('admin appointments: errors', () => {
  let agentId: string;
  let contactId: string;
  let foreign: { agentId: string; contactId: string; propertyId: string };

  beforeAll(async () => {
    ({ agentId, contactId } = await people());
    foreign = {
      agentId: (await createAgent(app, other.org.id)).id,
      contactId: (await createContact(app, other.org.id, { key: otherKey, body: VISITOR })).id,
      propertyId: (await createProperty(app, other.org.id)).id,
    };
  });

  it('names the failing field of a bad body', async () => {
    const valid = { agentId, contactId, startsAt: '2030-07-01T10:00:00Z' };
    const cases: [Record<string, unknown>, string][] = [
      [{ contactId, startsAt: valid.startsAt }, 'body.agentId'],
      [{ agentId, startsAt: valid.startsAt }, 'body.contactId'],
      [{ agentId, contactId }, 'body.startsAt'],
      [{ ...valid, startsAt: '2030-07-01 10:00' }, 'body.startsAt'],
      [{ ...valid, startsAt: '2030-07-01T10:00:00' }, 'body.startsAt'],
      [{ ...valid, type: 'PARTY' }, 'body.type'],
      [{ ...valid, status: 'DONE' }, 'body.status'],
      [{ ...valid, durationMinutes: 2 }, 'body.durationMinutes'],
      [{ ...valid, durationMinutes: 1441 }, 'body.durationMinutes'],
      [{ ...valid, durationMinutes: '30' }, 'body.durationMinutes'],
      [{ ...valid, endsAt: '2030-07-01T10:00:00Z' }, 'body.endsAt'],
      [{ ...valid, endsAt: '2030-07-01T09:00:00Z' }, 'body.endsAt'],
      [{ ...valid, endsAt: '2030-07-02T10:00:01Z' }, 'body.endsAt'],
      [{ ...valid, endsAt: '2030-07-01T11:00:00Z', durationMinutes: 60 }, 'body.durationMinutes'],
      [{ ...valid, notes: 'x'.repeat(2001) }, 'body.notes'],
      [{ ...valid, colour: 'red' }, 'body.colour'],
      [{ ...valid, agentId: foreign.agentId }, 'body.agentId'],
      [{ ...valid, agentId: 'agt_nope' }, 'body.agentId'],
      [{ ...valid, contactId: foreign.contactId }, 'body.contactId'],
      [{ ...valid, contactId: 'ct_0000000000000000000000' }, 'body.contactId'],
      [{ ...valid, propertyId: foreign.propertyId }, 'body.propertyId'],
      [{ ...valid, propertyId: 'prop_nope' }, 'body.propertyId'],
    ];
    for (const [body, field] of cases) {
      const error = expectError(await admin(app, 'POST', base(), body), 400, 'VALIDATION_ERROR');
      expect(error.message, JSON.stringify(body)).toContain(field);
    }
  });

  it('names the failing field of a bad change', async () => {
    const created = await create({ agentId, contactId, startsAt: '2030-07-02T10:00:00Z' });
    const cases: [Record<string, unknown>, string][] = [
      [{}, 'body'],
      [{ status: 'LATE' }, 'body.status'],
      [{ contactId: null }, 'body.contactId'],
      [{ agentId: foreign.agentId }, 'body.agentId'],
      [{ contactId: foreign.contactId }, 'body.contactId'],
      [{ propertyId: foreign.propertyId }, 'body.propertyId'],
      [{ endsAt: '2030-07-02T09:59:00Z' }, 'body.endsAt'],
      [{ startsAt: '2030-07-02T12:00:00Z', endsAt: '2030-07-02T11:00:00Z' }, 'body.endsAt'],
      [{ endsAt: '2030-07-02T11:00:00Z', durationMinutes: 60 }, 'body.durationMinutes'],
      [{ source: 'BOOKING' }, 'body.source'],
    ];
    for (const [body, field] of cases) {
      const error = expectError(
        await admin(app, 'PATCH', `${base()}/${created.id}`, body),
        400,
        'VALIDATION_ERROR',
      );
      expect(error.message, JSON.stringify(body)).toContain(field);
    }
    expect(expectStatus(await admin(app, 'GET', `${base()}/${created.id}`), 200).data).toEqual(created);
  });

  it('names the failing query parameter', async () => {
    const cases: [Record<string, string>, string][] = [
      [{ from: '2031-02-30' }, 'query.from'],
      [{ from: 'yesterday' }, 'query.from'],
      [{ to: '2031-13-01T00:00:00Z' }, 'query.to'],
      [{ from: '2031-03-02', to: '2031-03-01' }, 'query.to'],
      [{ from: '2031-03-01', to: '2031-03-01' }, 'query.to'],
      [{ status: 'LATE' }, 'query.status'],
      [{ type: 'PARTY' }, 'query.type'],
      [{ sortBy: 'agentId' }, 'query.sortBy'],
      [{ pageSize: '101' }, 'query.pageSize'],
      [{ page: '0' }, 'query.page'],
    ];
    for (const [query, field] of cases) {
      const error = expectError(
        await api(app, 'GET', '/v1/appointments', { key: tenant.secret.key, query }),
        400,
        'VALIDATION_ERROR',
      );
      expect(error.message, JSON.stringify(query)).toContain(field);
    }
  });

  it('answers 404 for an unknown or malformed organization or appointment', async () => {
    const created = await create({ agentId, contactId, startsAt: '2030-07-03T10:00:00Z' });
    for (const url of [
      `/admin/v1/organizations/org_0000000000000000000000/appointments/${created.id}`,
      `/admin/v1/organizations/nope/appointments/${created.id}`,
      `${base()}/apt_0000000000000000000000`,
      `${base()}/nope`,
      // Another organization's path never reaches this one's appointment.
      `${base(other.org.id)}/${created.id}`,
    ]) {
      for (const method of ['GET', 'PATCH', 'DELETE'] as const) {
        expectError(
          await admin(app, method, url, method === 'PATCH' ? { notes: 'x' } : undefined),
          404,
          'NOT_FOUND',
        );
      }
    }
    expectError(
      await admin(app, 'POST', '/admin/v1/organizations/nope/appointments', {
        agentId,
        contactId,
        startsAt: '2030-07-03T12:00:00Z',
      }),
      404,
      'NOT_FOUND',
    );
    expectError(
      await admin(app, 'GET', '/admin/v1/organizations/org_0000000000000000000000/appointments'),
      404,
      'NOT_FOUND',
    );
    expect(expectStatus(await admin(app, 'GET', `${base()}/${created.id}`), 200).data.notes).toBeNull();
  });

  it('needs the admin token', async () => {
    expectError(await app.inject({ method: 'GET', url: base() }), 401, 'UNAUTHORIZED');
  });
});

describe('appointments: security', () => {
  it("never shows another organization's appointments to a key", async () => {
    const { agentId, contactId } = await people();
    const mine = await create({ agentId, contactId, startsAt: '2030-08-01T10:00:00Z' });
    expectError(
      await api(app, 'GET', `/v1/appointments/${mine.id}`, { key: other.secret.key }),
      404,
      'NOT_FOUND',
    );
    const theirs = expectStatus(
      await api(app, 'GET', '/v1/appointments', {
        key: other.secret.key,
        query: { agentId, pageSize: '100' },
      }),
      200,
    );
    expect(theirs.data).toEqual([]);
    const all = expectStatus(
      await api(app, 'GET', '/v1/appointments', { key: other.secret.key, query: { pageSize: '100' } }),
      200,
    );
    expect(all.data.map((a: Appointment) => a.id)).not.toContain(mine.id);
  });

  it('refuses publishable keys (403) and keys without appointments:read', async () => {
    const { agentId, contactId } = await people();
    const mine = await create({ agentId, contactId, startsAt: '2030-08-02T10:00:00Z' });
    for (const url of ['/v1/appointments', `/v1/appointments/${mine.id}`]) {
      const error = expectError(
        await api(app, 'GET', url, { key: tenant.publishable.key }),
        403,
        'FORBIDDEN',
      );
      expect(error.message).toContain('portal:read');
      const narrow = await createApiKey(app, tenant.org.id, { type: 'secret', scopes: ['tasks:read'] });
      expect(
        expectError(await api(app, 'GET', url, { key: narrow.key }), 403, 'FORBIDDEN').message,
      ).toContain('appointments:read');
    }
  });

  it("keeps a test twin's appointments apart: test keys see them, live keys do not", async () => {
    const twin = tenant.org.testOrganizationId as string;
    const agent = await createAgent(app, twin);
    const testKey = await createApiKey(app, tenant.org.id, { type: 'secret', mode: 'test' });
    const twinForm = await createApiKey(app, tenant.org.id, { type: 'publishable', mode: 'test' });
    const contact = await createContact(app, twin, { key: twinForm.key, body: VISITOR });
    const created = await create(
      { agentId: agent.id, contactId: contact.id, startsAt: '2030-08-03T10:00:00Z' },
      twin,
    );
    expectStatus(await api(app, 'GET', `/v1/appointments/${created.id}`, { key: testKey.key }), 200);
    expectError(
      await api(app, 'GET', `/v1/appointments/${created.id}`, { key: tenant.secret.key }),
      404,
      'NOT_FOUND',
    );
    const [event] = (await eventsOf(twin, 'appointment.created')).slice(-1);
    expect(event?.livemode).toBe(false);
  });
});
