/**
 * One test per bug the hostile-input fuzz (openapi-fuzz.test.ts, raw-http.test.ts) found, as the
 * smallest request that showed it. Each was a 500, a changed value or a non-envelope answer before
 * its fix (docs/reliability.md "Hostile input: what it found").
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_AMOUNT } from '../../src/platform/http/schemas.ts';
import { createPipeline } from '../features/deals/support.ts';
import { createProperty, createTenant, type Tenant } from '../helpers/factories.ts';
import { admin, api, expectError, expectStatus } from '../helpers/http.ts';
import { ADMIN_TOKEN, buildTestApp } from '../helpers/test-app.ts';

let app: FastifyInstance;
let tenant: Tenant;
let contactId: string;

beforeAll(async () => {
  app = await buildTestApp();
  tenant = await createTenant(app, { secret: { rateLimitPerMinute: 100_000, writeLimitPerMinute: 100_000 } });
  const contact = await admin(app, 'POST', `/admin/v1/organizations/${tenant.org.id}/contacts`, {
    firstName: 'Ana',
  });
  contactId = expectStatus(contact, 201).data.id;
});
afterAll(async () => {
  await app.close();
});

const postJson = (url: string, payload: string | Buffer, key = tenant.secret.key) =>
  app.inject({
    method: 'POST',
    url,
    payload,
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
  });

describe('refusals before routing answer in the envelope', () => {
  it('answers a path that is not valid percent-encoded UTF-8 with 400 VALIDATION_ERROR and X-Request-Id', async () => {
    // Was Fastify's own {"error":"Bad Request","code":"FST_ERR_BAD_URL",...} without a request id.
    for (const url of ['/v1/contacts/%ED%A0%80', '/v1/contacts/%E0%A4%A', '/v1/contacts/%']) {
      const error = expectError(
        await api(app, 'GET', url, { key: tenant.secret.key }),
        400,
        'VALIDATION_ERROR',
      );
      expect(error.message).toBe('path is not valid percent-encoded UTF-8');
    }
  });

  it('answers a path parameter over 100 characters with 400 VALIDATION_ERROR', async () => {
    // Was Fastify's own 414 body (FST_ERR_MAX_PARAM_LENGTH).
    const response = await api(app, 'GET', `/v1/contacts/${'a'.repeat(101)}`, { key: tenant.secret.key });
    expect(expectError(response, 400, 'VALIDATION_ERROR').message).toBe(
      'path has a parameter longer than 100 characters',
    );
  });
});

describe('text the database cannot store as sent', () => {
  it('refuses a JSON body that is not valid UTF-8 (was stored with U+FFFD in place of the bytes)', async () => {
    const body = Buffer.concat([Buffer.from('{"firstName":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]);
    const error = expectError(await postJson('/v1/contacts', body), 400, 'VALIDATION_ERROR');
    expect(error.details).toEqual([{ field: 'body', message: 'is not valid UTF-8' }]);
  });

  it('refuses a lone surrogate in a jsonb key or value (was a 500 from PostgreSQL)', async () => {
    for (const props of ['{"\\ud800":[""]}', '{"a":"\\udfff"}']) {
      const response = await postJson(
        '/v1/usage/events',
        `{"name":"x","props":${props},"contactId":"${contactId}"}`,
      );
      const error = expectError(response, 400, 'VALIDATION_ERROR');
      expect(error.message).toMatch(/^body\.props(\.a)? must be well-formed Unicode/);
    }
  });

  it('refuses a lone surrogate in a text field (was silently stored as U+FFFD)', async () => {
    const error = expectError(
      await postJson('/v1/contacts', '{"firstName":"a\\ud800b"}'),
      400,
      'VALIDATION_ERROR',
    );
    expect(error.details).toEqual([
      { field: 'body.firstName', message: 'must be well-formed Unicode (it holds a lone surrogate)' },
    ]);
    // A valid pair is one character, not a surrogate: accepted.
    expectStatus(await postJson('/v1/contacts', '{"firstName":"Ana \\ud83d\\ude00"}'), 201);
  });
});

describe('numbers', () => {
  it.each(['pageSize=1e309', 'page=Infinity', 'pageSize=-1e309'])(
    'refuses %s: coerced to a non-finite number it passed minimum/maximum and reached SQL (a 500)',
    async (query) => {
      const response = await api(app, 'GET', `/v1/contacts?${query}`, { key: tenant.secret.key });
      const field = query.split('=')[0] as string;
      expect(expectError(response, 400, 'VALIDATION_ERROR').details).toEqual([
        { field: `query.${field}`, message: 'must be a finite number' },
      ]);
    },
  );

  it('refuses amounts a numeric(14,2) column cannot hold (10^12 was accepted and overflowed: a 500)', async () => {
    const orgPath = `/admin/v1/organizations/${tenant.org.id}`;
    const pipeline = await createPipeline(app, tenant.org.id);
    const refused = [
      await api(app, 'POST', '/v1/contacts', {
        key: tenant.secret.key,
        body: { firstName: 'Ana', budget: 1e12 },
      }),
      await api(app, 'POST', '/v1/finder', {
        key: tenant.publishable.key,
        body: { firstName: 'Ana', phone: '+34612000001', budgetMax: 1e12 },
      }),
      await admin(app, 'POST', `${orgPath}/properties`, {
        code: 'MAX-1',
        title: 'Top',
        transactionType: 'SALE',
        type: 'APARTMENT',
        price: 1e12,
        city: 'Madrid',
      }),
      await admin(app, 'POST', `${orgPath}/deals`, {
        title: 'Big',
        contactId,
        pipelineId: pipeline.id,
        value: 1e12,
      }),
      await admin(app, 'POST', `${orgPath}/deals`, {
        title: 'Big',
        contactId,
        pipelineId: pipeline.id,
        saasMrrAmount: 1e12,
      }),
    ];
    for (const response of refused) {
      expect(expectError(response, 400, 'VALIDATION_ERROR').message).toMatch(/must be <= 999999999999\.99/);
    }
    // The largest amount is stored as sent.
    const created = await api(app, 'POST', '/v1/contacts', {
      key: tenant.secret.key,
      body: { firstName: 'Ana', budget: MAX_AMOUNT },
    });
    expect(expectStatus(created, 201).data.budget).toBe(MAX_AMOUNT);
    const property = await createProperty(app, tenant.org.id, { price: MAX_AMOUNT });
    expect(property.price).toBe(MAX_AMOUNT);
  });
});

describe('lists past their last page', () => {
  it('counts an empty page past the first with array filters (two amenities, a transaction type: was a 500)', async () => {
    // The count of an empty page is compiled with the values inline, where Drizzle expanded an
    // array into a list `($1, $2)::text[]` ("cannot cast type record to text[]").
    const portal = await createTenant(app);
    await createProperty(app, portal.org.id, {
      transactionType: 'SALE',
      amenities: ['pool', 'garden'],
      status: 'ACTIVE',
      publishedOnPortal: true,
    });
    for (const query of [
      'hasPool=true&hasGarden=true',
      'transactionType=SALE',
      'transactionType=SALE&hasPool=true&hasGarden=true',
    ]) {
      const first = expectStatus(
        await api(app, 'GET', `/v1/properties?${query}`, { key: portal.publishable.key }),
        200,
      );
      expect(first.meta.total).toBe(1);
      const past = expectStatus(
        await api(app, 'GET', `/v1/properties?${query}&page=2`, { key: portal.publishable.key }),
        200,
      );
      expect(past.data).toEqual([]);
      expect(past.meta).toMatchObject({ total: 1, page: 2, totalPages: 1 });
    }
  });
});

describe('JSON nested too deep', () => {
  it('refuses customFields nested deeper than 64 levels (thousands of levels were a 500)', async () => {
    const nested = (levels: number) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;
    const create = (customFields: string) =>
      app.inject({
        method: 'POST',
        url: `/admin/v1/organizations/${tenant.org.id}/properties`,
        payload: `{"code":"DEEP-${customFields.length}","title":"Deep","transactionType":"SALE","type":"APARTMENT","price":1,"city":"Madrid","customFields":${customFields}}`,
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      });
    expect(expectError(await create(nested(20_000)), 400, 'VALIDATION_ERROR').message).toBe(
      'body must not nest arrays and objects deeper than 64 levels',
    );
    // The body is level 1 and customFields level 2: 62 levels inside it are still accepted.
    expect((await create(nested(62))).statusCode).toBe(201);
  });

  it('refuses MCP messages nested deeper than 64 levels in the envelope (the SDK overflowed its stack: a JSON-RPC parse error)', async () => {
    const send = (payload: string) =>
      app.inject({
        method: 'POST',
        url: '/mcp',
        payload,
        headers: {
          authorization: `Bearer ${tenant.secret.key}`,
          accept: 'application/json, text/event-stream',
          'content-type': 'application/json',
        },
      });
    const deep = await send(`{"jsonrpc":"2.0","id":5,"result":{"a":${'['.repeat(5000)}${']'.repeat(5000)}}}`);
    expect(expectError(deep, 400, 'VALIDATION_ERROR').message).toBe(
      'body must not nest arrays and objects deeper than 64 levels',
    );
    // 64 levels in all (the message object is the first) are still handed to the SDK: a response is accepted.
    const deepest = await send(`{"jsonrpc":"2.0","id":5,"result":{"a":${'['.repeat(62)}${']'.repeat(62)}}}`);
    expect(deepest.statusCode).toBe(202);
  });
});
