import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../../src/db/database.ts';
import {
  busyPublishableKey,
  createApiKey,
  createContact,
  createTenant,
  FAST,
  type Tenant,
} from '../../helpers/factories.ts';
import { api, expectError, expectStatus } from '../../helpers/http.ts';
import { buildTestApp, testDatabase } from '../../helpers/test-app.ts';
import { dailyOf, rawEventsOf, scoreOf } from './support.ts';

let app: FastifyInstance;
let tenant: Tenant;
let portalKey: string;

function postUsage(body: unknown, options: { key?: string; headers?: Record<string, string> } = {}) {
  return api(app, 'POST', '/v1/usage/events', {
    key: options.key ?? tenant.secret.key,
    body,
    headers: options.headers,
  });
}

/** A fresh organization with its own contacts, so counts never see another test's events. */
async function freshTenant() {
  const fresh = await createTenant(app, { secret: FAST });
  return { ...fresh, portalKey: await busyPublishableKey(app, fresh.org.id) };
}

async function eventCount(organizationId: string): Promise<number> {
  const db = await testDatabase();
  const rows = await db.tenantTx(organizationId, (tx) =>
    queryRows<{ n: string | number }>(
      tx,
      sql`SELECT count(*) AS n FROM events WHERE organization_id = ${organizationId}`,
    ),
  );
  return Number(rows[0]?.n ?? 0);
}

beforeAll(async () => {
  app = await buildTestApp();
  tenant = await createTenant(app, { secret: FAST });
  portalKey = await busyPublishableKey(app, tenant.org.id);
});
afterAll(async () => {
  await app.close();
});

describe('POST /v1/usage/events: happy path', () => {
  it('answers 200 exactly {data:{success:true}} and stores the raw event and its daily aggregate', async () => {
    const t = await freshTenant();
    const contactId = (await createContact(app, t.org.id, { via: 'lead', key: t.portalKey })).id;
    const response = await postUsage(
      {
        name: 'report.exported',
        label: 'Exported the monthly report',
        props: { format: 'pdf', pages: 12, nested: { ok: true } },
        contactId,
        companyId: 'acme-42',
        actorLabel: 'Ana (admin)',
        occurredAt: '2025-03-10T08:15:30.250Z',
      },
      { key: t.secret.key },
    );
    expect(expectStatus(response, 200)).toEqual({ data: { success: true } });

    const raw = await rawEventsOf(t.org.id);
    expect(raw).toHaveLength(1);
    expect(raw[0]).toMatchObject({
      contact_id: contactId,
      name: 'report.exported',
      label: 'Exported the monthly report',
      props: { format: 'pdf', pages: 12, nested: { ok: true } },
      company_id: 'acme-42',
      actor_label: 'Ana (admin)',
    });
    expect(raw[0]?.occurred_at.toISOString()).toBe('2025-03-10T08:15:30.250Z');
    expect(await dailyOf(t.org.id)).toEqual([
      {
        contactId,
        day: '2025-03-10',
        name: 'report.exported',
        count: 1,
        first: '2025-03-10T08:15:30.250Z',
        last: '2025-03-10T08:15:30.250Z',
      },
    ]);
  });

  it('stores optional fields as null and dates the event now when occurredAt is absent', async () => {
    const t = await freshTenant();
    const contactId = (await createContact(app, t.org.id, { via: 'lead', key: t.portalKey })).id;
    const before = Date.now();
    expectStatus(await postUsage({ name: 'login', contactId }, { key: t.secret.key }), 200);
    const [event] = await rawEventsOf(t.org.id);
    expect(event).toMatchObject({ label: null, props: null, company_id: null, actor_label: null });
    expect(event?.occurred_at.getTime()).toBeGreaterThanOrEqual(before - 1000);
    expect(event?.occurred_at.getTime()).toBeLessThanOrEqual(Date.now() + 1000);
    const [daily] = await dailyOf(t.org.id);
    expect(daily?.day).toBe(new Date().toISOString().slice(0, 10));
  });

  it('counts per UTC day and name, keeping the earliest and latest time whatever the arrival order', async () => {
    const t = await freshTenant();
    const contactId = (await createContact(app, t.org.id, { via: 'lead', key: t.portalKey })).id;
    const send = (name: string, occurredAt: string) =>
      postUsage({ name, contactId, occurredAt }, { key: t.secret.key }).then((r) => expectStatus(r, 200));
    await send('login', '2025-03-10T12:00:00.000Z');
    await send('login', '2025-03-10T08:00:00.000Z');
    await send('login', '2025-03-10T23:59:59.999Z');
    await send('login', '2025-03-10T10:00:00.000Z');
    // 00:30 in Madrid on the 11th is still the 10th in UTC.
    await send('login', '2025-03-11T00:30:00+01:00');
    await send('login', '2025-03-11T00:00:00.000Z');
    await send('export', '2025-03-10T09:00:00.000Z');

    expect(await dailyOf(t.org.id)).toEqual([
      {
        contactId,
        day: '2025-03-10',
        name: 'export',
        count: 1,
        first: '2025-03-10T09:00:00.000Z',
        last: '2025-03-10T09:00:00.000Z',
      },
      {
        contactId,
        day: '2025-03-10',
        name: 'login',
        count: 5,
        first: '2025-03-10T08:00:00.000Z',
        last: '2025-03-10T23:59:59.999Z',
      },
      {
        contactId,
        day: '2025-03-11',
        name: 'login',
        count: 1,
        first: '2025-03-11T00:00:00.000Z',
        last: '2025-03-11T00:00:00.000Z',
      },
    ]);
    expect(await rawEventsOf(t.org.id)).toHaveLength(7);
  });

  it('trims the name, so " login " and "login" count together', async () => {
    const t = await freshTenant();
    const contactId = (await createContact(app, t.org.id, { via: 'lead', key: t.portalKey })).id;
    const occurredAt = '2025-04-01T10:00:00Z';
    expectStatus(await postUsage({ name: ' login ', contactId, occurredAt }, { key: t.secret.key }), 200);
    expectStatus(await postUsage({ name: 'login', contactId, occurredAt }, { key: t.secret.key }), 200);
    expect((await dailyOf(t.org.id)).map((row) => [row.name, row.count])).toEqual([['login', 2]]);
  });

  it("updates the contact's score and fires no webhook event", async () => {
    const t = await freshTenant();
    const contactId = (await createContact(app, t.org.id, { via: 'lead', key: t.portalKey })).id;
    const scoreBefore = await scoreOf(t.org.id, contactId);
    const eventsBefore = await eventCount(t.org.id);
    expectStatus(await postUsage({ name: 'login', contactId }, { key: t.secret.key }), 200);
    expect(await scoreOf(t.org.id, contactId)).toBeGreaterThan(scoreBefore);
    expect(await eventCount(t.org.id)).toBe(eventsBefore);
  });
});

describe('POST /v1/usage/events: who owns the event', () => {
  let t: Awaited<ReturnType<typeof freshTenant>>;
  let byId: string;
  let byExternalId: string;
  let byEmail: string;

  beforeAll(async () => {
    t = await freshTenant();
    byId = (
      await createContact(app, t.org.id, {
        via: 'lead',
        key: t.portalKey,
        body: { email: 'first@example.com' },
      })
    ).id;
    byExternalId = (
      await createContact(app, t.org.id, {
        via: 'lead',
        key: t.portalKey,
        body: { email: 'second@example.com' },
        externalId: 'user-2',
      })
    ).id;
    byEmail = (
      await createContact(app, t.org.id, {
        via: 'lead',
        key: t.portalKey,
        body: { email: 'Third.Person@Example.com' },
      })
    ).id;
  });

  async function ownerOf(identity: Record<string, unknown>): Promise<string | null> {
    const before = (await rawEventsOf(t.org.id)).length;
    expectStatus(await postUsage({ name: 'owner.check', ...identity }, { key: t.secret.key }), 200);
    const raw = await rawEventsOf(t.org.id);
    if (raw.length === before) return null;
    expect(raw).toHaveLength(before + 1);
    return raw[raw.length - 1]?.contact_id ?? null;
  }

  it('takes contactId first, then externalId, then email', async () => {
    const all = { contactId: byId, externalId: 'user-2', email: 'third.person@example.com' };
    expect(await ownerOf(all)).toBe(byId);
    expect(await ownerOf({ externalId: 'user-2', email: 'third.person@example.com' })).toBe(byExternalId);
    expect(await ownerOf({ email: 'third.person@example.com' })).toBe(byEmail);
    // The order holds whatever the identifiers name: externalId beats another contact's email.
    expect(await ownerOf({ externalId: 'user-2', email: 'first@example.com' })).toBe(byExternalId);
    expect(await ownerOf({ contactId: byEmail, externalId: 'user-2' })).toBe(byEmail);
  });

  it('compares the email case-insensitively', async () => {
    expect(await ownerOf({ email: 'THIRD.PERSON@EXAMPLE.COM' })).toBe(byEmail);
    expect(await ownerOf({ email: 'Second@Example.Com' })).toBe(byExternalId);
  });

  it('falls through to the next identifier when one names nobody', async () => {
    expect(await ownerOf({ contactId: 'ct_0000000000000000000000', externalId: 'user-2' })).toBe(
      byExternalId,
    );
    expect(await ownerOf({ contactId: 'not-an-id', email: 'first@example.com' })).toBe(byId);
    expect(await ownerOf({ externalId: 'nobody', email: 'first@example.com' })).toBe(byId);
  });

  it('takes the oldest contact when several share an externalId', async () => {
    const older = (
      await createContact(app, t.org.id, { via: 'lead', key: t.portalKey, externalId: 'shared-ext' })
    ).id;
    await createContact(app, t.org.id, { via: 'lead', key: t.portalKey, externalId: 'shared-ext' });
    expect(await ownerOf({ externalId: 'shared-ext' })).toBe(older);
  });

  it('answers 200 {success:true} and stores nothing when no contact matches', async () => {
    const rawBefore = await rawEventsOf(t.org.id);
    const dailyBefore = await dailyOf(t.org.id);
    for (const identity of [
      { contactId: 'ct_0000000000000000000000' },
      { externalId: 'no-such-user' },
      { email: 'nobody@example.com' },
      { contactId: 'ct_0000000000000000000000', externalId: 'no-such-user', email: 'nobody@example.com' },
    ]) {
      const response = await postUsage({ name: 'ghost', ...identity }, { key: t.secret.key });
      expect(expectStatus(response, 200)).toEqual({ data: { success: true } });
    }
    expect(await rawEventsOf(t.org.id)).toEqual(rawBefore);
    expect(await dailyOf(t.org.id)).toEqual(dailyBefore);
  });
});

describe('POST /v1/usage/events: Idempotency-Key', () => {
  it('replays the answer without counting the event twice', async () => {
    const t = await freshTenant();
    const contactId = (await createContact(app, t.org.id, { via: 'lead', key: t.portalKey })).id;
    const body = { name: 'invoice.paid', contactId, occurredAt: '2025-05-05T10:00:00Z' };
    const headers = { 'idempotency-key': 'usage-replay-0001' };
    const first = await postUsage(body, { key: t.secret.key, headers });
    expect(expectStatus(first, 200)).toEqual({ data: { success: true } });
    const second = await postUsage(body, { key: t.secret.key, headers });
    expect(expectStatus(second, 200)).toEqual({ data: { success: true } });
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(await rawEventsOf(t.org.id)).toHaveLength(1);
    expect((await dailyOf(t.org.id)).map((row) => row.count)).toEqual([1]);

    expectError(
      await postUsage({ ...body, name: 'invoice.refunded' }, { key: t.secret.key, headers }),
      409,
      'DUPLICATE',
    );
    // Without a key, the same body is a new event.
    expectStatus(await postUsage(body, { key: t.secret.key }), 200);
    expect((await dailyOf(t.org.id)).map((row) => row.count)).toEqual([2]);
  });
});

describe('POST /v1/usage/events: errors name the failing field', () => {
  let contactId: string;
  beforeAll(async () => {
    contactId = (await createContact(app, tenant.org.id, { via: 'lead', key: portalKey })).id;
  });
  const valid = () => ({ name: 'login', contactId });
  const inHours = (hours: number) => new Date(Date.now() + hours * 3_600_000).toISOString();

  const cases: [string, () => Record<string, unknown>, string][] = [
    ['name missing', () => ({ contactId }), 'name'],
    ['name empty', () => ({ ...valid(), name: '' }), 'body.name'],
    ['name blank', () => ({ ...valid(), name: '   ' }), 'body.name'],
    ['name of 61 characters', () => ({ ...valid(), name: 'n'.repeat(61) }), 'body.name'],
    ['name not a string', () => ({ ...valid(), name: 42 }), 'body.name'],
    ['label of 81 characters', () => ({ ...valid(), label: 'l'.repeat(81) }), 'body.label'],
    ['externalId of 201 characters', () => ({ ...valid(), externalId: 'e'.repeat(201) }), 'body.externalId'],
    ['externalId empty', () => ({ ...valid(), externalId: '' }), 'body.externalId'],
    ['companyId of 201 characters', () => ({ ...valid(), companyId: 'c'.repeat(201) }), 'body.companyId'],
    ['actorLabel of 121 characters', () => ({ ...valid(), actorLabel: 'a'.repeat(121) }), 'body.actorLabel'],
    ['email malformed', () => ({ ...valid(), email: 'not-an-email' }), 'body.email'],
    ['contactId empty', () => ({ ...valid(), contactId: '' }), 'body.contactId'],
    ['occurredAt not a date-time', () => ({ ...valid(), occurredAt: 'yesterday' }), 'body.occurredAt'],
    ['occurredAt a bare date', () => ({ ...valid(), occurredAt: '2025-03-10' }), 'body.occurredAt'],
    [
      'occurredAt an impossible date',
      () => ({ ...valid(), occurredAt: '2025-02-30T10:00:00Z' }),
      'body.occurredAt',
    ],
    ['occurredAt over 24 hours ahead', () => ({ ...valid(), occurredAt: inHours(25) }), 'body.occurredAt'],
    [
      'occurredAt a zero-value time',
      () => ({ ...valid(), occurredAt: '0001-01-01T00:00:00Z' }),
      'body.occurredAt',
    ],
    ['props over 8 KB', () => ({ ...valid(), props: { blob: 'x'.repeat(8200) } }), 'body.props'],
    ['props multibyte over 8 KB', () => ({ ...valid(), props: { blob: 'é'.repeat(4100) } }), 'body.props'],
    ['props an array', () => ({ ...valid(), props: [1, 2] }), 'body.props'],
    ['props a string', () => ({ ...valid(), props: 'x' }), 'body.props'],
    ['unknown field', () => ({ ...valid(), userId: 'u1' }), 'userId'],
    ['no identifier', () => ({ name: 'login', label: 'x' }), 'body'],
  ];
  for (const [title, body, field] of cases) {
    it(`400 VALIDATION_ERROR for ${title}, naming ${field}, and stores nothing`, async () => {
      const before = (await rawEventsOf(tenant.org.id)).length;
      const error = expectError(await postUsage(body()), 400, 'VALIDATION_ERROR');
      expect(error.message).toContain(field);
      expect(
        error.details?.some((detail) => detail.field.endsWith(field)),
        JSON.stringify(error),
      ).toBe(true);
      expect(await rawEventsOf(tenant.org.id)).toHaveLength(before);
    });
  }

  it('names body when no identifier is given', async () => {
    const error = expectError(await postUsage({ name: 'login' }), 400, 'VALIDATION_ERROR');
    expect(error.details).toEqual([{ field: 'body', message: expect.stringContaining('contactId') }]);
  });

  it('accepts every field at its limit', async () => {
    const t = await freshTenant();
    const email = 'limit@example.com';
    const id = (await createContact(app, t.org.id, { via: 'lead', key: t.portalKey, body: { email } })).id;
    const props = { blob: 'x'.repeat(8192 - JSON.stringify({ blob: '' }).length) };
    expect(Buffer.byteLength(JSON.stringify(props))).toBe(8192);
    const body = {
      name: 'n'.repeat(60),
      label: 'l'.repeat(80),
      props,
      contactId: id,
      externalId: 'e'.repeat(200),
      email,
      companyId: 'c'.repeat(200),
      actorLabel: 'a'.repeat(120),
      occurredAt: inHours(23),
    };
    expectStatus(await postUsage(body, { key: t.secret.key }), 200);
    const [event] = await rawEventsOf(t.org.id);
    expect(event).toMatchObject({ contact_id: id, name: body.name, label: body.label, props });
    expectStatus(
      await postUsage(
        { name: 'old', contactId: id, occurredAt: '2000-01-01T00:00:00Z' },
        { key: t.secret.key },
      ),
      200,
    );
  });
});

describe('POST /v1/usage/events: security', () => {
  it('refuses a secret key below access level 3 with 403', async () => {
    const key = await createApiKey(app, tenant.org.id, {
      type: 'secret',
      scopes: ['contacts:write'],
      accessLevel: 2,
      ...FAST,
    });
    const contactId = (await createContact(app, tenant.org.id, { via: 'lead', key: portalKey })).id;
    const before = (await rawEventsOf(tenant.org.id)).length;
    expectError(await postUsage({ name: 'login', contactId }, { key: key.key }), 403, 'FORBIDDEN');
    expect(await rawEventsOf(tenant.org.id)).toHaveLength(before);
  });

  it('refuses a secret key without contacts:write, a read-only key and a publishable key with 403', async () => {
    const contactId = (await createContact(app, tenant.org.id, { via: 'lead', key: portalKey })).id;
    const noScope = await createApiKey(app, tenant.org.id, { type: 'secret', accessLevel: 3, ...FAST });
    const before = (await rawEventsOf(tenant.org.id)).length;
    for (const key of [noScope.key, tenant.readOnly.key, tenant.publishable.key]) {
      const response = await postUsage({ name: 'login', contactId }, { key });
      expectError(response, 403, 'FORBIDDEN');
    }
    expect(await rawEventsOf(tenant.org.id)).toHaveLength(before);
  });

  it("never reaches another organization's contact: 200, nothing stored in either organization", async () => {
    const mine = await freshTenant();
    const theirs = await freshTenant();
    const contactId = (
      await createContact(app, mine.org.id, {
        via: 'lead',
        key: mine.portalKey,
        body: { email: 'shared-person@example.com' },
        externalId: 'tenant-ext-1',
      })
    ).id;
    for (const identity of [
      { contactId },
      { externalId: 'tenant-ext-1' },
      { email: 'shared-person@example.com' },
    ]) {
      const response = await postUsage({ name: 'login', ...identity }, { key: theirs.secret.key });
      expect(expectStatus(response, 200)).toEqual({ data: { success: true } });
    }
    expect(await rawEventsOf(mine.org.id)).toEqual([]);
    expect(await dailyOf(mine.org.id)).toEqual([]);
    expect(await rawEventsOf(theirs.org.id)).toEqual([]);
    expect(await dailyOf(theirs.org.id)).toEqual([]);
    // The same request with the owner's key does reach the contact.
    expectStatus(await postUsage({ name: 'login', contactId }, { key: mine.secret.key }), 200);
    expect(await rawEventsOf(mine.org.id)).toHaveLength(1);
  });

  it("a test-mode key acts on the organization's test twin, not on its live contacts", async () => {
    const t = await freshTenant();
    const contactId = (await createContact(app, t.org.id, { via: 'lead', key: t.portalKey })).id;
    const testKey = await createApiKey(app, t.org.id, {
      type: 'secret',
      mode: 'test',
      scopes: ['contacts:write'],
      accessLevel: 3,
      ...FAST,
    });
    expectStatus(await postUsage({ name: 'login', contactId }, { key: testKey.key }), 200);
    expect(await rawEventsOf(t.org.id)).toEqual([]);
  });
});

describe('POST /v1/usage/events: the body schema', () => {
  it('documents the owner rule as an anyOf of required sets, and refuses a body without one with its message', async () => {
    const document = expectStatus(await api(app, 'GET', '/v1/openapi.json'), 200);
    expect(document.components.schemas.RecordUsageEventBody.anyOf).toEqual([
      { required: ['contactId'] },
      { required: ['externalId'] },
      { required: ['email'] },
    ]);
    const error = expectError(await postUsage({ name: 'login', label: 'x' }), 400, 'VALIDATION_ERROR');
    expect(error.details).toEqual([
      { field: 'body', message: 'must include at least one of contactId, externalId or email' },
    ]);
    const blank = expectError(
      await postUsage({ name: '\t ', email: 'a@example.com' }),
      400,
      'VALIDATION_ERROR',
    );
    expect(blank.details).toEqual([{ field: 'body.name', message: 'must not be blank' }]);
  });

  it('accepts one identifier alone (an email nobody has) and a name with inner spaces', async () => {
    expectStatus(await postUsage({ name: ' report exported ', email: 'nobody@example.com' }), 200);
    expectStatus(await postUsage({ name: 'x', externalId: 'ext-1' }), 200);
  });
});
