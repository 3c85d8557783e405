/**
 * POST /v1/contacts/{id}/merge (issue 21, item 7): two contacts with records of every kind, merged;
 * nothing lost, nothing duplicated (checked place by place with the data-subject export, which reads
 * every place of the privacy inventory), the source gone, contact.merged recorded.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createTenant,
  MESSAGING_AGENCY,
  type MessagingTenant,
  nextPhone,
  type Tenant,
} from '../../helpers/factories.ts';
import { api, expectStatus } from '../../helpers/http.ts';
import { buildTestApp } from '../../helpers/test-app.ts';
import { createPipeline } from '../deals/support.ts';
import { storeEverywhere } from './support.ts';

let app: FastifyInstance;
let agency: MessagingTenant;
let other: Tenant;

type Export = { records: Record<string, Array<Record<string, unknown>>> };

async function exportOf(contactId: string): Promise<Export> {
  return expectStatus(
    await api(app, 'GET', `/v1/contacts/${contactId}/export`, { key: agency.secret.key }),
    200,
  ).data;
}

const idsOf = (rows: Array<Record<string, unknown>>) => rows.map((row) => String(row.id)).sort();

beforeAll(async () => {
  app = await buildTestApp();
  agency = await createTenant(app, MESSAGING_AGENCY);
  await createPipeline(app, agency.org.id);
  other = await createTenant(app);
});
afterAll(async () => {
  await app.close();
});

describe('POST /v1/contacts/{id}/merge', () => {
  it('moves every record of the source to the target, fills empty fields, removes the source', async () => {
    const targetPhone = nextPhone();
    const sourcePhone = nextPhone();
    const target = await storeEverywhere(app, agency, {
      firstName: 'Konstanze',
      lastName: '',
      email: 'konstanze@merge.example',
      phone: targetPhone,
    });
    const source = await storeEverywhere(app, agency, {
      firstName: 'Konny',
      lastName: 'Weber',
      email: 'konny.weber@merge.example',
      phone: sourcePhone,
    });
    expectStatus(
      await api(app, 'PATCH', `/v1/contacts/${source}`, {
        key: agency.secret.key,
        body: { tags: ['buyer', 'vip'], preferredCity: 'Sevilla', externalId: 'crm-77' },
      }),
      200,
    );
    expectStatus(
      await api(app, 'PATCH', `/v1/contacts/${target}`, {
        key: agency.secret.key,
        body: { tags: ['buyer'] },
      }),
      200,
    );
    // Consents: the source said stop; the target, later, said yes to messages.
    const consent = (id: string, channel: string, status: string) =>
      api(app, 'PUT', `/v1/contacts/${id}/consents/${channel}`, {
        key: agency.secret.key,
        body: { status, source: 'test' },
      });
    expectStatus(await consent(source, 'MESSAGING', 'REVOKED'), 200);
    expectStatus(await consent(target, 'EMAIL', 'GRANTED'), 200);
    expectStatus(await consent(target, 'MESSAGING', 'GRANTED'), 200);
    const before = { target: await exportOf(target), source: await exportOf(source) };
    // Every place that can hold rows has some on both sides, or the test proves little.
    for (const place of [
      'leads',
      'visitRequests',
      'finderSearches',
      'contactNotes',
      'messages',
      'usageEvents',
      'deals',
      'tasks',
      'appointments',
      'conversations',
      'usageDaily',
    ])
      for (const side of ['target', 'source'] as const)
        expect(before[side].records[place]?.length ?? 0, `${side} ${place}`).toBeGreaterThan(0);

    const merged = expectStatus(
      await api(app, 'POST', `/v1/contacts/${target}/merge`, {
        key: agency.secret.key,
        body: { sourceContactId: source },
        headers: { 'Idempotency-Key': `merge-${target}` },
      }),
      200,
    ).data;
    // Empty fields filled; the target's own kept; tags joined.
    expect(merged).toMatchObject({
      id: target,
      firstName: 'Konstanze',
      lastName: 'Weber',
      email: 'konstanze@merge.example',
      phone: targetPhone,
      preferredCity: 'Madrid', // the target's own (from its finder search), kept
      externalId: 'crm-77',
    });
    expect([...merged.tags].sort()).toEqual(['buyer', 'vip']);
    expect(merged.optedOut).toBe(true);
    const consents = expectStatus(
      await api(app, 'GET', `/v1/contacts/${target}/consents`, { key: agency.secret.key }),
      200,
    ).data;
    expect(consents.current).toMatchObject({
      MESSAGING: { status: 'REVOKED', source: 'MERGE' },
      EMAIL: { status: 'GRANTED' },
    });

    const after = await exportOf(target);
    for (const [place, rows] of Object.entries(after.records)) {
      if (place === 'contacts' || place === 'conversations' || place === 'usageDaily') continue;
      const expected = [
        ...idsOf(before.target.records[place] ?? []),
        ...idsOf(before.source.records[place] ?? []),
      ].sort();
      // The opt-out kept is stated once more, so the newest MESSAGING statement agrees with it.
      const added = place === 'contactConsents' ? rows.filter((row) => row.source === 'MERGE') : [];
      expect(
        added.map((row) => [row.channel, row.status]),
        place,
      ).toEqual(place === 'contactConsents' ? [['MESSAGING', 'REVOKED']] : []);
      expect(idsOf(rows.filter((row) => !added.includes(row))), place).toEqual(expected);
      for (const row of rows) if ('contactId' in row) expect(row.contactId, place).toBe(target);
    }
    // One conversation; daily usage summed (both saved a listing today: one row counting 2).
    expect(after.records.conversations).toHaveLength(1);
    const count = (e: Export) =>
      (e.records.usageDaily ?? []).reduce((sum, row) => sum + Number(row.count), 0);
    expect(count(after)).toBe(count(before.target) + count(before.source));
    expect(after.records.usageDaily).toHaveLength(before.target.records.usageDaily?.length ?? 0);

    expectStatus(await api(app, 'GET', `/v1/contacts/${source}`, { key: agency.secret.key }), 404);
    // The source's phone is free again for whoever comes next... and now matches nobody.
    const byPhone = expectStatus(
      await api(app, 'GET', '/v1/contacts', { key: agency.secret.key, query: { q: sourcePhone } }),
      200,
    ).data;
    expect(byPhone).toEqual([]);

    // Events: the moved deal's update, the tombstone, then contact.merged with both ids.
    const log = expectStatus(
      await api(app, 'GET', '/v1/event-log', {
        key: agency.secret.key,
        query: { type: ['contact.merged', 'contact.deleted', 'deal.updated'], order: 'desc', pageSize: '5' },
      }),
      200,
    ).data;
    expect(log[0]).toMatchObject({
      type: 'contact.merged',
      data: { sourceContactId: source, contact: { id: target } },
    });
    expect(log[0].data.filled).toEqual(expect.arrayContaining(['externalId', 'lastName', 'tags']));
    expect(log[0].data.moved).toMatchObject({ leads: 1, deals: 1, messages: 2, contactNotes: 1 });
    expect(log[1]).toMatchObject({ type: 'contact.deleted', data: { contact: { id: source } } });
    expect(log[2]).toMatchObject({
      type: 'deal.updated',
      data: { changes: ['contactId'], deal: { contactId: target } },
    });

    // A replay answers the same merge; nothing runs twice.
    const replay = await api(app, 'POST', `/v1/contacts/${target}/merge`, {
      key: agency.secret.key,
      body: { sourceContactId: source },
      headers: { 'Idempotency-Key': `merge-${target}` },
    });
    expect(replay.statusCode).toBe(200);
    expect(replay.headers['idempotent-replayed']).toBe('true');
  });

  it('400 naming body.sourceContactId for the same, an unknown or another organization’s contact; 404 for the target', async () => {
    const contact = await storeEverywhere(app, agency, {
      firstName: 'Alone',
      lastName: 'Here',
      email: 'alone@merge.example',
      phone: nextPhone(),
    });
    const theirs = expectStatus(
      await api(app, 'POST', '/v1/contacts', { key: other.secret.key, body: { firstName: 'Theirs' } }),
      201,
    ).data.id;
    for (const sourceContactId of [contact, 'ct_unknown', theirs, 'nonsense']) {
      const response = await api(app, 'POST', `/v1/contacts/${contact}/merge`, {
        key: agency.secret.key,
        body: { sourceContactId },
      });
      expect(response.statusCode, sourceContactId).toBe(400);
      expect(response.json().error.details[0].field).toBe('body.sourceContactId');
    }
    const missing = await api(app, 'POST', `/v1/contacts/${contact}/merge`, {
      key: agency.secret.key,
      body: {},
    });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().error.details[0].field).toBe('body.sourceContactId');
    const foreign = await api(app, 'POST', `/v1/contacts/${theirs}/merge`, {
      key: agency.secret.key,
      body: { sourceContactId: contact },
    });
    expect(foreign.statusCode).toBe(404);
    // Nothing changed.
    expectStatus(await api(app, 'GET', `/v1/contacts/${contact}`, { key: agency.secret.key }), 200);
  });

  it('refuses publishable and read-only keys and a key without contacts:write', async () => {
    const a = expectStatus(
      await api(app, 'POST', '/v1/contacts', { key: agency.secret.key, body: { firstName: 'A' } }),
      201,
    ).data.id;
    const b = expectStatus(
      await api(app, 'POST', '/v1/contacts', { key: agency.secret.key, body: { firstName: 'B' } }),
      201,
    ).data.id;
    for (const key of [agency.publishable.key, agency.readOnly.key]) {
      const response = await api(app, 'POST', `/v1/contacts/${a}/merge`, {
        key,
        body: { sourceContactId: b },
      });
      expect(response.statusCode).toBe(403);
    }
    expectStatus(await api(app, 'GET', `/v1/contacts/${b}`, { key: agency.secret.key }), 200);
  });
});
