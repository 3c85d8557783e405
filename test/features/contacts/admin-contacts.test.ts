import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent, createTenant, SPANISH_AGENCY, type SpanishAgency } from '../../helpers/factories.ts';
import { admin, expectError, expectStatus } from '../../helpers/http.ts';
import { buildTestApp } from '../../helpers/test-app.ts';
import { eventsOf, expectCatalogShape, spanishPhone } from './support.ts';

let app: FastifyInstance;
let agency: SpanishAgency;
let other: SpanishAgency;
let base: string;

beforeAll(async () => {
  app = await buildTestApp();
  agency = await createTenant(app, SPANISH_AGENCY);
  other = await createTenant(app, SPANISH_AGENCY);
  base = `/admin/v1/organizations/${agency.org.id}/contacts`;
});
afterAll(async () => {
  await app.close();
});

const eventOf = async (organizationId: string, type: string, contactId: string) =>
  (await eventsOf(organizationId, [type])).filter(
    (event) => (event.data as { contact: { id: string } }).contact.id === contactId,
  );

describe('admin contacts: happy path', () => {
  it('creates (source OTHER by default, optedOut settable), reads, lists, changes and deletes, as SYSTEM', async () => {
    const phone = spanishPhone();
    const ownerId = (await createAgent(app, agency.org.id)).id;
    const created = expectStatus(
      await admin(app, 'POST', base, {
        firstName: 'Teresa',
        lastName: 'Ruiz',
        phone: phone.national,
        email: 'teresa@example.com',
        optedOut: true,
        ownerId,
        tags: ['owner'],
      }),
      201,
    ).data;
    expect(created).toMatchObject({
      firstName: 'Teresa',
      phone: phone.e164,
      source: 'OTHER',
      status: 'NEW',
      optedOut: true,
      ownerId,
      tags: ['owner'],
    });
    const [createdEvent] = await eventOf(agency.org.id, 'contact.created', created.id);
    expect(createdEvent?.actor).toStrictEqual({ kind: 'SYSTEM', userId: null });
    expect(createdEvent?.data).toStrictEqual({ contact: created });
    expectCatalogShape('contact.created', createdEvent?.data);

    expect(expectStatus(await admin(app, 'GET', `${base}/${created.id}`), 200).data).toStrictEqual(created);
    const listed = expectStatus(await admin(app, 'GET', `${base}?optedOut=true&q=teresa`), 200);
    expect(listed.data.map((c: { id: string }) => c.id)).toStrictEqual([created.id]);

    const changed = expectStatus(
      await admin(app, 'PATCH', `${base}/${created.id}`, { optedOut: false, status: 'CONTACTED' }),
      200,
    ).data;
    expect(changed).toMatchObject({ optedOut: false, status: 'CONTACTED' });
    const [updatedEvent] = await eventOf(agency.org.id, 'contact.updated', created.id);
    expect(updatedEvent?.data).toStrictEqual({ contact: changed, changes: ['status', 'optedOut'] });
    expect(updatedEvent?.actor).toStrictEqual({ kind: 'SYSTEM', userId: null });

    expect(expectStatus(await admin(app, 'DELETE', `${base}/${created.id}`), 200)).toStrictEqual({
      data: {
        id: created.id,
        deleted: true,
        erased: { deals: 0, tasks: 0, appointments: 0, events: expect.any(Number), storedResponses: 0 },
      },
    });
    const [deletedEvent] = await eventOf(agency.org.id, 'contact.deleted', created.id);
    expect(deletedEvent?.data).toEqual({
      contact: { id: created.id, deletedAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T.*Z$/) },
    });
    expectCatalogShape('contact.deleted', deletedEvent?.data);
    expectError(await admin(app, 'GET', `${base}/${created.id}`), 404, 'NOT_FOUND');
    // Its phone is free again.
    expectStatus(await admin(app, 'POST', base, { firstName: 'New Teresa', phone: phone.e164 }), 201);
  });
});

describe('admin contacts: errors', () => {
  it('applies the API rules: duplicate phone 409 naming the holder, unknown owner 400', async () => {
    const phone = spanishPhone();
    const holder = expectStatus(
      await admin(app, 'POST', base, { firstName: 'Holder', phone: phone.e164 }),
      201,
    ).data;
    const error = expectError(
      await admin(app, 'POST', base, { firstName: 'Copy', phone: phone.international }),
      409,
      'DUPLICATE',
    );
    expect((error as unknown as { existingId: string }).existingId).toBe(holder.id);
    const owner = expectError(
      await admin(app, 'PATCH', `${base}/${holder.id}`, { ownerId: 'agt_0000000000000000000000' }),
      400,
      'VALIDATION_ERROR',
    );
    expect(owner.message).toContain('body.ownerId');
  });

  it('answers 404 for a malformed or unknown organization, and for a contact of another organization', async () => {
    const theirs = expectStatus(
      await admin(app, 'POST', `/admin/v1/organizations/${other.org.id}/contacts`, { firstName: 'Theirs' }),
      201,
    ).data;
    for (const [method, url] of [
      ['GET', '/admin/v1/organizations/nope/contacts'],
      ['POST', '/admin/v1/organizations/org_0000000000000000000000/contacts'],
      ['GET', `${base}/${theirs.id}`],
      ['PATCH', `${base}/${theirs.id}`],
      ['DELETE', `${base}/${theirs.id}`],
    ] as const) {
      const body = method === 'POST' ? { firstName: 'X' } : method === 'PATCH' ? { tags: [] } : undefined;
      expectError(await admin(app, method, url, body), 404, 'NOT_FOUND');
    }
    const still = await admin(app, 'GET', `/admin/v1/organizations/${other.org.id}/contacts/${theirs.id}`);
    expect(expectStatus(still, 200).data.firstName).toBe('Theirs');
  });

  it('needs the admin token', async () => {
    const response = await app.inject({ method: 'GET', url: base });
    expectError(response, 401, 'UNAUTHORIZED');
  });
});
