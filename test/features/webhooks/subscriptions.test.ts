import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, createTenant, FAST, type Tenant } from '../../helpers/factories.ts';
import { admin, api, expectError, expectStatus } from '../../helpers/http.ts';
import { buildTestApp } from '../../helpers/test-app.ts';
import { MAX_SUBSCRIPTIONS } from '../../../src/features/webhooks/webhooks.schema.ts';
import { checkWebhookUrl } from '../../../src/features/webhooks/webhooks.ssrf.ts';
import { fakeDns, subscribe } from './support.ts';

const dns = fakeDns({
  'hooks.example.test': ['93.184.216.34'],
  'v6.example.test': ['2606:4700::1111'],
  'localhost.test': ['127.0.0.1'],
  'private.test': ['10.1.2.3'],
  'metadata.test': ['169.254.169.254'],
  'mixed.test': ['93.184.216.34', '192.168.1.10'],
  'ula.test': ['fd00::1'],
  'mapped.test': ['::ffff:127.0.0.1'],
});

let app: FastifyInstance;
let tenant: Tenant;

beforeAll(async () => {
  app = await buildTestApp({}, { lookup: dns });
  tenant = await createTenant(app, { secret: FAST });
});
afterAll(async () => {
  await app.close();
});

describe('POST /v1/webhooks', () => {
  it('creates a subscription and shows the secret only in that answer', async () => {
    const response = await api(app, 'POST', '/v1/webhooks', {
      key: tenant.secret.key,
      body: {
        url: 'https://hooks.example.test/agency',
        eventTypes: ['deal.won', 'contact.*'],
        description: 'CRM sync',
      },
    });
    const created = expectStatus(response, 201).data;
    expect(created).toMatchObject({
      url: 'https://hooks.example.test/agency',
      eventTypes: ['deal.won', 'contact.*'],
      description: 'CRM sync',
      enabled: true,
    });
    expect(created.id).toMatch(/^wh_/);
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/=]{44}$/);
    expect(Object.keys(created).sort()).toEqual(
      [
        'createdAt',
        'description',
        'disabledReason',
        'enabled',
        'eventTypes',
        'id',
        'previousSecretExpiresAt',
        'secret',
        'updatedAt',
        'url',
      ].sort(),
    );

    const fetched = expectStatus(
      await api(app, 'GET', `/v1/webhooks/${created.id}`, { key: tenant.secret.key }),
      200,
    ).data;
    expect(fetched.secret).toBeUndefined();
    const listed = expectStatus(await api(app, 'GET', '/v1/webhooks', { key: tenant.secret.key }), 200);
    expect(listed.data.map((w: { id: string }) => w.id)).toContain(created.id);
    expect(JSON.stringify(listed)).not.toContain(created.secret);
  });

  it('accepts exact types, object wildcards and *, and refuses anything outside the catalog with a 400', async () => {
    await subscribe(app, tenant.secret.key, 'https://hooks.example.test/all', ['*']);
    for (const [eventTypes, field] of [
      [['deal.exploded'], 'body.eventTypes[0]'],
      [['contact.created', 'dragon.*'], 'body.eventTypes[1]'],
      [['deal'], 'body.eventTypes[0]'],
      [['contact.**'], 'body.eventTypes[0]'],
    ] as const) {
      const error = expectError(
        await api(app, 'POST', '/v1/webhooks', {
          key: tenant.secret.key,
          body: { url: 'https://hooks.example.test/x', eventTypes },
        }),
        400,
        'VALIDATION_ERROR',
      );
      expect(error.details?.[0]?.field).toBe(field);
    }
    expectError(
      await api(app, 'POST', '/v1/webhooks', {
        key: tenant.secret.key,
        body: { url: 'https://hooks.example.test/x', eventTypes: [] },
      }),
      400,
      'VALIDATION_ERROR',
    );
  });

  it('refuses URLs that are not public https, naming body.url (the SSRF matrix at creation)', async () => {
    const refused = [
      'http://hooks.example.test/plain-http',
      'ftp://hooks.example.test/',
      'not a url',
      'https://user:pass@hooks.example.test/',
      'https://127.0.0.1/',
      'https://127.1.2.3/',
      'https://2130706433/',
      'https://0x7f.1/',
      'https://0.0.0.0/',
      'https://10.0.0.1/',
      'https://172.16.5.4/',
      'https://192.168.0.1/',
      'https://169.254.169.254/latest/meta-data/',
      'https://100.64.0.1/',
      'https://224.0.0.1/',
      'https://255.255.255.255/',
      'https://[::1]/',
      'https://[::]/',
      'https://[fe80::1]/',
      'https://[fd00::1]/',
      'https://[ff02::1]/',
      'https://[::ffff:127.0.0.1]/',
      'https://[::ffff:10.0.0.1]/',
      'https://[64:ff9b::7f00:1]/',
      'https://[2002:7f00:1::]/',
      'https://localhost.test/',
      'https://private.test/',
      'https://metadata.test/',
      'https://mixed.test/',
      'https://ula.test/',
      'https://mapped.test/',
      'https://does-not-resolve.test/',
    ];
    for (const url of refused) {
      const response = await api(app, 'POST', '/v1/webhooks', {
        key: tenant.secret.key,
        body: { url, eventTypes: ['*'] },
      });
      const error = expectError(response, 400, 'VALIDATION_ERROR');
      expect(error.details?.[0]?.field, url).toBe('body.url');
    }
    for (const url of [
      'https://hooks.example.test/ok',
      'https://93.184.216.34/ok',
      'https://[2606:4700::1111]/ok',
      'https://v6.example.test/ok',
    ]) {
      expectStatus(
        await api(app, 'POST', '/v1/webhooks', { key: tenant.secret.key, body: { url, eventTypes: ['*'] } }),
        201,
      );
    }
  });

  it('admits http:// and private targets when WEBHOOK_ALLOW_PRIVATE_URLS=true', async () => {
    // The same check the route runs; delivery.test.ts subscribes http://127.0.0.1 through the API
    // of an app started with the flag.
    for (const url of ['http://127.0.0.1:9/hook', 'https://10.0.0.1/', 'http://localhost.test/']) {
      expect(await checkWebhookUrl(url, { allowPrivate: true, lookup: dns })).toBe(new URL(url).toString());
    }
    await expect(checkWebhookUrl('ftp://127.0.0.1/', { allowPrivate: true })).rejects.toThrow(/body.url/);
  });

  it('needs webhooks:write and access level 3 on a secret key', async () => {
    const plain = await createApiKey(app, tenant.org.id, { type: 'secret' });
    expectError(
      await api(app, 'POST', '/v1/webhooks', {
        key: plain.key,
        body: { url: 'https://hooks.example.test/', eventTypes: ['*'] },
      }),
      403,
      'FORBIDDEN',
    );
    const level1 = await createApiKey(app, tenant.org.id, {
      type: 'secret',
      scopes: ['webhooks:write'],
      accessLevel: 1,
    });
    expectError(await api(app, 'GET', '/v1/webhooks', { key: level1.key }), 403, 'FORBIDDEN');
  });

  it(`caps an organization at ${MAX_SUBSCRIPTIONS} subscriptions with a 403`, async () => {
    const capped = await createTenant(app, { secret: FAST });
    for (let i = 0; i < MAX_SUBSCRIPTIONS; i++)
      await subscribe(app, capped.secret.key, `https://hooks.example.test/${i}`);
    const error = expectError(
      await api(app, 'POST', '/v1/webhooks', {
        key: capped.secret.key,
        body: { url: 'https://hooks.example.test/x', eventTypes: ['*'] },
      }),
      403,
      'FORBIDDEN',
    );
    expect(error.message).toContain(String(MAX_SUBSCRIPTIONS));
  });
});

describe('changing a subscription', () => {
  it('PATCHes url, eventTypes, description and enabled, checking them like creation', async () => {
    const created = await subscribe(app, tenant.secret.key, 'https://hooks.example.test/patch', ['deal.won']);
    const patched = expectStatus(
      await api(app, 'PATCH', `/v1/webhooks/${created.id}`, {
        key: tenant.secret.key,
        body: {
          url: 'https://v6.example.test/new',
          eventTypes: ['contact.*'],
          description: 'changed',
          enabled: false,
        },
      }),
      200,
    ).data;
    expect(patched).toMatchObject({
      url: 'https://v6.example.test/new',
      eventTypes: ['contact.*'],
      description: 'changed',
      enabled: false,
    });
    expectError(
      await api(app, 'PATCH', `/v1/webhooks/${created.id}`, {
        key: tenant.secret.key,
        body: { url: 'https://localhost.test/' },
      }),
      400,
      'VALIDATION_ERROR',
    );
    expectError(
      await api(app, 'PATCH', `/v1/webhooks/${created.id}`, { key: tenant.secret.key, body: {} }),
      400,
      'VALIDATION_ERROR',
    );
  });

  it('rotates the secret: a new one, shown once, the old one signing for 24 hours', async () => {
    const created = await subscribe(app, tenant.secret.key, 'https://hooks.example.test/rotate');
    const rotated = expectStatus(
      await api(app, 'POST', `/v1/webhooks/${created.id}/rotate-secret`, { key: tenant.secret.key }),
      200,
    ).data;
    expect(rotated.secret).not.toBe(created.secret);
    const overlapEnds = Date.parse(rotated.previousSecretExpiresAt);
    expect(Math.abs(overlapEnds - Date.now() - 24 * 3600_000)).toBeLessThan(60_000);
  });

  it('DELETEs a subscription; it is gone afterwards', async () => {
    const created = await subscribe(app, tenant.secret.key, 'https://hooks.example.test/delete');
    expectStatus(await api(app, 'DELETE', `/v1/webhooks/${created.id}`, { key: tenant.secret.key }), 200);
    expectError(
      await api(app, 'GET', `/v1/webhooks/${created.id}`, { key: tenant.secret.key }),
      404,
      'NOT_FOUND',
    );
  });

  it("never shows or changes another organization's subscriptions", async () => {
    const created = await subscribe(app, tenant.secret.key, 'https://hooks.example.test/mine');
    const other = await createTenant(app, { secret: FAST });
    const list = expectStatus(await api(app, 'GET', '/v1/webhooks', { key: other.secret.key }), 200);
    expect(list.data).toEqual([]);
    for (const [method, url] of [
      ['GET', `/v1/webhooks/${created.id}`],
      ['DELETE', `/v1/webhooks/${created.id}`],
      ['POST', `/v1/webhooks/${created.id}/rotate-secret`],
      ['POST', `/v1/webhooks/${created.id}/test`],
      ['GET', `/v1/webhooks/${created.id}/deliveries`],
    ] as const) {
      expectError(await api(app, method, url, { key: other.secret.key }), 404, 'NOT_FOUND');
    }
  });
});

describe('GET /v1/webhooks/sample/{type}', () => {
  it('answers a synthetic envelope before any event, then the last real one', async () => {
    const fresh = await createTenant(app, { secret: FAST });
    const synthetic = expectStatus(
      await api(app, 'GET', '/v1/webhooks/sample/contact.created', { key: fresh.secret.key }),
      200,
    );
    expect(synthetic.meta).toEqual({ synthetic: true });
    expect(synthetic.data).toMatchObject({
      id: 'evt_sample',
      type: 'contact.created',
      organizationId: fresh.org.id,
      livemode: true,
    });
    expect(synthetic.data.data.contact.id).toBeNull();

    const contact = await admin(app, 'POST', `/admin/v1/organizations/${fresh.org.id}/contacts`, {
      firstName: 'Ana',
      phone: '+34600111222',
    });
    expectStatus(contact, 201);
    const real = expectStatus(
      await api(app, 'GET', '/v1/webhooks/sample/contact.created', { key: fresh.secret.key }),
      200,
    );
    expect(real.meta).toEqual({ synthetic: false });
    expect(real.data.id).toMatch(/^evt_/);
    expect(real.data.data.contact.id).toBe(contact.json().data.id);
  });

  it('gives a test key livemode false and 404 for a type outside the catalog', async () => {
    const testKey = await createApiKey(app, tenant.org.id, {
      type: 'secret',
      mode: 'test',
      scopes: ['webhooks:write'],
      accessLevel: 3,
    });
    const sample = expectStatus(
      await api(app, 'GET', '/v1/webhooks/sample/deal.won', { key: testKey.key }),
      200,
    );
    expect(sample.data.livemode).toBe(false);
    expectError(
      await api(app, 'GET', '/v1/webhooks/sample/deal.exploded', { key: tenant.secret.key }),
      404,
      'NOT_FOUND',
    );
  });
});

describe('GET /v1/events', () => {
  it('lists the webhook event types with their example and schema', async () => {
    const catalog = expectStatus(await api(app, 'GET', '/v1/events', { key: tenant.secret.key }), 200);
    const types = catalog.data.map((entry: { type: string }) => entry.type);
    expect(types).toEqual(
      expect.arrayContaining([
        'webhook.test',
        'webhook.disabled',
        'deal.won',
        'contact.created',
        'lead.submitted',
      ]),
    );
  });
});

describe('eventTypes in the schema', () => {
  it('lists the catalog types and the wildcards in the document, from the catalog', async () => {
    const document = expectStatus(await api(app, 'GET', '/v1/openapi.json'), 200);
    const [types, wildcards] = document.components.schemas.WebhookEventTypePattern.anyOf;
    expect(types.enum).toEqual(expect.arrayContaining(['deal.won', 'contact.created', 'lead.submitted']));
    expect(wildcards.enum).toEqual(expect.arrayContaining(['*', 'contact.*', 'deal.*']));
    expect(document.components.schemas.CreateWebhookBody.properties.eventTypes.items).toEqual({
      $ref: '#/components/schemas/WebhookEventTypePattern',
    });
  });

  it('refuses a pattern outside the catalog with one detail, and accepts the edge patterns', async () => {
    const error = expectError(
      await api(app, 'POST', '/v1/webhooks', {
        key: tenant.secret.key,
        body: { url: 'https://hooks.example.test/x', eventTypes: ['deal.won', 'deal.*.*'] },
      }),
      400,
      'VALIDATION_ERROR',
    );
    expect(error.details).toEqual([
      {
        field: 'body.eventTypes[1]',
        message:
          'is not an event type of the catalog (GET /v1/events), an object wildcard such as contact.* or *',
      },
    ]);
    await subscribe(app, tenant.secret.key, 'https://hooks.example.test/edge', ['webhook.test', 'webhook.*']);
  });
});
