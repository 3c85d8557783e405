import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPES } from '../../../src/platform/auth/scopes.ts';
import {
  busyPublishableKey,
  createApiKey,
  createContact,
  createTenant,
  FAST,
} from '../../helpers/factories.ts';
import { api, expectError, expectStatus } from '../../helpers/http.ts';
import { buildTestApp } from '../../helpers/test-app.ts';
import { dailyOf, rawEventsOf, scoreOf } from './support.ts';

let app: FastifyInstance;

beforeAll(async () => {
  app = await buildTestApp();
});
afterAll(async () => {
  await app.close();
});

/** A fresh organization with its own contacts, so counts never see another test's events. */
async function freshTenant() {
  const fresh = await createTenant(app, { secret: FAST });
  return { ...fresh, portalKey: await busyPublishableKey(app, fresh.org.id) };
}

type Result = { accepted: number; rejected: { index: number; error: Record<string, unknown> }[] };

const batch = (key: string, body: unknown, headers: Record<string, string> = {}) =>
  api(app, 'POST', '/v1/usage/events/batch', { key, body, headers });
const recorded = async (key: string, events: unknown[]) =>
  expectStatus(await batch(key, { events }), 200).data as Result;

describe('POST /v1/usage/events/batch: accepted and rejected', () => {
  it('records the valid events for the contacts they name and lists the others with their 400', async () => {
    const t = await freshTenant();
    const byId = (await createContact(app, t.org.id, { via: 'lead', key: t.portalKey })).id;
    const byExternal = (
      await createContact(app, t.org.id, { via: 'lead', key: t.portalKey, externalId: 'batch-ext' })
    ).id;
    const byEmail = (
      await createContact(app, t.org.id, {
        via: 'lead',
        key: t.portalKey,
        body: { email: 'batch.email@example.com' },
      })
    ).id;
    const at = '2025-03-10T08:15:30.000Z';
    const result = await recorded(t.secret.key, [
      { name: 'login', contactId: byId, occurredAt: at },
      { name: 'login', externalId: 'batch-ext', occurredAt: at, props: { plan: 'pro' } },
      { name: 'report.exported', email: 'BATCH.Email@example.com', occurredAt: at },
      { name: 'login', email: 'nobody-here@example.com' },
      { name: 'login', label: 'no owner' },
      { name: 'login', contactId: byId, props: { blob: 'x'.repeat(8200) } },
      { name: '   ', contactId: byId },
      { name: 'login', contactId: byId, occurredAt: '0001-01-01T00:00:00Z', userId: 'u1' },
      { name: 'login', contactId: byId, occurredAt: at },
    ]);

    expect(result.accepted).toBe(5);
    expect(result.rejected).toStrictEqual([
      {
        index: 4,
        error: {
          code: 'VALIDATION_ERROR',
          message: 'body.events[4] must include at least one of contactId, externalId or email',
          details: [
            {
              field: 'body.events[4]',
              message: 'must include at least one of contactId, externalId or email',
            },
          ],
        },
      },
      {
        index: 5,
        error: {
          code: 'VALIDATION_ERROR',
          message: 'body.events[5].props must be at most 8192 bytes as JSON',
          details: [{ field: 'body.events[5].props', message: 'must be at most 8192 bytes as JSON' }],
        },
      },
      {
        index: 6,
        error: {
          code: 'VALIDATION_ERROR',
          message: 'body.events[6].name must not be blank',
          details: [{ field: 'body.events[6].name', message: 'must not be blank' }],
        },
      },
      {
        index: 7,
        error: {
          code: 'VALIDATION_ERROR',
          message: 'body.events[7].userId is not allowed',
          details: [{ field: 'body.events[7].userId', message: 'is not allowed' }],
        },
      },
    ]);

    const raw = await rawEventsOf(t.org.id);
    expect(raw.map((event) => [event.contact_id, event.name, event.props])).toStrictEqual([
      [byId, 'login', null],
      [byExternal, 'login', { plan: 'pro' }],
      [byEmail, 'report.exported', null],
      [byId, 'login', null],
    ]);
    // By contact, whatever order the database's collation gives the ids.
    const daily = (await dailyOf(t.org.id)).map((row) => [row.contactId, row.day, row.name, row.count]);
    expect(daily.map((row) => JSON.stringify(row)).sort()).toStrictEqual(
      [
        [byId, '2025-03-10', 'login', 2],
        [byExternal, '2025-03-10', 'login', 1],
        [byEmail, '2025-03-10', 'report.exported', 1],
      ]
        .map((row) => JSON.stringify(row))
        .sort(),
    );
  });

  it('matches owners as the single route does: contactId, then externalId, then email', async () => {
    const t = await freshTenant();
    const first = (
      await createContact(app, t.org.id, { via: 'lead', key: t.portalKey, externalId: 'order-a' })
    ).id;
    const second = (
      await createContact(app, t.org.id, {
        via: 'lead',
        key: t.portalKey,
        body: { email: 'order.b@example.com' },
      })
    ).id;
    const result = await recorded(t.secret.key, [
      { name: 'a', contactId: first, email: 'order.b@example.com' },
      { name: 'b', externalId: 'order-a', email: 'order.b@example.com' },
      {
        name: 'c',
        contactId: 'ct_0000000000000000000000',
        externalId: 'nobody',
        email: 'order.b@example.com',
      },
    ]);
    expect(result).toStrictEqual({ accepted: 3, rejected: [] });
    expect((await rawEventsOf(t.org.id)).map((event) => [event.name, event.contact_id])).toStrictEqual([
      ['a', first],
      ['b', first],
      ['c', second],
    ]);
  });

  it('updates the score of the contacts it names, once each, with recent events', async () => {
    const t = await freshTenant();
    const contactId = (await createContact(app, t.org.id, { via: 'lead', key: t.portalKey })).id;
    const before = await scoreOf(t.org.id, contactId);
    const day = (daysAgo: number) => new Date(Date.now() - daysAgo * 86_400_000).toISOString();
    await recorded(t.secret.key, [
      { name: 'login', contactId, occurredAt: day(1) },
      { name: 'login', contactId, occurredAt: day(2) },
      { name: 'login', contactId, occurredAt: day(2) },
    ]);
    // Two distinct usage days at 2 points each.
    expect(await scoreOf(t.org.id, contactId)).toBe(before + 4);
  });
});

describe('POST /v1/usage/events/batch: the body as a whole', () => {
  it('takes 500 events', async () => {
    const t = await freshTenant();
    const contactId = (await createContact(app, t.org.id, { via: 'lead', key: t.portalKey })).id;
    const events = Array.from({ length: 500 }, (_, i) => ({ name: `event-${i % 7}`, contactId }));
    expect(await recorded(t.secret.key, events)).toStrictEqual({ accepted: 500, rejected: [] });
    expect(await rawEventsOf(t.org.id)).toHaveLength(500);
  });

  it.each([
    ['an empty list', { events: [] }, 'body.events must NOT have fewer than 1 items'],
    [
      '501 events',
      { events: Array.from({ length: 501 }, () => ({ name: 'x', email: 'a@example.com' })) },
      'body.events must NOT have more than 500 items',
    ],
    ['no events', {}, 'body.events is required'],
    ['an event that is not an object', { events: [null] }, 'body.events[0] must be object'],
  ])('answers 400 for %s', async (_name, body, message) => {
    const t = await freshTenant();
    expect(expectError(await batch(t.secret.key, body), 400, 'VALIDATION_ERROR').message).toBe(message);
    expect(await rawEventsOf(t.org.id)).toStrictEqual([]);
  });

  it('documents the events as RecordUsageEventBody', async () => {
    const document = expectStatus(await api(app, 'GET', '/v1/openapi.json'), 200);
    expect(document.components.schemas.UsageEventBatchBody.properties.events).toMatchObject({
      minItems: 1,
      maxItems: 500,
      items: { $ref: '#/components/schemas/RecordUsageEventBody' },
    });
  });
});

describe('POST /v1/usage/events/batch: Idempotency-Key, tenants, limits', () => {
  it('replays the answer under the same Idempotency-Key without recording the events twice', async () => {
    const t = await freshTenant();
    const contactId = (await createContact(app, t.org.id, { via: 'lead', key: t.portalKey })).id;
    const body = {
      events: [
        { name: 'login', contactId },
        { name: '', contactId },
      ],
    };
    const headers = { 'idempotency-key': `usage-batch-${t.org.id}` };
    const first = await batch(t.secret.key, body, headers);
    expect(expectStatus(first, 200).data).toMatchObject({ accepted: 1 });
    const replay = await batch(t.secret.key, body, headers);
    expect(replay.body).toBe(first.body);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(await rawEventsOf(t.org.id)).toHaveLength(1);
  });

  it("never reaches another organization's contact, and a test key writes to the test twin only", async () => {
    const mine = await freshTenant();
    const theirs = await freshTenant();
    const contactId = (
      await createContact(app, mine.org.id, {
        via: 'lead',
        key: mine.portalKey,
        body: { email: 'batch-shared@example.com' },
        externalId: 'batch-tenant-ext',
      })
    ).id;
    const events = [
      { name: 'login', contactId },
      { name: 'login', externalId: 'batch-tenant-ext' },
      { name: 'login', email: 'batch-shared@example.com' },
    ];
    expect(await recorded(theirs.secret.key, events)).toStrictEqual({ accepted: 3, rejected: [] });
    const testKey = await createApiKey(app, mine.org.id, {
      type: 'secret',
      mode: 'test',
      scopes: [...SCOPES],
      accessLevel: 3,
      ...FAST,
    });
    expect(await recorded(testKey.key, events)).toStrictEqual({ accepted: 3, rejected: [] });
    expect(await rawEventsOf(mine.org.id)).toStrictEqual([]);
    expect(await rawEventsOf(theirs.org.id)).toStrictEqual([]);
  });

  it('counts one request, and one write per 50 events', async () => {
    const limited = await createTenant(app, { secret: { rateLimitPerMinute: 60, writeLimitPerMinute: 30 } });
    const key = limited.secret.key;
    const events = Array.from({ length: 120 }, () => ({ name: 'login', email: 'nobody@example.com' }));
    const response = await batch(key, { events });
    expectStatus(response, 200);
    expect(response.headers['x-ratelimit-remaining']).toBe('59');
    expect(response.headers['ratelimit']).toMatch(/^"key-writes";r=27;t=\d+$/);
  });

  it('takes the keys POST /v1/usage/events takes', async () => {
    const t = await freshTenant();
    const body = { events: [{ name: 'login', email: 'a@example.com' }] };
    const level2 = await createApiKey(app, t.org.id, { type: 'secret', scopes: [...SCOPES], accessLevel: 2 });
    expectError(await batch(level2.key, body), 403, 'FORBIDDEN');
    for (const key of [t.publishable.key, t.readOnly.key])
      expect((await batch(key, body)).statusCode).toBe(403);
  });
});
