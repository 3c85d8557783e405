import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventCatalog } from '../../../src/platform/events/catalog.ts';
import { createProperty, createTenant, type Tenant } from '../../helpers/factories.ts';
import { admin, api, expectStatus } from '../../helpers/http.ts';
import { buildTestApp } from '../../helpers/test-app.ts';
import { createPipeline } from '../deals/support.ts';

interface Logged {
  type: string;
  sequence: number;
  data: Record<string, { id: string; deletedAt?: string; reason?: string; contactId?: string | null }> & {
    changes?: string[];
  };
}

let app: FastifyInstance;
let tenant: Tenant;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

beforeAll(async () => {
  app = await buildTestApp();
  tenant = await createTenant(app, { secret: { rateLimitPerMinute: 100_000, writeLimitPerMinute: 100_000 } });
  await createPipeline(app, tenant.org.id);
});
afterAll(async () => {
  await app.close();
});

const orgPath = (rest: string) => `/admin/v1/organizations/${tenant.org.id}/${rest}`;

async function head(): Promise<number> {
  const page = expectStatus(
    await api(app, 'GET', '/v1/event-log', {
      key: tenant.secret.key,
      query: { order: 'desc', pageSize: '1' },
    }),
    200,
  );
  return (page.data[0] as Logged | undefined)?.sequence ?? 0;
}

/** The events recorded after `after`, oldest first, of the given types. */
async function logSince(after: number, types: string[]): Promise<Logged[]> {
  const page = expectStatus(
    await api(app, 'GET', '/v1/event-log', {
      key: tenant.secret.key,
      query: { after: String(after), type: types, pageSize: '100' },
    }),
    200,
  );
  return page.data as Logged[];
}

function expectTombstone(event: Logged | undefined, object: string, id: string) {
  expect(event?.data[object]?.id).toBe(id);
  expect(event?.data[object]?.deletedAt).toMatch(ISO);
  expect(() => eventCatalog.check(event?.type ?? '', event?.data)).not.toThrow();
}

describe('deletions are events', () => {
  it('erasing a contact keeps its deals without it (deal.updated naming contactId), then records contact.deleted', async () => {
    const contact = expectStatus(
      await admin(app, 'POST', orgPath('contacts'), { firstName: 'Gone' }),
      201,
    ).data;
    const deals = [];
    for (const title of ['First', 'Second'])
      deals.push(
        expectStatus(await admin(app, 'POST', orgPath('deals'), { title, contactId: contact.id }), 201).data,
      );
    const start = await head();
    expectStatus(await admin(app, 'DELETE', orgPath(`contacts/${contact.id}`)), 200);
    const events = await logSince(start, ['contact.*', 'deal.*']);
    expect(events.map((e) => e.type)).toEqual(['deal.updated', 'deal.updated', 'contact.deleted']);
    expect(events.slice(0, 2).map((e) => e.data.deal?.id)).toEqual(deals.map((d) => d.id).sort());
    for (const event of events.slice(0, 2)) {
      expect(event.data.deal?.contactId).toBeNull();
      expect(event.data.changes).toEqual(['contactId']);
    }
    expectTombstone(events[2], 'contact', contact.id);
    // Only the tombstone: nothing of the person lives on in the log.
    expect(Object.keys(events[2]?.data.contact ?? {})).toEqual(['id', 'deletedAt']);
  });

  it('deleting a task, an appointment or a deal records its tombstone', async () => {
    const task = expectStatus(await admin(app, 'POST', orgPath('tasks'), { title: 'Call back' }), 201).data;
    const owner = expectStatus(
      await admin(app, 'POST', orgPath('contacts'), { firstName: 'Kept' }),
      201,
    ).data;
    const deal = expectStatus(
      await admin(app, 'POST', orgPath('deals'), { title: 'Loft', contactId: owner.id }),
      201,
    ).data;
    const start = await head();
    expectStatus(await admin(app, 'DELETE', orgPath(`tasks/${task.id}`)), 200);
    expectStatus(await admin(app, 'DELETE', orgPath(`deals/${deal.id}`)), 200);
    const events = await logSince(start, ['*']);
    expect(events.map((e) => e.type)).toEqual(['task.deleted', 'deal.deleted']);
    expectTombstone(events[0], 'task', task.id);
    expectTombstone(events[1], 'deal', deal.id);
  });
});

describe('references the database clears', () => {
  it('a deleted contact’s task shows up again in a cursor walk, with contactId null', async () => {
    const contact = expectStatus(
      await admin(app, 'POST', orgPath('contacts'), { firstName: 'Linked' }),
      201,
    ).data;
    const task = expectStatus(
      await admin(app, 'POST', orgPath('tasks'), { title: 'Follow up', contactId: contact.id }),
      201,
    ).data;
    const since = task.updatedAt as string;
    const walk = async () =>
      expectStatus(
        await api(app, 'GET', '/v1/tasks', { key: tenant.secret.key, query: { updatedAfter: since } }),
        200,
      ).data as Array<{ id: string; contactId: string | null; updatedAt: string }>;
    expectStatus(await admin(app, 'DELETE', orgPath(`contacts/${contact.id}`)), 200);
    const seen = (await walk()).find((t) => t.id === task.id);
    expect(seen?.contactId).toBeNull();
    expect((seen?.updatedAt ?? '') > since).toBe(true);
  });
});

describe('property.removed: a property leaves the portal', () => {
  it('records UNPUBLISHED, DEACTIVATED and DELETED, and nothing for a change that keeps it visible', async () => {
    const [a, b, c] = [
      await createProperty(app, tenant.org.id),
      await createProperty(app, tenant.org.id),
      await createProperty(app, tenant.org.id),
    ];
    const start = await head();
    expectStatus(await admin(app, 'PATCH', orgPath(`properties/${a?.id}`), { price: 123_456 }), 200);
    expectStatus(
      await admin(app, 'PATCH', orgPath(`properties/${a?.id}`), { publishedOnPortal: false }),
      200,
    );
    expectStatus(await admin(app, 'PATCH', orgPath(`properties/${b?.id}`), { status: 'SOLD' }), 200);
    expectStatus(await admin(app, 'DELETE', orgPath(`properties/${c?.id}`)), 200);
    // Already off the portal: deleting it removes nothing from the portal.
    expectStatus(await admin(app, 'DELETE', orgPath(`properties/${a?.id}`)), 200);
    const removed = await logSince(start, ['property.removed']);
    expect(removed.map((e) => [e.data.property?.id, e.data.property?.reason])).toEqual([
      [a?.id, 'UNPUBLISHED'],
      [b?.id, 'DEACTIVATED'],
      [c?.id, 'DELETED'],
    ]);
    for (const event of removed) expectTombstone(event, 'property', event.data.property?.id ?? '');
    const deleted = await logSince(start, ['property.deleted']);
    expect(deleted.map((e) => e.data.property?.id)).toEqual([c?.id, a?.id]);
  });

  it('records it when an import unpublishes a listing', async () => {
    const property = await createProperty(app, tenant.org.id);
    const current = expectStatus(await admin(app, 'GET', orgPath(`properties/${property.id}`)), 200).data;
    const start = await head();
    const { id: _id, ...body } = current as Record<string, unknown>;
    const rowOf = (overrides: Record<string, unknown>) =>
      Object.fromEntries(
        Object.entries({ ...body, ...overrides }).filter(([key]) =>
          [
            'code',
            'title',
            'transactionType',
            'type',
            'price',
            'city',
            'address',
            'status',
            'publishedOnPortal',
          ].includes(key),
        ),
      );
    const result = expectStatus(
      await admin(app, 'POST', orgPath('properties/import'), { rows: [rowOf({ publishedOnPortal: false })] }),
      200,
    ).data;
    expect(result).toMatchObject({ updated: 1, failed: 0 });
    const removed = await logSince(start, ['property.removed']);
    expect(removed.map((e) => [e.data.property?.id, e.data.property?.reason])).toEqual([
      [property.id, 'UNPUBLISHED'],
    ]);
  });
});
