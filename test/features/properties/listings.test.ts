/**
 * The agency's listing API (/v1/listings, issue 25 items 1-2): every status in the back-office view,
 * the lifecycle's moves (409 on an illegal one, from every writer), the price and status history and
 * their events in the write's transaction, the portal showing exactly the ACTIVE published ones, the
 * scopes and access level, bad input and tenant isolation.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenant, SPANISH_AGENCY, type SpanishAgency } from '../../helpers/factories.ts';
import { admin, api, expectError, expectStatus } from '../../helpers/http.ts';
import { buildTestApp } from '../../helpers/test-app.ts';
import { eventsOf } from '../contacts/support.ts';

let app: FastifyInstance;
let agency: SpanishAgency;
let other: SpanishAgency;
let sequence = 0;

interface Listing {
  id: string;
  code: string;
  status: string;
  price: number;
  internalNotes: string | null;
  publishedOnPortal: boolean;
}
interface Change {
  kind: string;
  previousPrice: number | null;
  price: number | null;
  currency: string | null;
  previousStatus: string | null;
  status: string | null;
  actor: { kind: string; userId: string | null };
}

function body(overrides: Record<string, unknown> = {}) {
  sequence += 1;
  return {
    code: `L-${Date.now().toString(36)}-${sequence}`,
    title: `Sunny flat ${sequence}`,
    transactionType: 'SALE',
    type: 'APARTMENT',
    price: 300000,
    city: 'Málaga',
    internalNotes: 'Owner prefers mornings',
    ...overrides,
  };
}

async function create(owner: SpanishAgency, overrides: Record<string, unknown> = {}): Promise<Listing> {
  const response = await api(app, 'POST', '/v1/listings', { key: owner.secret.key, body: body(overrides) });
  return expectStatus(response, 201).data as Listing;
}

const patch = (id: string, changes: Record<string, unknown>, key = agency.secret.key) =>
  api(app, 'PATCH', `/v1/listings/${id}`, { key, body: changes });

async function history(id: string): Promise<Change[]> {
  return expectStatus(await api(app, 'GET', `/v1/listings/${id}/history`, { key: agency.secret.key }), 200)
    .data as Change[];
}

beforeAll(async () => {
  app = await buildTestApp();
  agency = await createTenant(app, SPANISH_AGENCY);
  other = await createTenant(app, SPANISH_AGENCY);
});

afterAll(async () => {
  await app.close();
});

describe('/v1/listings: create, read, history', () => {
  it('creates a listing in the back-office view, with its first history entries and property.created (actor API)', async () => {
    const listing = await create(agency, { status: 'DRAFT', currency: 'EUR' });
    expect(listing).toMatchObject({
      status: 'DRAFT',
      price: 300000,
      internalNotes: 'Owner prefers mornings',
    });
    const got = expectStatus(
      await api(app, 'GET', `/v1/listings/${listing.id}`, { key: agency.readOnly.key }),
      200,
    );
    expect(got.data).toEqual(listing);
    const changes = await history(listing.id);
    expect(changes).toEqual([
      expect.objectContaining({
        kind: 'PRICE',
        previousPrice: null,
        price: 300000,
        currency: 'EUR',
        status: null,
      }),
      expect.objectContaining({ kind: 'STATUS', previousStatus: null, status: 'DRAFT', price: null }),
    ]);
    expect(changes[0]?.actor).toEqual({ kind: 'API', userId: null });
    const created = (await eventsOf(agency.org.id, ['property.created'])).filter(
      (event) => (event.data as { property: { id: string } }).property.id === listing.id,
    );
    expect(created).toHaveLength(1);
    expect(created[0]?.actor).toEqual({ kind: 'API', userId: null });
  });

  it('keeps a DRAFT off the portal and shows it once ACTIVE; lists every status with filters', async () => {
    const draft = await create(agency, { status: 'DRAFT', city: 'Ronda', price: 123456 });
    const portal = () =>
      api(app, 'GET', '/v1/properties?city=ronda', { key: agency.publishable.key }).then((response) =>
        (expectStatus(response, 200).data as { id: string }[]).map((p) => p.id),
      );
    expect(await portal()).not.toContain(draft.id);
    const drafts = expectStatus(
      await api(app, 'GET', '/v1/listings?status=DRAFT&city=RONDA', { key: agency.secret.key }),
      200,
    );
    expect(drafts.data.map((l: Listing) => l.id)).toEqual([draft.id]);
    expect(drafts.meta).toEqual({ total: 1, page: 1, pageSize: 20, totalPages: 1 });
    expectStatus(await patch(draft.id, { status: 'ACTIVE' }), 200);
    expect(await portal()).toContain(draft.id);
    const byPrice = expectStatus(
      await api(app, 'GET', '/v1/listings?priceMin=123456&priceMax=123456', { key: agency.secret.key }),
      200,
    );
    expect(byPrice.data.map((l: Listing) => l.id)).toEqual([draft.id]);
    const byCode = expectStatus(
      await api(app, 'GET', `/v1/listings?code=${draft.code}`, { key: agency.secret.key }),
      200,
    );
    expect(byCode.data).toHaveLength(1);
  });

  it('answers in cursor mode with updatedAfter, oldest change first', async () => {
    const since = new Date(Date.now() - 1000).toISOString();
    const first = await create(agency, { city: 'Cursorville' });
    const second = await create(agency, { city: 'Cursorville' });
    const page = expectStatus(
      await api(app, 'GET', `/v1/listings?city=cursorville&updatedAfter=${since}&pageSize=1`, {
        key: agency.secret.key,
      }),
      200,
    );
    expect(page.data.map((l: Listing) => l.id)).toEqual([first.id]);
    expect(page.meta.hasMore).toBe(true);
    const next = expectStatus(
      await api(app, 'GET', `/v1/listings?city=cursorville&cursor=${page.meta.nextCursor}&pageSize=1`, {
        key: agency.secret.key,
      }),
      200,
    );
    expect(next.data.map((l: Listing) => l.id)).toEqual([second.id]);
  });
});

describe('the lifecycle and the history of changes', () => {
  it('records a price change and a status move with their events, in order', async () => {
    const listing = await create(agency);
    expectStatus(await patch(listing.id, { price: 280000 }), 200);
    expectStatus(await patch(listing.id, { status: 'RESERVED' }), 200);
    const sold = expectStatus(await patch(listing.id, { status: 'SOLD' }), 200).data as Listing;
    expect(sold.status).toBe('SOLD');
    const changes = await history(listing.id);
    expect(changes.map((c) => [c.kind, c.previousPrice ?? c.previousStatus, c.price ?? c.status])).toEqual([
      ['PRICE', null, 300000],
      ['STATUS', null, 'ACTIVE'],
      ['PRICE', 300000, 280000],
      ['STATUS', 'ACTIVE', 'RESERVED'],
      ['STATUS', 'RESERVED', 'SOLD'],
    ]);
    const events = (
      await eventsOf(agency.org.id, ['property.price_changed', 'property.status_changed'])
    ).filter((event) => (event.data as { property: { id: string } }).property.id === listing.id);
    expect(events.map((event) => [event.type, event.data])).toEqual([
      ['property.price_changed', expect.objectContaining({ previousPrice: 300000, price: 280000 })],
      ['property.status_changed', expect.objectContaining({ previousStatus: 'ACTIVE', status: 'RESERVED' })],
      ['property.status_changed', expect.objectContaining({ previousStatus: 'RESERVED', status: 'SOLD' })],
    ]);
  });

  it('refuses an illegal move with 409 and the allowed moves, and writes nothing of the change', async () => {
    const listing = await create(agency);
    expectStatus(await patch(listing.id, { status: 'SOLD' }), 200);
    const before = await history(listing.id);
    const response = await patch(listing.id, { status: 'ACTIVE', price: 1 });
    const error = expectError(response, 409, 'CONFLICT') as unknown as Record<string, unknown>;
    expect(error).toMatchObject({ reason: 'ILLEGAL_STATUS_MOVE', from: 'SOLD', to: 'ACTIVE', allowed: [] });
    expect(error.message).toMatch(/SOLD is final/);
    const got = expectStatus(
      await api(app, 'GET', `/v1/listings/${listing.id}`, { key: agency.secret.key }),
      200,
    );
    expect(got.data).toMatchObject({ status: 'SOLD', price: 300000 });
    expect(await history(listing.id)).toEqual(before);
    // Staying put is not a move.
    expectStatus(await patch(listing.id, { status: 'SOLD', title: 'Sold: sunny flat' }), 200);
  });

  it('refuses SOLD for a property for rent and RENTED for one for sale (409 STATUS_NOT_ALLOWED), at creation too', async () => {
    const rent = await create(agency, { transactionType: 'RENT', price: 900 });
    const sold = expectError(await patch(rent.id, { status: 'SOLD' }), 409, 'CONFLICT') as unknown as Record<
      string,
      unknown
    >;
    expect(sold).toMatchObject({ reason: 'STATUS_NOT_ALLOWED', status: 'SOLD', transactionType: 'RENT' });
    expectStatus(await patch(rent.id, { status: 'RENTED' }), 200);
    expectStatus(await patch(rent.id, { status: 'ACTIVE' }), 200);
    const created = await api(app, 'POST', '/v1/listings', {
      key: agency.secret.key,
      body: body({ status: 'RENTED' }),
    });
    expectError(created, 409, 'CONFLICT');
  });

  it('applies the same rules to the back office and to imports', async () => {
    const listing = await create(agency);
    expectStatus(await patch(listing.id, { status: 'SOLD' }), 200);
    const adminMove = await admin(
      app,
      'PATCH',
      `/admin/v1/organizations/${agency.org.id}/properties/${listing.id}`,
      {
        status: 'DRAFT',
      },
    );
    expectError(adminMove, 409, 'CONFLICT');
    const imported = expectStatus(
      await admin(app, 'POST', `/admin/v1/organizations/${agency.org.id}/properties/import`, {
        rows: [{ ...body({ code: listing.code }), status: 'ACTIVE' }],
      }),
      200,
    ).data as { failed: number; errors: { field: string; message: string }[] };
    expect(imported.failed).toBe(1);
    expect(imported.errors[0]).toMatchObject({ field: 'status' });
    expect(imported.errors[0]?.message).toMatch(/SOLD is final/);
    // An admin change is in the history with the SYSTEM actor.
    expectStatus(
      await admin(app, 'PATCH', `/admin/v1/organizations/${agency.org.id}/properties/${listing.id}`, {
        price: 1,
      }),
      200,
    );
    expect((await history(listing.id)).at(-1)).toMatchObject({
      kind: 'PRICE',
      price: 1,
      actor: { kind: 'SYSTEM' },
    });
  });
});

describe('keys, bad input and other agencies', () => {
  it('reads with listings:read (read-only keys too), writes only with listings:write at access level 3', async () => {
    const listing = await create(agency);
    expectStatus(await api(app, 'GET', '/v1/listings', { key: agency.keys.noWrite.key }), 200);
    expectError(await api(app, 'GET', '/v1/listings', { key: agency.publishable.key }), 403, 'FORBIDDEN');
    expectError(await patch(listing.id, { price: 1 }, agency.readOnly.key), 403, 'FORBIDDEN');
    expectError(await patch(listing.id, { price: 1 }, agency.keys.noWrite.key), 403, 'FORBIDDEN');
    expectError(await patch(listing.id, { price: 1 }, agency.keys.level2.key), 403, 'FORBIDDEN');
    expectError(await api(app, 'GET', '/v1/listings'), 401, 'UNAUTHORIZED');
  });

  it('names what is wrong in a bad body or query', async () => {
    const missing = expectError(
      await api(app, 'POST', '/v1/listings', { key: agency.secret.key, body: { code: 'X-1', price: 1 } }),
      400,
      'VALIDATION_ERROR',
    );
    expect(JSON.stringify(missing)).toMatch(/title/);
    const listing = await create(agency);
    expectError(await patch(listing.id, {}), 400, 'VALIDATION_ERROR');
    const status = expectError(await patch(listing.id, { status: 'WITHDRAWN' }), 400, 'VALIDATION_ERROR');
    expect(JSON.stringify(status)).toMatch(/status/);
    expectError(
      await api(app, 'GET', '/v1/listings?status=GONE', { key: agency.secret.key }),
      400,
      'VALIDATION_ERROR',
    );
    expectError(
      await api(app, 'GET', '/v1/listings?cursor=nope', { key: agency.secret.key }),
      400,
      'VALIDATION_ERROR',
    );
    const duplicate = await api(app, 'POST', '/v1/listings', {
      key: agency.secret.key,
      body: body({ code: listing.code }),
    });
    expectError(duplicate, 409, 'DUPLICATE');
  });

  it("never shows, changes, or deletes another agency's listing (404), and deletes its own with its history", async () => {
    const theirs = await create(other, { city: 'Elsewhere' });
    expectError(
      await api(app, 'GET', `/v1/listings/${theirs.id}`, { key: agency.secret.key }),
      404,
      'NOT_FOUND',
    );
    expectError(
      await api(app, 'GET', `/v1/listings/${theirs.id}/history`, { key: agency.secret.key }),
      404,
      'NOT_FOUND',
    );
    expectError(await patch(theirs.id, { price: 1 }), 404, 'NOT_FOUND');
    expectError(
      await api(app, 'DELETE', `/v1/listings/${theirs.id}`, { key: agency.secret.key }),
      404,
      'NOT_FOUND',
    );
    expectError(
      await api(app, 'GET', '/v1/listings/not-an-id', { key: agency.secret.key }),
      404,
      'NOT_FOUND',
    );
    const mine = expectStatus(
      await api(app, 'GET', '/v1/listings?city=elsewhere', { key: agency.secret.key }),
      200,
    );
    expect(mine.data).toEqual([]);
    const still = expectStatus(
      await api(app, 'GET', `/v1/listings/${theirs.id}`, { key: other.secret.key }),
      200,
    );
    expect(still.data.price).toBe(300000);

    const own = await create(agency);
    expect(
      expectStatus(await api(app, 'DELETE', `/v1/listings/${own.id}`, { key: agency.secret.key }), 200).data,
    ).toEqual({ id: own.id, deleted: true });
    expectError(
      await api(app, 'GET', `/v1/listings/${own.id}/history`, { key: agency.secret.key }),
      404,
      'NOT_FOUND',
    );
  });
});

describe('previousPrice: a reduced listing, on the portal only where the agency shows price drops', () => {
  const portalPrice = async (owner: SpanishAgency, id: string) => {
    const detail = expectStatus(
      await api(app, 'GET', `/v1/properties/${id}`, { key: owner.publishable.key }),
      200,
    );
    const list = expectStatus(
      await api(app, 'GET', `/v1/properties?city=dropton`, { key: owner.publishable.key }),
      200,
    ).data.find((p: { id: string }) => p.id === id);
    expect(list.previousPrice).toBe(detail.data.previousPrice);
    return detail.data.previousPrice as number | null;
  };
  const agencyPrice = async (owner: SpanishAgency, id: string) =>
    expectStatus(await api(app, 'GET', `/v1/listings/${id}`, { key: owner.secret.key }), 200).data
      .previousPrice;

  it('keeps the price before a reduction, shows it on the portal once allowed, clears it when the price rises', async () => {
    const listing = await create(agency, { city: 'Dropton' });
    expect(await agencyPrice(agency, listing.id)).toBeNull();
    expectStatus(await patch(listing.id, { price: 280000 }), 200);
    expectStatus(await patch(listing.id, { price: 270000 }), 200);
    expect(await agencyPrice(agency, listing.id)).toBe(280000);
    expect(await portalPrice(agency, listing.id)).toBeNull();

    const allow = await admin(app, 'PATCH', `/admin/v1/organizations/${agency.org.id}`, {
      showPriceDrops: true,
    });
    expect(expectStatus(allow, 200).data.showPriceDrops).toBe(true);
    expect(await portalPrice(agency, listing.id)).toBe(280000);

    expectStatus(await patch(listing.id, { price: 275000 }), 200);
    expect(await agencyPrice(agency, listing.id)).toBeNull();
    expect(await portalPrice(agency, listing.id)).toBeNull();
    expectStatus(await patch(listing.id, { price: 260000 }), 200);
    expect(await portalPrice(agency, listing.id)).toBe(275000);
    // Another currency: the two prices do not compare.
    expectStatus(await patch(listing.id, { price: 250000, currency: 'USD' }), 200);
    expect(await agencyPrice(agency, listing.id)).toBeNull();
  });

  it("follows each agency's own setting", async () => {
    const theirs = await create(other, { city: 'Dropton' });
    const response = await api(app, 'PATCH', `/v1/listings/${theirs.id}`, {
      key: other.secret.key,
      body: { price: 1000 },
    });
    expectStatus(response, 200);
    expect(await agencyPrice(other, theirs.id)).toBe(300000);
    expect(await portalPrice(other, theirs.id)).toBeNull();
  });
});
