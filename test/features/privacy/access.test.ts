/**
 * GET /v1/contacts/{id}/export (data-subject access) and who may erase or export: keys, scopes,
 * access levels, read-only accounts, another organization's ids.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, createTenant, type Tenant } from '../../helpers/factories.ts';
import { admin, api, expectStatus } from '../../helpers/http.ts';
import { buildTestApp } from '../../helpers/test-app.ts';
import { createPipeline } from '../deals/support.ts';

let app: FastifyInstance;
let tenant: Tenant;
let other: Tenant;

async function newContact(t: Tenant, firstName: string) {
  return expectStatus(
    await api(app, 'POST', '/v1/contacts', {
      key: t.secret.key,
      body: { firstName, lastName: 'Exportable', email: `${firstName.toLowerCase()}@access.example` },
    }),
    201,
  ).data as { id: string };
}

beforeAll(async () => {
  app = await buildTestApp();
  tenant = await createTenant(app, { secret: { writeLimitPerMinute: 100_000 } });
  other = await createTenant(app);
  await createPipeline(app, tenant.org.id);
});
afterAll(async () => {
  await app.close();
});

describe('GET /v1/contacts/{id}/export', () => {
  it('returns every record held about the person, by place, and nothing of anyone else', async () => {
    const contact = await newContact(tenant, 'Ottilie');
    const bystander = await newContact(tenant, 'Bystander');
    for (const [who, body] of [
      [contact.id, 'Ottilie asked for the floor plan'],
      [bystander.id, 'Not about Ottilie'],
    ] as const)
      expectStatus(
        await api(app, 'POST', `/v1/contacts/${who}/notes`, { key: tenant.secret.key, body: { body } }),
        201,
      );
    expectStatus(
      await api(app, 'POST', '/v1/deals', {
        key: tenant.secret.key,
        body: { title: 'Flat', contactId: contact.id },
      }),
      201,
    );
    expectStatus(
      await api(app, 'POST', '/v1/tasks', {
        key: tenant.secret.key,
        body: { title: 'Call', contactId: contact.id },
      }),
      201,
    );

    for (const key of [tenant.secret.key, tenant.readOnly.key]) {
      const exported = expectStatus(
        await api(app, 'GET', `/v1/contacts/${contact.id}/export`, { key }),
        200,
      ).data;
      expect(exported.contactId).toBe(contact.id);
      expect(exported.records.contacts).toHaveLength(1);
      expect(exported.records.contacts[0]).toMatchObject({
        id: contact.id,
        firstName: 'Ottilie',
        email: 'ottilie@access.example',
      });
      // Internal columns are not part of the person's data.
      expect(exported.records.contacts[0]).not.toHaveProperty('organizationId');
      expect(exported.records.contacts[0]).not.toHaveProperty('searchText');
      expect(exported.records.contactNotes.map((n: { body: string }) => n.body)).toEqual([
        'Ottilie asked for the floor plan',
      ]);
      expect(exported.records.deals).toHaveLength(1);
      expect(exported.records.tasks).toHaveLength(1);
      for (const place of ['leads', 'visitRequests', 'messages', 'usageEvents', 'contactConsents'])
        expect(exported.records[place], place).toEqual([]);
      expect(exported.copies.map((c: { place: string }) => c.place).sort()).toEqual([
        'emailSuppressions',
        'events',
        'idempotencyKeys',
        'webhookAttempts',
      ]);
    }
  });

  it('404 for another organization’s contact or an unknown id; publishable keys refused', async () => {
    const theirs = await newContact(other, 'Theirs');
    for (const id of [theirs.id, 'ct_unknown', 'nonsense'])
      expectStatus(await api(app, 'GET', `/v1/contacts/${id}/export`, { key: tenant.secret.key }), 404);
    const mine = await newContact(tenant, 'Mine');
    expect(
      (await api(app, 'GET', `/v1/contacts/${mine.id}/export`, { key: tenant.publishable.key })).statusCode,
    ).toBe(403);
  });
});

describe('DELETE /v1/contacts/{id}: who may erase', () => {
  it('refuses publishable and read-only keys, a key without contacts:write or below level 3, and another organization’s id', async () => {
    const contact = await newContact(tenant, 'Protected');
    expect(
      (await api(app, 'DELETE', `/v1/contacts/${contact.id}`, { key: tenant.publishable.key })).statusCode,
    ).toBe(403);
    expect(
      (await api(app, 'DELETE', `/v1/contacts/${contact.id}`, { key: tenant.readOnly.key })).statusCode,
    ).toBe(403);
    const readerOnly = await createApiKey(app, tenant.org.id, {
      type: 'secret',
      scopes: ['contacts:read'],
      accessLevel: 3,
    });
    const forbidden = await api(app, 'DELETE', `/v1/contacts/${contact.id}`, { key: readerOnly.key });
    expect(forbidden.statusCode).toBe(403);
    expect(forbidden.json().error.message).toMatch(/contacts:write/);
    const levelTwo = await createApiKey(app, tenant.org.id, {
      type: 'secret',
      scopes: ['contacts:write'],
      accessLevel: 2,
    });
    expect((await api(app, 'DELETE', `/v1/contacts/${contact.id}`, { key: levelTwo.key })).statusCode).toBe(
      403,
    );
    expectStatus(await api(app, 'DELETE', `/v1/contacts/${contact.id}`, { key: other.secret.key }), 404);
    // Still there.
    expectStatus(await api(app, 'GET', `/v1/contacts/${contact.id}`, { key: tenant.secret.key }), 200);
  });

  it('402 on a read-only account; erases once allowed again', async () => {
    const contact = await newContact(tenant, 'Frozen');
    expectStatus(
      await admin(app, 'PATCH', `/admin/v1/organizations/${tenant.org.id}`, { readOnly: true }),
      200,
    );
    try {
      expectStatus(await api(app, 'DELETE', `/v1/contacts/${contact.id}`, { key: tenant.secret.key }), 402);
    } finally {
      expectStatus(
        await admin(app, 'PATCH', `/admin/v1/organizations/${tenant.org.id}`, { readOnly: false }),
        200,
      );
    }
    const erased = expectStatus(
      await api(app, 'DELETE', `/v1/contacts/${contact.id}`, { key: tenant.secret.key }),
      200,
    );
    expect(erased.data).toMatchObject({ id: contact.id, deleted: true });
  });
});
