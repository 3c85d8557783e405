/**
 * get_contact_timeline and the organization setting mcpMaskPersonalData, through the real MCP
 * endpoint with the SDK's client (issue 21, item 10).
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, createTenant, type Tenant } from '../helpers/factories.ts';
import { admin, api, expectError, expectStatus } from '../helpers/http.ts';
import { buildTestApp } from '../helpers/test-app.ts';
import { callError, callOk, connect, listen } from './support.ts';

interface Page {
  data: Record<string, unknown>[];
  meta: { total: number; page: number; pageSize: number; totalPages: number };
}

const PHONE = '+34611223344';
const EMAIL = 'lucia.fernandez@example.com';

let app: FastifyInstance;
let url: URL;
let mine: Tenant;
let contactId: string;
const clients: Client[] = [];

async function open(key = mine.secret.key): Promise<Client> {
  const opened = await connect(url, key);
  clients.push(opened);
  return opened;
}

const setMasking = async (on: boolean) =>
  expectStatus(
    await admin(app, 'PATCH', `/admin/v1/organizations/${mine.org.id}`, { mcpMaskPersonalData: on }),
    200,
  ).data;

beforeAll(async () => {
  app = await buildTestApp();
  url = await listen(app);
  mine = await createTenant(app, { secret: { rateLimitPerMinute: 100_000, writeLimitPerMinute: 100_000 } });
  contactId = expectStatus(
    await admin(app, 'POST', `/admin/v1/organizations/${mine.org.id}/contacts`, {
      firstName: 'Lucía',
      lastName: 'Fernández',
      phone: PHONE,
      email: EMAIL,
    }),
    201,
  ).data.id;
  for (const body of [
    'First call: wants a flat near the beach.',
    `Her husband's number is +34 622 33 44 55 and his mail jorge@example.org; call after 18:00 on 2027-03-29.`,
    'Also reachable at 633 445 566.',
  ]) {
    expectStatus(
      await api(app, 'POST', `/v1/contacts/${contactId}/notes`, { key: mine.secret.key, body: { body } }),
      201,
    );
  }
}, 60_000);
afterAll(async () => {
  for (const client of clients) await client.close();
  await app.close();
});

describe('get_contact_timeline', () => {
  it('answers the REST timeline of a contact, paged, newest first', async () => {
    const client = await open();
    const rest = expectStatus(
      await api(app, 'GET', `/v1/contacts/${contactId}/timeline`, {
        key: mine.secret.key,
        query: { pageSize: '2' },
      }),
      200,
    );
    const { result, data } = await callOk<Page>(client, 'get_contact_timeline', { contactId, pageSize: 2 });
    expect(data).toEqual(rest);
    expect(data.data.map((item) => item.type)).toEqual(['NOTE', 'NOTE']);
    expect(data.meta).toEqual({ total: 3, page: 1, pageSize: 2, totalPages: 2 });
    expect(result.content[0]).toEqual({ type: 'text', text: '3 timeline items found; page 1 of 2 shows 2.' });
    const second = await callOk<Page>(client, 'get_contact_timeline', { contactId, pageSize: 2, page: 2 });
    expect(second.data.data).toHaveLength(1);
    expect((second.data.data[0]?.data as { body: string }).body).toMatch(/^First call/);
  });

  it('refuses another organization’s contact, bad arguments and a key without contacts:read', async () => {
    const stranger = await createTenant(app);
    const theirs = await open(stranger.secret.key);
    expect(await callError(theirs, 'get_contact_timeline', { contactId })).toMatch(/^NOT_FOUND: /);
    const client = await open();
    expect(await callError(client, 'get_contact_timeline', { contactId, pageSize: 500 })).toMatch(/pageSize/);
    const dealsOnly = await open(
      (await createApiKey(app, mine.org.id, { type: 'secret', scopes: ['deals:read'] })).key,
    );
    expect(await callError(dealsOnly, 'get_contact_timeline', { contactId })).toMatch(
      /lacks the scope contacts:read/,
    );
  });
});

describe('mcpMaskPersonalData', () => {
  it('is off by default, shown and set through the admin API (the twin follows), and validated', async () => {
    const org = expectStatus(await admin(app, 'GET', `/admin/v1/organizations/${mine.org.id}`), 200).data;
    expect(org.mcpMaskPersonalData).toBe(false);
    expect((await setMasking(true)).mcpMaskPersonalData).toBe(true);
    const twin = expectStatus(
      await admin(app, 'GET', `/admin/v1/organizations/${org.testOrganizationId}`),
      200,
    ).data;
    expect(twin.mcpMaskPersonalData).toBe(true);
    expect((await setMasking(false)).mcpMaskPersonalData).toBe(false);
    const error = expectError(
      await admin(app, 'PATCH', `/admin/v1/organizations/${mine.org.id}`, { mcpMaskPersonalData: 'yes' }),
      400,
      'VALIDATION_ERROR',
    );
    expect(JSON.stringify(error)).toContain('body.mcpMaskPersonalData');
  });

  it('masks phone numbers and emails in every tool result when on, and only then', async () => {
    await setMasking(false);
    const plain = await open();
    const contact = await callOk<{ data: Record<string, unknown> }>(plain, 'get_contact', { contactId });
    expect(contact.data.data).toMatchObject({ phone: PHONE, email: EMAIL });

    await setMasking(true);
    const masked = await open();
    const listed = await callOk<Page>(masked, 'search_contacts', {});
    expect(listed.data.data[0]).toMatchObject({
      firstName: 'Lucía',
      phone: '+34 6** ** ** 44',
      email: 'l***@example.com',
    });
    const one = await callOk<{ data: Record<string, unknown> }>(masked, 'get_contact', { contactId });
    expect(one.data.data).toMatchObject({ phone: '+34 6** ** ** 44', email: 'l***@example.com' });
    const timeline = await callOk<Page>(masked, 'get_contact_timeline', { contactId });
    const bodies = timeline.data.data.map((item) => (item.data as { body: string }).body);
    expect(bodies).toEqual([
      'Also reachable at 6** *** *66.',
      `Her husband's number is +34 6** ** ** 55 and his mail j***@example.org; call after 18:00 on 2027-03-29.`,
      'First call: wants a flat near the beach.',
    ]);
    // Nothing the model receives holds the real values: neither the structured result nor its text copy.
    for (const { result } of [listed, one, timeline]) {
      const everything = JSON.stringify(result);
      for (const secret of ['611223344', EMAIL, '622 33 44 55', 'jorge@', '633 445 566'])
        expect(everything).not.toContain(secret);
    }
    // A test-mode key acts on the twin, by its live organization's setting.
    const twinId = mine.org.testOrganizationId as string;
    expectStatus(
      await admin(app, 'POST', `/admin/v1/organizations/${twinId}/contacts`, {
        firstName: 'Twin',
        email: EMAIL,
      }),
      201,
    );
    const testKey = await createApiKey(app, mine.org.id, {
      type: 'secret',
      mode: 'test',
      scopes: ['contacts:read'],
    });
    const twinClient = await open(testKey.key);
    const twinList = await callOk<Page>(twinClient, 'search_contacts', {});
    expect(twinList.data.data[0]).toMatchObject({ firstName: 'Twin', email: 'l***@example.com' });

    await setMasking(false);
    const again = await open();
    const back = await callOk<{ data: Record<string, unknown> }>(again, 'get_contact', { contactId });
    expect(back.data.data).toMatchObject({ phone: PHONE, email: EMAIL });
  });
});
