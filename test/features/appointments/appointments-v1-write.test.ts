import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPES } from '../../../src/platform/auth/scopes.ts';
import {
  createAgent,
  createApiKey,
  createContact,
  createProperty,
  createTenant,
  type Tenant,
} from '../../helpers/factories.ts';
import { api, expectError, expectStatus } from '../../helpers/http.ts';
import { buildTestApp } from '../../helpers/test-app.ts';
import { utcDate } from './support.ts';

interface Logged {
  type: string;
  sequence: number;
  actor: { kind: string; userId: string | null };
  data: Record<string, Record<string, unknown>>;
}

let app: FastifyInstance;
let tenant: Tenant;
let contactId: string;
let slugSequence = 0;

beforeAll(async () => {
  app = await buildTestApp();
  tenant = await createTenant(app, { secret: { rateLimitPerMinute: 100_000, writeLimitPerMinute: 100_000 } });
  contactId = (await createContact(app, tenant.org.id, { body: { firstName: 'Marta', city: 'Nowhere' } })).id;
});
afterAll(async () => {
  await app.close();
});

const key = () => tenant.secret.key;
const DATE = utcDate(14);
const fieldsOf = (error: { details?: { field: string }[] }) => (error.details ?? []).map((d) => d.field);

/** A bookable agent (UTC, every day 09:00-18:00, 30-minute slots unless overridden). */
async function bookableAgent(booking: Record<string, unknown> = {}, orgId = tenant.org.id) {
  slugSequence += 1;
  const slug = `v1-apt-${Date.now().toString(36)}-${slugSequence}`;
  const agent = await createAgent(app, orgId, {
    bookingSlug: slug,
    booking: { timezone: 'UTC', weekdays: [1, 2, 3, 4, 5, 6, 7], ...booking },
  });
  return { id: agent.id, slug };
}

function create(
  body: Record<string, unknown>,
  options: { key?: string; headers?: Record<string, string> } = {},
) {
  return api(app, 'POST', '/v1/appointments', {
    key: options.key ?? key(),
    headers: options.headers,
    body: { contactId, date: DATE, startTime: '10:00', ...body },
  });
}

const reschedule = (id: string, body: Record<string, unknown>, apiKey = key()) =>
  api(app, 'PATCH', `/v1/appointments/${id}`, { key: apiKey, body });
const cancel = (id: string, body: Record<string, unknown> = {}, apiKey = key()) =>
  api(app, 'POST', `/v1/appointments/${id}/cancel`, { key: apiKey, body });

async function slotsOf(slug: string, date = DATE): Promise<string[]> {
  const body = expectStatus(
    await api(app, 'GET', `/v1/booking/${slug}/availability`, {
      key: key(),
      query: { year: date.slice(0, 4), month: String(Number(date.slice(5, 7)) - 1) },
    }),
    200,
  );
  return (
    (body.data.data.availableDates as { date: string; slots: string[] }[]).find((d) => d.date === date)
      ?.slots ?? []
  );
}

async function head(): Promise<number> {
  const page = expectStatus(
    await api(app, 'GET', '/v1/event-log', { key: key(), query: { order: 'desc', pageSize: '1' } }),
    200,
  );
  return (page.data[0] as Logged | undefined)?.sequence ?? 0;
}

async function eventsSince(after: number): Promise<Logged[]> {
  const page = expectStatus(
    await api(app, 'GET', '/v1/event-log', {
      key: key(),
      query: { after: String(after), type: 'appointment.*' },
    }),
    200,
  );
  return page.data as Logged[];
}

describe('POST /v1/appointments', () => {
  it('creates on an offered slot: the slot length, CONFIRMED by autoConfirm, source API, appointment.created by API', async () => {
    const agent = await bookableAgent({ autoConfirm: true });
    const property = await createProperty(app, tenant.org.id);
    const start = await head();
    const created = expectStatus(
      await create({ agentId: agent.id, propertyId: property.id, type: 'VALUATION' }),
      201,
    ).data;
    expect(created).toMatchObject({
      agentId: agent.id,
      contactId,
      propertyId: property.id,
      type: 'VALUATION',
      status: 'CONFIRMED',
      source: 'API',
      startsAt: `${DATE}T10:00:00.000Z`,
      endsAt: `${DATE}T10:30:00.000Z`,
      durationMinutes: 30,
    });
    expect(await slotsOf(agent.slug)).not.toContain('10:00');
    const events = await eventsSince(start);
    expect(events.map((e) => e.type)).toEqual(['appointment.created']);
    expect(events[0]?.actor.kind).toBe('API');
    expect(events[0]?.data.appointment).toMatchObject({ id: created.id, source: 'API', status: 'CONFIRMED' });
  });

  it('is SCHEDULED when the agent does not auto-confirm', async () => {
    const agent = await bookableAgent({ autoConfirm: false });
    expect(expectStatus(await create({ agentId: agent.id }), 201).data.status).toBe('SCHEDULED');
  });

  it('refuses a slot the agent never offers with a 400 naming the field', async () => {
    const agent = await bookableAgent();
    const fields = async (body: Record<string, unknown>) =>
      fieldsOf(expectError(await create({ agentId: agent.id, ...body }), 400, 'VALIDATION_ERROR'));
    expect(await fields({ date: utcDate(-2) })).toEqual(['body.date']);
    expect(await fields({ date: utcDate(400) })).toEqual(['body.date']);
    expect(await fields({ startTime: '10:10' })).toEqual(['body.startTime']);
    expect(await fields({ startTime: '20:00' })).toEqual(['body.startTime']);
    const noHours = await createAgent(app, tenant.org.id);
    expect(await fields({ agentId: noHours.id })).toEqual(['body.date']);
  });

  it("refuses an agent, contact or property not the organization's with a 400 naming the field", async () => {
    const agent = await bookableAgent();
    const stranger = await createTenant(app);
    const strangerAgent = await bookableAgent({}, stranger.org.id);
    const strangerProperty = await createProperty(app, stranger.org.id);
    const fields = async (body: Record<string, unknown>) =>
      fieldsOf(expectError(await create({ agentId: agent.id, ...body }), 400, 'VALIDATION_ERROR'));
    expect(await fields({ agentId: strangerAgent.id })).toEqual(['body.agentId']);
    expect(await fields({ contactId: 'ct_nope' })).toEqual(['body.contactId']);
    expect(await fields({ propertyId: strangerProperty.id })).toEqual(['body.propertyId']);
  });

  it('answers 409 DUPLICATE for a taken slot, and exactly one of two racing creates wins', async () => {
    const agent = await bookableAgent();
    expectStatus(await create({ agentId: agent.id }), 201);
    expectError(await create({ agentId: agent.id }), 409, 'DUPLICATE');
    const racing = await Promise.all([
      create({ agentId: agent.id, startTime: '11:00' }),
      create({ agentId: agent.id, startTime: '11:00' }),
    ]);
    expect(racing.map((r) => r.statusCode).sort()).toEqual([201, 409]);
  });

  it('replays a create under the same Idempotency-Key: one appointment, the same answer', async () => {
    const agent = await bookableAgent();
    const headers = { 'Idempotency-Key': `apt-${Date.now()}` };
    const first = await create({ agentId: agent.id }, { headers });
    const second = await create({ agentId: agent.id }, { headers });
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(second.json()).toEqual(expectStatus(first, 201));
  });
});

describe('PATCH /v1/appointments/{id}', () => {
  it('moves to another slot and frees the old one, with appointment.updated by API', async () => {
    const agent = await bookableAgent();
    const created = expectStatus(await create({ agentId: agent.id }), 201).data;
    const start = await head();
    const moved = expectStatus(await reschedule(created.id, { date: DATE, startTime: '15:30' }), 200).data;
    expect(moved).toMatchObject({
      id: created.id,
      startsAt: `${DATE}T15:30:00.000Z`,
      endsAt: `${DATE}T16:00:00.000Z`,
    });
    const slots = await slotsOf(agent.slug);
    expect(slots).toContain('10:00');
    expect(slots).not.toContain('15:30');
    const events = await eventsSince(start);
    expect(events.map((e) => e.type)).toEqual(['appointment.updated']);
    expect(events[0]?.actor.kind).toBe('API');
    expect(events[0]?.data).toMatchObject({
      appointment: { id: created.id },
      changes: ['endsAt', 'startsAt'],
    });
    // Its own time does not block a move that overlaps it.
    expectStatus(await reschedule(created.id, { date: DATE, startTime: '15:30' }), 200);
  });

  it('refuses a taken or never-offered slot, and a cancelled appointment (409 CONFLICT)', async () => {
    const agent = await bookableAgent();
    const first = expectStatus(await create({ agentId: agent.id }), 201).data;
    expectStatus(await create({ agentId: agent.id, startTime: '12:00' }), 201);
    expectError(await reschedule(first.id, { date: DATE, startTime: '12:00' }), 409, 'DUPLICATE');
    expect(
      fieldsOf(
        expectError(await reschedule(first.id, { date: DATE, startTime: '12:05' }), 400, 'VALIDATION_ERROR'),
      ),
    ).toEqual(['body.startTime']);
    expectStatus(await cancel(first.id), 200);
    expectError(await reschedule(first.id, { date: DATE, startTime: '14:00' }), 409, 'CONFLICT');
  });
});

describe('POST /v1/appointments/{id}/cancel', () => {
  it('cancels with the reason in the notes and frees the slot; a second cancel changes nothing', async () => {
    const agent = await bookableAgent();
    const created = expectStatus(await create({ agentId: agent.id }), 201).data;
    const start = await head();
    const cancelled = expectStatus(await cancel(created.id, { reason: 'Client ill' }), 200).data;
    expect(cancelled).toMatchObject({ id: created.id, status: 'CANCELLED', notes: 'Cancelled: Client ill' });
    expect(await slotsOf(agent.slug)).toContain('10:00');
    const again = expectStatus(await cancel(created.id, { reason: 'Twice' }), 200).data;
    expect(again).toEqual(cancelled);
    const events = await eventsSince(start);
    expect(events.map((e) => e.type)).toEqual(['appointment.updated']);
    expect(events[0]?.actor.kind).toBe('API');
    expect(events[0]?.data).toMatchObject({
      appointment: { status: 'CANCELLED' },
      changes: ['notes', 'status'],
    });
  });
});

describe('who may write appointments', () => {
  it('refuses a key without appointments:write, level 2, publishable and read-only keys (403), and another organization’s ids (404)', async () => {
    const agent = await bookableAgent();
    const created = expectStatus(await create({ agentId: agent.id }), 201).data;
    const noWrite = await createApiKey(app, tenant.org.id, {
      type: 'secret',
      scopes: SCOPES.filter((scope) => scope !== 'appointments:write'),
      accessLevel: 3,
    });
    const level2 = await createApiKey(app, tenant.org.id, {
      type: 'secret',
      scopes: [...SCOPES],
      accessLevel: 2,
    });
    for (const refused of [noWrite.key, level2.key, tenant.publishable.key, tenant.readOnly.key]) {
      expectError(
        await create({ agentId: agent.id, startTime: '13:00' }, { key: refused }),
        403,
        'FORBIDDEN',
      );
      expectError(await cancel(created.id, {}, refused), 403, 'FORBIDDEN');
    }
    const stranger = await createTenant(app);
    expectError(
      await reschedule(created.id, { date: DATE, startTime: '14:00' }, stranger.secret.key),
      404,
      'NOT_FOUND',
    );
    expectError(await cancel(created.id, {}, stranger.secret.key), 404, 'NOT_FOUND');
    expect(
      expectStatus(await api(app, 'GET', `/v1/appointments/${created.id}`, { key: key() }), 200).data.status,
    ).toBe('SCHEDULED');
  });
});
