import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPES } from '../../../src/platform/auth/scopes.ts';
import {
  createAgent,
  createApiKey,
  createContact,
  createOrganization,
  createTenant,
  SPANISH_AGENCY,
  type SpanishAgency,
} from '../../helpers/factories.ts';
import { api, expectError, expectStatus } from '../../helpers/http.ts';
import { buildTestApp, testDatabase } from '../../helpers/test-app.ts';
import { eventsOf, expectCatalogShape, spanishPhone } from './support.ts';

let app: FastifyInstance;
let agency: SpanishAgency;
let other: SpanishAgency;

beforeAll(async () => {
  app = await buildTestApp();
  agency = await createTenant(app, SPANISH_AGENCY);
  other = await createTenant(app, SPANISH_AGENCY);
});
afterAll(async () => {
  await app.close();
});

type Result = { index: number; status: string; id: string | null; error: Record<string, unknown> | null };
type Batch = { results: Result[]; summary: Record<string, number> };

const batch = (body: unknown, key = agency.secret.key, headers: Record<string, string> = {}) =>
  api(app, 'POST', '/v1/contacts/batch', { key, body, headers });
const written = async (contacts: unknown[], key = agency.secret.key) =>
  expectStatus(await batch({ contacts }, key), 200).data as Batch;
const get = (id: string, key = agency.secret.key) => api(app, 'GET', `/v1/contacts/${id}`, { key });
const contactEvents = async (organizationId: string, id: string, type: string) =>
  (await eventsOf(organizationId, [type])).filter(
    (event) => (event.data as { contact: { id: string } }).contact.id === id,
  );

describe('POST /v1/contacts/batch: what each item does', () => {
  it('creates, updates, leaves unchanged and refuses items in one batch, with the events of each', async () => {
    const known = await createContact(app, agency, {
      via: 'api',
      body: {
        firstName: 'Known',
        externalId: 'crm-known',
        phone: spanishPhone().e164,
      },
    });
    const samePhone = spanishPhone();
    const same = await createContact(app, agency, {
      via: 'api',
      body: { firstName: 'Same', phone: samePhone.e164, tags: ['t'] },
    });
    const fresh = spanishPhone();
    const data = await written([
      { firstName: 'Fresh', phone: fresh.spaced, source: 'IMPORT', tags: ['import'] },
      { firstName: 'Known', externalId: 'crm-known', status: 'QUALIFIED', lastName: 'Person' },
      { firstName: 'Same', phone: samePhone.international, tags: ['t'] },
      { firstName: 'Bad phone', phone: '12345678901' },
      { firstName: 'Unknown field', nickname: 'x' },
    ]);

    expect(data.summary).toStrictEqual({ created: 1, updated: 1, unchanged: 1, failed: 2 });
    const [created, updated, unchanged, badPhone, unknownField] = data.results;
    expect(created).toStrictEqual({
      index: 0,
      status: 'created',
      id: expect.stringMatching(/^ct_/),
      error: null,
    });
    expect(updated).toStrictEqual({ index: 1, status: 'updated', id: known.id, error: null });
    expect(unchanged).toStrictEqual({ index: 2, status: 'unchanged', id: same.id, error: null });
    expect(badPhone).toStrictEqual({
      index: 3,
      status: 'error',
      id: null,
      error: {
        code: 'VALIDATION_ERROR',
        message: expect.stringContaining('body.contacts[3].phone is not a valid phone number'),
        details: [{ field: 'body.contacts[3].phone', message: expect.stringContaining('not a valid phone') }],
      },
    });
    expect(unknownField?.error).toStrictEqual({
      code: 'VALIDATION_ERROR',
      message: 'body.contacts[4].nickname is not allowed',
      details: [{ field: 'body.contacts[4].nickname', message: 'is not allowed' }],
    });

    // The database holds what the results say.
    const createdContact = expectStatus(await get(created?.id as string), 200).data;
    expect(createdContact).toMatchObject({
      firstName: 'Fresh',
      phone: fresh.e164,
      source: 'IMPORT',
      tags: ['import'],
    });
    const updatedContact = expectStatus(await get(known.id), 200).data;
    expect(updatedContact).toMatchObject({ lastName: 'Person', status: 'QUALIFIED', phone: known.phone });
    expect(expectStatus(await get(same.id), 200).data).toStrictEqual(same);
    const listed = await api(app, 'GET', '/v1/contacts', {
      key: agency.secret.key,
      query: { q: 'Bad phone' },
    });
    expect(expectStatus(listed, 200).meta.total).toBe(0);

    // The events the single routes record, one per item that wrote, none for the unchanged one.
    const createdEvents = await contactEvents(agency.org.id, createdContact.id, 'contact.created');
    expect(createdEvents.map((event) => event.data)).toStrictEqual([{ contact: createdContact }]);
    expect(createdEvents[0]?.actor).toStrictEqual({ kind: 'API', userId: null });
    expectCatalogShape('contact.created', createdEvents[0]?.data);
    const updatedEvents = await contactEvents(agency.org.id, known.id, 'contact.updated');
    expect(updatedEvents.map((event) => event.data)).toStrictEqual([
      { contact: updatedContact, changes: ['lastName', 'status'] },
    ]);
    expect(await contactEvents(agency.org.id, same.id, 'contact.updated')).toHaveLength(0);
  });

  it('matches by externalId, then phone, then email, and keeps the duplicate rules of a single write', async () => {
    const byExternal = await createContact(app, agency, {
      via: 'api',
      body: { firstName: 'Ext', externalId: 'ord-ext' },
    });
    const phone = spanishPhone();
    const byPhone = await createContact(app, agency, {
      via: 'api',
      body: { firstName: 'Pho', phone: phone.e164 },
    });
    const byEmail = await createContact(app, agency, {
      via: 'api',
      body: { firstName: 'Ema', email: 'order.email@example.com' },
    });

    const data = await written([
      // externalId wins over the phone: the phone belongs to another contact, so the change is a duplicate.
      { firstName: 'Ext', externalId: 'ord-ext', phone: phone.spaced },
      // The phone wins over the email: that contact cannot take another contact's email.
      { firstName: 'Pho', phone: phone.international, email: 'ORDER.email@example.com' },
      // No contact has this externalId or a phone: the email (any case) names the contact.
      { firstName: 'Ema', externalId: 'ord-new', email: 'Order.Email@Example.com' },
      // An unknown externalId falls through to the phone.
      { firstName: 'Pho', externalId: 'ord-pho', phone: phone.e164 },
    ]);
    expect(data.results.map((result) => [result.status, result.id])).toStrictEqual([
      ['error', null],
      ['error', null],
      ['updated', byEmail.id],
      ['updated', byPhone.id],
    ]);
    expect(data.results[0]?.error).toMatchObject({ code: 'DUPLICATE', existingId: byPhone.id });
    expect(data.results[1]?.error).toMatchObject({ code: 'DUPLICATE', existingId: byEmail.id });
    expect(expectStatus(await get(byEmail.id), 200).data).toMatchObject({
      externalId: 'ord-new',
      email: 'Order.Email@Example.com',
    });
    expect(expectStatus(await get(byPhone.id), 200).data.externalId).toBe('ord-pho');
    expect(expectStatus(await get(byExternal.id), 200).data.phone).toBeNull();
  });

  it('lets a later item update the contact an earlier item of the same batch created', async () => {
    const phone = spanishPhone();
    const data = await written([
      { firstName: 'Twin', phone: phone.e164 },
      { firstName: 'Twin', phone: phone.spaced, tags: ['second'] },
      { firstName: 'Twin', phone: phone.international, tags: ['second'] },
    ]);
    const id = data.results[0]?.id as string;
    expect(data.results.map((result) => [result.status, result.id])).toStrictEqual([
      ['created', id],
      ['updated', id],
      ['unchanged', id],
    ]);
    expect(await contactEvents(agency.org.id, id, 'contact.created')).toHaveLength(1);
    const updates = await contactEvents(agency.org.id, id, 'contact.updated');
    expect(updates.map((event) => (event.data as { changes: string[] }).changes)).toStrictEqual([['tags']]);
  });

  it('gives an invalid item the 400 that POST /v1/contacts answers, its fields under body.contacts[i]', async () => {
    const agentOfOther = (await createAgent(app, other.org.id)).id;
    const bodies = [
      {},
      { firstName: '' },
      { firstName: '   ' },
      { firstName: 'X', email: 'not-an-email', status: 'HOT' },
      { firstName: 'X', budget: -1, tags: 'vip' },
      { firstName: 'X', score: 90 },
      { firstName: 'X', ownerId: agentOfOther },
    ];
    const data = await written(bodies);
    expect(data.summary).toStrictEqual({ created: 0, updated: 0, unchanged: 0, failed: bodies.length });
    for (const [index, body] of bodies.entries()) {
      const single = expectError(
        await api(app, 'POST', '/v1/contacts', { key: agency.secret.key, body }),
        400,
        'VALIDATION_ERROR',
      );
      const rename = (text: string) => text.replaceAll('body.', `body.contacts[${index}].`);
      expect(data.results[index]?.error, JSON.stringify(body)).toStrictEqual({
        code: 'VALIDATION_ERROR',
        message: rename(single.message),
        details: single.details?.map((detail) => ({ ...detail, field: rename(detail.field) })),
      });
    }
  });

  it('keeps the other items when one hits a database constraint', async () => {
    const db = await testDatabase();
    const constraint = sql`ALTER TABLE contacts ADD CONSTRAINT test_no_boom CHECK (first_name <> 'Boom') NOT VALID`;
    await db.systemTx(async (tx) => {
      await tx.execute(sql`RESET ROLE`);
      await tx.execute(constraint);
    });
    try {
      const [before, after] = [spanishPhone(), spanishPhone()];
      const data = await written([
        { firstName: 'Before', phone: before.e164 },
        { firstName: 'Boom', phone: spanishPhone().e164 },
        { firstName: 'After', phone: after.e164 },
      ]);
      expect(data.results.map((result) => result.status)).toStrictEqual(['created', 'error', 'created']);
      expect(data.results[1]?.error).toStrictEqual({
        code: 'INTERNAL_ERROR',
        message: 'Internal server error',
      });
      for (const result of [data.results[0], data.results[2]]) {
        expect(expectStatus(await get(result?.id as string), 200).data.id).toBe(result?.id);
      }
      const boom = await api(app, 'GET', '/v1/contacts', { key: agency.secret.key, query: { q: 'Boom' } });
      expect(expectStatus(boom, 200).meta.total).toBe(0);
    } finally {
      await db.systemTx(async (tx) => {
        await tx.execute(sql`RESET ROLE`);
        await tx.execute(sql`ALTER TABLE contacts DROP CONSTRAINT test_no_boom`);
      });
    }
  });
});

describe('POST /v1/contacts/batch: the body as a whole', () => {
  it('takes 1 and 100 items', async () => {
    expect((await written([{ firstName: 'One' }])).summary.created).toBe(1);
    const hundred = Array.from({ length: 100 }, (_, i) => ({ firstName: `Many ${i}` }));
    const data = await written(hundred);
    expect(data.summary).toStrictEqual({ created: 100, updated: 0, unchanged: 0, failed: 0 });
    expect(data.results.map((result) => result.index)).toStrictEqual(hundred.map((_, i) => i));
  });

  it.each([
    ['an empty list', { contacts: [] }, 'body.contacts must NOT have fewer than 1 items'],
    [
      '101 items',
      { contacts: Array.from({ length: 101 }, () => ({})) },
      'body.contacts must NOT have more than 100 items',
    ],
    ['no contacts', {}, 'body.contacts is required'],
    [
      'an item that is not an object',
      { contacts: [{ firstName: 'Ok' }, 'Lucía'] },
      'body.contacts[1] must be object',
    ],
    ['a list instead of an object', [{ firstName: 'Ok' }], 'body must be object'],
    ['another member', { contacts: [{ firstName: 'Ok' }], dryRun: true }, 'body.dryRun is not allowed'],
  ])('answers 400 for %s, writing nothing', async (_name, body, message) => {
    const error = expectError(await batch(body), 400, 'VALIDATION_ERROR');
    expect(error.message).toBe(message);
  });

  it('documents the items as ContactBatchItem (CreateContactBody and externalId)', async () => {
    const document = expectStatus(await api(app, 'GET', '/v1/openapi.json'), 200);
    const body = document.components.schemas.ContactBatchBody;
    expect(body.properties.contacts).toMatchObject({
      type: 'array',
      minItems: 1,
      maxItems: 100,
      items: { $ref: '#/components/schemas/ContactBatchItem' },
    });
    expect(JSON.stringify(document)).not.toContain('x-batch-items');
    const item = document.components.schemas.ContactBatchItem;
    const create = document.components.schemas.CreateContactBody;
    expect(Object.keys(item.properties).sort()).toStrictEqual(Object.keys(create.properties).sort());
    expect(item.properties.externalId.anyOf[0].description).toMatch(/matches on it first/);
    expect(item.required).toStrictEqual(['firstName']);
    const operation = document.paths['/v1/contacts/batch'].post;
    expect(operation.requestBody.content['application/json'].schema).toStrictEqual({
      $ref: '#/components/schemas/ContactBatchBody',
    });
    expect(Object.keys(operation.responses)).toEqual(
      expect.arrayContaining(['200', '400', '401', '402', '403', '409', '429']),
    );
  });
});

describe('POST /v1/contacts/batch: Idempotency-Key', () => {
  it('replays the identical answer for the whole batch and writes nothing the second time', async () => {
    const phone = spanishPhone();
    const body = {
      contacts: [
        { firstName: 'Idem', phone: phone.e164 },
        { firstName: 'Idem bad', phone: '1' },
      ],
    };
    const headers = { 'idempotency-key': `batch-${phone.national}` };
    const first = await batch(body, agency.secret.key, headers);
    const data = expectStatus(first, 200).data as Batch;
    const id = data.results[0]?.id as string;
    const eventsBefore = await eventsOf(agency.org.id, ['contact.created', 'contact.updated']);

    const second = await batch(body, agency.secret.key, headers);
    expect(second.statusCode).toBe(200);
    expect(second.body).toBe(first.body);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(await eventsOf(agency.org.id, ['contact.created', 'contact.updated'])).toHaveLength(
      eventsBefore.length,
    );
    const [created] = await contactEvents(agency.org.id, id, 'contact.created');
    const stored = (created?.data as { contact: { updatedAt: string } }).contact;
    expect(expectStatus(await get(id), 200).data.updatedAt).toBe(stored.updatedAt);
    // Another body under the same key is refused.
    expectError(
      await batch({ contacts: [{ firstName: 'Other' }] }, agency.secret.key, headers),
      409,
      'DUPLICATE',
    );
  });
});

describe('POST /v1/contacts/batch: tenants', () => {
  it("never matches another organization's contact", async () => {
    const phone = spanishPhone();
    const theirs = await createContact(app, other, {
      via: 'api',
      body: {
        firstName: 'Theirs',
        phone: phone.e164,
        email: 'tenant.theirs@example.com',
        externalId: 'tenant-ext',
      },
    });
    const data = await written([
      {
        firstName: 'Mine',
        externalId: 'tenant-ext',
        phone: phone.spaced,
        email: 'tenant.theirs@example.com',
      },
    ]);
    expect(data.results[0]).toMatchObject({ status: 'created' });
    expect(data.results[0]?.id).not.toBe(theirs.id);
    expect(expectStatus(await get(theirs.id, other.secret.key), 200).data).toStrictEqual(theirs);
  });

  it("writes a test key's batch to the test twin only, with livemode false events", async () => {
    const testKey = (
      await createApiKey(app, agency.org.id, {
        type: 'secret',
        mode: 'test',
        scopes: [...SCOPES],
        accessLevel: 3,
        rateLimitPerMinute: 100_000,
        writeLimitPerMinute: 100_000,
      })
    ).key;
    const data = await written([{ firstName: 'Twin only', externalId: 'twin-ext' }], testKey);
    const id = data.results[0]?.id as string;
    expect(expectStatus(await get(id, testKey), 200).data.firstName).toBe('Twin only');
    expectError(await get(id), 404, 'NOT_FOUND');
    const twin = agency.org.testOrganizationId as string;
    const recorded = await contactEvents(twin, id, 'contact.created');
    expect(recorded.map((event) => [event.organizationId, event.livemode])).toStrictEqual([[twin, false]]);
    expect(await contactEvents(agency.org.id, id, 'contact.created')).toHaveLength(0);
  });
});

describe('POST /v1/contacts/batch: security', () => {
  it('takes the keys POST /v1/contacts takes', async () => {
    const body = { contacts: [{ firstName: 'Guarded' }] };
    expectError(await batch(body, agency.keys.level2.key), 403, 'FORBIDDEN');
    for (const key of [agency.keys.noWrite.key, agency.readOnly.key, agency.publishable.key]) {
      expect((await batch(body, key)).statusCode).toBe(403);
    }
    expectError(await api(app, 'POST', '/v1/contacts/batch', { body }), 401, 'UNAUTHORIZED');
  });
});

describe('POST /v1/contacts/batch: rate limits', () => {
  /** Items that fail validation: counted like any item, without writing. */
  const items = (count: number) => Array.from({ length: count }, () => ({}));
  const writerOf = async (organizationId: string) =>
    (
      await createApiKey(app, organizationId, {
        type: 'secret',
        scopes: [...SCOPES],
        accessLevel: 3,
        rateLimitPerMinute: 60,
        writeLimitPerMinute: 30,
      })
    ).key;
  const remaining = async (key: string) => {
    const policies = expectStatus(await api(app, 'GET', '/v1/rate-limits', { key }), 200).data as {
      name: string;
      remaining: number;
    }[];
    return Object.fromEntries(policies.map((policy) => [policy.name, policy.remaining]));
  };

  it('counts one request, and one write per 10 items against the key and organization write limits', async () => {
    const org = await createOrganization(app, { writeLimitPerMinute: 50 });
    const key = await writerOf(org.id);
    const response = await batch({ contacts: items(25) }, key);
    expectStatus(response, 200);
    expect(response.headers['x-ratelimit-limit']).toBe('60');
    expect(response.headers['x-ratelimit-remaining']).toBe('59');
    expect(response.headers['ratelimit']).toMatch(/^"key-writes";r=27;t=\d+$/);
    expect(response.headers['ratelimit-policy']).toBe(
      '"key";q=60;w=60, "key-writes";q=30;w=60, "organization-writes";q=50;w=60',
    );
    expect(await remaining(key)).toStrictEqual({ key: 58, 'key-writes': 27, 'organization-writes': 47 });

    // 100 items = 10 writes, all or none: 27 -> 17 -> 7, then a batch that needs 10 is refused whole.
    expectStatus(await batch({ contacts: items(100) }, key), 200);
    const last = await batch({ contacts: items(100) }, key);
    expect(expectStatus(last, 200).data.summary.failed).toBe(100);
    expect(last.headers['ratelimit']).toMatch(/^"key-writes";r=7;t=\d+$/);
    const refused = await batch({ contacts: items(100) }, key);
    expect(expectError(refused, 429, 'RATE_LIMITED').message).toMatch(
      /Write limit of 30 .* counts 10 writes/,
    );
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(refused.headers['ratelimit']).toMatch(/^"key-writes";r=0;t=\d+$/);
    // Refused under an Idempotency-Key, the key is free again: a retry meets the limit, not a 409.
    const headers = { 'idempotency-key': `refused-${org.id}` };
    expectError(await batch({ contacts: items(100) }, key, headers), 429, 'RATE_LIMITED');
    expectError(await batch({ contacts: items(100) }, key, headers), 429, 'RATE_LIMITED');
    // The refused batches took nothing, not even their request; a smaller batch still fits.
    expect(await remaining(key)).toStrictEqual({ key: 55, 'key-writes': 7, 'organization-writes': 27 });
    expectStatus(await batch({ contacts: items(10) }, key), 200);
    expect(await remaining(key)).toStrictEqual({ key: 53, 'key-writes': 6, 'organization-writes': 26 });

    // The organization's limit counts every key's batches: 26 -> 16 -> 6, then TENANT_RATE_LIMITED.
    const second = await writerOf(org.id);
    expectStatus(await batch({ contacts: items(100) }, second), 200);
    expectStatus(await batch({ contacts: items(91) }, second), 200);
    const tenant = await batch({ contacts: items(70) }, second);
    expectError(tenant, 429, 'TENANT_RATE_LIMITED');
    expect(tenant.headers['ratelimit']).toMatch(/^"organization-writes";r=0;t=\d+$/);
    expect(await remaining(second)).toStrictEqual({ key: 57, 'key-writes': 10, 'organization-writes': 6 });
  });

  it('counts a replay under the same Idempotency-Key as one write', async () => {
    const org = await createOrganization(app, { writeLimitPerMinute: 50 });
    const key = await writerOf(org.id);
    const headers = { 'idempotency-key': `batch-limits-${org.id}` };
    const first = await batch({ contacts: items(100) }, key, headers);
    expect(first.headers['ratelimit']).toMatch(/^"key-writes";r=20;t=\d+$/);
    const replay = await batch({ contacts: items(100) }, key, headers);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.headers['ratelimit']).toMatch(/^"key-writes";r=19;t=\d+$/);
  });
});
