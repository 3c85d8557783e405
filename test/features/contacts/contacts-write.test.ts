import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createAgent,
  createContact,
  createTenant,
  SPANISH_AGENCY,
  type SpanishAgency,
} from '../../helpers/factories.ts';
import { api, expectError, expectStatus } from '../../helpers/http.ts';
import { buildTestApp } from '../../helpers/test-app.ts';
import { eventsOf, expectCatalogShape, spanishPhone } from './support.ts';

let app: FastifyInstance;
let agency: SpanishAgency;
let other: SpanishAgency;
let agentId: string;

beforeAll(async () => {
  app = await buildTestApp();
  agency = await createTenant(app, SPANISH_AGENCY);
  other = await createTenant(app, SPANISH_AGENCY);
  agentId = (await createAgent(app, agency.org.id)).id;
});
afterAll(async () => {
  await app.close();
});

const post = (body: unknown, key = agency.secret.key, headers: Record<string, string> = {}) =>
  api(app, 'POST', '/v1/contacts', { key, body, headers });
const patch = (id: string, body: unknown, key = agency.secret.key) =>
  api(app, 'PATCH', `/v1/contacts/${id}`, { key, body });
const get = (id: string, key = agency.secret.key) => api(app, 'GET', `/v1/contacts/${id}`, { key });

describe('POST /v1/contacts: happy path', () => {
  it('creates a contact from the SPEC body: E.164 phone, defaults, code, score 0, and contact.created', async () => {
    const phone = spanishPhone();
    const response = await post({
      firstName: 'Lucía',
      phone: phone.spaced,
      source: 'WEBSITE',
      tags: ['buyer', 'buyer', 'vip'],
    });
    const contact = expectStatus(response, 201).data;
    expect(contact).toStrictEqual({
      id: expect.stringMatching(/^ct_/),
      code: expect.stringMatching(/^CT-\d{6}$/),
      firstName: 'Lucía',
      lastName: '',
      fullName: 'Lucía',
      email: null,
      phone: phone.e164,
      source: 'WEBSITE',
      status: 'NEW',
      type: 'LEAD',
      score: 0,
      ownerId: null,
      preferredCity: null,
      preferredLanguage: null,
      preferredType: null,
      budget: null,
      currency: null,
      tags: ['buyer', 'vip'],
      optedOut: false,
      externalId: null,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect(expectStatus(await get(contact.id), 200).data).toStrictEqual(contact);

    const recorded = (await eventsOf(agency.org.id, ['contact.created'])).filter(
      (event) => (event.data as { contact: { id: string } }).contact.id === contact.id,
    );
    expect(recorded).toHaveLength(1);
    expect(recorded[0]?.data).toStrictEqual({ contact });
    expect(recorded[0]?.actor).toStrictEqual({ kind: 'API', userId: null });
    expectCatalogShape('contact.created', recorded[0]?.data);
  });

  it('takes every writable field; a budget without a currency is in the organization currency', async () => {
    const phone = spanishPhone();
    const contact = await createContact(app, agency, {
      via: 'api',
      body: {
        firstName: '  Marta ',
        lastName: 'Núñez',
        email: 'Marta.Nunez@Example.com',
        phone: phone.international,
        source: 'REFERRAL',
        status: 'QUALIFIED',
        type: 'CLIENT',
        ownerId: agentId,
        preferredCity: 'Málaga',
        preferredType: 'APARTMENT',
        budget: 350000,
        tags: ['buyer'],
        optedOut: true,
        externalId: 'crm-42',
      },
    });
    expect(contact).toMatchObject({
      firstName: 'Marta',
      lastName: 'Núñez',
      fullName: 'Marta Núñez',
      email: 'Marta.Nunez@Example.com',
      phone: phone.e164,
      source: 'REFERRAL',
      status: 'QUALIFIED',
      type: 'CLIENT',
      ownerId: agentId,
      preferredCity: 'Málaga',
      preferredType: 'APARTMENT',
      budget: 350000,
      currency: 'EUR',
      optedOut: true,
      externalId: 'crm-42',
    });
  });

  it('defaults the source to API and accepts a contact without phone or email', async () => {
    const contact = await createContact(app, agency, { via: 'api', body: { firstName: 'Walk-in' } });
    expect(contact).toMatchObject({ source: 'API', phone: null, email: null });
  });

  it('honours Idempotency-Key: the replay returns the same contact and creates nothing', async () => {
    const phone = spanishPhone();
    const headers = { 'idempotency-key': `contact-${phone.national}` };
    const first = await post({ firstName: 'Pablo', phone: phone.e164 }, agency.secret.key, headers);
    const second = await post({ firstName: 'Pablo', phone: phone.e164 }, agency.secret.key, headers);
    expect(expectStatus(second, 201)).toStrictEqual(expectStatus(first, 201));
    expect(second.headers['idempotent-replayed']).toBe('true');
    const listed = await api(app, 'GET', '/v1/contacts', {
      key: agency.secret.key,
      query: { q: phone.national },
    });
    expect(expectStatus(listed, 200).meta.total).toBe(1);
  });
});

describe('POST /v1/contacts: duplicates', () => {
  it('answers 409 DUPLICATE naming the contact that has the phone, given in another format', async () => {
    const phone = spanishPhone();
    const existing = await createContact(app, agency, {
      via: 'api',
      body: { firstName: 'Ana', phone: phone.e164 },
    });
    const error = expectError(await post({ firstName: 'Ana B', phone: phone.spaced }), 409, 'DUPLICATE');
    expect(error.message).toContain(existing.id);
    expect((error as unknown as { existingId: string }).existingId).toBe(existing.id);
  });

  it('answers 409 DUPLICATE naming the contact that has the email, given in another case', async () => {
    const existing = await createContact(app, agency, {
      via: 'api',
      body: { firstName: 'Eva', email: 'eva.dup@example.com' },
    });
    const error = expectError(
      await post({ firstName: 'Eva', email: 'EVA.Dup@Example.COM', phone: spanishPhone().e164 }),
      409,
      'DUPLICATE',
    );
    expect(error.message).toContain(existing.id);
    expect((error as unknown as { existingId: string }).existingId).toBe(existing.id);
  });

  it('lets two parallel creates of one phone end in one 201 and one 409 naming the winner', async () => {
    const phone = spanishPhone();
    const responses = await Promise.all([
      post({ firstName: 'Twin', phone: phone.e164 }),
      post({ firstName: 'Twin', phone: phone.spaced }),
    ]);
    const statuses = responses.map((r) => r.statusCode).sort();
    expect(statuses, responses.map((r) => r.body).join('\n')).toStrictEqual([201, 409]);
    const winner = responses.find((r) => r.statusCode === 201)?.json().data.id;
    const loser = responses.find((r) => r.statusCode === 409)?.json().error;
    expect(loser.code).toBe('DUPLICATE');
    expect(loser.existingId).toBe(winner);
  });

  it('does not look across organizations: another agency may have the same phone', async () => {
    const phone = spanishPhone();
    await createContact(app, agency, { via: 'api', body: { firstName: 'Same', phone: phone.e164 } });
    await createContact(app, other, { via: 'api', body: { firstName: 'Same', phone: phone.e164 } });
  });
});

describe('POST /v1/contacts: errors name the field', () => {
  it.each([
    [{}, 'firstName'],
    [{ firstName: '' }, 'body.firstName'],
    [{ firstName: '   ' }, 'body.firstName'],
    [{ firstName: 'X', phone: '12345678901' }, 'body.phone'],
    [{ firstName: 'X', email: 'not-an-email' }, 'body.email'],
    [{ firstName: 'X', status: 'HOT' }, 'body.status'],
    [{ firstName: 'X', source: 'TV' }, 'body.source'],
    [{ firstName: 'X', type: 'FRIEND' }, 'body.type'],
    [{ firstName: 'X', preferredType: 'CASTLE' }, 'body.preferredType'],
    [{ firstName: 'X', currency: 'euro' }, 'body.currency'],
    [{ firstName: 'X', budget: -1 }, 'body.budget'],
    [{ firstName: 'X', tags: 'vip' }, 'body.tags'],
    [{ firstName: 'X', score: 90 }, 'score'],
    [{ firstName: 'X', ownerId: 'agt_0000000000000000000000' }, 'body.ownerId'],
  ])('%j -> 400 naming %s', async (body, field) => {
    const error = expectError(await post(body), 400, 'VALIDATION_ERROR');
    expect(error.message).toContain(field);
  });

  it('refuses an owner of another organization', async () => {
    const theirs = (await createAgent(app, other.org.id)).id;
    const error = expectError(await post({ firstName: 'X', ownerId: theirs }), 400, 'VALIDATION_ERROR');
    expect(error.message).toContain('body.ownerId');
  });
});

describe('PATCH /v1/contacts/{id}', () => {
  it('changes the fields sent and records contact.updated naming only the fields that changed', async () => {
    const phone = spanishPhone();
    const contact = await createContact(app, agency, {
      via: 'api',
      body: {
        firstName: 'Irene',
        phone: phone.e164,
        tags: ['a'],
      },
    });
    const response = await patch(contact.id, {
      firstName: 'Irene',
      phone: phone.spaced,
      tags: ['a', 'b'],
      status: 'CONTACTED',
      lastName: 'Gil',
    });
    const updated = expectStatus(response, 200).data;
    expect(updated).toMatchObject({
      id: contact.id,
      code: contact.code,
      firstName: 'Irene',
      lastName: 'Gil',
      fullName: 'Irene Gil',
      phone: phone.e164,
      status: 'CONTACTED',
      tags: ['a', 'b'],
      createdAt: contact.createdAt,
    });
    expect(Date.parse(updated.updatedAt)).toBeGreaterThanOrEqual(Date.parse(contact.updatedAt as string));
    const recorded = (await eventsOf(agency.org.id, ['contact.updated'])).filter(
      (event) => (event.data as { contact: { id: string } }).contact.id === contact.id,
    );
    expect(recorded).toHaveLength(1);
    expect(recorded[0]?.data).toStrictEqual({ contact: updated, changes: ['lastName', 'status', 'tags'] });
    expect(recorded[0]?.actor).toStrictEqual({ kind: 'API', userId: null });
    expectCatalogShape('contact.updated', recorded[0]?.data);
  });

  it('clears nullable fields with null (a budget takes its currency with it)', async () => {
    const contact = await createContact(app, agency, {
      via: 'api',
      body: {
        firstName: 'Nora',
        email: 'nora@example.com',
        phone: spanishPhone().e164,
        ownerId: agentId,
        preferredCity: 'Sevilla',
        preferredType: 'HOUSE',
        budget: 200000,
        currency: 'USD',
        externalId: 'ext-nora',
      },
    });
    const cleared = expectStatus(
      await patch(contact.id, {
        email: null,
        phone: null,
        ownerId: null,
        preferredCity: null,
        preferredType: null,
        budget: null,
        externalId: null,
      }),
      200,
    ).data;
    expect(cleared).toMatchObject({
      email: null,
      phone: null,
      ownerId: null,
      preferredCity: null,
      preferredType: null,
      budget: null,
      currency: null,
      externalId: null,
    });
    // The freed email can be used again by someone else.
    await createContact(app, agency, {
      via: 'api',
      body: { firstName: 'Other Nora', email: 'NORA@example.com' },
    });
  });

  it('answers 200 without an event when nothing changes (same phone in another format, same values)', async () => {
    const phone = spanishPhone();
    const contact = await createContact(app, agency, {
      via: 'api',
      body: { firstName: 'Quim', phone: phone.e164, tags: ['t'] },
    });
    const before = (await eventsOf(agency.org.id, ['contact.updated'])).length;
    const response = await patch(contact.id, { firstName: 'Quim', phone: phone.spaced, tags: ['t', 't'] });
    expect(expectStatus(response, 200).data).toStrictEqual(contact);
    expect((await eventsOf(agency.org.id, ['contact.updated'])).length).toBe(before);
  });

  it('answers 409 naming the other contact when the new phone or email is taken', async () => {
    const phone = spanishPhone();
    const holder = await createContact(app, agency, {
      via: 'api',
      body: {
        firstName: 'Holder',
        phone: phone.e164,
        email: 'holder@example.com',
      },
    });
    const mover = await createContact(app, agency, {
      via: 'api',
      body: { firstName: 'Mover', phone: spanishPhone().e164 },
    });
    const byPhone = expectError(await patch(mover.id, { phone: phone.spaced }), 409, 'DUPLICATE');
    expect(byPhone.message).toContain(holder.id);
    expect((byPhone as unknown as { existingId: string }).existingId).toBe(holder.id);
    const byEmail = expectError(await patch(mover.id, { email: 'HOLDER@example.com' }), 409, 'DUPLICATE');
    expect((byEmail as unknown as { existingId: string }).existingId).toBe(holder.id);
    // Its own email in another case is no duplicate: a change of spelling only.
    const own = expectStatus(await patch(holder.id, { email: 'Holder@Example.com' }), 200).data;
    expect(own.email).toBe('Holder@Example.com');
  });

  it('refuses an empty body, a blank name, a bad phone and the computed score, naming the field', async () => {
    const contact = await createContact(app, agency, { via: 'api', body: { firstName: 'Rosa' } });
    expectError(await patch(contact.id, {}), 400, 'VALIDATION_ERROR');
    expect(
      expectError(await patch(contact.id, { firstName: ' ' }), 400, 'VALIDATION_ERROR').message,
    ).toContain('body.firstName');
    expect(expectError(await patch(contact.id, { phone: '123' }), 400, 'VALIDATION_ERROR').message).toContain(
      'body.phone',
    );
    expect(expectError(await patch(contact.id, { score: 100 }), 400, 'VALIDATION_ERROR').message).toContain(
      'score',
    );
    expect(
      expectError(await patch(contact.id, { ownerId: 'nope' }), 400, 'VALIDATION_ERROR').message,
    ).toContain('body.ownerId');
  });

  it('answers 404 for an unknown or malformed id', async () => {
    const unknown = expectError(await patch('ct_0000000000000000000000', { tags: [] }), 404, 'NOT_FOUND');
    expect(unknown.message).toBe('Contact ct_0000000000000000000000 not found');
    expectError(await patch('nope', { tags: [] }), 404, 'NOT_FOUND');
  });
});

describe('contacts writes: security', () => {
  it('refuses a key with access level 2 (403), on create and on change', async () => {
    const contact = await createContact(app, agency, { via: 'api', body: { firstName: 'Level' } });
    expectError(await post({ firstName: 'X' }, agency.keys.level2.key), 403, 'FORBIDDEN');
    expectError(await patch(contact.id, { tags: ['x'] }, agency.keys.level2.key), 403, 'FORBIDDEN');
  });

  it('refuses a secret key without contacts:write, a read-only key and a publishable key (403)', async () => {
    const contact = await createContact(app, agency, { via: 'api', body: { firstName: 'Guarded' } });
    for (const key of [agency.keys.noWrite.key, agency.readOnly.key, agency.publishable.key]) {
      expect((await post({ firstName: 'X' }, key)).statusCode).toBe(403);
      expect((await patch(contact.id, { tags: ['x'] }, key)).statusCode).toBe(403);
    }
  });

  it("never reads or changes another organization's contact: 404 as for a missing one", async () => {
    const mine = await createContact(app, agency, {
      via: 'api',
      body: { firstName: 'Mine', phone: spanishPhone().e164 },
    });
    const read = expectError(await get(mine.id, other.secret.key), 404, 'NOT_FOUND');
    expect(read.message).toBe(`Contact ${mine.id} not found`);
    const change = expectError(
      await patch(mine.id, { firstName: 'Theirs' }, other.secret.key),
      404,
      'NOT_FOUND',
    );
    expect(change.message).toBe(`Contact ${mine.id} not found`);
    expect(expectStatus(await get(mine.id), 200).data.firstName).toBe('Mine');
  });
});

describe('POST /v1/contacts: the phone schema', () => {
  it('says what it can of a phone: at least 4 digits, the rest checked by libphonenumber', async () => {
    const document = expectStatus(await api(app, 'GET', '/v1/openapi.json'), 200);
    const phone = document.components.schemas.CreateContactBody.properties.phone.anyOf[0];
    expect(phone).toMatchObject({ minLength: 7, maxLength: 30, pattern: expect.any(String) });
    const error = expectError(
      await post({ firstName: 'Ana', phone: 'call me at 123' }),
      400,
      'VALIDATION_ERROR',
    );
    expect(error.details).toEqual([
      { field: 'body.phone', message: expect.stringContaining('not a valid phone number') },
    ]);
  });

  it('still accepts a number written inside text, as libphonenumber reads it', async () => {
    const phone = spanishPhone();
    const created = expectStatus(await post({ firstName: 'Ana', phone: `tel: ${phone.spaced}` }), 201);
    expect(created.data.phone).toBe(phone.e164);
  });
});
