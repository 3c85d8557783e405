/** Shared set-up of the RESO tests: listings through the API, pages over HTTP, and seeded ties. */
import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import { queryRows } from '../../../src/db/database.ts';
import type { Tenant } from '../../helpers/factories.ts';
import { api, expectStatus } from '../../helpers/http.ts';
import { testDatabase } from '../../helpers/test-app.ts';

export interface ResoRecord extends Record<string, unknown> {
  ListingKey: string;
  ModificationTimestamp: string;
}
export interface ResoPage {
  '@odata.context': string;
  '@odata.count'?: number;
  '@odata.nextLink'?: string;
  value: ResoRecord[];
}

/** The ListingKeys of records, in their order. */
export const keysOf = (records: ResoRecord[]) => records.map((record) => record.ListingKey);

let sequence = 0;

/** A listing through /v1/listings (ACTIVE apartment for sale unless overridden). */
export async function createListing(
  app: FastifyInstance,
  agency: Tenant,
  overrides: Record<string, unknown> = {},
): Promise<{ id: string; code: string }> {
  sequence += 1;
  const response = await api(app, 'POST', '/v1/listings', {
    key: agency.secret.key,
    body: {
      code: `R-${Date.now().toString(36)}-${sequence}`,
      title: `Flat ${sequence}`,
      transactionType: 'SALE',
      type: 'APARTMENT',
      price: 200000 + sequence,
      city: 'Málaga',
      ...overrides,
    },
  });
  return expectStatus(response, 201).data;
}

/** GET /v1/reso/Property with these options (encoded here), as JSON after a 200. */
export async function resoPage(
  app: FastifyInstance,
  key: string,
  options: Record<string, string> = {},
): Promise<ResoPage> {
  const query = Object.entries(options)
    .map(([name, value]) => `${name}=${encodeURIComponent(value)}`)
    .join('&');
  const response = await api(app, 'GET', `/v1/reso/Property${query ? `?${query}` : ''}`, { key });
  return expectStatus(response, 200) as ResoPage;
}

/** The path and query of a nextLink (its origin is the test app's `http://localhost:80`). */
export function pathOf(link: string): string {
  const url = new URL(link);
  expect(url.pathname).toBe('/v1/reso/Property');
  return `${url.pathname}${url.search}`;
}

/** Follows @odata.nextLink from `first` to the end; `between` runs after each page. */
export async function walk(
  app: FastifyInstance,
  key: string,
  first: ResoPage,
  between: (page: ResoPage, index: number) => Promise<void> = async () => {},
): Promise<ResoRecord[]> {
  const seen: ResoRecord[] = [];
  let page: ResoPage | null = first;
  for (let index = 0; page !== null; index += 1) {
    seen.push(...page.value);
    await between(page, index);
    const next: string | undefined = page['@odata.nextLink'];
    if (next === undefined) break;
    expect(index, 'the walk ends').toBeLessThan(100);
    page = expectStatus(await api(app, 'GET', pathOf(next), { key }), 200) as ResoPage;
  }
  return seen;
}

/**
 * `count` listings straight into the table, all with the one `updated_at` (a bulk write's rows share
 * their transaction's instant): ids `prop_<tag><n, 18 digits>`.
 */
export async function seedTiedListings(
  organizationId: string,
  count: number,
  options: { tag: string; updatedAt: string },
): Promise<string[]> {
  const db = await testDatabase();
  const { tag, updatedAt } = options;
  await db.tenantTx(organizationId, (tx) =>
    queryRows(
      tx,
      sql`INSERT INTO properties (id, organization_id, code, title, transaction_type, type, price, currency,
            city, search_city, search_text, created_at, updated_at)
          SELECT 'prop_' || ${tag} || lpad(n::text, 18, '0'), ${organizationId}, 'TIE-' || ${tag} || '-' || n,
            'Tied ' || n, 'SALE', 'HOUSE', 100000 + n, 'EUR', 'Ronda', 'ronda', 'tied ' || n,
            ${updatedAt}::timestamptz, ${updatedAt}::timestamptz
          FROM generate_series(1, ${count}::int) AS n`,
    ),
  );
  return Array.from({ length: count }, (_, i) => `prop_${tag}${String(i + 1).padStart(18, '0')}`);
}
