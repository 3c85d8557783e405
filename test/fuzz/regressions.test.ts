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
import { buildTestApp } from '../helpers/test-app.ts';

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
