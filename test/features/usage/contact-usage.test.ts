import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.ts';
import { purgeUsageDetail } from '../../../src/features/usage/usage.service.ts';
import { workerJobs } from '../../../src/jobs.ts';
import {
  busyPublishableKey,
  createApiKey,
  createContact,
  createTenant,
  FAST,
  type Tenant,
} from '../../helpers/factories.ts';
import { api, expectError, expectStatus } from '../../helpers/http.ts';
import { buildTestApp, testDatabase } from '../../helpers/test-app.ts';
import { ageRawEvents, dailyOf, rawEventsOf } from './support.ts';

let app: FastifyInstance;
let tenant: Tenant;
let portalKey: string;

function today(offsetDays = 0): string {
  return new Date(Date.now() + offsetDays * 86_400_000).toISOString().slice(0, 10);
}

async function record(key: string, contactId: string, name: string, occurredAt?: string) {
  const response = await api(app, 'POST', '/v1/usage/events', {
    key,
    body: { name, contactId, ...(occurredAt ? { occurredAt } : {}) },
  });
  expectStatus(response, 200);
}

function getUsage(contactId: string, query: Record<string, string> = {}, key = tenant.secret.key) {
  return api(app, 'GET', `/v1/contacts/${contactId}/usage`, { key, query });
}

beforeAll(async () => {
  app = await buildTestApp();
  tenant = await createTenant(app, { secret: FAST });
  portalKey = await busyPublishableKey(app, tenant.org.id);
});
afterAll(async () => {
  await app.close();
});

describe('GET /v1/contacts/{id}/usage: happy path', () => {
  let contactId: string;
  beforeAll(async () => {
    contactId = (await createContact(app, tenant.org.id, { via: 'lead', key: portalKey })).id;
    const key = tenant.secret.key;
    await record(key, contactId, 'login', '2025-03-10T12:00:00.000Z');
    await record(key, contactId, 'login', '2025-03-10T08:00:00.000Z');
    await record(key, contactId, 'export', '2025-03-10T09:30:00.000Z');
    await record(key, contactId, 'login', '2025-03-12T18:45:00.000Z');
    await record(key, contactId, 'login', '2025-03-12T07:00:00.000Z');
    await record(key, contactId, 'login', '2025-03-12T07:30:00.000Z');
    await record(key, contactId, 'login', '2025-04-20T10:00:00.000Z');
  });

  it('totals per name (count, first and last time across days) and counts per day and name', async () => {
    const body = expectStatus(await getUsage(contactId, { from: '2025-03-01', to: '2025-03-31' }), 200);
    expect(body).toEqual({
      data: {
        contactId,
        from: '2025-03-01',
        to: '2025-03-31',
        totals: [
          {
            name: 'export',
            count: 1,
            firstOccurredAt: '2025-03-10T09:30:00.000Z',
            lastOccurredAt: '2025-03-10T09:30:00.000Z',
          },
          {
            name: 'login',
            count: 5,
            firstOccurredAt: '2025-03-10T08:00:00.000Z',
            lastOccurredAt: '2025-03-12T18:45:00.000Z',
          },
        ],
        byDay: [
          { date: '2025-03-10', name: 'export', count: 1 },
          { date: '2025-03-10', name: 'login', count: 2 },
          { date: '2025-03-12', name: 'login', count: 3 },
        ],
      },
    });
  });

  it('includes both ends of the range and nothing outside it', async () => {
    const oneDay = expectStatus(await getUsage(contactId, { from: '2025-03-12', to: '2025-03-12' }), 200);
    expect(oneDay.data.byDay).toEqual([{ date: '2025-03-12', name: 'login', count: 3 }]);
    expect(oneDay.data.totals).toEqual([
      {
        name: 'login',
        count: 3,
        firstOccurredAt: '2025-03-12T07:00:00.000Z',
        lastOccurredAt: '2025-03-12T18:45:00.000Z',
      },
    ]);
    const wide = expectStatus(await getUsage(contactId, { from: '2025-03-11', to: '2025-04-20' }), 200);
    expect(wide.data.byDay).toEqual([
      { date: '2025-03-12', name: 'login', count: 3 },
      { date: '2025-04-20', name: 'login', count: 1 },
    ]);
  });

  it('defaults to the last 30 days, today included', async () => {
    const fresh = (await createContact(app, tenant.org.id, { via: 'lead', key: portalKey })).id;
    await record(tenant.secret.key, fresh, 'login');
    await record(tenant.secret.key, fresh, 'login', `${today(-29)}T12:00:00.000Z`);
    await record(tenant.secret.key, fresh, 'login', `${today(-30)}T12:00:00.000Z`);
    const body = expectStatus(await getUsage(fresh), 200);
    expect(body.data.from).toBe(today(-29));
    expect(body.data.to).toBe(today());
    expect(body.data.byDay).toEqual([
      { date: today(-29), name: 'login', count: 1 },
      { date: today(), name: 'login', count: 1 },
    ]);
    expect(body.data.totals.map((t: { count: number }) => t.count)).toEqual([2]);
    // `to` alone moves the 30-day window with it.
    const earlier = expectStatus(await getUsage(fresh, { to: today(-1) }), 200);
    expect(earlier.data.from).toBe(today(-30));
    expect(earlier.data.byDay.map((d: { date: string }) => d.date)).toEqual([today(-30), today(-29)]);
  });

  it('answers empty lists for a contact without usage', async () => {
    const idle = (await createContact(app, tenant.org.id, { via: 'lead', key: portalKey })).id;
    const body = expectStatus(await getUsage(idle), 200);
    expect(body.data).toMatchObject({ contactId: idle, totals: [], byDay: [] });
  });

  it('takes a read-only secret key', async () => {
    expectStatus(await getUsage(contactId, {}, tenant.readOnly.key), 200);
  });
});

describe('GET /v1/contacts/{id}/usage: errors', () => {
  let contactId: string;
  beforeAll(async () => {
    contactId = (await createContact(app, tenant.org.id, { via: 'lead', key: portalKey })).id;
  });

  const cases: [string, Record<string, string>, string][] = [
    ['from after to', { from: '2025-03-02', to: '2025-03-01' }, 'query.from'],
    ['a range over 366 days', { from: '2024-01-01', to: '2025-01-01' }, 'query.from'],
    ['an impossible date', { from: '2025-02-30', to: '2025-03-01' }, 'query.from'],
    ['a malformed to', { to: '03/01/2025' }, 'query.to'],
    ['an unknown parameter', { since: '2025-03-01' }, 'since'],
  ];
  for (const [title, query, field] of cases) {
    it(`400 VALIDATION_ERROR for ${title}, naming ${field}`, async () => {
      const error = expectError(await getUsage(contactId, query), 400, 'VALIDATION_ERROR');
      expect(error.message).toContain(field);
    });
  }

  it('accepts exactly 366 days', async () => {
    expectStatus(await getUsage(contactId, { from: '2024-01-01', to: '2024-12-31' }), 200);
  });

  it('answers 404 for an unknown or malformed contact id', async () => {
    for (const id of ['ct_0000000000000000000000', 'nope']) {
      const error = expectError(await getUsage(id), 404, 'NOT_FOUND');
      expect(error.message).toBe(`Contact ${id} not found`);
    }
  });
});

describe('GET /v1/contacts/{id}/usage: security', () => {
  it("answers 404 to another organization's key, as for a missing contact", async () => {
    const contactId = (await createContact(app, tenant.org.id, { via: 'lead', key: portalKey })).id;
    await record(tenant.secret.key, contactId, 'login');
    const other = await createTenant(app, { secret: FAST });
    const error = expectError(await getUsage(contactId, {}, other.secret.key), 404, 'NOT_FOUND');
    expect(error.message).toBe(`Contact ${contactId} not found`);
  });

  it('refuses a publishable key and a key without contacts:read with 403', async () => {
    const contactId = (await createContact(app, tenant.org.id, { via: 'lead', key: portalKey })).id;
    expectError(await getUsage(contactId, {}, tenant.publishable.key), 403, 'FORBIDDEN');
    const noScope = await createApiKey(app, tenant.org.id, { type: 'secret', scopes: ['deals:read'] });
    expectError(await getUsage(contactId, {}, noScope.key), 403, 'FORBIDDEN');
  });
});

describe('retention: the worker purges raw detail, never the aggregates', () => {
  it('deletes raw events received before the retention window and keeps the rest and every aggregate', async () => {
    const t = await createTenant(app, { secret: FAST });
    const key = await busyPublishableKey(app, t.org.id);
    const contactId = (await createContact(app, t.org.id, { via: 'lead', key })).id;
    for (let i = 0; i < 5; i += 1)
      await record(t.secret.key, contactId, 'login', `${today(-50 + i)}T10:00:00.000Z`);
    await record(t.secret.key, contactId, 'export');
    const raw = await rawEventsOf(t.org.id);
    expect(raw).toHaveLength(6);
    const usageBefore = expectStatus(await getUsage(contactId, { from: today(-60) }, t.secret.key), 200);
    const dailyBefore = await dailyOf(t.org.id);

    // Four logins arrived 10 days ago; the fifth 6 days ago; the export just now.
    const ids = raw.map((event) => event.id);
    await ageRawEvents(t.org.id, 10, ids.slice(0, 4));
    await ageRawEvents(t.org.id, 6, [ids[4] as number]);

    const db = await testDatabase();
    // Batches of 3: the job loops until a short batch (3 + 1 + 0).
    expect(await purgeUsageDetail(db, 7, { batchSize: 3 })).toBeGreaterThanOrEqual(4);
    expect((await rawEventsOf(t.org.id)).map((event) => event.id)).toEqual(ids.slice(4));

    // The job as the worker runs it, with the configured retention.
    const config = loadConfig({ USAGE_DETAIL_RETENTION_DAYS: '5' });
    const job = workerJobs(db, config).find((candidate) => candidate.name === 'usage.purge');
    expect(job).toBeDefined();
    await job?.run();
    expect((await rawEventsOf(t.org.id)).map((event) => event.id)).toEqual(ids.slice(5));

    expect(await dailyOf(t.org.id)).toEqual(dailyBefore);
    expect(expectStatus(await getUsage(contactId, { from: today(-60) }, t.secret.key), 200)).toEqual(
      usageBefore,
    );
  });

  it('keeps everything younger than the default 90 days', async () => {
    const t = await createTenant(app, { secret: FAST });
    const key = await busyPublishableKey(app, t.org.id);
    const contactId = (await createContact(app, t.org.id, { via: 'lead', key })).id;
    await record(t.secret.key, contactId, 'login');
    await ageRawEvents(t.org.id, 89);
    const db = await testDatabase();
    await workerJobs(db)
      .find((candidate) => candidate.name === 'usage.purge')
      ?.run();
    expect(await rawEventsOf(t.org.id)).toHaveLength(1);
    await ageRawEvents(t.org.id, 2);
    await workerJobs(db)
      .find((candidate) => candidate.name === 'usage.purge')
      ?.run();
    expect(await rawEventsOf(t.org.id)).toHaveLength(0);
  });
});
