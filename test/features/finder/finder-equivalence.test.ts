/**
 * POST /v1/finder saves in one statement (decision 0226) what the other features' own functions save
 * step by step (`submitFinderStepByStep`: upsertPortalContact, recordFormConsents, the search,
 * recomputeContactScore, recordAnalyticsEventInTx, recordEvent). Each scenario runs on two
 * organizations set up alike: one through the API (the statement), the other step by step; the
 * answers and everything stored (contacts, consents, searches, events in log order with their
 * payloads, webhook deliveries, analytics counts, counters) must be the same, ids and times aside.
 */
import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../../src/db/database.ts';
import { submitFinderStepByStep } from '../../../src/features/finder/finder.submit.ts';
import type { FinderBody } from '../../../src/features/finder/finder.schema.ts';
import type { Caller } from '../../../src/platform/auth/caller.ts';
import { createApiKey, createOrganization, createProperty } from '../../helpers/factories.ts';
import { admin, api, expectStatus } from '../../helpers/http.ts';
import { buildTestApp, testDatabase } from '../../helpers/test-app.ts';

let app: FastifyInstance;
let phoneSequence = 0;

const nextPhone = () =>
  `+3463${String(Date.now() % 10_000).padStart(4, '0')}${String(++phoneSequence).padStart(3, '0')}`;

interface Agency {
  id: string;
  publishable: string;
  secret: string;
  /** Property ids -> titles (the same titles in both agencies). */
  titles: Map<string, string>;
}

/** An agency with the same stock and a webhook for every event type, so deliveries are compared too. */
async function agency(): Promise<Agency> {
  const org = await createOrganization(app, {
    name: 'Twin',
    defaultCountry: 'ES',
    defaultCurrency: 'EUR',
    writeLimitPerMinute: 100_000,
  });
  const limits = { rateLimitPerMinute: 100_000, writeLimitPerMinute: 100_000 };
  const publishable = (await createApiKey(app, org.id, { type: 'publishable', ...limits })).key;
  const secret = (
    await createApiKey(app, org.id, { type: 'secret', scopes: ['webhooks:write'], accessLevel: 3, ...limits })
  ).key;
  const titles = new Map<string, string>();
  const stock: Record<string, Record<string, unknown>> = {
    fits: { price: 250000, bedrooms: 2, amenities: ['pool', 'terrace'] },
    partial: { type: 'PENTHOUSE', price: 320000, bedrooms: 1, amenities: ['pool'] },
    madrid: { city: 'Madrid', neighborhood: 'Salamanca', price: 260000, bedrooms: 3 },
    rental: { transactionType: 'RENT', price: 1200 },
  };
  for (const [title, overrides] of Object.entries(stock)) {
    const property = await createProperty(app, org.id, { title, city: 'Málaga', ...overrides });
    titles.set(property.id, title);
  }
  expectStatus(
    await api(app, 'POST', '/v1/webhooks', {
      key: secret,
      body: { url: 'http://127.0.0.1:9/equivalence', eventTypes: ['*'] },
    }),
    201,
  );
  return { id: org.id, publishable, secret, titles };
}

type Step =
  | { finder: Record<string, unknown> }
  | { contact: Record<string, unknown> }
  | { tamperSearchText: { phone?: string; email?: string; text: string } };

async function rows<T>(query: ReturnType<typeof sql>): Promise<T[]> {
  return (await testDatabase()).systemTx((tx) => queryRows<T>(tx, query));
}

/** Runs the steps on `target`, its finder requests through the API or step by step. */
async function run(target: Agency, steps: Step[], stepByStep: boolean): Promise<unknown[]> {
  const answers: unknown[] = [];
  for (const step of steps) {
    if ('contact' in step) {
      expectStatus(
        await admin(app, 'POST', `/admin/v1/organizations/${target.id}/contacts`, step.contact),
        201,
      );
    } else if ('tamperSearchText' in step) {
      const { phone, email, text } = step.tamperSearchText;
      await rows(
        sql`UPDATE contacts SET search_text = ${text} WHERE organization_id = ${target.id}
            AND (phone = ${phone ?? null} OR email_key = ${email ?? null})`,
      );
    } else if (stepByStep) {
      const caller = {
        organization: { id: target.id, defaultCountry: 'ES', defaultCurrency: 'EUR' },
        agentId: null,
      } as unknown as Caller;
      answers.push(await submitFinderStepByStep(await testDatabase(), caller, step.finder as FinderBody));
    } else {
      const response = await api(app, 'POST', '/v1/finder', { key: target.publishable, body: step.finder });
      answers.push(expectStatus(response, 201).data);
    }
  }
  return answers;
}

const ID = /^(ct|cns|fnd|evt|whd|org)_[0-9A-Za-z]{22}$/;
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
/** A timestamptz as PostgreSQL prints it (raw rows of the embedded driver come as text). */
const PG_TIME = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(\.\d+)?\+00$/;

/**
 * `value` with ids replaced by their order of first appearance (`ct#1`), property ids by their
 * titles, and times by `<time>` (their agreement with the rows is checked apart).
 */
function normalized(value: unknown, target: Agency, seen = new Map<string, string>()): unknown {
  if (value instanceof Date) return '<time>';
  if (Array.isArray(value)) return value.map((item) => normalized(item, target, seen));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([name, item]) => [name, normalized(item, target, seen)]),
    );
  }
  if (typeof value !== 'string') return value;
  const title = target.titles.get(value);
  if (title !== undefined) return `property ${title}`;
  if (ISO.test(value) || PG_TIME.test(value)) return '<time>';
  if (!ID.test(value)) return value;
  let token = seen.get(value);
  if (token === undefined) {
    const prefix = value.slice(0, value.indexOf('_'));
    token = `${prefix}#${[...seen.values()].filter((t) => t.startsWith(`${prefix}#`)).length + 1}`;
    seen.set(value, token);
  }
  return token;
}

/** A stored time as `toISOString` shows it (the drivers read microseconds down to milliseconds). */
const iso = (value: unknown) =>
  new Date(
    typeof value === 'string' && PG_TIME.test(value) ? `${value.replace(' ', 'T')}:00` : (value as string),
  ).toISOString();

/** Everything the agency stores that a finder request writes, in a stable order. */
async function stored(target: Agency) {
  const org = target.id;
  const contacts = await rows<Record<string, unknown>>(
    sql`SELECT id, code, first_name, last_name, email, email_key, phone, source, status, type, score, owner_id,
          preferred_city, preferred_type, budget::text AS budget, currency, tags, opted_out, external_id,
          search_text, last_activity_at IS NOT NULL AS active, created_at = updated_at AS untouched,
          created_at, updated_at
        FROM contacts WHERE organization_id = ${org} ORDER BY code`,
  );
  const consents = await rows<Record<string, unknown>>(
    sql`SELECT id, contact_id, channel, status, source, actor_kind, created_at
        FROM contact_consents WHERE organization_id = ${org} ORDER BY created_at, id`,
  );
  const searches = await rows<Record<string, unknown>>(
    sql`SELECT id, contact_id, criteria, subscribed_to_alerts, total, property_ids, created_at
        FROM finder_searches WHERE organization_id = ${org} ORDER BY created_at, id`,
  );
  const events = await rows<Record<string, unknown>>(
    sql`SELECT id, sequence, type, livemode, actor, data FROM events
        WHERE organization_id = ${org} AND split_part(type, '.', 1) IN ('contact', 'finder') ORDER BY sequence`,
  );
  const deliveries = await rows<Record<string, unknown>>(
    sql`SELECT e.sequence, d.event_type, d.status, count(*)::int AS n
        FROM webhook_deliveries d JOIN events e ON e.organization_id = d.organization_id AND e.id = d.event_id
        WHERE d.organization_id = ${org} AND split_part(e.type, '.', 1) IN ('contact', 'finder')
        GROUP BY 1, 2, 3 ORDER BY 1`,
  );
  const analytics = await rows<Record<string, unknown>>(
    sql`SELECT type, property_id, count FROM analytics_daily WHERE organization_id = ${org} ORDER BY type, property_id`,
  );
  const analyticsRows = await rows<Record<string, unknown>>(
    sql`SELECT type, count(*)::int AS n FROM analytics_events WHERE organization_id = ${org} GROUP BY type ORDER BY type`,
  );
  const counters = await rows<Record<string, unknown>>(
    sql`SELECT name, value FROM organization_counters WHERE organization_id = ${org} ORDER BY name`,
  );
  return { contacts, consents, searches, events, deliveries, analytics, analyticsRows, counters };
}

type Stored = Awaited<ReturnType<typeof stored>>;

/** What the step-by-step path guarantees by construction, checked on either result. */
function checkConsistency(label: string, state: Stored) {
  const context = `${label}: ${JSON.stringify(state, null, 1)}`;
  // Event ids sort in log order (ids made in the order the events happen).
  const ids = state.events.map((event) => event.id as string);
  expect(ids, context).toEqual([...ids].sort());
  const consentAt = new Map(state.consents.map((row) => [row.id, iso(row.created_at)]));
  const consentTimes = [...consentAt.values()];
  expect(consentTimes, context).toEqual([...consentTimes].sort());
  const searchAt = new Map(state.searches.map((row) => [row.id, iso(row.created_at)]));
  for (const event of state.events) {
    const data = event.data as Record<string, Record<string, unknown>>;
    if (event.type === 'contact.consent_changed') {
      const times = state.consents
        .filter((row) => row.contact_id === data.consent?.contactId && row.channel === data.consent?.channel)
        .map((row) => iso(row.created_at));
      expect(times, context).toContain(data.consent?.at);
    }
    if (event.type === 'finder.submitted') {
      expect(data.search?.createdAt, context).toBe(searchAt.get(data.search?.id));
    }
  }
  // The last event about each contact shows its stored createdAt; the finder's last write also its updatedAt.
  for (const contact of state.contacts) {
    const about = state.events.filter(
      (event) => (event.data as { contact?: { id?: string } }).contact?.id === contact.id,
    );
    const last = about.at(-1)?.data as { contact: Record<string, unknown> } | undefined;
    if (last) expect(last.contact.createdAt, context).toBe(iso(contact.created_at));
  }
}

async function expectSameOutcome(steps: Step[]) {
  const [statement, reference] = [await agency(), await agency()];
  const answers = await run(statement, steps, false);
  const expectedAnswers = await run(reference, steps, true);
  const [got, expected] = [await stored(statement), await stored(reference)];
  checkConsistency('one statement', got);
  checkConsistency('step by step', expected);
  expect(normalized(answers, statement)).toEqual(normalized(expectedAnswers, reference));
  expect(normalized(got, statement)).toEqual(normalized(expected, reference));
  return got;
}

const SEARCH = {
  transactionType: 'SALE',
  propertyType: 'APARTMENT',
  city: 'malaga',
  neighborhood: 'Centro',
  budgetMin: 200000,
  budgetMax: 300000,
  minBedrooms: 2,
  amenities: ['pool', 'terrace'],
};

beforeAll(async () => {
  app = await buildTestApp({ WEBHOOK_ALLOW_PRIVATE_URLS: 'true' });
}, 120_000);

afterAll(async () => {
  await app?.close();
});

describe('POST /v1/finder in one statement saves what the step-by-step path saves', () => {
  it('a new person without email or consents', async () => {
    const got = await expectSameOutcome([
      { finder: { ...SEARCH, firstName: '  Lucía ', phone: nextPhone() } },
    ]);
    expect(got.events.map((event) => event.type)).toEqual(['contact.created', 'finder.submitted']);
  });

  it('a new person with email, alerts and every consent, messaging refused', async () => {
    const got = await expectSameOutcome([
      {
        finder: {
          city: 'Madrid',
          budgetMax: 270000,
          firstName: 'Marta',
          phone: nextPhone(),
          email: 'Marta.Gil@Example.com',
          subscribedToAlerts: true,
          consents: { messaging: false, email: true, phone: false },
        },
      },
    ]);
    expect(got.events.map((event) => event.type)).toEqual([
      'contact.created',
      'contact.consent_changed',
      'contact.updated',
      'contact.consent_changed',
      'contact.consent_changed',
      'finder.submitted',
    ]);
    expect(got.contacts[0]).toMatchObject({ opted_out: true, score: 20 });
  });

  it('a known contact found by phone: preferences, budget and currency, tags, opt-out withdrawn', async () => {
    const phone = nextPhone();
    await expectSameOutcome([
      {
        contact: {
          firstName: 'Ana',
          lastName: 'García Núñez',
          phone,
          email: 'ana@example.com',
          tags: ['vip', 'buyer'],
          preferredCity: 'Sevilla',
          preferredType: 'HOUSE',
          budget: 100000,
          currency: 'USD',
          optedOut: true,
        },
      },
      {
        finder: {
          ...SEARCH,
          firstName: 'Anita',
          phone,
          consents: { messaging: true, phone: true },
        },
      },
    ]);
  });

  it('the same budget again changes neither budget nor currency; a repeated consent records no event', async () => {
    const phone = nextPhone();
    const got = await expectSameOutcome([
      { finder: { city: 'Málaga', budgetMax: 300000, firstName: 'Pepe', phone, consents: { email: true } } },
      { finder: { city: 'Málaga', budgetMax: 300000, firstName: 'Pepe', phone, consents: { email: true } } },
      { finder: { propertyType: 'PENTHOUSE', firstName: 'Pepe', phone } },
    ]);
    // Three searches: 15 points, and 15 for activity this week.
    expect(got.contacts[0]).toMatchObject({ score: 30, tags: ['finder'] });
    expect(got.events.filter((event) => event.type === 'contact.consent_changed')).toHaveLength(1);
  });

  it('a known contact found by email gains the phone (search text too)', async () => {
    const email = `sin.telefono.${Date.now()}@example.com`;
    const got = await expectSameOutcome([
      { contact: { firstName: 'Íñigo', lastName: 'Ordóñez', email } },
      { finder: { city: 'Málaga', firstName: 'Íñigo', phone: nextPhone(), email: email.toUpperCase() } },
    ]);
    expect(got.contacts[0]?.search_text).toMatch(/^inigo ordonez sin\.telefono\.\d+@example\.com \+34\d+$/);
  });

  it('a known contact found by phone gains the email, also without a last name', async () => {
    for (const lastName of ['Ruiz', '']) {
      const phone = nextPhone();
      await expectSameOutcome([
        { contact: { firstName: 'Sol', lastName, phone } },
        {
          finder: {
            city: 'Málaga',
            firstName: 'Sol',
            phone,
            email: `Sol.${lastName || 'solo'}.${Date.now()}@Example.com`,
          },
        },
      ]);
    }
  });

  it('phone and email held by two contacts: the phone wins, nothing moves between them', async () => {
    const phone = nextPhone();
    const email = `otra.${Date.now()}@example.com`;
    await expectSameOutcome([
      { contact: { firstName: 'Uno', phone } },
      { contact: { firstName: 'Dos', email } },
      { finder: { city: 'Madrid', firstName: 'Uno', phone, email, consents: { messaging: false } } },
    ]);
  });

  it('a stored search text unlike what searchText writes: the step-by-step fallback, same outcome', async () => {
    const email = `rara.${Date.now()}@example.com`;
    const got = await expectSameOutcome([
      { contact: { firstName: 'Rara', email } },
      { tamperSearchText: { email, text: 'not what searchText writes' } },
      { finder: { city: 'Málaga', firstName: 'Rara', phone: nextPhone(), email } },
    ]);
    expect(got.contacts[0]?.search_text).toMatch(/^rara {2}rara\.\d+@example\.com \+34\d+$/);
  });
});

describe('POST /v1/finder when a parallel form of the same person commits first', () => {
  // The embedded database is one connection: a transaction held open would block the request itself.
  it.skipIf(process.env.TEST_DATABASE_URL === undefined)(
    'goes step by step after the insert meets the committed phone, as the step-by-step upsert does',
    async () => {
      const target = await agency();
      const db = await testDatabase();
      const phone = nextPhone();
      const winner = 'ct_00Vc00000000parallelForm';
      let inserted!: () => void;
      const insertedOnce = new Promise<void>((resolve) => (inserted = resolve));
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      // The other form: its contact inserted, not yet committed, while the finder request starts.
      const other = db.tenantTx(target.id, async (tx) => {
        await tx.execute(
          sql`INSERT INTO contacts (id, organization_id, code, first_name, phone, source, status, type, search_text)
              VALUES (${winner}, ${target.id}, 'CT-999999', 'Rápida', ${phone}, 'WEBSITE', 'NEW', 'LEAD', ${`rapida ${phone}`})`,
        );
        inserted();
        await released;
      });
      await insertedOnce;
      const request = api(app, 'POST', '/v1/finder', {
        key: target.publishable,
        body: { city: 'Málaga', firstName: 'Lenta', phone },
      }).then((response) => response);
      // The request's insert waits for the other transaction on the phone's unique index.
      await new Promise((resolve) => setTimeout(resolve, 500));
      release();
      await other;
      const answer = expectStatus(await request, 201).data;
      expect(answer.contact.id).toBe(winner);
      const state = await stored(target);
      expect(state.contacts).toHaveLength(1);
      expect(state.contacts[0]).toMatchObject({ id: winner, source: 'WEBSITE', tags: ['finder'], score: 20 });
      expect(state.events.map((event) => event.type)).toEqual(['contact.updated', 'finder.submitted']);
      expect(state.searches).toHaveLength(1);
      expect(state.analyticsRows).toEqual([{ type: 'FINDER_SUBMIT', n: 1 }]);
      // The statement that met the phone had bumped the counter, as nextCode does before that insert.
      const counter = state.counters.find((row) => row.name === 'contact');
      expect(Number(counter?.value)).toBe(1);
    },
  );
});
