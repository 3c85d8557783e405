/**
 * Erasure (issue 21, item 9): a person reaches the database through every path that stores personal
 * data (lead, visit request, finder, booking, messages in and out, notes, usage, a stored idempotent
 * response, a webhook delivery still pending), is erased with DELETE /v1/contacts/{id}, and then no
 * table of the database holds their name, email or phone; what the agency keeps stays, unlinked.
 */
import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../../src/db/database.ts';
import { createAgent, createProperty } from '../../helpers/factories.ts';
import { admin, api, expectStatus } from '../../helpers/http.ts';
import { buildTestApp, testDatabase } from '../../helpers/test-app.ts';
import { createPipeline, stageNamed } from '../deals/support.ts';
import { createMessagingAgency, inbound, send, type MessagingAgency } from '../conversations/support.ts';

let app: FastifyInstance;
let agency: MessagingAgency;

const PERSON = {
  firstName: 'Wilhelmina',
  lastName: 'Quaxleborough',
  email: 'wilhelmina.q@erasure.example',
  phone: '+34 699 123 457',
};
/** Every form the database could hold them in (search_text folds case; digits alone for phones). */
const NEEDLES = ['Wilhelmina', 'Quaxleborough', 'wilhelmina.q@erasure', '34699123457', '699 123 457'];

async function systemRows<T>(query: ReturnType<typeof sql>): Promise<T[]> {
  const db = await testDatabase();
  return db.systemTx((tx) => queryRows<T>(tx, query));
}

/** Tables (every one of the public schema) and how many of their rows mention `needle`, where any do. */
async function tablesMentioning(needle: string): Promise<Record<string, number>> {
  const tables = await systemRows<{ table_name: string }>(
    sql`SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY table_name`,
  );
  expect(tables.length).toBeGreaterThan(30);
  const found: Record<string, number> = {};
  for (const { table_name } of tables) {
    const [row] = await systemRows<{ n: number }>(
      sql`SELECT count(*)::int AS n FROM ${sql.identifier(table_name)} t WHERE t::text ILIKE ${`%${needle}%`}`,
    );
    if ((row?.n ?? 0) > 0) found[table_name] = row?.n ?? 0;
  }
  return found;
}

const utcDate = (offsetDays: number) =>
  new Date(Date.now() + offsetDays * 86_400_000).toISOString().slice(0, 10);

let contactId = '';
let dealId = '';
let taskId = '';
let appointmentId = '';
const noteKey = `erasure-note-${Date.now()}`;

beforeAll(async () => {
  app = await buildTestApp({ WEBHOOK_ALLOW_PRIVATE_URLS: 'true' });
  agency = await createMessagingAgency(app);
  const orgPath = (path: string) => `/admin/v1/organizations/${agency.orgId}/${path}`;
  // A subscription no worker serves here: its deliveries stay PENDING, holding the events to send.
  expectStatus(
    await api(app, 'POST', '/v1/webhooks', {
      key: agency.secret,
      body: { url: 'http://127.0.0.1:9/never', eventTypes: ['*'], description: 'pending' },
    }),
    201,
  );
  const property = await createProperty(app, agency.orgId, { title: 'Loft in Malasaña' });
  const slug = `erasure-${Date.now().toString(36)}`;
  await createAgent(app, agency.orgId, {
    bookingSlug: slug,
    booking: { timezone: 'UTC', weekdays: [1, 2, 3, 4, 5, 6, 7] },
  });

  // The portal: a lead (creates the contact), a visit request, the finder, a booking.
  expectStatus(
    await api(app, 'POST', '/v1/leads', {
      key: agency.publishable,
      body: {
        ...PERSON,
        propertyId: property.id,
        message: 'Soy Wilhelmina Quaxleborough, llamadme al +34 699 123 457',
        utmSource: 'newsletter',
      },
    }),
    201,
  );
  const found = expectStatus(
    await api(app, 'GET', '/v1/contacts', { key: agency.secret, query: { q: 'quaxleborough' } }),
    200,
  ).data;
  expect(found).toHaveLength(1);
  contactId = found[0].id;
  expectStatus(
    await api(app, 'POST', '/v1/leads/schedule', {
      key: agency.publishable,
      body: {
        firstName: PERSON.firstName,
        phone: PERSON.phone,
        propertyId: property.id,
        preferredTime: 'morning',
      },
    }),
    201,
  );
  expectStatus(
    await api(app, 'POST', '/v1/finder', {
      key: agency.publishable,
      body: { firstName: PERSON.firstName, phone: PERSON.phone, transactionType: 'SALE', city: 'Madrid' },
    }),
    201,
  );
  const booked = expectStatus(
    await api(app, 'POST', `/v1/booking/${slug}`, {
      key: agency.publishable,
      body: {
        firstName: PERSON.firstName,
        phone: PERSON.phone,
        date: utcDate(3),
        startTime: '10:00',
        type: 'SHOWING',
      },
    }),
    201,
  ).data.data;
  appointmentId = booked.appointmentId;

  // Messages in and out, a note (with an Idempotency-Key: its response is stored), usage.
  expectStatus(await inbound(app, agency.orgId, contactId, 'Hola, soy Wilhelmina'), 201);
  expectStatus(
    await send(app, agency.secret, contactId, { body: 'Hola Wilhelmina, ¿te va el jueves?' }),
    201,
  );
  expectStatus(
    await api(app, 'POST', `/v1/contacts/${contactId}/notes`, {
      key: agency.secret,
      body: { body: 'Wilhelmina Quaxleborough prefers mornings' },
      headers: { 'Idempotency-Key': noteKey },
    }),
    201,
  );
  expectStatus(
    await api(app, 'POST', '/v1/usage/events', {
      key: agency.secret,
      body: {
        name: 'listing.saved',
        contactId,
        label: 'Saved by Wilhelmina',
        props: { email: PERSON.email },
      },
    }),
    200,
  );
  // What the agency keeps: a deal (lost, for a reason naming the person) and a task named after them.
  const pipeline = await createPipeline(app, agency.orgId);
  dealId = expectStatus(
    await admin(app, 'POST', orgPath('deals'), { title: 'Wilhelmina Quaxleborough: loft', contactId }),
    201,
  ).data.id;
  expectStatus(
    await api(app, 'POST', `/v1/deals/${dealId}/move`, {
      key: agency.secret,
      body: { stageId: stageNamed(pipeline, 'Lost').id, lostReason: 'Wilhelmina bought elsewhere' },
    }),
    200,
  );
  taskId = expectStatus(
    await admin(app, 'POST', orgPath('tasks'), { title: 'Call Wilhelmina back', contactId }),
    201,
  ).data.id;
});
afterAll(async () => {
  await app.close();
});

describe('DELETE /v1/contacts/{id}: erasure', () => {
  it('leaves no trace of the name, email or phone in any table, and keeps what the agency owns', async () => {
    // Before: every needle is somewhere (the test can fail).
    for (const needle of NEEDLES) expect(Object.keys(await tablesMentioning(needle)), needle).not.toEqual([]);
    const pending = await systemRows<{ n: number }>(
      sql`SELECT count(*)::int AS n FROM webhook_deliveries WHERE organization_id = ${agency.orgId} AND status = 'PENDING'`,
    );
    expect(pending[0]?.n).toBeGreaterThan(5);

    const erased = expectStatus(
      await api(app, 'DELETE', `/v1/contacts/${contactId}`, { key: agency.secret }),
      200,
    );
    expect(erased.data).toMatchObject({
      id: contactId,
      deleted: true,
      erased: { deals: 1, tasks: 2, appointments: 1 },
    });
    expect(erased.data.erased.events).toBeGreaterThan(5);
    expect(erased.data.erased.storedResponses).toBeGreaterThanOrEqual(1);

    for (const needle of NEEDLES) expect(await tablesMentioning(needle), needle).toEqual({});

    // The deal, the task and the appointment stay, without the contact and without the person.
    const deal = expectStatus(await api(app, 'GET', `/v1/deals/${dealId}`, { key: agency.secret }), 200).data;
    expect(deal).toMatchObject({
      contactId: null,
      title: '[erased]: loft',
      lostReason: '[erased] bought elsewhere',
    });
    const task = expectStatus(await api(app, 'GET', `/v1/tasks/${taskId}`, { key: agency.secret }), 200).data;
    expect(task).toMatchObject({ contactId: null, title: 'Call [erased] back' });
    const appointment = expectStatus(
      await api(app, 'GET', `/v1/appointments/${appointmentId}`, { key: agency.secret }),
      200,
    ).data;
    expect(appointment).toMatchObject({ contactId: null });
    // The deliveries still pending send the rewritten events; the erasure's own 5 events join them
    // (deal.updated, task.updated twice, appointment.updated, contact.deleted).
    const still = await systemRows<{ n: number }>(
      sql`SELECT count(*)::int AS n FROM webhook_deliveries WHERE organization_id = ${agency.orgId} AND status = 'PENDING'`,
    );
    expect(still[0]?.n).toBe((pending[0]?.n ?? 0) + 5);
  });

  it('replays the stored response of an earlier request without the person', async () => {
    const replay = await api(app, 'POST', `/v1/contacts/${contactId}/notes`, {
      key: agency.secret,
      body: { body: 'Wilhelmina Quaxleborough prefers mornings' },
      headers: { 'Idempotency-Key': noteKey },
    });
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).not.toMatch(/Wilhelmina|Quaxleborough/);
    expect(replay.json().data.body).toBe('[erased]');
  });

  it('records contact.deleted as a tombstone, and answers 404 for the erased contact afterwards', async () => {
    const log = expectStatus(
      await api(app, 'GET', '/v1/event-log', {
        key: agency.secret,
        query: { type: 'contact.deleted', order: 'desc' },
      }),
      200,
    ).data;
    expect(log[0]?.data).toEqual({ contact: { id: contactId, deletedAt: expect.any(String) } });
    expectStatus(await api(app, 'GET', `/v1/contacts/${contactId}`, { key: agency.secret }), 404);
    expectStatus(await api(app, 'DELETE', `/v1/contacts/${contactId}`, { key: agency.secret }), 404);
    expectStatus(await api(app, 'GET', `/v1/contacts/${contactId}/export`, { key: agency.secret }), 404);
  });
});
