import type { FastifyInstance } from 'fastify';
import { Value } from 'typebox/value';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LeadSubmitted, VisitRequested } from '../../../src/features/leads/leads.events.ts';
import {
  busyPublishableKey,
  createAgent,
  createApiKey,
  createOrganization,
  createProperty,
  createTenant,
  type Tenant,
} from '../../helpers/factories.ts';
import { api, expectError, expectStatus } from '../../helpers/http.ts';
import { buildTestApp } from '../../helpers/test-app.ts';
import {
  contactByPhone,
  contactsOf,
  countContacts,
  eventsOf,
  leadFormAnalytics,
  leadsOf,
} from './support.ts';

let app: FastifyInstance;
let tenant: Tenant;
let key: string;
let agentId: string;
let propertyId: string;

// Every test uses its own phone number, so tests never see each other's contacts.
let phoneSequence = 0;
function usPhone() {
  phoneSequence += 1;
  const line = String(1000 + phoneSequence).padStart(4, '0');
  return { national: `(415) 555-${line}`, international: `+1 415 555 ${line}`, e164: `+1415555${line}` };
}

function postLead(
  body: Record<string, unknown>,
  options: { key?: string; headers?: Record<string, string> } = {},
) {
  return api(app, 'POST', '/v1/leads', { key: options.key ?? key, body, headers: options.headers });
}

beforeAll(async () => {
  app = await buildTestApp();
  tenant = await createTenant(app);
  key = await busyPublishableKey(app, tenant.org.id);
  agentId = (await createAgent(app, tenant.org.id)).id;
  propertyId = (await createProperty(app, tenant.org.id, { agentId })).id;
});
afterAll(async () => {
  await app.close();
});

describe('POST /v1/leads: happy path', () => {
  it('answers 201 {data:{success:true}} and creates the contact with an E.164 phone read in the default country', async () => {
    const phone = usPhone();
    const response = await postLead({
      firstName: 'Lucía',
      lastName: 'Fernández',
      phone: phone.national,
      email: 'Lucia.F@example.com',
      message: 'Is the flat still available?',
      propertyId,
      interestedIn: 'SALE',
      utmSource: 'google',
      utmMedium: 'cpc',
      utmCampaign: 'spring',
      utmContent: 'banner-a',
    });
    expect(expectStatus(response, 201)).toStrictEqual({ data: { success: true } });

    const contact = await contactByPhone(tenant.org.id, phone.e164);
    expect(contact).toMatchObject({
      firstName: 'Lucía',
      lastName: 'Fernández',
      email: 'Lucia.F@example.com',
      emailKey: 'lucia.f@example.com',
      phone: phone.e164,
      source: 'WEBSITE',
      status: 'NEW',
      type: 'LEAD',
      ownerId: agentId,
    });
    expect(contact?.tags).toContain('portal-lead');

    const lead = (await leadsOf(tenant.org.id)).find((row) => row.contactId === contact?.id);
    expect(lead).toMatchObject({
      propertyId,
      message: 'Is the flat still available?',
      interestedIn: 'SALE',
      utm: { source: 'google', medium: 'cpc', campaign: 'spring', content: 'banner-a' },
    });
    expect(lead?.id).toMatch(/^lead_[0-9A-Za-z]{22}$/);
  });

  it('records contact.created then lead.submitted in the same transaction, lead.submitted being exactly {success:true}', async () => {
    const org = await createTenant(app);
    const orgKey = await busyPublishableKey(app, org.org.id);
    const phone = usPhone();
    expectStatus(await postLead({ firstName: 'Tom', phone: phone.national }, { key: orgKey }), 201);

    const recorded = await eventsOf(org.org.id);
    expect(recorded.map((e) => e.type).sort()).toEqual(['contact.created', 'lead.submitted']);
    const created = recorded.find((e) => e.type === 'contact.created');
    const submitted = recorded.find((e) => e.type === 'lead.submitted');
    expect(submitted?.data).toStrictEqual({ success: true });
    expect(created?.data.contact).toMatchObject({ firstName: 'Tom', phone: phone.e164, source: 'WEBSITE' });
    // One transaction: both carry its timestamp, the actor is the API key, and livemode is true.
    expect(submitted?.createdAt.toISOString()).toBe(created?.createdAt.toISOString());
    for (const event of [created, submitted]) {
      expect(event?.actor).toEqual({ kind: 'API', userId: null });
      expect(event?.livemode).toBe(true);
    }
  });

  it('stores no property, no owner and an empty utm for a plain contact form', async () => {
    const phone = usPhone();
    expectStatus(await postLead({ firstName: 'Jo', phone: phone.e164 }), 201);
    const contact = await contactByPhone(tenant.org.id, phone.e164);
    expect(contact?.ownerId).toBeNull();
    const lead = (await leadsOf(tenant.org.id)).find((row) => row.contactId === contact?.id);
    expect(lead).toMatchObject({ propertyId: null, message: null, interestedIn: null, utm: {} });
  });

  it('counts a LEAD_FORM analytics event per lead, per property and day', async () => {
    const org = await createTenant(app);
    const orgKey = await busyPublishableKey(app, org.org.id);
    const property = (await createProperty(app, org.org.id)).id;
    expectStatus(
      await postLead({ firstName: 'Ann', phone: usPhone().e164, propertyId: property }, { key: orgKey }),
      201,
    );
    expectStatus(
      await postLead({ firstName: 'Bob', phone: usPhone().e164, propertyId: property }, { key: orgKey }),
      201,
    );
    expectStatus(await postLead({ firstName: 'Cy', phone: usPhone().e164 }, { key: orgKey }), 201);

    const analytics = await leadFormAnalytics(org.org.id);
    expect(analytics.raw.map((row) => row.property_id).sort()).toEqual([property, property, null].sort());
    expect(analytics.daily).toEqual({ [property]: 2, '': 1 });
  });

  it('reads national numbers in the organization default country (ES)', async () => {
    const org = await createOrganization(app, {
      name: 'Agency ES',
      defaultCountry: 'ES',
      writeLimitPerMinute: 100_000,
    });
    const orgKey = await busyPublishableKey(app, org.id);
    expectStatus(await postLead({ firstName: 'Marta', phone: '612 34 56 78' }, { key: orgKey }), 201);
    expect(await contactByPhone(org.id, '+34612345678')).toMatchObject({ firstName: 'Marta' });
  });

  it('lands in the test twin with livemode false for a test-mode key', async () => {
    const twin = tenant.org.testOrganizationId as string;
    const testKey = await busyPublishableKey(app, tenant.org.id, { mode: 'test' });
    const twinProperty = (await createProperty(app, twin)).id;
    const phone = usPhone();
    expectStatus(
      await postLead({ firstName: 'Tess', phone: phone.e164, propertyId: twinProperty }, { key: testKey }),
      201,
    );
    expect(await contactByPhone(twin, phone.e164)).not.toBeNull();
    expect(await contactByPhone(tenant.org.id, phone.e164)).toBeNull();
    const submitted = (await eventsOf(twin, ['lead.submitted'])).at(-1);
    expect(submitted).toMatchObject({ organizationId: twin, livemode: false, data: { success: true } });
    // A live property is not on the twin's portal.
    const error = expectError(
      await postLead({ firstName: 'Tess', phone: phone.e164, propertyId }, { key: testKey }),
      400,
      'VALIDATION_ERROR',
    );
    expect(error.message).toContain('body.propertyId');
  });
});

describe('POST /v1/leads: the same person again', () => {
  it('updates the contact found by phone whether the number comes national or international', async () => {
    const org = await createTenant(app);
    const orgKey = await busyPublishableKey(app, org.org.id);
    const phone = usPhone();
    expectStatus(await postLead({ firstName: 'Pat', phone: phone.national }, { key: orgKey }), 201);
    expectStatus(
      await postLead(
        { firstName: 'Patricia', lastName: 'Lee', phone: phone.international, email: 'pat@example.com' },
        { key: orgKey },
      ),
      201,
    );

    expect(await countContacts(org.org.id)).toBe(1);
    const contact = await contactByPhone(org.org.id, phone.e164);
    // Missing details are filled in; the name the agency already has stays.
    expect(contact).toMatchObject({ firstName: 'Pat', lastName: 'Lee', email: 'pat@example.com' });
    expect((await leadsOf(org.org.id)).map((lead) => lead.contactId)).toEqual([contact?.id, contact?.id]);

    const types = (await eventsOf(org.org.id)).map((e) => e.type);
    expect(types.filter((t) => t === 'contact.created')).toHaveLength(1);
    expect(types.filter((t) => t === 'contact.updated')).toHaveLength(1);
    expect(types.filter((t) => t === 'lead.submitted')).toHaveLength(2);
    const updated = (await eventsOf(org.org.id, ['contact.updated']))[0];
    expect(updated?.data.changes).toEqual(expect.arrayContaining(['email', 'lastName', 'lastActivityAt']));
    expect((updated?.data.contact as { id: string }).id).toBe(contact?.id);
  });

  it('then matches by email (any case) when the phone is new, keeping the phone it had', async () => {
    const org = await createTenant(app);
    const orgKey = await busyPublishableKey(app, org.org.id);
    const first = usPhone();
    const second = usPhone();
    expectStatus(
      await postLead({ firstName: 'Kim', phone: first.e164, email: 'kim@example.com' }, { key: orgKey }),
      201,
    );
    expectStatus(
      await postLead({ firstName: 'Kim', phone: second.national, email: 'KIM@Example.com' }, { key: orgKey }),
      201,
    );
    const all = await contactsOf(org.org.id);
    expect(all).toHaveLength(1);
    expect(all[0]).toMatchObject({ phone: first.e164, email: 'kim@example.com' });
    expect(await eventsOf(org.org.id, ['contact.updated'])).toHaveLength(1);
  });

  it('takes the listing agent as owner of a contact that had none, and adds the lead tag once', async () => {
    const phone = usPhone();
    expectStatus(await postLead({ firstName: 'Olga', phone: phone.e164 }), 201);
    expectStatus(await postLead({ firstName: 'Olga', phone: phone.e164, propertyId }), 201);
    const contact = await contactByPhone(tenant.org.id, phone.e164);
    expect(contact?.ownerId).toBe(agentId);
    expect(contact?.tags.filter((tag) => tag === 'portal-lead')).toHaveLength(1);
  });

  it('creates one contact when two leads of a new person arrive in parallel', async () => {
    const org = await createTenant(app);
    const orgKey = await busyPublishableKey(app, org.org.id);
    const phone = usPhone();
    const responses = await Promise.all([
      postLead({ firstName: 'Twin', phone: phone.national }, { key: orgKey }),
      postLead({ firstName: 'Twin', phone: phone.e164 }, { key: orgKey }),
    ]);
    for (const response of responses) expectStatus(response, 201);
    expect(await countContacts(org.org.id)).toBe(1);
    expect(await leadsOf(org.org.id)).toHaveLength(2);
    const types = (await eventsOf(org.org.id)).map((e) => e.type).sort();
    expect(types).toEqual(['contact.created', 'contact.updated', 'lead.submitted', 'lead.submitted']);
  });
});

describe('the lead events in the catalog', () => {
  it('serves lead.submitted and visit.requested with examples that match their schemas', async () => {
    expect(Value.Check(LeadSubmitted.schema, LeadSubmitted.example)).toBe(true);
    expect(Value.Check(VisitRequested.schema, VisitRequested.example)).toBe(true);
    // lead.submitted takes nothing but {success: true} (DESIGN.md).
    expect(Value.Check(LeadSubmitted.schema, { success: true, contactId: 'ct_x' })).toBe(false);
    const catalog = expectStatus(await api(app, 'GET', '/v1/events', { key: tenant.secret.key }), 200) as {
      data: { type: string; example: unknown }[];
    };
    const byType = new Map(catalog.data.map((entry) => [entry.type, entry]));
    expect(byType.get('lead.submitted')?.example).toEqual({ success: true });
    expect(byType.get('visit.requested')).toBeDefined();
  });
});

describe('POST /v1/leads: errors name the failing field', () => {
  const valid = () => ({ firstName: 'Valid', phone: usPhone().e164 });
  const cases: [string, () => Record<string, unknown>, string][] = [
    ['firstName too short', () => ({ ...valid(), firstName: 'A' }), 'body.firstName'],
    ['firstName only spaces', () => ({ ...valid(), firstName: '   ' }), 'body.firstName'],
    ['firstName too long', () => ({ ...valid(), firstName: 'x'.repeat(101) }), 'body.firstName'],
    ['firstName missing', () => ({ phone: usPhone().e164 }), 'firstName'],
    ['phone missing', () => ({ firstName: 'Valid' }), 'phone'],
    ['phone too short', () => ({ ...valid(), phone: '12345' }), 'body.phone'],
    ['phone too long', () => ({ ...valid(), phone: '+1 415 555 0000 00000' }), 'body.phone'],
    ['phone not a number', () => ({ ...valid(), phone: '123456789' }), 'body.phone'],
    ['email malformed', () => ({ ...valid(), email: 'not-an-email' }), 'body.email'],
    ['interestedIn outside the set', () => ({ ...valid(), interestedIn: 'BUY' }), 'body.interestedIn'],
    ['utmSource too long', () => ({ ...valid(), utmSource: 'x'.repeat(201) }), 'body.utmSource'],
    ['message too long', () => ({ ...valid(), message: 'x'.repeat(5001) }), 'body.message'],
    ['unknown field', () => ({ ...valid(), budget: 5 }), 'budget'],
    ['propertyId malformed', () => ({ ...valid(), propertyId: 'flat-12' }), 'body.propertyId'],
    [
      'propertyId unknown',
      () => ({ ...valid(), propertyId: 'prop_0000000000000000000000' }),
      'body.propertyId',
    ],
  ];
  for (const [name, body, field] of cases) {
    it(`400 VALIDATION_ERROR for ${name}, naming ${field}`, async () => {
      const error = expectError(await postLead(body()), 400, 'VALIDATION_ERROR');
      expect(error.message).toContain(field);
    });
  }

  it('refuses a property that is unpublished, not ACTIVE or of another agency with the same 400', async () => {
    const unpublished = (await createProperty(app, tenant.org.id, { publishedOnPortal: false })).id;
    const sold = (await createProperty(app, tenant.org.id, { status: 'SOLD' })).id;
    const other = await createTenant(app);
    const foreign = (await createProperty(app, other.org.id)).id;
    const unknown = expectError(
      await postLead({ ...valid(), propertyId: 'prop_0000000000000000000000' }),
      400,
      'VALIDATION_ERROR',
    );
    for (const id of [unpublished, sold, foreign]) {
      const error = expectError(await postLead({ ...valid(), propertyId: id }), 400, 'VALIDATION_ERROR');
      expect(error.message).toBe(unknown.message);
      expect(error.details).toEqual([{ field: 'body.propertyId', message: expect.any(String) }]);
    }
  });

  it('writes nothing when the lead fails inside its transaction', async () => {
    const org = await createTenant(app);
    const orgKey = await busyPublishableKey(app, org.org.id);
    const unpublished = (await createProperty(app, org.org.id, { publishedOnPortal: false })).id;
    const before = (await eventsOf(org.org.id)).length;
    expectError(
      await postLead({ firstName: 'Ghost', phone: usPhone().e164, propertyId: unpublished }, { key: orgKey }),
      400,
      'VALIDATION_ERROR',
    );
    expect(await countContacts(org.org.id)).toBe(0);
    expect(await leadsOf(org.org.id)).toHaveLength(0);
    expect((await eventsOf(org.org.id)).length).toBe(before);
    expect((await leadFormAnalytics(org.org.id)).raw).toHaveLength(0);
  });
});

describe('POST /v1/leads: keys, browsers and retries', () => {
  it('takes a publishable key cross-origin, with open CORS, preflight included', async () => {
    const headers = { origin: 'https://www.agency.example', 'sec-fetch-site': 'cross-site' };
    const response = await postLead({ firstName: 'Web', phone: usPhone().e164 }, { headers });
    expectStatus(response, 201);
    expect(response.headers['access-control-allow-origin']).toBe('*');

    const preflight = await app.inject({
      method: 'OPTIONS',
      url: '/v1/leads',
      headers: {
        origin: 'https://www.agency.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'x-api-key, content-type, idempotency-key',
      },
    });
    expect(preflight.statusCode, preflight.body).toBeLessThan(300);
    expect(preflight.headers['access-control-allow-origin']).toBe('*');
    expect(String(preflight.headers['access-control-allow-methods'])).toContain('POST');
  });

  it('answers 403 SECRET_KEY_IN_BROWSER to a secret key sent from a browser, and records nothing', async () => {
    const phone = usPhone();
    expectError(
      await postLead(
        { firstName: 'Leak', phone: phone.e164 },
        { key: tenant.secret.key, headers: { origin: 'https://www.agency.example' } },
      ),
      403,
      'SECRET_KEY_IN_BROWSER',
    );
    expect(await contactByPhone(tenant.org.id, phone.e164)).toBeNull();
    // The same key from a server is fine (leads:write is open to every key type).
    expectStatus(await postLead({ firstName: 'Server', phone: phone.e164 }, { key: tenant.secret.key }), 201);
  });

  it('answers 403 naming leads:write to a key without it', async () => {
    const noScope = await createApiKey(app, tenant.org.id, { type: 'publishable', scopes: ['portal:read'] });
    const error = expectError(
      await postLead({ firstName: 'Nope', phone: usPhone().e164 }, { key: noScope.key }),
      403,
      'FORBIDDEN',
    );
    expect(error.message).toContain('leads:write');
  });

  it('replays an Idempotency-Key retry without a second lead or event, and refuses the key with another body', async () => {
    const org = await createTenant(app);
    const orgKey = await busyPublishableKey(app, org.org.id);
    const body = {
      firstName: 'Retry',
      phone: usPhone().e164,
      propertyId: (await createProperty(app, org.org.id)).id,
    };
    const headers = { 'idempotency-key': 'lead-form-0001' };
    const first = await postLead(body, { key: orgKey, headers });
    const again = await postLead(body, { key: orgKey, headers });
    expect(expectStatus(again, 201)).toStrictEqual(expectStatus(first, 201));
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(await leadsOf(org.org.id)).toHaveLength(1);
    expect((await eventsOf(org.org.id)).map((e) => e.type).sort()).toEqual([
      'contact.created',
      'lead.submitted',
    ]);
    expect((await leadFormAnalytics(org.org.id)).raw).toHaveLength(1);

    expectError(await postLead({ ...body, firstName: 'Other' }, { key: orgKey, headers }), 409, 'DUPLICATE');
  });
});

describe('POST /v1/leads: tenant isolation', () => {
  it("never shows one agency's lead to another, even for the same phone number", async () => {
    const a = await createTenant(app);
    const b = await createTenant(app);
    const keyA = await busyPublishableKey(app, a.org.id);
    const keyB = await busyPublishableKey(app, b.org.id);
    const phone = usPhone();
    expectStatus(await postLead({ firstName: 'Ada', phone: phone.e164 }, { key: keyA }), 201);
    expect(await countContacts(b.org.id)).toBe(0);
    expect(await eventsOf(b.org.id)).toHaveLength(0);
    expect(await leadsOf(b.org.id)).toHaveLength(0);

    // The same person writing to agency B becomes B's own contact, created (not updated).
    expectStatus(await postLead({ firstName: 'Ada', phone: phone.national }, { key: keyB }), 201);
    const contactA = await contactByPhone(a.org.id, phone.e164);
    const contactB = await contactByPhone(b.org.id, phone.e164);
    expect(contactB?.id).not.toBe(contactA?.id);
    expect((await eventsOf(b.org.id)).map((e) => e.type).sort()).toEqual([
      'contact.created',
      'lead.submitted',
    ]);
    expect((await eventsOf(a.org.id)).map((e) => e.type).sort()).toEqual([
      'contact.created',
      'lead.submitted',
    ]);
  });

  it("refuses another agency's property without writing anything in either agency", async () => {
    const a = await createTenant(app);
    const b = await createTenant(app);
    const keyB = await busyPublishableKey(app, b.org.id);
    const propertyOfA = (await createProperty(app, a.org.id)).id;
    const error = expectError(
      await postLead({ firstName: 'Eve', phone: usPhone().e164, propertyId: propertyOfA }, { key: keyB }),
      400,
      'VALIDATION_ERROR',
    );
    expect(error.message).toContain('body.propertyId');
    expect(await countContacts(a.org.id)).toBe(0);
    expect(await countContacts(b.org.id)).toBe(0);
    expect((await leadFormAnalytics(a.org.id)).raw).toHaveLength(0);
  });
});
