import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../../src/db/database.ts';
import { recomputeContactScore } from '../../../src/features/contacts/contacts.service.ts';
import {
  createAgent,
  createContact,
  createProperty,
  createTenant,
  SPANISH_AGENCY,
  type SpanishAgency,
} from '../../helpers/factories.ts';
import { api, expectStatus } from '../../helpers/http.ts';
import { buildTestApp, testDatabase } from '../../helpers/test-app.ts';
import { spanishPhone } from './support.ts';

let app: FastifyInstance;
let agency: SpanishAgency;
let slug: string;
let propertyId: string;

beforeAll(async () => {
  app = await buildTestApp();
  agency = await createTenant(app, SPANISH_AGENCY);
  slug = `score-${Date.now().toString(36)}`;
  await createAgent(app, agency.org.id, {
    bookingSlug: slug,
    booking: { timezone: 'UTC', weekdays: [1, 2, 3, 4, 5, 6, 7] },
  });
  propertyId = (await createProperty(app, agency.org.id)).id;
});
afterAll(async () => {
  await app.close();
});

async function scoreOf(contactId: string): Promise<number> {
  const response = await api(app, 'GET', `/v1/contacts/${contactId}`, { key: agency.secret.key });
  return expectStatus(response, 200).data.score;
}

async function contactIdByPhone(e164: string): Promise<string> {
  const response = await api(app, 'GET', '/v1/contacts', { key: agency.secret.key, query: { q: e164 } });
  const [contact] = expectStatus(response, 200).data;
  return contact.id;
}

/** Raw SQL in the agency's transaction (to write history the API cannot backdate). */
async function inAgency(work: (run: (query: ReturnType<typeof sql>) => Promise<unknown[]>) => Promise<void>) {
  const db = await testDatabase();
  await db.tenantTx(agency.org.id, (tx) => work((query) => queryRows(tx, query)));
}

async function recompute(contactId: string): Promise<number> {
  const db = await testDatabase();
  return db.tenantTx(agency.org.id, (tx) => recomputeContactScore(tx, agency.org.id, contactId));
}

describe('contact score: recomputed by every portal flow', () => {
  it('scores a scripted history: lead 25, + booking 45, + finder search 50, + visit request 65', async () => {
    const phone = spanishPhone();
    const person = { firstName: 'Lucía', phone: phone.e164 };

    expectStatus(await api(app, 'POST', '/v1/leads', { key: agency.publishable.key, body: person }), 201);
    const contactId = await contactIdByPhone(phone.e164);
    // Lead 10 + recency (activity within 7 days) 15.
    expect(await scoreOf(contactId)).toBe(25);

    const date = new Date(Date.now() + 14 * 86_400_000).toISOString().slice(0, 10);
    expectStatus(
      await api(app, 'POST', `/v1/booking/${slug}`, {
        key: agency.publishable.key,
        body: { ...person, date, startTime: '10:00' },
      }),
      201,
    );
    expect(await scoreOf(contactId)).toBe(45);

    expectStatus(
      await api(app, 'POST', '/v1/finder', {
        key: agency.publishable.key,
        body: { ...person, city: 'Málaga' },
      }),
      201,
    );
    expect(await scoreOf(contactId)).toBe(50);

    expectStatus(
      await api(app, 'POST', '/v1/leads/schedule', {
        key: agency.publishable.key,
        body: { ...person, propertyId },
      }),
      201,
    );
    expect(await scoreOf(contactId)).toBe(65);
  });

  it('starts at 0 for a contact created through the API, who has done nothing yet', async () => {
    const contact = await createContact(app, agency, {
      via: 'api',
      body: { firstName: 'Quiet', phone: spanishPhone().e164 },
    });
    expect(contact.score).toBe(0);
    expect(await recompute(contact.id)).toBe(0);
  });
});

describe('contact score: the rule (docs/contacts.md)', () => {
  it('caps each kind of activity: four leads count 30, not 40', async () => {
    const contact = await createContact(app, agency, {
      via: 'api',
      body: { firstName: 'Many', phone: spanishPhone().e164 },
    });
    await inAgency(async (run) => {
      for (let i = 0; i < 4; i++) {
        await run(sql`INSERT INTO leads (id, organization_id, contact_id)
                      VALUES (${`lead_cap${i}${contact.id.slice(3, 20)}`}, ${agency.org.id}, ${contact.id})`);
      }
    });
    expect(await recompute(contact.id)).toBe(30 + 15);
    expect(await scoreOf(contact.id)).toBe(45);
  });

  it('counts distinct usage days of the last 30 days (2 points each, at most 20), not older ones', async () => {
    const contact = await createContact(app, agency, {
      via: 'api',
      body: { firstName: 'User', phone: spanishPhone().e164 },
    });
    await inAgency(async (run) => {
      // Days 1 and 3 ago (two event names on day 1: still one day), and one 40 days ago.
      for (const [daysAgo, name] of [
        [1, 'login'],
        [1, 'report.viewed'],
        [3, 'login'],
        [40, 'login'],
      ] as const) {
        await run(sql`INSERT INTO usage_daily (organization_id, contact_id, day, name, count, first_occurred_at, last_occurred_at)
                      VALUES (${agency.org.id}, ${contact.id}, (now() AT TIME ZONE 'UTC')::date - ${daysAgo}::int, ${name}, 1,
                              now() - make_interval(days => ${daysAgo}::int), now() - make_interval(days => ${daysAgo}::int))`);
      }
    });
    expect(await recompute(contact.id)).toBe(2 * 2 + 15);
    await inAgency(async (run) => {
      for (let daysAgo = 4; daysAgo < 20; daysAgo++) {
        await run(sql`INSERT INTO usage_daily (organization_id, contact_id, day, name, count, first_occurred_at, last_occurred_at)
                      VALUES (${agency.org.id}, ${contact.id}, (now() AT TIME ZONE 'UTC')::date - ${daysAgo}::int, 'login', 1,
                              now() - make_interval(days => ${daysAgo}::int), now() - make_interval(days => ${daysAgo}::int))`);
      }
    });
    expect(await recompute(contact.id)).toBe(20 + 15);
  });

  it('gives the recency bonus by the freshest activity: 15 within 7 days, 5 within 30, 0 after', async () => {
    const contact = await createContact(app, agency, {
      via: 'api',
      body: { firstName: 'Fading', phone: spanishPhone().e164 },
    });
    const leadId = `lead_fade${contact.id.slice(3, 20)}`;
    await inAgency(async (run) => {
      await run(sql`INSERT INTO leads (id, organization_id, contact_id, created_at)
                    VALUES (${leadId}, ${agency.org.id}, ${contact.id}, now() - interval '20 days')`);
    });
    expect(await recompute(contact.id)).toBe(10 + 5);
    await inAgency(async (run) => {
      await run(sql`UPDATE leads SET created_at = now() - interval '60 days' WHERE id = ${leadId}`);
    });
    expect(await recompute(contact.id)).toBe(10);
  });

  it('ignores cancelled appointments and never exceeds 100', async () => {
    const contact = await createContact(app, agency, {
      via: 'api',
      body: { firstName: 'Busy', phone: spanishPhone().e164 },
    });
    const agentId = (await createAgent(app, agency.org.id)).id;
    await inAgency(async (run) => {
      const appointment = (i: number, status: string) =>
        run(sql`INSERT INTO appointments (id, organization_id, agent_id, contact_id, type, status, starts_at, ends_at)
                VALUES (${`apt_s${i}${contact.id.slice(3, 20)}`}, ${agency.org.id}, ${agentId}, ${contact.id}, 'SHOWING', ${status},
                        now() + make_interval(days => ${i + 1}::int), now() + make_interval(days => ${i + 1}::int, hours => 1))`);
      await appointment(0, 'CANCELLED');
    });
    // A cancelled appointment is no activity at all: no points, no recency.
    expect(await recompute(contact.id)).toBe(0);
    await inAgency(async (run) => {
      for (let i = 1; i <= 3; i++) {
        await run(sql`INSERT INTO appointments (id, organization_id, agent_id, contact_id, type, status, starts_at, ends_at)
                      VALUES (${`apt_s${i}${contact.id.slice(3, 20)}`}, ${agency.org.id}, ${agentId}, ${contact.id}, 'SHOWING', 'CONFIRMED',
                              now() + make_interval(days => ${i + 1}::int), now() + make_interval(days => ${i + 1}::int, hours => 1))`);
        await run(
          sql`INSERT INTO leads (id, organization_id, contact_id) VALUES (${`lead_b${i}${contact.id.slice(3, 20)}`}, ${agency.org.id}, ${contact.id})`,
        );
        await run(sql`INSERT INTO visit_requests (id, organization_id, contact_id, property_id)
                      VALUES (${`vr_b${i}${contact.id.slice(3, 20)}`}, ${agency.org.id}, ${contact.id}, ${propertyId})`);
      }
    });
    // Bookings 40 + leads 30 + visit requests 30 + recency 15 = 115, capped.
    expect(await recompute(contact.id)).toBe(100);
    expect(await scoreOf(contact.id)).toBe(100);
  });
});
