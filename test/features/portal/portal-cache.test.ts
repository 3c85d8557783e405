/**
 * Cacheable portal reads (decision 0225): strong ETags, If-None-Match -> 304, Cache-Control and Vary
 * on every publishable GET, and the in-process response cache that never answers stale: every write
 * the portal shows bumps the organization's portal version in its own transaction, and each app
 * (each process has its own cache) reads that version before answering from its cache.
 */
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createAgent,
  createApiKey,
  createProperty,
  createTenant,
  type Tenant,
} from '../../helpers/factories.ts';
import { admin, api, expectStatus } from '../../helpers/http.ts';
import { buildTestApp, testDatabase } from '../../helpers/test-app.ts';
import { withReadProbe } from '../../../src/db/read-probe.ts';
import { PORTAL_VERSION_STATEMENT } from '../../../src/platform/http/response-cache.ts';

let one: FastifyInstance;
let two: FastifyInstance;
let uncached: FastifyInstance;
let tenant: Tenant;

const PORTAL_ROUTES = [
  '/v1/properties?city=malaga&sortBy=price',
  '/v1/properties/featured',
  '/v1/filters',
  '/v1/agents',
  '/v1/portal',
];

async function metric(app: FastifyInstance, result: string): Promise<number> {
  const response = await app.inject({
    method: 'GET',
    url: '/metrics',
    headers: { authorization: 'Bearer test-admin-token-0123456789' },
  });
  const line = response.body
    .split('\n')
    .find((text) => text.startsWith(`portal_cache_requests_total{result="${result}"}`));
  return line === undefined ? 0 : Number(line.split(' ').pop());
}

const get = (app: FastifyInstance, url: string, key: string, headers: Record<string, string> = {}) =>
  api(app, 'GET', url, { key, headers });

function expectCacheHeaders(response: LightMyRequestResponse, visibility: 'public' | 'private') {
  expect(response.headers.etag).toMatch(/^"[A-Za-z0-9_-]{22}"$/);
  expect(response.headers['cache-control']).toBe(`${visibility}, max-age=30`);
  expect(response.headers.vary).toBe('X-API-Key, Accept-Language');
}

beforeAll(async () => {
  // Two apps on one database stand for two processes: each has its own in-process cache.
  one = await buildTestApp();
  two = await buildTestApp();
  uncached = await buildTestApp({ PORTAL_CACHE_SIZE_MB: '0' });
  tenant = await createTenant(one);
  await createAgent(one, tenant.org.id);
  await createProperty(one, tenant.org.id, { featured: true, price: 300000 });
  await createProperty(one, tenant.org.id, { price: 200000 });
});
afterAll(async () => {
  await Promise.all([one.close(), two.close(), uncached.close()]);
});

describe('HTTP caching headers', () => {
  it('every publishable GET carries a strong ETag, Cache-Control and Vary, and answers 304 to a matching If-None-Match', async () => {
    const property = await createProperty(one, tenant.org.id, { price: 210000 });
    for (const url of [...PORTAL_ROUTES, `/v1/properties/${property.id}`]) {
      const first = await get(one, url, tenant.publishable.key);
      expect(first.statusCode, `${url}: ${first.body}`).toBe(200);
      expectCacheHeaders(first, 'public');
      const etag = first.headers.etag as string;

      const again = await get(one, url, tenant.publishable.key, { 'if-none-match': etag });
      expect(again.statusCode, url).toBe(304);
      expect(again.body).toBe('');
      expect(again.headers.etag).toBe(etag);
      expectCacheHeaders(again, 'public');
      // A list of validators, a weak form of the same one, and `*` match too; another does not.
      for (const header of [`"other", ${etag}`, `W/${etag}`, '*']) {
        expect((await get(one, url, tenant.publishable.key, { 'if-none-match': header })).statusCode).toBe(
          304,
        );
      }
      // fetch() sends Cache-Control: no-cache with any conditional request: the validator still decides.
      const fromFetch = { 'if-none-match': etag, 'cache-control': 'no-cache', pragma: 'no-cache' };
      expect((await get(one, url, tenant.publishable.key, fromFetch)).statusCode).toBe(304);
      const other = await get(one, url, tenant.publishable.key, { 'if-none-match': '"other"' });
      expect(other.statusCode).toBe(200);
      expect(other.body).toBe(first.body);
    }
  });

  it('a secret key reading the portal gets a private Cache-Control; errors and other routes carry none', async () => {
    const response = await get(one, '/v1/portal', tenant.secret.key);
    expect(response.statusCode).toBe(200);
    expectCacheHeaders(response, 'private');
    const missing = await get(one, '/v1/properties/prop_0000000000000000000000', tenant.publishable.key);
    expect(missing.statusCode).toBe(404);
    expect(missing.headers.etag).toBeUndefined();
    expect(missing.headers['cache-control']).toBeUndefined();
    const me = await get(one, '/v1/me', tenant.secret.key);
    expect(me.headers.etag).toBeUndefined();
  });

  it('the ETag is the same from every process while the body is, and a 304 is never sent once it changed', async () => {
    const url = '/v1/properties?sortBy=price';
    const before = await get(one, url, tenant.publishable.key);
    expect((await get(two, url, tenant.publishable.key)).headers.etag).toBe(before.headers.etag);
    expect((await get(uncached, url, tenant.publishable.key)).headers.etag).toBe(before.headers.etag);

    const added = await createProperty(two, tenant.org.id, { price: 1000 });
    for (const app of [one, two, uncached]) {
      const after = await get(app, url, tenant.publishable.key, {
        'if-none-match': before.headers.etag as string,
      });
      expect(after.statusCode).toBe(200);
      expect(after.headers.etag).not.toBe(before.headers.etag);
      expect(after.json().data[0].id).toBe(added.id);
    }
  });

  it('a 304 still counts against the rate limit', async () => {
    const limited = await createApiKey(one, tenant.org.id, { type: 'publishable', rateLimitPerMinute: 3 });
    const first = await get(one, '/v1/portal', limited.key);
    const etag = first.headers.etag as string;
    const second = await get(one, '/v1/portal', limited.key, { 'if-none-match': etag });
    expect(second.statusCode).toBe(304);
    expect(Number(second.headers['x-ratelimit-remaining'])).toBe(
      Number(first.headers['x-ratelimit-remaining']) - 1,
    );
    await get(one, '/v1/portal', limited.key, { 'if-none-match': etag });
    expect((await get(one, '/v1/portal', limited.key, { 'if-none-match': etag })).statusCode).toBe(429);
  });
});

describe('the in-process cache', () => {
  it('answers a repeated request from the cache, and a write the portal shows from the database again', async () => {
    const property = await createProperty(one, tenant.org.id, { price: 123456 });
    const url = `/v1/properties/${property.id}`;
    const hits = await metric(one, 'hit');
    const first = await get(one, url, tenant.publishable.key);
    const second = await get(one, url, tenant.publishable.key);
    expect(second.body).toBe(first.body);
    expect(await metric(one, 'hit')).toBe(hits + 1);

    expectStatus(
      await admin(one, 'PATCH', `/admin/v1/organizations/${tenant.org.id}/properties/${property.id}`, {
        price: 99000,
      }),
      200,
    );
    const third = await get(one, url, tenant.publishable.key);
    expect(third.json().data.price).toBe(99000);
    expect(await metric(one, 'hit')).toBe(hits + 1);
  });

  it('never answers stale through a second process after a committed write, whatever the route', async () => {
    const org = tenant.org.id;
    const property = await createProperty(one, org, { price: 500000, featured: true, city: 'Sevilla' });
    const agent = await createAgent(one, org, { firstName: 'Marta' });
    const changes: Array<{ url: string; write: () => Promise<unknown>; shows: (body: string) => boolean }> = [
      {
        url: `/v1/properties/${property.id}`,
        write: () =>
          admin(one, 'PATCH', `/admin/v1/organizations/${org}/properties/${property.id}`, { price: 480000 }),
        shows: (body) => JSON.parse(body).data.price === 480000,
      },
      {
        url: '/v1/properties/featured',
        write: () =>
          admin(one, 'PATCH', `/admin/v1/organizations/${org}/properties/${property.id}`, {
            featured: false,
          }),
        shows: (body) => !JSON.parse(body).data.some((item: { id: string }) => item.id === property.id),
      },
      {
        url: '/v1/filters',
        write: () => createProperty(one, org, { city: 'Cádiz' }),
        shows: (body) =>
          JSON.parse(body).data.cities.some((city: { value: string }) => city.value === 'Cádiz'),
      },
      {
        url: '/v1/agents',
        write: () =>
          admin(one, 'PATCH', `/admin/v1/organizations/${org}/agents/${agent.id}`, { firstName: 'Marina' }),
        shows: (body) =>
          JSON.parse(body).data.some((item: { firstName: string }) => item.firstName === 'Marina'),
      },
      {
        url: '/v1/portal',
        write: () =>
          admin(one, 'PATCH', `/admin/v1/organizations/${org}/portal-settings`, { agencyName: 'Casa Nueva' }),
        shows: (body) => JSON.parse(body).data.agencyName === 'Casa Nueva',
      },
      {
        url: '/v1/portal',
        write: () =>
          admin(one, 'PATCH', `/admin/v1/organizations/${org}/portal-settings`, { defaultCurrency: 'GBP' }),
        shows: (body) => JSON.parse(body).data.defaultCurrency === 'GBP',
      },
      {
        url: '/v1/properties?city=sevilla',
        write: () => admin(one, 'DELETE', `/admin/v1/organizations/${org}/properties/${property.id}`),
        shows: (body) => JSON.parse(body).data.length === 0,
      },
    ];
    for (const change of changes) {
      // Both caches warm, then the write through one, then the read through the other.
      const before = await get(two, change.url, tenant.publishable.key);
      await get(two, change.url, tenant.publishable.key);
      await get(one, change.url, tenant.publishable.key);
      expect(change.shows(before.body), `${change.url} already shows the change`).toBe(false);
      const written = (await change.write()) as LightMyRequestResponse | object;
      if ('statusCode' in written) expect(written.statusCode, written.body).toBeLessThan(300);
      const after = await get(two, change.url, tenant.publishable.key);
      expect(after.statusCode).toBe(200);
      expect(change.shows(after.body), `${change.url}: ${after.body}`).toBe(true);
    }
  });

  it('never shares an entry between organizations, or between an organization and its test twin', async () => {
    const other = await createTenant(one);
    const twinKey = (await createApiKey(one, tenant.org.id, { type: 'publishable', mode: 'test' })).key;
    const url = '/v1/properties?sortBy=price';
    const mine = await get(one, url, tenant.publishable.key);
    const theirs = await get(one, url, other.publishable.key);
    const twin = await get(one, url, twinKey);
    expect(mine.json().meta.total).toBeGreaterThan(0);
    expect(theirs.json()).toMatchObject({ data: [], meta: { total: 0 } });
    expect(twin.json()).toMatchObject({ data: [], meta: { total: 0 } });
    // Same answers again, now from the cache, still each organization's own.
    expect((await get(one, url, other.publishable.key)).body).toBe(theirs.body);
    expect((await get(one, url, tenant.publishable.key)).body).toBe(mine.body);
    expect((await get(one, url, twinKey)).body).toBe(twin.body);
  });

  it('keys entries by the validated query: equivalent spellings share one, different filters do not', async () => {
    const hits = await metric(one, 'hit');
    const base = await get(one, '/v1/properties?sortBy=price&priceMax=900000', tenant.publishable.key);
    const reordered = await get(
      one,
      '/v1/properties?priceMax=900000&sortBy=price&page=1',
      tenant.publishable.key,
    );
    expect(reordered.body).toBe(base.body);
    expect(await metric(one, 'hit')).toBe(hits + 1);
    const narrower = await get(one, '/v1/properties?sortBy=price&priceMax=250000', tenant.publishable.key);
    expect(narrower.json().meta.total).toBeLessThan(base.json().meta.total);
  });

  it('the version a read transaction reports is the one its data was read at', async () => {
    const db = await testDatabase();
    const seen: string[] = [];
    const probe = {
      statement: PORTAL_VERSION_STATEMENT,
      seen: (rows: readonly Record<string, unknown>[]) => seen.push(String(rows[0]?.version)),
    };
    const readVersion = async () =>
      (await db.readStatement<{ version: string }>(tenant.org.id, PORTAL_VERSION_STATEMENT))[0]?.version;
    const before = await readVersion();
    await withReadProbe(probe, () => db.readTx(tenant.org.id, async () => undefined));
    await createProperty(one, tenant.org.id);
    const after = await readVersion();
    await withReadProbe(probe, () => db.readTx(tenant.org.id, async () => undefined));
    expect(seen).toEqual([before, after]);
    expect(Number(after)).toBeGreaterThan(Number(before));
    // Writes and other organizations' reads are not probed; a write transaction reports nothing.
    await withReadProbe(probe, () => db.tenantTx(tenant.org.id, async () => undefined));
    expect(seen).toHaveLength(2);
  });
});
