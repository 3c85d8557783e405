import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  busyPublishableKey,
  createAgent,
  createProperty,
  createTenant,
  type Tenant,
} from '../../helpers/factories.ts';
import { api, expectError, expectStatus } from '../../helpers/http.ts';
import { buildTestApp } from '../../helpers/test-app.ts';
import { appointmentsOf, contactByPhone, countContacts, eventsOf, visitRequestsOf } from './support.ts';

let app: FastifyInstance;
let tenant: Tenant;
let key: string;
let agentId: string;
let propertyId: string;

let phoneSequence = 0;
function usPhone() {
  phoneSequence += 1;
  const line = String(2000 + phoneSequence).padStart(4, '0');
  return { national: `(415) 555-${line}`, e164: `+1415555${line}` };
}

/** A date `days` from today in UTC, YYYY-MM-DD. */
function utcDay(days: number): string {
  const now = new Date();
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + days))
    .toISOString()
    .slice(0, 10);
}

function schedule(
  body: Record<string, unknown>,
  options: { key?: string; headers?: Record<string, string> } = {},
) {
  return api(app, 'POST', '/v1/leads/schedule', { key: options.key ?? key, body, headers: options.headers });
}

beforeAll(async () => {
  app = await buildTestApp();
  tenant = await createTenant(app);
  key = await busyPublishableKey(app, tenant.org.id);
  agentId = (await createAgent(app, tenant.org.id)).id;
  propertyId = (await createProperty(app, tenant.org.id, { agentId, title: 'Sunny loft' })).id;
});
afterAll(async () => {
  await app.close();
});

describe('POST /v1/leads/schedule: happy path', () => {
  it('records a PENDING visit request, upserts the contact for the listing agent, and books no appointment', async () => {
    const phone = usPhone();
    const preferredDate = utcDay(3);
    const response = await schedule({
      firstName: 'Nora',
      lastName: 'Vidal',
      phone: phone.national,
      email: 'nora@example.com',
      propertyId,
      preferredDate,
      preferredTime: 'morning',
      message: 'Before noon if possible',
    });
    const body = expectStatus(response, 201);
    expect(Object.keys(body.data).sort()).toEqual(['status', 'success', 'visitRequestId']);
    expect(body.data).toMatchObject({ success: true, status: 'PENDING' });
    expect(body.data.visitRequestId).toMatch(/^vr_[0-9A-Za-z]{22}$/);

    const contact = await contactByPhone(tenant.org.id, phone.e164);
    expect(contact).toMatchObject({
      firstName: 'Nora',
      lastName: 'Vidal',
      email: 'nora@example.com',
      source: 'WEBSITE',
      ownerId: agentId,
    });
    expect(contact?.tags).toContain('portal-visit-request');

    const request = (await visitRequestsOf(tenant.org.id)).find((row) => row.id === body.data.visitRequestId);
    expect(request).toMatchObject({
      contactId: contact?.id,
      propertyId,
      preferredDate,
      preferredTime: 'morning',
      message: 'Before noon if possible',
      status: 'PENDING',
    });
    expect(await appointmentsOf(tenant.org.id)).toHaveLength(0);
  });

  it('records contact.created and visit.requested carrying the request, the property and the contact', async () => {
    const org = await createTenant(app);
    const orgKey = await busyPublishableKey(app, org.org.id);
    const property = await createProperty(app, org.org.id, { title: 'Garden house' });
    const phone = usPhone();
    const preferredDate = utcDay(10);
    const { data } = expectStatus(
      await schedule(
        { firstName: 'Iris', phone: phone.e164, propertyId: property.id, preferredDate },
        { key: orgKey },
      ),
      201,
    );

    const recorded = await eventsOf(org.org.id);
    expect(recorded.map((e) => e.type).sort()).toEqual(['contact.created', 'visit.requested']);
    const created = recorded.find((e) => e.type === 'contact.created');
    const requested = recorded.find((e) => e.type === 'visit.requested');
    const contact = created?.data.contact as { id: string; phone: string };
    expect(contact.phone).toBe(phone.e164);
    expect(requested?.data).toStrictEqual({
      visitRequest: {
        id: data.visitRequestId,
        status: 'PENDING',
        propertyId: property.id,
        contactId: contact.id,
        preferredDate,
        preferredTime: null,
        message: null,
        createdAt: expect.any(String),
      },
      property: { id: property.id, title: 'Garden house', agentId: null },
      contact,
    });
    expect(requested?.createdAt.toISOString()).toBe(created?.createdAt.toISOString());
    expect(requested?.actor).toEqual({ kind: 'API', userId: null });
  });

  it('takes a request without date or time (any day), and a date of yesterday or today in UTC', async () => {
    for (const extra of [
      {},
      { preferredDate: utcDay(-1) },
      { preferredDate: utcDay(0), preferredTime: 'evening' },
    ]) {
      const { data } = expectStatus(
        await schedule({ firstName: 'Any', phone: usPhone().e164, propertyId, ...extra }),
        201,
      );
      const row = (await visitRequestsOf(tenant.org.id)).find((r) => r.id === data.visitRequestId);
      expect(row?.preferredDate ?? null).toBe((extra as { preferredDate?: string }).preferredDate ?? null);
    }
  });

  it('updates a known contact (came through the contact form first) and keeps both tags', async () => {
    const org = await createTenant(app);
    const orgKey = await busyPublishableKey(app, org.org.id);
    const property = (await createProperty(app, org.org.id)).id;
    const phone = usPhone();
    expectStatus(
      await api(app, 'POST', '/v1/leads', { key: orgKey, body: { firstName: 'Uma', phone: phone.e164 } }),
      201,
    );
    expectStatus(
      await schedule({ firstName: 'Uma', phone: phone.national, propertyId: property }, { key: orgKey }),
      201,
    );
    expect(await countContacts(org.org.id)).toBe(1);
    const contact = await contactByPhone(org.org.id, phone.e164);
    expect(contact?.tags).toEqual(expect.arrayContaining(['portal-lead', 'portal-visit-request']));
    const types = (await eventsOf(org.org.id)).map((e) => e.type).sort();
    expect(types).toEqual(['contact.created', 'contact.updated', 'lead.submitted', 'visit.requested']);
  });
});

describe('POST /v1/leads/schedule: errors name the failing field', () => {
  const valid = () => ({ firstName: 'Valid', phone: usPhone().e164, propertyId });
  const cases: [string, () => Record<string, unknown>, string][] = [
    ['propertyId missing', () => ({ firstName: 'Valid', phone: usPhone().e164 }), 'propertyId'],
    [
      'propertyId unknown',
      () => ({ ...valid(), propertyId: 'prop_0000000000000000000000' }),
      'body.propertyId',
    ],
    ['firstName too short', () => ({ ...valid(), firstName: 'Z' }), 'body.firstName'],
    ['phone too short', () => ({ ...valid(), phone: '555' }), 'body.phone'],
    ['phone not a number', () => ({ ...valid(), phone: '000000000' }), 'body.phone'],
    ['email malformed', () => ({ ...valid(), email: 'a@' }), 'body.email'],
    [
      'preferredDate not YYYY-MM-DD',
      () => ({ ...valid(), preferredDate: '05/11/2030' }),
      'body.preferredDate',
    ],
    ['preferredDate month 13', () => ({ ...valid(), preferredDate: '2030-13-01' }), 'body.preferredDate'],
    ['preferredDate 30 February', () => ({ ...valid(), preferredDate: '2030-02-30' }), 'body.preferredDate'],
    ['preferredDate in the past', () => ({ ...valid(), preferredDate: utcDay(-2) }), 'body.preferredDate'],
    [
      'preferredDate over a year ahead',
      () => ({ ...valid(), preferredDate: utcDay(366) }),
      'body.preferredDate',
    ],
    ['preferredTime outside the set', () => ({ ...valid(), preferredTime: 'night' }), 'body.preferredTime'],
    ['unknown field', () => ({ ...valid(), startTime: '10:00' }), 'startTime'],
  ];
  for (const [name, body, field] of cases) {
    it(`400 VALIDATION_ERROR for ${name}, naming ${field}`, async () => {
      const error = expectError(await schedule(body()), 400, 'VALIDATION_ERROR');
      expect(error.message).toContain(field);
    });
  }

  it('refuses an unpublished property or one of another agency, and writes nothing', async () => {
    const org = await createTenant(app);
    const orgKey = await busyPublishableKey(app, org.org.id);
    const unpublished = (await createProperty(app, org.org.id, { publishedOnPortal: false })).id;
    const foreign = (await createProperty(app, tenant.org.id)).id;
    for (const id of [unpublished, foreign]) {
      const error = expectError(
        await schedule({ firstName: 'Ghost', phone: usPhone().e164, propertyId: id }, { key: orgKey }),
        400,
        'VALIDATION_ERROR',
      );
      expect(error.details).toEqual([{ field: 'body.propertyId', message: expect.any(String) }]);
    }
    expect(await countContacts(org.org.id)).toBe(0);
    expect(await visitRequestsOf(org.org.id)).toHaveLength(0);
    expect(await eventsOf(org.org.id)).toHaveLength(0);
  });
});

describe('POST /v1/leads/schedule: keys, browsers, retries and tenants', () => {
  it('takes a publishable key cross-origin and refuses a secret key from a browser', async () => {
    const browser = { origin: 'https://www.agency.example' };
    const ok = await schedule({ firstName: 'Web', phone: usPhone().e164, propertyId }, { headers: browser });
    expectStatus(ok, 201);
    expect(ok.headers['access-control-allow-origin']).toBe('*');
    const phone = usPhone();
    expectError(
      await schedule(
        { firstName: 'Leak', phone: phone.e164, propertyId },
        { key: tenant.secret.key, headers: browser },
      ),
      403,
      'SECRET_KEY_IN_BROWSER',
    );
    expect(await contactByPhone(tenant.org.id, phone.e164)).toBeNull();
  });

  it('replays an Idempotency-Key retry with the same visitRequestId and records one request', async () => {
    const org = await createTenant(app);
    const orgKey = await busyPublishableKey(app, org.org.id);
    const body = {
      firstName: 'Retry',
      phone: usPhone().e164,
      propertyId: (await createProperty(app, org.org.id)).id,
      preferredDate: utcDay(5),
    };
    const headers = { 'idempotency-key': 'visit-form-0001' };
    const first = expectStatus(await schedule(body, { key: orgKey, headers }), 201);
    const again = await schedule(body, { key: orgKey, headers });
    expect(expectStatus(again, 201)).toStrictEqual(first);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(await visitRequestsOf(org.org.id)).toHaveLength(1);
    expect(await eventsOf(org.org.id, ['visit.requested'])).toHaveLength(1);
  });

  it("keeps one agency's visit requests and contacts out of another's", async () => {
    const other = await createTenant(app);
    const phone = usPhone();
    expectStatus(await schedule({ firstName: 'Ada', phone: phone.e164, propertyId }), 201);
    expect(await countContacts(other.org.id)).toBe(0);
    expect(await visitRequestsOf(other.org.id)).toHaveLength(0);
    expect(await eventsOf(other.org.id)).toHaveLength(0);
  });
});
