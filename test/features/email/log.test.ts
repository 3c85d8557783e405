// The email log (issue 41): GET /v1/emails (newest first, filters, pages), GET /v1/emails/{id} (the
// bodies and the invitation's method), with `email:read` on a secret or read-only key, each
// organization (and its test twin) seeing only its own; and the console's view of the last 7 days.
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent, createContact, createTenant, type Tenant } from '../../helpers/factories.ts';
import { api, expectError, expectStatus } from '../../helpers/http.ts';
import { buildTestApp } from '../../helpers/test-app.ts';
import { consoleClient } from '../console/support.ts';
import { EMAIL_FROM, seedEmail } from './support.ts';

const DAY = 86_400_000;

let app: FastifyInstance;
let tenant: Tenant<'noEmail' | 'testKey'>;

beforeAll(async () => {
  app = await buildTestApp({ EMAIL_FROM });
  tenant = await createTenant(app, {
    keys: {
      noEmail: { type: 'secret', scopes: ['contacts:read'] },
      testKey: { type: 'secret', mode: 'test', scopes: ['email:read'] },
    },
  });
});
afterAll(async () => {
  await app.close();
});

const list = (query: Record<string, string> = {}, key = tenant.secret.key) =>
  api(app, 'GET', '/v1/emails', { key, query });
const ids = (body: { data: { id: string }[] }) => body.data.map((email) => email.id);

describe('GET /v1/emails', () => {
  it('lists the email an appointment queued, as the triggers queue it', async () => {
    const org = await createTenant(app);
    const agent = await createAgent(app, org.org.id, {
      bookingSlug: `log-${org.org.id.slice(-8).toLowerCase()}`,
      booking: { timezone: 'UTC', weekdays: [1, 2, 3, 4, 5, 6, 7] },
    });
    const contact = await createContact(app, org, {
      via: 'api',
      body: { firstName: 'Ana', email: 'ana@example.com' },
    });
    const date = new Date(Date.now() + 3 * DAY).toISOString().slice(0, 10);
    const created = await api(app, 'POST', '/v1/appointments', {
      key: org.secret.key,
      body: { agentId: agent.id, contactId: contact.id, date, startTime: '10:00' },
    });
    const appointmentId = expectStatus(created, 201).data.id as string;
    const body = expectStatus(await list({}, org.secret.key), 200);
    expect(body.data).toHaveLength(1);
    expect(body.data[0]).toMatchObject({
      kind: 'VISIT_CONFIRMATION',
      refId: appointmentId,
      revision: 0,
      status: 'QUEUED',
      to: null,
      subject: null,
      attempts: 0,
      sentAt: null,
      messageId: `<${body.data[0].id}@costa-homes.example>`,
    });
  });

  it('shows every field of an email, newest first, with the page meta', async () => {
    const org = await createTenant(app);
    const older = await seedEmail(org.org.id, {
      kind: 'LEAD_ALERT',
      revision: 0,
      toAddress: 'agent@example.com',
    });
    const newer = await seedEmail(org.org.id, {
      status: 'SKIPPED',
      reason: 'CONSENT_REVOKED',
      contactId: 'ct_0VhJ3kQ2Zt8mX1pR4sT6uC',
      toAddress: null,
      sentAt: null,
      transport: null,
      attempts: 1,
      revision: 2,
    });
    const body = expectStatus(await list({}, org.secret.key), 200);
    expect(ids(body)).toEqual([newer.id, older.id]);
    expect(body.meta).toEqual({ total: 2, page: 1, pageSize: 20, totalPages: 1 });
    expect(body.data[0]).toEqual({
      id: newer.id,
      kind: 'VISIT_CONFIRMATION',
      refId: newer.refId,
      revision: 2,
      status: 'SKIPPED',
      reason: 'CONSENT_REVOKED',
      contactId: 'ct_0VhJ3kQ2Zt8mX1pR4sT6uC',
      to: null,
      language: 'en',
      subject: 'Your visit on Thursday',
      transport: null,
      attempts: 1,
      messageId: `<${newer.id}@costa-homes.example>`,
      createdAt: newer.createdAt.toISOString(),
      sentAt: null,
    });
    expect(body.data[1]).toMatchObject({
      kind: 'LEAD_ALERT',
      status: 'SENT',
      to: 'agent@example.com',
      transport: 'SANDBOX',
    });
    expect(body.data[1].sentAt).toBe(older.sentAt?.toISOString());
    // The list never carries the bodies.
    expect(body.data[1]).not.toHaveProperty('html');
  });

  it('filters by status, kind, contact and creation time', async () => {
    const org = await createTenant(app);
    const base = Date.now() - 10 * DAY;
    const at = (days: number) => new Date(base + days * DAY);
    const a = await seedEmail(org.org.id, {
      createdAt: at(0),
      status: 'SENT',
      contactId: 'ct_0VhJ3kQ2Zt8mX1pR4sT6uA',
    });
    const b = await seedEmail(org.org.id, { createdAt: at(1), status: 'BOUNCED', kind: 'VISIT_REMINDER' });
    const c = await seedEmail(org.org.id, { createdAt: at(2), status: 'SENT', kind: 'VISIT_REMINDER' });
    const key = org.secret.key;
    expect(ids(expectStatus(await list({ status: 'SENT' }, key), 200))).toEqual([c.id, a.id]);
    expect(ids(expectStatus(await list({ kind: 'VISIT_REMINDER' }, key), 200))).toEqual([c.id, b.id]);
    expect(ids(expectStatus(await list({ kind: 'VISIT_REMINDER', status: 'SENT' }, key), 200))).toEqual([
      c.id,
    ]);
    expect(ids(expectStatus(await list({ contactId: 'ct_0VhJ3kQ2Zt8mX1pR4sT6uA' }, key), 200))).toEqual([
      a.id,
    ]);
    // createdAfter: at or after; createdBefore: strictly before; a date is its start (UTC).
    const range = { createdAfter: at(1).toISOString(), createdBefore: at(2).toISOString() };
    expect(ids(expectStatus(await list(range, key), 200))).toEqual([b.id]);
    const tomorrow = new Date(Date.now() + DAY).toISOString().slice(0, 10);
    expect(ids(expectStatus(await list({ createdAfter: tomorrow }, key), 200))).toEqual([]);
  });

  it('pages: page and pageSize, the total, a page past the end empty', async () => {
    const org = await createTenant(app);
    const seeded = [];
    for (let i = 0; i < 5; i++) seeded.push((await seedEmail(org.org.id)).id);
    const newestFirst = seeded.reverse();
    const first = expectStatus(await list({ pageSize: '2' }, org.secret.key), 200);
    expect(ids(first)).toEqual(newestFirst.slice(0, 2));
    expect(first.meta).toEqual({ total: 5, page: 1, pageSize: 2, totalPages: 3 });
    const third = expectStatus(await list({ pageSize: '2', page: '3' }, org.secret.key), 200);
    expect(ids(third)).toEqual(newestFirst.slice(4));
    const past = expectStatus(await list({ pageSize: '2', page: '4' }, org.secret.key), 200);
    expect(past.data).toEqual([]);
    expect(past.meta.total).toBe(5);
  });

  it('refuses bad filters with a 400 naming them', async () => {
    for (const [query, field] of [
      [{ status: 'LOST' }, 'status'],
      [{ kind: 'NEWSLETTER' }, 'kind'],
      [{ createdAfter: 'yesterday' }, 'createdAfter'],
      [{ createdBefore: '2026-13-40' }, 'createdBefore'],
      [{ pageSize: '101' }, 'pageSize'],
      [{ page: '0' }, 'page'],
      [{ cursor: 'abc' }, 'cursor'],
    ] as const) {
      const error = expectError(await list(query), 400, 'VALIDATION_ERROR');
      expect(error.message, JSON.stringify(query)).toContain(field);
    }
  });
});

describe('GET /v1/emails/{id}', () => {
  it('adds the bodies and the invitation method', async () => {
    const ics = [
      'BEGIN:VCALENDAR',
      'VERSION:2.0',
      'METHOD:CANCEL',
      'BEGIN:VEVENT',
      'END:VEVENT',
      'END:VCALENDAR',
    ].join('\r\n');
    const cancel = await seedEmail(tenant.org.id, { kind: 'VISIT_CANCELLED', ics });
    const body = expectStatus(
      await api(app, 'GET', `/v1/emails/${cancel.id}`, { key: tenant.secret.key }),
      200,
    );
    expect(body.data).toMatchObject({
      id: cancel.id,
      kind: 'VISIT_CANCELLED',
      text: 'Your visit is confirmed.',
      html: '<p>Your visit is confirmed.</p>',
      icsMethod: 'CANCEL',
      messageId: `<${cancel.id}@costa-homes.example>`,
    });
    const request = await seedEmail(tenant.org.id, { ics: ics.replace('METHOD:CANCEL', 'METHOD:REQUEST') });
    const plain = await seedEmail(tenant.org.id, { kind: 'LEAD_ALERT', html: null, text: null });
    const get = async (id: string) =>
      expectStatus(await api(app, 'GET', `/v1/emails/${id}`, { key: tenant.readOnly.key }), 200).data;
    expect((await get(request.id)).icsMethod).toBe('REQUEST');
    expect(await get(plain.id)).toMatchObject({ icsMethod: null, html: null, text: null });
  });

  it("404 for an unknown, malformed or another organization's id", async () => {
    const other = await createTenant(app);
    const theirs = await seedEmail(other.org.id);
    for (const id of [theirs.id, 'eml_0000000000000000000000', 'nonsense']) {
      expectError(await api(app, 'GET', `/v1/emails/${id}`, { key: tenant.secret.key }), 404, 'NOT_FOUND');
    }
    expect(ids(expectStatus(await list(), 200))).not.toContain(theirs.id);
  });
});

describe('who may read the log', () => {
  it('a read-only key may; a key without email:read gets 403; no key 401; a publishable key 403', async () => {
    const mine = await seedEmail(tenant.org.id);
    expect(ids(expectStatus(await list({}, tenant.readOnly.key), 200))).toContain(mine.id);
    expectError(await list({}, tenant.keys.noEmail.key), 403, 'FORBIDDEN');
    expectError(await list({}, tenant.publishable.key), 403, 'FORBIDDEN');
    expectError(await api(app, 'GET', '/v1/emails'), 401, 'UNAUTHORIZED');
    expectError(
      await api(app, 'GET', `/v1/emails/${mine.id}`, { key: tenant.keys.noEmail.key }),
      403,
      'FORBIDDEN',
    );
  });

  it("a test key reads its test twin's emails only", async () => {
    const live = await seedEmail(tenant.org.id);
    const twin = await seedEmail(tenant.org.testOrganizationId as string);
    const body = expectStatus(await list({}, tenant.keys.testKey.key), 200);
    expect(ids(body)).toEqual([twin.id]);
    expect(ids(expectStatus(await list({ pageSize: '100' }), 200))).toContain(live.id);
    expect(ids(expectStatus(await list({ pageSize: '100' }), 200))).not.toContain(twin.id);
  });
});

describe('the console: the last 7 days', () => {
  it('lists the emails of the last 7 days of the chosen mode, filters them, and shows one', async () => {
    const org = await createTenant(app);
    const old = await seedEmail(org.org.id, { createdAt: new Date(Date.now() - 8 * DAY) });
    const sent = await seedEmail(org.org.id);
    const bounced = await seedEmail(org.org.id, { status: 'BOUNCED', reason: '550 no such user' });
    const twin = await seedEmail(org.org.testOrganizationId as string);
    const console = consoleClient(app);
    const call = console.as(await console.signIn(org.org.id));

    const live = expectStatus(await call('GET', '/console/api/emails'), 200);
    expect(ids(live)).toEqual([bounced.id, sent.id]);
    expect(ids(live)).not.toContain(old.id);
    expect(live.data[0]).toMatchObject({ status: 'BOUNCED', reason: '550 no such user' });
    expect(ids(expectStatus(await call('GET', '/console/api/emails?status=SENT'), 200))).toEqual([sent.id]);
    expect(ids(expectStatus(await call('GET', '/console/api/emails?mode=test'), 200))).toEqual([twin.id]);
    // The window is the console's: a createdAfter of one's own is refused.
    expectError(await call('GET', '/console/api/emails?createdAfter=2020-01-01'), 400, 'VALIDATION_ERROR');

    const one = expectStatus(await call('GET', `/console/api/emails/${sent.id}`), 200);
    expect(one.data).toMatchObject({ id: sent.id, text: 'Your visit is confirmed.', icsMethod: null });
    expectError(await call('GET', `/console/api/emails/${twin.id}`), 404, 'NOT_FOUND');
    expect(expectStatus(await call('GET', `/console/api/emails/${twin.id}?mode=test`), 200).data.id).toBe(
      twin.id,
    );
    // Another organization's email: 404 as any other id.
    const other = await seedEmail(tenant.org.id);
    expectError(await call('GET', `/console/api/emails/${other.id}`), 404, 'NOT_FOUND');
  });

  it('needs a console session', async () => {
    const response = await app.inject({
      method: 'GET',
      url: '/console/api/emails',
      headers: { host: 'localhost:80' },
    });
    expectError(response, 401, 'UNAUTHORIZED');
  });
});
