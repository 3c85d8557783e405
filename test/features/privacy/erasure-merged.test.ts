/**
 * Erasure follows merges (issue 37, item 2): a duplicate (the same name, a second email and phone,
 * a note) is merged into a person, a third record is merged into the duplicate first (a chain), then
 * the person is erased with DELETE /v1/contacts/{id}. Afterwards no table, no page of the event log,
 * no webhook delivery body and no replay of the duplicates' original creates holds any value of any
 * of them.
 */
import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operatorCallerOf } from '../../../src/platform/auth/credentials.ts';
import { deliveryDetail } from '../../../src/features/webhooks/index.ts';
import { createTenant, MESSAGING_AGENCY, type MessagingTenant } from '../../helpers/factories.ts';
import { api, expectStatus } from '../../helpers/http.ts';
import { buildTestApp, testDatabase } from '../../helpers/test-app.ts';
import { type Person, pendingSubscription, systemRows, tablesMentioning } from './support.ts';

let app: FastifyInstance;
let agency: MessagingTenant;

const PERSON: Person = {
  firstName: 'Zephyrine',
  lastName: 'Quillfeather',
  email: 'zephyrine.b@merged-erasure.example',
  phone: '+34 677 918 203',
};
const DUPLICATE: Person = {
  ...PERSON,
  email: 'zephyrine.second@merged-erasure.example',
  phone: '+34 688 914 207',
};
const OLDEST: Person = {
  firstName: 'Zenobie',
  lastName: 'Quillfeather-Vane',
  email: 'zenobie.third@merged-erasure.example',
  phone: '+34 655 917 209',
};
/**
 * Every value of the three, in every form the database could hold them (E.164 digits for phones).
 * Files of a fork share the database: these values are used by no other test file.
 */
const NEEDLES = [
  'Zephyrine',
  'Zenobie',
  'Quillfeather',
  'zephyrine.b@merged-erasure',
  'zephyrine.second@merged-erasure',
  'zenobie.third@merged-erasure',
  '34677918203',
  '34688914207',
  '34655917209',
];
const found = (text: string) => NEEDLES.filter((needle) => text.toLowerCase().includes(needle.toLowerCase()));

const createKey = (who: string) => `merged-erasure-${who}-${Date.now()}`;
const keys = { duplicate: createKey('duplicate'), oldest: createKey('oldest') };
let targetId = '';

async function create(person: Person, key?: string) {
  return api(app, 'POST', '/v1/contacts', {
    key: agency.secret.key,
    body: person,
    headers: key ? { 'Idempotency-Key': key } : {},
  });
}

async function note(contactId: string, body: string) {
  expectStatus(
    await api(app, 'POST', `/v1/contacts/${contactId}/notes`, { key: agency.secret.key, body: { body } }),
    201,
  );
}

async function merge(into: string, sourceContactId: string) {
  expectStatus(
    await api(app, 'POST', `/v1/contacts/${into}/merge`, {
      key: agency.secret.key,
      body: { sourceContactId },
    }),
    200,
  );
}

/** Every event of the organization as GET /v1/event-log serves it, all pages, as one text. */
async function eventLogText(): Promise<string> {
  let text = '';
  let after: number | undefined;
  for (;;) {
    const page = expectStatus(
      await api(app, 'GET', '/v1/event-log', {
        key: agency.secret.key,
        query: { order: 'asc', pageSize: '100', ...(after === undefined ? {} : { after: String(after) }) },
      }),
      200,
    );
    text += JSON.stringify(page.data);
    if (!page.meta.hasMore) return text;
    after = page.meta.nextCursor as number;
  }
}

/** What the console shows of every webhook delivery of the organization (the body each POSTs). */
async function deliveryBodiesText(): Promise<string> {
  const deliveries = await systemRows<{ id: string }>(
    sql`SELECT id FROM webhook_deliveries WHERE organization_id = ${agency.org.id} ORDER BY id`,
  );
  expect(deliveries.length).toBeGreaterThan(5);
  const db = await testDatabase();
  const caller = await operatorCallerOf(db, agency.org.id);
  let text = '';
  for (const { id } of deliveries) text += JSON.stringify(await deliveryDetail(db, caller, id));
  return text;
}

beforeAll(async () => {
  app = await buildTestApp({ WEBHOOK_ALLOW_PRIVATE_URLS: 'true' });
  agency = await createTenant(app, MESSAGING_AGENCY);
  await pendingSubscription(app, agency.secret.key);
  targetId = expectStatus(await create(PERSON), 201).data.id;
  await note(targetId, `${PERSON.firstName} ${PERSON.lastName} asked for a call`);
  const duplicateId = expectStatus(await create(DUPLICATE, keys.duplicate), 201).data.id;
  await note(duplicateId, `${DUPLICATE.firstName}'s second number is ${DUPLICATE.phone}, ${DUPLICATE.email}`);
  const oldestId = expectStatus(await create(OLDEST, keys.oldest), 201).data.id;
  await note(oldestId, `${OLDEST.firstName} ${OLDEST.lastName} wrote from ${OLDEST.email}`);
  // A chain: the oldest record into the duplicate, then the duplicate into the person.
  await merge(duplicateId, oldestId);
  await merge(targetId, duplicateId);
});
afterAll(async () => {
  await app.close();
});

describe('DELETE /v1/contacts/{id}: erasure of a person with merged duplicates', () => {
  it('leaves no value of the person or of anyone merged into them in any table, the event log or a delivery', async () => {
    // Before: every value is held somewhere, and served (the test can fail).
    for (const needle of NEEDLES) expect(Object.keys(await tablesMentioning(needle)), needle).not.toEqual([]);
    expect(found(await eventLogText()), 'GET /v1/event-log before').toEqual(NEEDLES);
    expect(found(await deliveryBodiesText()), 'delivery detail before').toEqual(NEEDLES);

    const erased = expectStatus(
      await api(app, 'DELETE', `/v1/contacts/${targetId}`, { key: agency.secret.key }),
      200,
    );
    expect(erased.data).toMatchObject({ id: targetId, deleted: true });
    expect(erased.data.erased.storedResponses, JSON.stringify(erased.data)).toBeGreaterThanOrEqual(2);

    for (const needle of NEEDLES) expect(await tablesMentioning(needle), needle).toEqual({});
    expect(found(await eventLogText()), 'GET /v1/event-log').toEqual([]);
    expect(found(await deliveryBodiesText()), 'delivery detail').toEqual([]);
  });

  it("replays the duplicates' original creates without any of their values", async () => {
    for (const [person, key] of [
      [DUPLICATE, keys.duplicate],
      [OLDEST, keys.oldest],
    ] as const) {
      const replay = await create(person, key);
      expect(replay.headers['idempotent-replayed'], replay.body).toBe('true');
      expect(found(replay.body), replay.body).toEqual([]);
    }
  });
});
