/**
 * Erasure (issue 21, item 9): a person reaches the database through every path that stores personal
 * data (lead, visit request, finder, booking, messages in and out, notes, usage, a stored idempotent
 * response, a webhook delivery still pending), is erased with DELETE /v1/contacts/{id}, and then no
 * table of the database holds their name, email or phone; what the agency keeps stays, unlinked.
 */
import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenant, MESSAGING_AGENCY, type MessagingTenant } from '../../helpers/factories.ts';
import { api, expectStatus } from '../../helpers/http.ts';
import { buildTestApp } from '../../helpers/test-app.ts';
import { createPipeline, stageNamed } from '../deals/support.ts';
import { pendingSubscription, storeEverywhere, systemRows, tablesMentioning } from './support.ts';

let app: FastifyInstance;
let agency: MessagingTenant;

const PERSON = {
  firstName: 'Wilhelmina',
  lastName: 'Quaxleborough',
  email: 'wilhelmina.q@erasure.example',
  phone: '+34 699 123 457',
};
/** Every form the database could hold them in (search_text folds case; digits alone for phones). */
const NEEDLES = ['Wilhelmina', 'Quaxleborough', 'wilhelmina.q@erasure', '34699123457', '699 123 457'];

let contactId = '';
let dealId = '';
let taskIds: string[] = [];
let appointmentId = '';
const noteKey = `erasure-note-${Date.now()}`;

beforeAll(async () => {
  app = await buildTestApp({ WEBHOOK_ALLOW_PRIVATE_URLS: 'true' });
  agency = await createTenant(app, MESSAGING_AGENCY);
  await pendingSubscription(app, agency.secret.key);
  const pipeline = await createPipeline(app, agency.org.id);
  contactId = await storeEverywhere(app, agency, PERSON, { noteKey });
  const list = async (path: string) =>
    expectStatus(await api(app, 'GET', path, { key: agency.secret.key, query: { contactId } }), 200).data as {
      id: string;
    }[];
  dealId = (await list('/v1/deals'))[0]?.id ?? '';
  taskIds = (await list('/v1/tasks')).map((task) => task.id);
  appointmentId = (await list('/v1/appointments'))[0]?.id ?? '';
  expect(taskIds).toHaveLength(2);
  // Lost, for a reason naming the person.
  expectStatus(
    await api(app, 'POST', `/v1/deals/${dealId}/move`, {
      key: agency.secret.key,
      body: { stageId: stageNamed(pipeline, 'Lost').id, lostReason: 'Wilhelmina bought elsewhere' },
    }),
    200,
  );
});
afterAll(async () => {
  await app.close();
});

describe('DELETE /v1/contacts/{id}: erasure', () => {
  it('leaves no trace of the name, email or phone in any table, and keeps what the agency owns', async () => {
    // Before: every needle is somewhere (the test can fail).
    for (const needle of NEEDLES) expect(Object.keys(await tablesMentioning(needle)), needle).not.toEqual([]);
    const pending = await systemRows<{ n: number }>(
      sql`SELECT count(*)::int AS n FROM webhook_deliveries WHERE organization_id = ${agency.org.id} AND status = 'PENDING'`,
    );
    expect(pending[0]?.n).toBeGreaterThan(5);

    const erased = expectStatus(
      await api(app, 'DELETE', `/v1/contacts/${contactId}`, { key: agency.secret.key }),
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
    const deal = expectStatus(
      await api(app, 'GET', `/v1/deals/${dealId}`, { key: agency.secret.key }),
      200,
    ).data;
    expect(deal).toMatchObject({
      contactId: null,
      title: '[erased]: loft',
      lostReason: '[erased] bought elsewhere',
    });
    // The row itself: unlinked and still the agency's (the foreign key's own ON DELETE SET NULL (contact_id)
    // is tested in test/db/colocation.test.ts).
    expect(await systemRows(sql`SELECT organization_id, contact_id FROM deals WHERE id = ${dealId}`)).toEqual(
      [{ organization_id: agency.org.id, contact_id: null }],
    );
    const titles = [];
    for (const taskId of taskIds) {
      const task = expectStatus(
        await api(app, 'GET', `/v1/tasks/${taskId}`, { key: agency.secret.key }),
        200,
      ).data;
      expect(task.contactId).toBeNull();
      titles.push(task.title);
    }
    expect(titles).toContain('Call [erased] back');
    const appointment = expectStatus(
      await api(app, 'GET', `/v1/appointments/${appointmentId}`, { key: agency.secret.key }),
      200,
    ).data;
    expect(appointment).toMatchObject({ contactId: null });
    // The deliveries still pending send the rewritten events; the erasure's own 5 events join them
    // (deal.updated, task.updated twice, appointment.updated, contact.deleted).
    const still = await systemRows<{ n: number }>(
      sql`SELECT count(*)::int AS n FROM webhook_deliveries WHERE organization_id = ${agency.org.id} AND status = 'PENDING'`,
    );
    expect(still[0]?.n).toBe((pending[0]?.n ?? 0) + 5);
  });

  it('replays the stored response of an earlier request without the person', async () => {
    const replay = await api(app, 'POST', `/v1/contacts/${contactId}/notes`, {
      key: agency.secret.key,
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
        key: agency.secret.key,
        query: { type: 'contact.deleted', order: 'desc' },
      }),
      200,
    ).data;
    expect(log[0]?.data).toEqual({ contact: { id: contactId, deletedAt: expect.any(String) } });
    expectStatus(await api(app, 'GET', `/v1/contacts/${contactId}`, { key: agency.secret.key }), 404);
    expectStatus(await api(app, 'DELETE', `/v1/contacts/${contactId}`, { key: agency.secret.key }), 404);
    expectStatus(await api(app, 'GET', `/v1/contacts/${contactId}/export`, { key: agency.secret.key }), 404);
  });
});
