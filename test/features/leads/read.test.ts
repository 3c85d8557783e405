import { eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  busyPublishableKey,
  createApiKey,
  createProperty,
  createTenant,
  type Tenant,
} from '../../helpers/factories.ts';
import { api, expectError, expectStatus } from '../../helpers/http.ts';
import { buildTestApp, testDatabase } from '../../helpers/test-app.ts';
import { leads, visitRequests } from '../../../src/db/schema.ts';

let app: FastifyInstance;
let tenant: Tenant;
let property: { id: string; code: string; title?: unknown };
/** The tenant's three leads, as GET /v1/leads lists them (newest first). */
let listed: { id: string; createdAt: string }[];

function sendLead(key: string, body: Record<string, unknown>, headers?: Record<string, string>) {
  return api(app, 'POST', '/v1/leads', { key, body, headers }).then((response) =>
    expectStatus(response, 201),
  );
}

function listLeads(query: string, key = tenant.secret.key) {
  return api(app, 'GET', `/v1/leads${query}`, { key });
}

async function idsOf(query: string): Promise<string[]> {
  return expectStatus(await listLeads(query), 200).data.map((lead: { id: string }) => lead.id);
}

beforeAll(async () => {
  app = await buildTestApp();
  tenant = await createTenant(app);
  property = await createProperty(app, tenant.org.id);
  const key = await busyPublishableKey(app, tenant.org.id);
  await sendLead(key, {
    firstName: 'Lucía',
    lastName: 'García',
    phone: '+34600100001',
    message: '  Is it still available?  ',
    propertyId: property.id,
    interestedIn: 'SALE',
    utmSource: 'google',
    utmMedium: 'cpc',
    utmCampaign: 'spring',
    utmContent: 'banner-a',
    referrer: 'https://www.google.com/search?q=flat',
  });
  // No referrer in the body: the Referer header the browser sent is kept.
  await sendLead(
    key,
    { firstName: 'Marc', phone: '+34600100002', utmSource: 'newsletter' },
    { referer: 'https://portal.example.com/' },
  );
  // The same person again: the form matches the contact by phone, and a second lead is stored.
  await sendLead(key, { firstName: 'Lucía', phone: '+34600100001', utmSource: 'google' });
  listed = expectStatus(await listLeads(''), 200).data;
});
afterAll(async () => {
  await app.close();
});

describe('GET /v1/leads: happy path', () => {
  it('lists the leads newest first with contact, property, message and UTM values', async () => {
    const body = expectStatus(await listLeads(''), 200);
    expect(body.meta).toStrictEqual({ total: 3, page: 1, pageSize: 20, totalPages: 1 });
    const [third, second, first] = body.data;
    expect(first).toStrictEqual({
      id: expect.stringMatching(/^lead_/),
      contact: { id: expect.stringMatching(/^ct_/), fullName: 'Lucía García' },
      property: { id: property.id, code: property.code, title: property.title },
      message: 'Is it still available?',
      interestedIn: 'SALE',
      utmSource: 'google',
      utmMedium: 'cpc',
      utmCampaign: 'spring',
      utmContent: 'banner-a',
      referrer: 'https://www.google.com/search?q=flat',
      outcome: 'CREATED',
      matchedOn: null,
      createdAt: expect.any(String),
    });
    expect(second).toMatchObject({
      contact: { fullName: 'Marc' },
      property: null,
      message: null,
      interestedIn: null,
      utmSource: 'newsletter',
      utmMedium: null,
      utmCampaign: null,
      utmContent: null,
      referrer: 'https://portal.example.com/',
      outcome: 'CREATED',
      matchedOn: null,
    });
    expect(third.contact).toStrictEqual(first.contact);
    expect(third).toMatchObject({ outcome: 'MATCHED', matchedOn: 'PHONE', referrer: null });
    expect(Date.parse(third.createdAt)).toBeGreaterThanOrEqual(Date.parse(second.createdAt));
    expect(Date.parse(second.createdAt)).toBeGreaterThanOrEqual(Date.parse(first.createdAt));
  });

  it('GET /v1/leads/{id} answers the lead as the list shows it', async () => {
    const [newest] = expectStatus(await listLeads(''), 200).data;
    const one = expectStatus(
      await api(app, 'GET', `/v1/leads/${newest.id}`, { key: tenant.secret.key }),
      200,
    );
    expect(one).toStrictEqual({ data: newest });
  });

  it('a read-only secret key reads the list and one lead', async () => {
    expectStatus(await listLeads('', tenant.readOnly.key), 200);
    const [newest] = listed;
    expectStatus(await api(app, 'GET', `/v1/leads/${newest?.id}`, { key: tenant.readOnly.key }), 200);
  });
});

describe('GET /v1/leads: filters and paging', () => {
  it('propertyId keeps the leads about that property', async () => {
    expect(await idsOf(`?propertyId=${property.id}`)).toStrictEqual([listed[2]?.id]);
    expect(await idsOf('?propertyId=prop_unknown')).toStrictEqual([]);
  });

  it('utmSource keeps the leads with exactly that source', async () => {
    expect(await idsOf('?utmSource=google')).toStrictEqual([listed[0]?.id, listed[2]?.id]);
    expect(await idsOf('?utmSource=Google')).toStrictEqual([]);
  });

  it('createdAfter is inclusive and createdBefore strict', async () => {
    const [newest, middle, oldest] = listed;
    const after = encodeURIComponent(middle?.createdAt ?? '');
    expect(await idsOf(`?createdAfter=${after}`)).toStrictEqual([newest?.id, middle?.id]);
    expect(await idsOf(`?createdBefore=${after}`)).toStrictEqual([oldest?.id]);
    expect(await idsOf('?createdAfter=2000-01-01&createdBefore=2000-01-02')).toStrictEqual([]);
  });

  it('outcome keeps the leads that created or matched their contact', async () => {
    expect(await idsOf('?outcome=CREATED')).toStrictEqual([listed[1]?.id, listed[2]?.id]);
    expect(await idsOf('?outcome=MATCHED')).toStrictEqual([listed[0]?.id]);
  });

  it('filters combine with AND', async () => {
    expect(await idsOf(`?utmSource=google&propertyId=${property.id}`)).toStrictEqual([listed[2]?.id]);
  });

  it('pages newest first, with the true meta past the end', async () => {
    const second = expectStatus(await listLeads('?page=2&pageSize=2'), 200);
    expect(second.data.map((lead: { id: string }) => lead.id)).toStrictEqual([listed[2]?.id]);
    expect(second.meta).toStrictEqual({ total: 3, page: 2, pageSize: 2, totalPages: 2 });
    const past = expectStatus(await listLeads('?page=5&pageSize=2'), 200);
    expect(past).toStrictEqual({ data: [], meta: { total: 3, page: 5, pageSize: 2, totalPages: 2 } });
  });
});

describe('GET /v1/leads: errors', () => {
  it('400 naming the parameter for an impossible date, an empty range or an unknown filter', async () => {
    const impossible = expectError(await listLeads('?createdAfter=2026-02-30'), 400, 'VALIDATION_ERROR');
    expect(impossible.details?.[0]?.field).toBe('query.createdAfter');
    const reversed = expectError(
      await listLeads('?createdAfter=2026-03-02&createdBefore=2026-03-01'),
      400,
      'VALIDATION_ERROR',
    );
    expect(reversed.details?.[0]?.field).toBe('query.createdBefore');
    const outcome = expectError(await listLeads('?outcome=created'), 400, 'VALIDATION_ERROR');
    expect(outcome.details?.[0]?.field).toBe('query.outcome');
  });

  it('404, one answer, for a malformed, unknown or other organization id', async () => {
    const other = await createTenant(app);
    await sendLead(other.publishable.key, { firstName: 'Other', phone: '+34600100009' });
    const [foreign] = expectStatus(await listLeads('', other.secret.key), 200).data;
    for (const id of ['nope', 'lead_0VhJ3kQ2Zt8mX1pR4sT6uE', foreign.id]) {
      expectError(await api(app, 'GET', `/v1/leads/${id}`, { key: tenant.secret.key }), 404, 'NOT_FOUND');
    }
  });
});

describe('POST /v1/leads: outcome and referrer', () => {
  it('a lead that finds its contact by email says MATCHED on EMAIL; a lead from before says null', async () => {
    const t = await createTenant(app);
    const key = await busyPublishableKey(app, t.org.id);
    await sendLead(key, { firstName: 'Eva', phone: '+34600100030', email: 'Eva@Example.com' });
    await sendLead(key, { firstName: 'Eva', phone: '+34600100031', email: 'eva@example.com' });
    const [matched, created] = expectStatus(await listLeads('', t.secret.key), 200).data;
    expect(created).toMatchObject({ outcome: 'CREATED', matchedOn: null });
    expect(matched).toMatchObject({ outcome: 'MATCHED', matchedOn: 'EMAIL' });
    expect(matched.contact).toStrictEqual(created.contact);

    // A lead stored before issue 21 has no outcome: null in the answer, and in no outcome filter.
    const db = await testDatabase();
    await db.tenantTx(t.org.id, (tx) =>
      tx.update(leads).set({ outcome: null, matchedOn: null }).where(eq(leads.id, created.id)),
    );
    const legacy = expectStatus(await api(app, 'GET', `/v1/leads/${created.id}`, { key: t.secret.key }), 200);
    expect(legacy.data).toMatchObject({ outcome: null, matchedOn: null });
    const both = [
      ...expectStatus(await listLeads('?outcome=CREATED', t.secret.key), 200).data,
      ...expectStatus(await listLeads('?outcome=MATCHED', t.secret.key), 200).data,
    ];
    expect(both.map((lead: { id: string }) => lead.id)).toStrictEqual([matched.id]);
  });

  it('the body wins over the Referer header; a header that is not an http(s) URL is dropped', async () => {
    const t = await createTenant(app);
    const key = await busyPublishableKey(app, t.org.id);
    await sendLead(
      key,
      { firstName: 'Ona', phone: '+34600100040', referrer: 'https://news.example.org/article' },
      { referer: 'https://portal.example.com/' },
    );
    await sendLead(key, { firstName: 'Pol', phone: '+34600100041' }, { referer: 'android-app://com.x' });
    await sendLead(key, { firstName: 'Rut', phone: '+34600100042' });
    const [rut, pol, ona] = expectStatus(await listLeads('', t.secret.key), 200).data;
    expect(ona.referrer).toBe('https://news.example.org/article');
    expect(pol.referrer).toBeNull();
    expect(rut.referrer).toBeNull();
  });

  it('400 naming body.referrer for a value that is not an http(s) URL or is too long', async () => {
    const t = await createTenant(app);
    for (const referrer of [
      'not a url',
      'ftp://files.example.com/',
      `https://x.example.com/${'a'.repeat(2048)}`,
    ]) {
      const response = await api(app, 'POST', '/v1/leads', {
        key: t.publishable.key,
        body: { firstName: 'Ona', phone: '+34600100050', referrer },
      });
      const error = expectError(response, 400, 'VALIDATION_ERROR');
      expect(
        error.details?.map((d: { field: string }) => d.field),
        referrer,
      ).toContain('body.referrer');
    }
  });
});

describe('GET /v1/leads: security', () => {
  it('403 for a secret key without leads:read, and for a publishable key', async () => {
    const narrow = await createApiKey(app, tenant.org.id, { type: 'secret', scopes: ['contacts:read'] });
    const id = listed[0]?.id ?? '';
    for (const key of [narrow.key, tenant.publishable.key]) {
      expectError(await listLeads('', key), 403, 'FORBIDDEN');
      expectError(await api(app, 'GET', `/v1/leads/${id}`, { key }), 403, 'FORBIDDEN');
    }
  });

  it("a test key sees only the test twin's leads, and a live key none of them", async () => {
    const testPublishable = await busyPublishableKey(app, tenant.org.id, { mode: 'test' });
    const testSecret = await createApiKey(app, tenant.org.id, { type: 'secret', mode: 'test' });
    await sendLead(testPublishable, { firstName: 'Tess', phone: '+34600100010', utmSource: 'sandbox' });
    const twin = expectStatus(await listLeads('', testSecret.key), 200);
    expect(twin.data).toHaveLength(1);
    expect(twin.data[0]).toMatchObject({ contact: { fullName: 'Tess' }, utmSource: 'sandbox' });
    expect(await idsOf('?utmSource=sandbox')).toStrictEqual([]);
    expectError(
      await api(app, 'GET', `/v1/leads/${twin.data[0].id}`, { key: tenant.secret.key }),
      404,
      'NOT_FOUND',
    );
  });
});

describe('GET /v1/visit-requests', () => {
  it('lists the visit requests newest first; status keeps one status; leads:read on a secret key only', async () => {
    const t = await createTenant(app);
    const visited = await createProperty(app, t.org.id);
    const key = await busyPublishableKey(app, t.org.id);
    const ask = async (body: Record<string, unknown>) =>
      expectStatus(
        await api(app, 'POST', '/v1/leads/schedule', { key, body: { propertyId: visited.id, ...body } }),
        201,
      ).data.visitRequestId as string;
    const first = await ask({
      firstName: 'Ana',
      lastName: 'Ruiz',
      phone: '+34600100020',
      preferredTime: 'morning',
    });
    const second = await ask({ firstName: 'Pau', phone: '+34600100021', message: 'After 6 pm please' });
    const db = await testDatabase();
    await db.tenantTx(t.org.id, (tx) =>
      tx.update(visitRequests).set({ status: 'CONFIRMED' }).where(eq(visitRequests.id, first)),
    );

    const list = (query: string, listKey = t.secret.key) =>
      api(app, 'GET', `/v1/visit-requests${query}`, { key: listKey });
    const all = expectStatus(await list(''), 200);
    expect(all.meta).toStrictEqual({ total: 2, page: 1, pageSize: 20, totalPages: 1 });
    expect(all.data.map((request: { id: string }) => request.id)).toStrictEqual([second, first]);
    expect(all.data[1]).toStrictEqual({
      id: first,
      status: 'CONFIRMED',
      contact: { id: expect.stringMatching(/^ct_/), fullName: 'Ana Ruiz' },
      property: { id: visited.id, code: visited.code, title: visited.title },
      preferredDate: null,
      preferredTime: 'morning',
      message: null,
      appointmentId: null,
      declineReason: null,
      decidedAt: null,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect(all.data[0]).toMatchObject({ status: 'PENDING', message: 'After 6 pm please' });
    const pending = expectStatus(await list('?status=PENDING'), 200);
    expect(pending.data.map((request: { id: string }) => request.id)).toStrictEqual([second]);
    expect(expectStatus(await list('?status=DECLINED'), 200).data).toStrictEqual([]);
    expectError(await list('?status=WAITING'), 400, 'VALIDATION_ERROR');

    expect(expectStatus(await list('', t.readOnly.key), 200).meta.total).toBe(2);
    expect(expectStatus(await list('', tenant.secret.key), 200).data).toStrictEqual([]);
    expectError(await list('', t.publishable.key), 403, 'FORBIDDEN');
  });
});
