/** A person stored through every path that keeps personal data, for the erasure and merge tests. */
import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import { queryRows } from '../../../src/db/database.ts';
import { createAgent, createProperty, type MessagingTenant } from '../../helpers/factories.ts';
import { admin, api, expectStatus } from '../../helpers/http.ts';
import { testDatabase } from '../../helpers/test-app.ts';
import { inbound, send } from '../conversations/support.ts';

/** A subscription no worker serves: its deliveries stay PENDING, holding every event's body to send. */
export async function pendingSubscription(app: FastifyInstance, key: string): Promise<void> {
  expectStatus(
    await api(app, 'POST', '/v1/webhooks', {
      key,
      body: { url: 'http://127.0.0.1:9/never', eventTypes: ['*'], description: 'pending' },
    }),
    201,
  );
}

export interface Person {
  firstName: string;
  lastName: string;
  email: string;
  phone: string;
}

const utcDate = (offsetDays: number) =>
  new Date(Date.now() + offsetDays * 86_400_000).toISOString().slice(0, 10);
let sequence = 0;

/** The contact holding `phone`, found through the API. */
export async function contactByPhone(app: FastifyInstance, key: string, phone: string): Promise<string> {
  const found = expectStatus(await api(app, 'GET', '/v1/contacts', { key, query: { q: phone } }), 200).data;
  expect(found).toHaveLength(1);
  return found[0].id as string;
}

/**
 * Stores `person` the way the portal and the back office do: a lead (which creates the contact), a
 * visit request, a finder search, a booking (appointment and its follow-up task), a message in and one
 * out, a note (sent with `noteKey` as Idempotency-Key when given), a usage event, a deal and a task named
 * after them. Returns the contact's id.
 */
export async function storeEverywhere(
  app: FastifyInstance,
  agency: MessagingTenant,
  person: Person,
  options: { noteKey?: string; dealTitle?: string; stageId?: string } = {},
): Promise<string> {
  sequence += 1;
  const property = await createProperty(app, agency.org.id, { title: `Loft ${sequence}` });
  const slug = `privacy-${Date.now().toString(36)}-${sequence}`;
  await createAgent(app, agency.org.id, {
    bookingSlug: slug,
    booking: { timezone: 'UTC', weekdays: [1, 2, 3, 4, 5, 6, 7] },
  });
  const portal = (path: string, body: Record<string, unknown>) =>
    api(app, 'POST', path, { key: agency.publishable.key, body });
  expectStatus(
    await portal('/v1/leads', {
      ...person,
      propertyId: property.id,
      message: `Soy ${person.firstName} ${person.lastName}, llamadme al ${person.phone}`,
      utmSource: 'newsletter',
    }),
    201,
  );
  const contactId = await contactByPhone(app, agency.secret.key, person.phone);
  const { firstName, phone } = person;
  expectStatus(
    await portal('/v1/leads/schedule', {
      firstName,
      phone,
      propertyId: property.id,
      preferredTime: 'morning',
    }),
    201,
  );
  expectStatus(
    await portal('/v1/finder', { firstName, phone, transactionType: 'SALE', city: 'Madrid' }),
    201,
  );
  const date = utcDate(3 + sequence);
  expectStatus(
    await portal(`/v1/booking/${slug}`, { firstName, phone, date, startTime: '10:00', type: 'SHOWING' }),
    201,
  );

  expectStatus(await inbound(app, agency.org.id, contactId, `Hola, soy ${firstName}`), 201);
  expectStatus(
    await send(app, agency.secret.key, contactId, { body: `Hola ${firstName}, ¿te va el jueves?` }),
    201,
  );
  expectStatus(
    await api(app, 'POST', `/v1/contacts/${contactId}/notes`, {
      key: agency.secret.key,
      body: { body: `${firstName} ${person.lastName} prefers mornings` },
      headers: options.noteKey ? { 'Idempotency-Key': options.noteKey } : {},
    }),
    201,
  );
  expectStatus(
    await api(app, 'POST', '/v1/usage/events', {
      key: agency.secret.key,
      body: {
        name: 'listing.saved',
        contactId,
        label: `Saved by ${firstName}`,
        props: { email: person.email },
      },
    }),
    200,
  );
  const orgPath = (path: string) => `/admin/v1/organizations/${agency.org.id}/${path}`;
  expectStatus(
    await admin(app, 'POST', orgPath('deals'), {
      title: options.dealTitle ?? `${firstName} ${person.lastName}: loft`,
      contactId,
      ...(options.stageId ? { stageId: options.stageId } : {}),
    }),
    201,
  );
  expectStatus(
    await admin(app, 'POST', orgPath('tasks'), { title: `Call ${firstName} back`, contactId }),
    201,
  );
  return contactId;
}

/** Rows read past RLS, as the test's own superuser view of the database. */
export async function systemRows<T>(query: ReturnType<typeof sql>): Promise<T[]> {
  const db = await testDatabase();
  return db.systemTx((tx) => queryRows<T>(tx, query));
}

/** Tables (every one of the public schema) and how many of their rows mention `needle`, where any do. */
export async function tablesMentioning(needle: string): Promise<Record<string, number>> {
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
