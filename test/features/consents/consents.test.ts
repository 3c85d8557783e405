import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventCatalog } from '../../../src/platform/events/catalog.ts';
import {
  busyPublishableKey,
  createApiKey,
  createTenant,
  MESSAGING_AGENCY,
  nextPhone,
  type Tenant,
} from '../../helpers/factories.ts';
import { admin, api, expectError, expectStatus } from '../../helpers/http.ts';
import { buildTestApp } from '../../helpers/test-app.ts';
import { eventsOf, inbound, send } from '../conversations/support.ts';

let app: FastifyInstance;
let tenant: Tenant;

beforeAll(async () => {
  app = await buildTestApp();
  tenant = await createTenant(app, { secret: { rateLimitPerMinute: 100_000, writeLimitPerMinute: 100_000 } });
});
afterAll(async () => {
  await app.close();
});

interface Consents {
  contactId: string;
  current: Record<'MESSAGING' | 'EMAIL' | 'PHONE', { status: string; source: string; at: string } | null>;
  history: { id: string; channel: string; status: string; source: string; at: string; actorKind: string }[];
}

async function newContact(body: Record<string, unknown> = {}, key = tenant.secret.key): Promise<string> {
  const created = await api(app, 'POST', '/v1/contacts', { key, body: { firstName: 'Consenting', ...body } });
  return expectStatus(created, 201).data.id;
}

const put = (id: string, channel: string, body: unknown, key = tenant.secret.key) =>
  api(app, 'PUT', `/v1/contacts/${id}/consents/${channel}`, { key, body });
const get = (id: string, key = tenant.secret.key) => api(app, 'GET', `/v1/contacts/${id}/consents`, { key });
const consentsOf = async (id: string, key = tenant.secret.key) =>
  expectStatus(await get(id, key), 200).data as Consents;

describe('PUT and GET /v1/contacts/{id}/consents', () => {
  it('starts empty, records each statement as history and answers the current state per channel', async () => {
    const id = await newContact();
    expect(await consentsOf(id)).toEqual({
      contactId: id,
      current: { MESSAGING: null, EMAIL: null, PHONE: null },
      history: [],
    });
    const granted = expectStatus(await put(id, 'EMAIL', { status: 'GRANTED', source: ' website form ' }), 200)
      .data as Consents;
    expect(granted.current.EMAIL).toMatchObject({ status: 'GRANTED', source: 'website form' });
    expect(granted.current.MESSAGING).toBeNull();
    expectStatus(await put(id, 'PHONE', { status: 'GRANTED', source: 'call centre' }), 200);
    expectStatus(await put(id, 'EMAIL', { status: 'REVOKED', source: 'unsubscribe link' }), 200);
    const read = await consentsOf(id);
    expect(read.current.EMAIL).toMatchObject({ status: 'REVOKED', source: 'unsubscribe link' });
    expect(read.current.PHONE).toMatchObject({ status: 'GRANTED' });
    expect(read.history.map((h) => [h.channel, h.status])).toEqual([
      ['EMAIL', 'REVOKED'],
      ['PHONE', 'GRANTED'],
      ['EMAIL', 'GRANTED'],
    ]);
    expect(read.history.every((h) => h.actorKind === 'API' && h.id.startsWith('cns_'))).toBe(true);
  });

  it('records contact.consent_changed on a change of status only, without personal data', async () => {
    const id = await newContact({ email: `consent-${Date.now()}@example.com` });
    expectStatus(await put(id, 'EMAIL', { status: 'GRANTED', source: 'form' }), 200);
    expectStatus(await put(id, 'EMAIL', { status: 'GRANTED', source: 'form again' }), 200);
    expectStatus(await put(id, 'EMAIL', { status: 'REVOKED', source: 'mail' }), 200);
    const log = expectStatus(
      await api(app, 'GET', '/v1/event-log', {
        key: tenant.secret.key,
        query: { type: 'contact.consent_changed', pageSize: '100' },
      }),
      200,
    );
    const mine = log.data.filter(
      (e: { data: { consent: { contactId: string } } }) => e.data.consent.contactId === id,
    );
    expect(
      mine.map((e: { data: { consent: { status: string; source: string } } }) => e.data.consent),
    ).toEqual([
      expect.objectContaining({ channel: 'EMAIL', status: 'GRANTED', source: 'form' }),
      expect.objectContaining({ channel: 'EMAIL', status: 'REVOKED', source: 'mail' }),
    ]);
    expect(Object.keys(mine[0].data.consent).sort()).toEqual([
      'at',
      'channel',
      'contactId',
      'source',
      'status',
    ]);
    expect(mine[0].actor.kind).toBe('API');
    expect(() => eventCatalog.check('contact.consent_changed', mine[0].data)).not.toThrow();
    expect((await consentsOf(id)).history).toHaveLength(3);
  });

  it('names the field of a bad channel, status or source', async () => {
    const id = await newContact();
    const bad: [string, unknown, RegExp][] = [
      ['SMS', { status: 'GRANTED', source: 'x' }, /path\.channel/],
      ['messaging', { status: 'GRANTED', source: 'x' }, /path\.channel/],
      ['EMAIL', { status: 'MAYBE', source: 'x' }, /body\.status/],
      ['EMAIL', { source: 'x' }, /body\.status/],
      ['EMAIL', { status: 'GRANTED' }, /body\.source/],
      ['EMAIL', { status: 'GRANTED', source: '   ' }, /body\.source/],
      ['EMAIL', { status: 'GRANTED', source: 'x'.repeat(101) }, /body\.source/],
      ['EMAIL', { status: 'GRANTED', source: 'x', at: 'now' }, /body\.at/],
    ];
    for (const [channel, body, field] of bad) {
      const error = expectError(await put(id, channel, body), 400, 'VALIDATION_ERROR');
      expect(JSON.stringify(error), `${channel} ${JSON.stringify(body)}`).toMatch(field);
    }
    expect((await consentsOf(id)).history).toEqual([]);
  });

  it('refuses keys without the scope, publishable and read-only keys, and another organization’s contact', async () => {
    const id = await newContact();
    const body = { status: 'GRANTED', source: 'x' };
    const reader = await createApiKey(app, tenant.org.id, {
      type: 'secret',
      scopes: ['contacts:read'],
      accessLevel: 3,
    });
    expectError(await put(id, 'EMAIL', body, reader.key), 403, 'FORBIDDEN');
    const levelOne = await createApiKey(app, tenant.org.id, {
      type: 'secret',
      scopes: ['contacts:read', 'contacts:write'],
      accessLevel: 1,
    });
    expectError(await put(id, 'EMAIL', body, levelOne.key), 403, 'FORBIDDEN');
    expectStatus(await get(id, levelOne.key), 200);
    const writerNoRead = await createApiKey(app, tenant.org.id, { type: 'secret', scopes: ['deals:read'] });
    expectError(await get(id, writerNoRead.key), 403, 'FORBIDDEN');
    expectError(await put(id, 'EMAIL', body, tenant.publishable.key), 403, 'FORBIDDEN');
    expectError(await get(id, tenant.publishable.key), 403, 'FORBIDDEN');
    expectError(await put(id, 'EMAIL', body, tenant.readOnly.key), 403, 'FORBIDDEN');
    expectStatus(await get(id, tenant.readOnly.key), 200);
    const stranger = await createTenant(app);
    expectError(await put(id, 'EMAIL', body, stranger.secret.key), 404, 'NOT_FOUND');
    expectError(await get(id, stranger.secret.key), 404, 'NOT_FOUND');
    expectError(await put('ct_nope', 'EMAIL', body), 404, 'NOT_FOUND');
    expect((await consentsOf(id)).history).toEqual([]);
  });

  it('keeps MESSAGING and optedOut in step both ways', async () => {
    const id = await newContact();
    expectStatus(await put(id, 'MESSAGING', { status: 'REVOKED', source: 'phone call' }), 200);
    const contact = () => api(app, 'GET', `/v1/contacts/${id}`, { key: tenant.secret.key });
    expect(expectStatus(await contact(), 200).data.optedOut).toBe(true);
    expectStatus(await put(id, 'MESSAGING', { status: 'GRANTED', source: 'phone call' }), 200);
    expect(expectStatus(await contact(), 200).data.optedOut).toBe(false);

    expectStatus(
      await api(app, 'PATCH', `/v1/contacts/${id}`, { key: tenant.secret.key, body: { optedOut: true } }),
      200,
    );
    let read = await consentsOf(id);
    expect(read.current.MESSAGING).toMatchObject({ status: 'REVOKED', source: 'OPT_OUT' });
    expectStatus(
      await api(app, 'PATCH', `/v1/contacts/${id}`, { key: tenant.secret.key, body: { optedOut: false } }),
      200,
    );
    read = await consentsOf(id);
    expect(read.current.MESSAGING).toMatchObject({ status: 'GRANTED', source: 'OPT_OUT' });
    expect(read.history.map((h) => h.status)).toEqual(['GRANTED', 'REVOKED', 'GRANTED', 'REVOKED']);

    const optedOutAtBirth = await newContact({ optedOut: true });
    expect((await consentsOf(optedOutAtBirth)).current.MESSAGING).toMatchObject({
      status: 'REVOKED',
      source: 'OPT_OUT',
    });
  });
});

describe('racing statements', () => {
  it('leave the newest MESSAGING row and optedOut in agreement', async () => {
    const id = await newContact();
    const statuses = Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? 'GRANTED' : 'REVOKED'));
    const answers = await Promise.all(
      statuses.map((status, i) => put(id, 'MESSAGING', { status, source: `race ${i}` })),
    );
    for (const answer of answers) expectStatus(answer, 200);
    const read = await consentsOf(id);
    expect(read.history).toHaveLength(10);
    expect(read.current.MESSAGING?.source).toBe(read.history[0]?.source);
    const contact = expectStatus(
      await api(app, 'GET', `/v1/contacts/${id}`, { key: tenant.secret.key }),
      200,
    );
    expect(contact.data.optedOut).toBe(read.current.MESSAGING?.status === 'REVOKED');
  });
});

describe('consent and sending messages', () => {
  it('an inbound STOP revokes MESSAGING (INBOUND_STOP), sending is BLOCKED, a PUT GRANTED unblocks', async () => {
    const agency = await createTenant(app, MESSAGING_AGENCY);
    expectStatus(await inbound(app, agency.org.id, agency.messaging.contactId, 'STOP'), 201);
    const read = await consentsOf(agency.messaging.contactId, agency.secret.key);
    expect(read.current.MESSAGING).toMatchObject({ status: 'REVOKED', source: 'INBOUND_STOP' });
    expect(read.history[0]).toMatchObject({ actorKind: 'SYSTEM' });
    const changed = await eventsOf(agency.org.id, 'contact.consent_changed');
    expect(changed.map((e) => (e.data as unknown as { consent: unknown }).consent)).toEqual([
      expect.objectContaining({
        contactId: agency.messaging.contactId,
        channel: 'MESSAGING',
        status: 'REVOKED',
        source: 'INBOUND_STOP',
      }),
    ]);
    const error = expectError(
      await send(app, agency.secret.key, agency.messaging.contactId, { body: 'Hola' }),
      409,
      'CONFLICT',
    );
    expect(error).toMatchObject({ reason: 'BLOCKED' });

    // A second STOP adds history, not another event.
    expectStatus(await inbound(app, agency.org.id, agency.messaging.contactId, 'STOP'), 201);
    expect((await consentsOf(agency.messaging.contactId, agency.secret.key)).history).toHaveLength(2);
    expect(await eventsOf(agency.org.id, 'contact.consent_changed')).toHaveLength(1);

    expectStatus(
      await put(
        agency.messaging.contactId,
        'MESSAGING',
        { status: 'GRANTED', source: 'asked again by phone' },
        agency.secret.key,
      ),
      200,
    );
    expectStatus(
      await send(app, agency.secret.key, agency.messaging.contactId, { body: 'Hola de nuevo' }),
      201,
    );
    const updated = await eventsOf(agency.org.id, 'contact.updated');
    expect(updated.at(-1)?.data.changes).toEqual(['optedOut']);
    expect(updated.at(-1)?.data.contact.optedOut).toBe(false);
  });

  it('a PUT REVOKED on MESSAGING blocks sending through the opt-out flag', async () => {
    const agency = await createTenant(app, MESSAGING_AGENCY);
    expectStatus(await inbound(app, agency.org.id, agency.messaging.contactId, 'Hola'), 201);
    expectStatus(
      await put(
        agency.messaging.contactId,
        'MESSAGING',
        { status: 'REVOKED', source: 'email request' },
        agency.secret.key,
      ),
      200,
    );
    const error = expectError(
      await send(app, agency.secret.key, agency.messaging.contactId, { body: 'Hola' }),
      409,
      'CONFLICT',
    );
    expect(error).toMatchObject({ reason: 'BLOCKED' });
  });
});

describe('consent given on portal forms', () => {
  it('records the lead form’s and the finder’s consents (LEAD_FORM, FINDER_FORM), in the form’s transaction', async () => {
    const org = expectStatus(
      await admin(app, 'POST', '/admin/v1/organizations', {
        name: 'Forms',
        plan: 'BUSINESS',
        defaultCountry: 'ES',
        writeLimitPerMinute: 100_000,
      }),
      201,
    ).data;
    const key = await busyPublishableKey(app, org.id);
    const secret = (await createApiKey(app, org.id, { type: 'secret', scopes: ['contacts:read'] })).key;
    const phone = nextPhone();
    expectStatus(
      await api(app, 'POST', '/v1/leads', {
        key,
        body: {
          firstName: 'Formal',
          phone,
          email: `form-${Date.now()}@example.com`,
          consents: { messaging: true, email: false },
        },
      }),
      201,
    );
    const contacts = expectStatus(await api(app, 'GET', '/v1/contacts', { key: secret }), 200).data;
    const id = contacts[0].id as string;
    let read = await consentsOf(id, secret);
    expect(read.current).toEqual({
      MESSAGING: expect.objectContaining({ status: 'GRANTED', source: 'LEAD_FORM' }),
      EMAIL: expect.objectContaining({ status: 'REVOKED', source: 'LEAD_FORM' }),
      PHONE: null,
    });

    expectStatus(
      await api(app, 'POST', '/v1/finder', {
        key,
        body: { city: 'Málaga', firstName: 'Formal', phone, consents: { phone: true, messaging: false } },
      }),
      201,
    );
    read = await consentsOf(id, secret);
    expect(read.current.PHONE).toMatchObject({ status: 'GRANTED', source: 'FINDER_FORM' });
    expect(read.current.MESSAGING).toMatchObject({ status: 'REVOKED', source: 'FINDER_FORM' });
    expect(read.history).toHaveLength(4);

    // A bad consents object is the form's 400, and nothing is recorded.
    const error = expectError(
      await api(app, 'POST', '/v1/leads', {
        key,
        body: { firstName: 'Formal', phone, consents: { sms: true } },
      }),
      400,
      'VALIDATION_ERROR',
    );
    expect(JSON.stringify(error)).toMatch(/body\.consents/);
    expectError(
      await api(app, 'POST', '/v1/leads', {
        key,
        body: { firstName: 'Formal', phone, consents: { email: 'yes' } },
      }),
      400,
      'VALIDATION_ERROR',
    );
    expect((await consentsOf(id, secret)).history).toHaveLength(4);
  });
});
