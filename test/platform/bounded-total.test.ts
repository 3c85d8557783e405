/**
 * Bounded totals (docs/decisions/0229): a list that can grow past COUNT_LIMIT matches counts up to it
 * and then says "at least" (`meta.totalIsLowerBound: true`), while every page past the bound is still
 * served and the filters still narrow the count back to an exact one. The rows go in with one
 * INSERT ... SELECT, as an import would put them: the API would take minutes to create 10,000.
 */
import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COUNT_LIMIT, queryRows } from '../../src/db/database.ts';
import { seedContacts } from '../features/contacts/support.ts';
import { clientFor, listen } from '../client/support.ts';
import {
  createContact,
  createProperty,
  createTenant,
  SPANISH_AGENCY,
  type SpanishAgency,
} from '../helpers/factories.ts';
import { admin, api, expectStatus } from '../helpers/http.ts';
import { buildTestApp, testDatabase } from '../helpers/test-app.ts';

const OVER = COUNT_LIMIT + 45;
let app: FastifyInstance;
let big: SpanishAgency;
let small: SpanishAgency;

interface Page {
  data: { id: string }[];
  meta: Record<string, unknown>;
}
const list = async (key: string, url: string): Promise<Page> =>
  expectStatus(await api(app, 'GET', url, { key }), 200) as unknown as Page;

/** `count` published properties of one agency in one statement (Madrid, one every 1,000 in Sevilla). */
async function seedProperties(organizationId: string, count: number): Promise<void> {
  const db = await testDatabase();
  await db.tenantTx(organizationId, (tx) =>
    queryRows(
      tx,
      sql`INSERT INTO properties (id, organization_id, code, title, transaction_type, type, price, currency,
            city, search_city, search_text)
          SELECT 'prop_bulk' || lpad(n::text, 18, '0'), ${organizationId}, 'BULK-' || n, 'Flat ' || n,
            'SALE', 'APARTMENT', 100000 + n, 'EUR', city, lower(city), 'flat ' || n || ' ' || lower(city)
          FROM generate_series(1, ${count}::int) AS n,
            LATERAL (SELECT CASE WHEN n % 1000 = 0 THEN 'Sevilla' ELSE 'Madrid' END AS city) AS c`,
    ),
  );
}

beforeAll(async () => {
  app = await buildTestApp();
  big = await createTenant(app, SPANISH_AGENCY);
  small = await createTenant(app, SPANISH_AGENCY);
  await seedContacts(big.org.id, OVER, { tag: 'bnds', firstUpdatedAt: '2026-11-01T00:00:00Z' });
  await createContact(app, small, {
    via: 'api',
    body: { firstName: 'Solo', lastName: 'Uno', source: 'WEBSITE' },
  });
  await seedProperties(big.org.id, OVER);
  await createProperty(app, small.org.id);
}, 120_000);

afterAll(async () => {
  await app.close();
});

describe('a list past COUNT_LIMIT matches', () => {
  it('gives COUNT_LIMIT as a flagged lower bound on its first page, and exact totals below the bound', async () => {
    const first = await list(big.secret.key, '/v1/contacts?pageSize=20');
    expect(first.data).toHaveLength(20);
    expect(first.meta).toEqual({
      total: COUNT_LIMIT,
      page: 1,
      pageSize: 20,
      totalPages: COUNT_LIMIT / 20,
      totalIsLowerBound: true,
    });
    // A filter that matches fewer than the bound is counted exactly, without the flag.
    const few = await list(big.secret.key, '/v1/contacts?q=bulk%2010044');
    expect(few.meta).toEqual({ total: 1, page: 1, pageSize: 20, totalPages: 1 });
    // Another agency's count is its own.
    const other = await list(small.secret.key, '/v1/contacts');
    expect(other.meta).toEqual({ total: 1, page: 1, pageSize: 20, totalPages: 1 });
  });

  it('serves the pages past the bound, and a page deep past it raises the bound to what it proves', async () => {
    // 10,045 contacts at 20 a page: page 502 is full (rows 10,021-10,040), page 503 has the last 5.
    const full = await list(
      big.secret.key,
      '/v1/contacts?pageSize=20&page=502&sortBy=createdAt&sortOrder=asc',
    );
    expect(full.data).toHaveLength(20);
    expect(full.meta).toMatchObject({ total: 10_041, totalPages: 503, totalIsLowerBound: true });
    const last = await list(big.secret.key, '/v1/contacts?pageSize=20&page=503');
    expect(last.data).toHaveLength(5);
    expect(last.meta).toMatchObject({ total: OVER, totalPages: 503, totalIsLowerBound: true });
    // Past the end: empty, and the bound stays what was counted, not what was asked for.
    const past = await list(big.secret.key, '/v1/contacts?pageSize=20&page=600');
    expect(past.data).toEqual([]);
    expect(past.meta).toEqual({
      total: COUNT_LIMIT,
      page: 600,
      pageSize: 20,
      totalPages: COUNT_LIMIT / 20,
      totalIsLowerBound: true,
    });
  });

  it('bounds the portal listing, featured counts its own matches, and the facets keep the exact stock', async () => {
    const listing = await list(big.publishable.key, '/v1/properties?pageSize=12');
    expect(listing.meta).toEqual({
      total: COUNT_LIMIT,
      page: 1,
      pageSize: 12,
      totalPages: Math.ceil(COUNT_LIMIT / 12),
      totalIsLowerBound: true,
    });
    const sevilla = await list(big.publishable.key, '/v1/properties?city=Sevilla');
    expect(sevilla.meta).toEqual({ total: 10, page: 1, pageSize: 12, totalPages: 1 });
    const featured = await list(big.publishable.key, '/v1/properties/featured');
    expect(featured.meta).toEqual({ total: 0, page: 1, pageSize: 12, totalPages: 0 });
    const filters = expectStatus(await api(app, 'GET', '/v1/filters', { key: big.publishable.key }), 200)
      .data as { total: number };
    expect(filters.total).toBe(OVER);
    const other = await list(small.publishable.key, '/v1/properties');
    expect(other.meta).toEqual({ total: 1, page: 1, pageSize: 12, totalPages: 1 });
  });

  it("lets the TypeScript client's for-await walk every item past the bound, in page mode", async () => {
    const client = clientFor(await listen(app), big.secret.key);
    const seen = new Set<string>();
    for await (const contact of client.contacts.list({
      pageSize: 100,
      sortBy: 'createdAt',
      sortOrder: 'asc',
    })) {
      seen.add(contact.id);
    }
    expect(seen.size).toBe(OVER);
  });

  it('bounds the back office listing of properties too', async () => {
    const response = await admin(app, 'GET', `/admin/v1/organizations/${big.org.id}/properties?pageSize=50`);
    const page = expectStatus(response, 200) as unknown as Page;
    expect(page.data).toHaveLength(50);
    expect(page.meta).toMatchObject({
      total: COUNT_LIMIT,
      totalPages: COUNT_LIMIT / 50,
      totalIsLowerBound: true,
    });
  });
});
