import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows, type Database } from '../../../src/db/database.ts';
import {
  createApiKey,
  createOrganization,
  createProperty,
  createTenant,
  type Tenant,
  busyPublishableKey,
} from '../../helpers/factories.ts';
import { admin, api, expectError, expectStatus } from '../../helpers/http.ts';
import { recordAnalyticsEventInTx } from '../../../src/features/analytics/analytics.service.ts';
import { AnalyticsWriter } from '../../../src/features/analytics/analytics.writer.ts';
import { buildTestApp, testDatabase } from '../../helpers/test-app.ts';

let app: FastifyInstance;
let db: Database;
let tenant: Tenant;
/** Publishable key with limits high enough for the bulk tests. */
let key: string;

beforeAll(async () => {
  db = await testDatabase();
  app = await buildTestApp();
  tenant = await createTenant(app);
  key = await busyPublishableKey(app, tenant.org.id);
});
afterAll(async () => {
  await app.close();
});

type RawEvent = { type: string; property_id: string | null; referrer: string | null; occurred_at: string };

async function rawEvents(organizationId: string): Promise<RawEvent[]> {
  return db.systemTx((tx) =>
    queryRows<RawEvent>(
      tx,
      sql`SELECT type, property_id, referrer, occurred_at::text FROM analytics_events
          WHERE organization_id = ${organizationId} ORDER BY id`,
    ),
  );
}

async function daily(organizationId: string) {
  const rows = await db.systemTx((tx) =>
    queryRows<{ day: string; property_id: string; type: string; count: string | number }>(
      tx,
      sql`SELECT to_char(day, 'YYYY-MM-DD') AS day, property_id, type, count FROM analytics_daily
          WHERE organization_id = ${organizationId} ORDER BY day, property_id, type`,
    ),
  );
  return rows.map((r) => ({ day: r.day, propertyId: r.property_id, type: r.type, count: Number(r.count) }));
}

function post(body: unknown, apiKey = key, headers: Record<string, string> = {}) {
  return api(app, 'POST', '/v1/events', { key: apiKey, body, headers });
}

function report(organizationId: string, query = '') {
  return admin(app, 'GET', `/admin/v1/organizations/${organizationId}/analytics${query}`);
}

const today = () => new Date().toISOString().slice(0, 10);

describe('POST /v1/events', () => {
  it('answers 200 {data:{success:true}} at once and stores the event in the next batch', async () => {
    const { org } = await createTenant(app);
    const own = await createApiKey(app, org.id, { type: 'publishable' });
    const property = await createProperty(app, org.id);
    const response = await post(
      { type: 'PROPERTY_VIEW', propertyId: property.id, referrer: 'https://www.google.com/' },
      own.key,
    );
    expect(expectStatus(response, 200)).toStrictEqual({ data: { success: true } });
    await app.analytics.flush();
    const rows = await rawEvents(org.id);
    expect(rows).toMatchObject([
      { type: 'PROPERTY_VIEW', property_id: property.id, referrer: 'https://www.google.com/' },
    ]);
    expect(await daily(org.id)).toEqual([
      { day: today(), propertyId: property.id, type: 'PROPERTY_VIEW', count: 1 },
    ]);
  });

  it('stores events without a property under the empty property id', async () => {
    const { org, publishable } = await createTenant(app);
    expectStatus(await post({ type: 'PAGE_VIEW' }, publishable.key), 200);
    expectStatus(await post({ type: 'PAGE_VIEW', referrer: 'https://x.example/a' }, publishable.key), 200);
    expectStatus(await post({ type: 'SEARCH' }, publishable.key), 200);
    await app.analytics.flush();
    expect((await rawEvents(org.id)).map((r) => [r.type, r.property_id, r.referrer])).toEqual([
      ['PAGE_VIEW', null, null],
      ['PAGE_VIEW', null, 'https://x.example/a'],
      ['SEARCH', null, null],
    ]);
    expect(await daily(org.id)).toEqual([
      { day: today(), propertyId: '', type: 'PAGE_VIEW', count: 2 },
      { day: today(), propertyId: '', type: 'SEARCH', count: 1 },
    ]);
  });

  it('writes the buffer by itself within about a second, without a flush', async () => {
    const { org, publishable } = await createTenant(app);
    expectStatus(await post({ type: 'CALL_CLICK' }, publishable.key), 200);
    const deadline = Date.now() + 5_000;
    let rows = await rawEvents(org.id);
    while (rows.length === 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      rows = await rawEvents(org.id);
    }
    expect(rows.map((r) => r.type)).toEqual(['CALL_CLICK']);
  });

  it('writes many events in batches, with every one counted', async () => {
    const org = await createOrganization(app, { writeLimitPerMinute: 100_000 });
    const bulk = await createApiKey(app, org.id, {
      type: 'publishable',
      rateLimitPerMinute: 100_000,
      writeLimitPerMinute: 100_000,
    });
    const property = await createProperty(app, org.id);
    const types = ['PAGE_VIEW', 'PROPERTY_VIEW', 'SHARE_CLICK'] as const;
    const total = 1_203;
    for (let start = 0; start < total; start += 100) {
      const chunk = Array.from({ length: Math.min(100, total - start) }, (_, i) => start + i);
      const responses = await Promise.all(
        chunk.map((n) =>
          post({ type: types[n % 3], ...(n % 3 === 1 ? { propertyId: property.id } : {}) }, bulk.key),
        ),
      );
      for (const response of responses) expectStatus(response, 200);
    }
    await app.analytics.flush();
    expect(app.analytics.pending).toBe(0);
    expect((await rawEvents(org.id)).length).toBe(total);
    expect(await daily(org.id)).toEqual([
      { day: today(), propertyId: '', type: 'PAGE_VIEW', count: 401 },
      { day: today(), propertyId: '', type: 'SHARE_CLICK', count: 401 },
      { day: today(), propertyId: property.id, type: 'PROPERTY_VIEW', count: 401 },
    ]);
  });

  it('accepts every event type SPEC.md names', async () => {
    const { org, publishable } = await createTenant(app);
    const all = [
      'PAGE_VIEW',
      'PROPERTY_VIEW',
      'SEARCH',
      'LEAD_FORM',
      'MESSAGING_CLICK',
      'CALL_CLICK',
      'SCHEDULE_CLICK',
      'SHARE_CLICK',
      'FINDER_SUBMIT',
    ];
    for (const type of all) expectStatus(await post({ type }, publishable.key), 200);
    await app.analytics.flush();
    expect((await rawEvents(org.id)).map((r) => r.type)).toEqual(all);
  });
});

describe('POST /v1/events errors', () => {
  const fieldOf = async (body: unknown, apiKey = key) => {
    const error = expectError(await post(body, apiKey), 400, 'VALIDATION_ERROR');
    return error.details?.map((d) => d.field);
  };

  it('refuses a missing or unknown type naming body.type', async () => {
    expect(await fieldOf({})).toEqual(['body.type']);
    expect(await fieldOf({ type: 'CLICK' })).toEqual(['body.type']);
    expect(await fieldOf({ type: 'page_view' })).toEqual(['body.type']);
  });

  it('refuses a referrer over 2048 characters and unknown fields', async () => {
    expect(await fieldOf({ type: 'PAGE_VIEW', referrer: `https://x.example/${'a'.repeat(2040)}` })).toEqual([
      'body.referrer',
    ]);
    expect(await fieldOf({ type: 'PAGE_VIEW', sessionId: 'abc' })).toEqual(['body.sessionId']);
  });

  it('refuses a propertyId that is malformed, unknown, unpublished, not active or of another agency', async () => {
    const unpublished = await createProperty(app, tenant.org.id, { publishedOnPortal: false });
    const sold = await createProperty(app, tenant.org.id, { status: 'SOLD' });
    const other = await createTenant(app);
    const foreign = await createProperty(app, other.org.id);
    for (const id of [
      'nope',
      '',
      'prop_0000000000000000000000',
      unpublished.id,
      sold.id,
      foreign.id,
      tenant.org.id,
    ]) {
      expect(await fieldOf({ type: 'PROPERTY_VIEW', propertyId: id }), id).toEqual(['body.propertyId']);
    }
    // The property's own agency may use it.
    expectStatus(await post({ type: 'PROPERTY_VIEW', propertyId: foreign.id }, other.publishable.key), 200);
  });

  it('stores nothing for a refused event', async () => {
    const { org, publishable } = await createTenant(app);
    await post({ type: 'PROPERTY_VIEW', propertyId: 'prop_0000000000000000000000' }, publishable.key);
    await post({ type: 'NOPE' }, publishable.key);
    await app.analytics.flush();
    expect(await rawEvents(org.id)).toEqual([]);
  });
});

describe('POST /v1/events keys and browsers', () => {
  it('takes a publishable key from a browser, with CORS', async () => {
    const response = await post({ type: 'PAGE_VIEW' }, key, { origin: 'https://agency.example' });
    expectStatus(response, 200);
    expect(response.headers['access-control-allow-origin']).toBe('*');
  });

  it('answers the CORS preflight of POST /v1/events (but not of the secret-key catalog GET)', async () => {
    const preflight = await app.inject({
      method: 'OPTIONS',
      url: '/v1/events',
      headers: {
        origin: 'https://agency.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'x-api-key, content-type',
      },
    });
    expect(preflight.statusCode, preflight.body).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe('*');
    expect(String(preflight.headers['access-control-allow-headers'])).toMatch(/X-API-Key/);
    const catalog = await app.inject({
      method: 'OPTIONS',
      url: '/v1/events',
      headers: { origin: 'https://agency.example', 'access-control-request-method': 'GET' },
    });
    expect(catalog.statusCode, catalog.body).toBe(403);
  });

  it('refuses a secret key from a browser, a read-only key and a key without events:write', async () => {
    expectError(
      await post({ type: 'PAGE_VIEW' }, tenant.secret.key, { origin: 'https://agency.example' }),
      403,
      'SECRET_KEY_IN_BROWSER',
    );
    expectError(await post({ type: 'PAGE_VIEW' }, tenant.readOnly.key), 403, 'FORBIDDEN');
    const noScope = await createApiKey(app, tenant.org.id, { type: 'publishable', scopes: ['portal:read'] });
    const error = expectError(await post({ type: 'PAGE_VIEW' }, noScope.key), 403, 'FORBIDDEN');
    expect(error.message).toContain('events:write');
    expectError(await api(app, 'POST', '/v1/events', { body: { type: 'PAGE_VIEW' } }), 401, 'UNAUTHORIZED');
  });

  it('takes a server-side secret key too', async () => {
    expectStatus(await post({ type: 'SEARCH' }, tenant.secret.key), 200);
  });

  it("records a test key's events in the test twin, not in the live organization", async () => {
    const { org } = await createTenant(app);
    const testKey = await createApiKey(app, org.id, { type: 'publishable', mode: 'test' });
    expectStatus(await post({ type: 'PAGE_VIEW' }, testKey.key), 200);
    await app.analytics.flush();
    expect(await rawEvents(org.id)).toEqual([]);
    expect((await rawEvents(org.testOrganizationId as string)).map((r) => r.type)).toEqual(['PAGE_VIEW']);
  });
});

describe('GET /admin/v1/organizations/:orgId/analytics', () => {
  /** Events of fixed times, written through the app's writer (the HTTP route stamps "now"). */
  async function seed(organizationId: string, events: Array<[string, string, string | null, number?]>) {
    for (const [at, type, property, times = 1] of events) {
      for (let i = 0; i < times; i++) {
        app.analytics.enqueue({
          organizationId,
          type,
          propertyId: property,
          referrer: null,
          occurredAt: new Date(at),
        });
      }
    }
    await app.analytics.flush();
  }

  it('sums per UTC day, type and property, with totals for every type', async () => {
    const { org } = await createTenant(app);
    const [a, b] = ['prop_A000000000000000000000', 'prop_B000000000000000000000'];
    await seed(org.id, [
      ['2024-03-01T10:00:00Z', 'PAGE_VIEW', null, 3],
      // 23:59:59 UTC and 00:00:00 UTC fall on different days, whatever the server's zone.
      ['2024-03-01T23:59:59Z', 'PROPERTY_VIEW', a, 2],
      ['2024-03-02T00:00:00Z', 'PROPERTY_VIEW', a, 4],
      ['2024-03-02T12:00:00Z', 'PROPERTY_VIEW', b, 1],
      ['2024-03-02T12:00:00Z', 'CALL_CLICK', b, 5],
      ['2024-03-05T08:00:00Z', 'LEAD_FORM', a],
      ['2024-02-29T23:00:00Z', 'PAGE_VIEW', null, 7], // before the range
      ['2024-03-06T00:00:00Z', 'PAGE_VIEW', null, 7], // after it
    ]);
    const { data } = expectStatus(await report(org.id, '?from=2024-03-01&to=2024-03-05'), 200);
    expect(data).toStrictEqual({
      from: '2024-03-01',
      to: '2024-03-05',
      propertyId: null,
      type: null,
      total: 16,
      totals: {
        PAGE_VIEW: 3,
        PROPERTY_VIEW: 7,
        SEARCH: 0,
        LEAD_FORM: 1,
        MESSAGING_CLICK: 0,
        CALL_CLICK: 5,
        SCHEDULE_CLICK: 0,
        SHARE_CLICK: 0,
        FINDER_SUBMIT: 0,
      },
      byDay: [
        { date: '2024-03-01', type: 'PAGE_VIEW', count: 3 },
        { date: '2024-03-01', type: 'PROPERTY_VIEW', count: 2 },
        { date: '2024-03-02', type: 'CALL_CLICK', count: 5 },
        { date: '2024-03-02', type: 'PROPERTY_VIEW', count: 5 },
        { date: '2024-03-05', type: 'LEAD_FORM', count: 1 },
      ],
      byProperty: [
        { propertyId: a, type: 'PROPERTY_VIEW', count: 6 },
        { propertyId: b, type: 'CALL_CLICK', count: 5 },
        // Ties: by property id, then type.
        { propertyId: a, type: 'LEAD_FORM', count: 1 },
        { propertyId: b, type: 'PROPERTY_VIEW', count: 1 },
      ],
    });

    const onlyA = expectStatus(
      await report(org.id, `?from=2024-03-01&to=2024-03-05&propertyId=${a}`),
      200,
    ).data;
    expect(onlyA.total).toBe(7);
    expect(onlyA.propertyId).toBe(a);
    expect(onlyA.byProperty.map((p: { propertyId: string }) => p.propertyId)).toEqual([a, a]);

    const views = expectStatus(
      await report(org.id, '?from=2024-03-01&to=2024-03-31&type=PROPERTY_VIEW'),
      200,
    ).data;
    expect(views.type).toBe('PROPERTY_VIEW');
    expect(views.total).toBe(7);
    expect(views.totals.PAGE_VIEW).toBe(0);
    expect(views.byDay).toEqual([
      { date: '2024-03-01', type: 'PROPERTY_VIEW', count: 2 },
      { date: '2024-03-02', type: 'PROPERTY_VIEW', count: 5 },
    ]);
  });

  it('adds later batches to the same daily counts', async () => {
    const { org } = await createTenant(app);
    await seed(org.id, [['2024-05-10T09:00:00Z', 'SEARCH', null, 2]]);
    await seed(org.id, [['2024-05-10T18:00:00Z', 'SEARCH', null, 3]]);
    expect(await daily(org.id)).toEqual([{ day: '2024-05-10', propertyId: '', type: 'SEARCH', count: 5 }]);
  });

  it('covers the last 30 days by default, today included, with what the route recorded', async () => {
    const { org, publishable } = await createTenant(app);
    expectStatus(await post({ type: 'PAGE_VIEW' }, publishable.key), 200);
    await app.analytics.flush();
    const { data } = expectStatus(await report(org.id), 200);
    const from = new Date(Date.parse(`${today()}T00:00:00Z`) - 29 * 86_400_000).toISOString().slice(0, 10);
    expect([data.from, data.to]).toEqual([from, today()]);
    expect(data.byDay).toEqual([{ date: today(), type: 'PAGE_VIEW', count: 1 }]);
    // Only `to` given: the 30 days up to it.
    expect(expectStatus(await report(org.id, '?to=2024-03-30'), 200).data.from).toBe('2024-03-01');
  });

  it('keeps only the top 50 (property, type) pairs, most events first', async () => {
    const { org } = await createTenant(app);
    const ids = Array.from({ length: 55 }, (_, i) => `prop_${String(i).padStart(22, '0')}`);
    await seed(
      org.id,
      ids.map(
        (id, i) => ['2024-06-01T12:00:00Z', 'PROPERTY_VIEW', id, i + 1] as [string, string, string, number],
      ),
    );
    const { data } = expectStatus(await report(org.id, '?from=2024-06-01&to=2024-06-01'), 200);
    expect(data.byProperty).toHaveLength(50);
    expect(data.byProperty[0]).toEqual({ propertyId: ids[54], type: 'PROPERTY_VIEW', count: 55 });
    expect(data.byProperty[49].count).toBe(6);
    expect(data.total).toBe((55 * 56) / 2);
  });

  it("never shows another organization's events", async () => {
    const mine = await createTenant(app);
    const theirs = await createTenant(app);
    const theirProperty = await createProperty(app, theirs.org.id);
    expectStatus(await post({ type: 'PAGE_VIEW' }, mine.publishable.key), 200);
    expectStatus(
      await post({ type: 'PROPERTY_VIEW', propertyId: theirProperty.id }, theirs.publishable.key),
      200,
    );
    expectStatus(await post({ type: 'SHARE_CLICK' }, theirs.publishable.key), 200);
    await app.analytics.flush();
    const own = expectStatus(await report(mine.org.id), 200).data;
    expect(own.total).toBe(1);
    expect(own.byDay).toEqual([{ date: today(), type: 'PAGE_VIEW', count: 1 }]);
    expect(own.byProperty).toEqual([]);
    const other = expectStatus(await report(theirs.org.id), 200).data;
    expect(other.total).toBe(2);
    expect(other.byProperty).toEqual([{ propertyId: theirProperty.id, type: 'PROPERTY_VIEW', count: 1 }]);
    // The twin has its own numbers.
    expect(expectStatus(await report(mine.org.testOrganizationId as string), 200).data.total).toBe(0);
  });

  it('answers 404 for an unknown or malformed organization', async () => {
    expectError(await report('org_0000000000000000000000'), 404, 'NOT_FOUND');
    expectError(await report('nonsense'), 404, 'NOT_FOUND');
  });

  it('refuses a bad range naming the field', async () => {
    const fieldOf = async (query: string) =>
      expectError(await report(tenant.org.id, query), 400, 'VALIDATION_ERROR').details?.map((d) => d.field);
    expect(await fieldOf('?from=2024-03-10&to=2024-03-09')).toEqual(['query.from']);
    expect(await fieldOf('?from=2023-01-01&to=2024-01-02')).toEqual(['query.from']);
    expect(await fieldOf('?from=2024-02-30&to=2024-03-01')).toEqual(['query.from']);
    expect(await fieldOf('?from=2024-03-01&to=03/10/2024')).toEqual(['query.to']);
    expect(await fieldOf('?type=CLICK')).toEqual(['query.type']);
    expect(await fieldOf('?page=2')).toEqual(['query.page']);
    // 366 days (a leap year) is the longest range.
    expectStatus(await report(tenant.org.id, '?from=2024-01-01&to=2024-12-31'), 200);
  });

  it('needs the admin token', async () => {
    const response = await app.inject({
      method: 'GET',
      url: `/admin/v1/organizations/${tenant.org.id}/analytics`,
    });
    expectError(response, 401, 'UNAUTHORIZED');
    const withKey = await api(app, 'GET', `/admin/v1/organizations/${tenant.org.id}/analytics`, {
      key: tenant.secret.key,
    });
    expectError(withKey, 401, 'UNAUTHORIZED');
  });
});

describe('shutdown', () => {
  it('writes every accepted event when the app closes', async () => {
    const other = await buildTestApp();
    const { org } = await createTenant(other);
    const bulk = await createApiKey(other, org.id, {
      type: 'publishable',
      rateLimitPerMinute: 100_000,
      writeLimitPerMinute: 100_000,
    });
    const property = await createProperty(other, org.id);
    const responses = await Promise.all(
      Array.from({ length: 120 }, (_, i) =>
        api(other, 'POST', '/v1/events', {
          key: bulk.key,
          body: i % 2 ? { type: 'PROPERTY_VIEW', propertyId: property.id } : { type: 'PAGE_VIEW' },
        }),
      ),
    );
    for (const response of responses) expectStatus(response, 200);
    // Accepted just before the stop: only the close can still write these.
    for (let i = 0; i < 5; i++) {
      other.analytics.enqueue({
        organizationId: org.id,
        type: 'PAGE_VIEW',
        propertyId: null,
        referrer: null,
        occurredAt: new Date(),
      });
    }
    expect(other.analytics.pending).toBeGreaterThanOrEqual(5);
    await other.close();
    expect(other.analytics.pending).toBe(0);
    expect((await rawEvents(org.id)).length).toBe(125);
    expect(await daily(org.id)).toEqual([
      { day: today(), propertyId: '', type: 'PAGE_VIEW', count: 65 },
      { day: today(), propertyId: property.id, type: 'PROPERTY_VIEW', count: 60 },
    ]);
  });
});

describe('when the database fails', () => {
  /** The test database, with its system transactions (the writer's) failing while `down` is set. */
  function failing() {
    const state = { down: false };
    const wrapped: Database = {
      ...db,
      systemTx: (fn) => (state.down ? Promise.reject(new Error('database unreachable')) : db.systemTx(fn)),
    };
    return { state, db: wrapped };
  }

  it('still answers at once, keeps the events and writes them once it is back', async () => {
    const faulty = failing();
    const other = await buildTestApp({}, { db: faulty.db });
    try {
      const { org, publishable } = await createTenant(other);
      const send = (type: string) =>
        api(other, 'POST', '/v1/events', { key: publishable.key, body: { type } });
      // Warms the key cache, so the request below needs no system transaction.
      expectStatus(await send('PAGE_VIEW'), 200);
      await other.analytics.flush();

      faulty.state.down = true;
      expect(expectStatus(await send('SEARCH'), 200)).toStrictEqual({ data: { success: true } });
      await expect(other.analytics.flush()).rejects.toThrow('database unreachable');
      expect(other.analytics.pending).toBe(1);

      faulty.state.down = false;
      await other.analytics.flush();
      expect(other.analytics.pending).toBe(0);
      expect((await rawEvents(org.id)).map((r) => r.type)).toEqual(['PAGE_VIEW', 'SEARCH']);
    } finally {
      faulty.state.down = false;
      await other.close();
    }
  });

  it('drops the oldest events beyond its cap and retries in the background without crashing', async () => {
    const faulty = failing();
    const { org } = await createTenant(app);
    const writer = new AnalyticsWriter(faulty.db, app.log, {
      batchSize: 2,
      flushIntervalMs: 20,
      maxBuffered: 3,
    });
    faulty.state.down = true;
    for (const referrer of ['1', '2', '3', '4', '5']) {
      writer.enqueue({
        organizationId: org.id,
        type: 'PAGE_VIEW',
        propertyId: null,
        referrer,
        occurredAt: new Date(),
      });
    }
    // The batch size started a write that failed; the timer keeps ticking (with a back-off).
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(writer.pending).toBe(3);
    expect(writer.dropped).toBe(2);

    faulty.state.down = false;
    await writer.close();
    expect((await rawEvents(org.id)).map((r) => r.referrer)).toEqual(['3', '4', '5']);
  });
});

describe('recordAnalyticsEventInTx (for features that count an event inside their own write)', () => {
  it("counts with the caller's transaction and rolls back with it", async () => {
    const { org } = await createTenant(app);
    const property = await createProperty(app, org.id);
    await db.tenantTx(org.id, (tx) =>
      recordAnalyticsEventInTx(tx, org.id, { type: 'LEAD_FORM', propertyId: property.id }),
    );
    await expect(
      db.tenantTx(org.id, async (tx) => {
        await recordAnalyticsEventInTx(tx, org.id, { type: 'LEAD_FORM', propertyId: property.id });
        throw new Error('the lead failed');
      }),
    ).rejects.toThrow('the lead failed');
    expect((await rawEvents(org.id)).map((r) => [r.type, r.property_id])).toEqual([
      ['LEAD_FORM', property.id],
    ]);
    expect(await daily(org.id)).toEqual([
      { day: today(), propertyId: property.id, type: 'LEAD_FORM', count: 1 },
    ]);
    const { data } = expectStatus(await report(org.id), 200);
    expect(data.totals.LEAD_FORM).toBe(1);
  });

  it("cannot write another organization's rows (RLS)", async () => {
    const mine = await createTenant(app);
    const theirs = await createTenant(app);
    await expect(
      db.tenantTx(mine.org.id, (tx) => recordAnalyticsEventInTx(tx, theirs.org.id, { type: 'PAGE_VIEW' })),
    ).rejects.toThrow();
    expect(await rawEvents(theirs.org.id)).toEqual([]);
  });
});
