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
import { spanishPhone } from './support.ts';

let app: FastifyInstance;
let agency: SpanishAgency;
let other: SpanishAgency;
let agentId: string;
/** The agency's contacts by first name, created in this order. */
const people: Record<string, { id: string; createdAt: string; updatedAt: string }> = {};
let lucia: ReturnType<typeof spanishPhone>;
/** Created after `lucia` and before the rest, to split by creation time. */
let middle: string;

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

beforeAll(async () => {
  app = await buildTestApp();
  agency = await createTenant(app, SPANISH_AGENCY);
  other = await createTenant(app, SPANISH_AGENCY);
  agentId = (await createAgent(app, agency.org.id)).id;
  lucia = spanishPhone();
  const rows: Record<string, unknown>[] = [
    {
      firstName: 'Lucía',
      lastName: 'Fernández',
      email: 'Lucia.F@Example.com',
      phone: lucia.e164,
      source: 'WEBSITE',
      status: 'QUALIFIED',
      type: 'CLIENT',
      tags: ['buyer', 'vip'],
      ownerId: agentId,
    },
    {
      firstName: 'álvaro',
      lastName: 'zamora',
      phone: spanishPhone().e164,
      source: 'REFERRAL',
      status: 'NEW',
      type: 'OWNER',
      tags: ['seller'],
      optedOut: true,
      externalId: 'ext-1',
    },
    { firstName: 'Bea', lastName: 'Álvarez', email: 'bea@example.org', source: 'WEBSITE', tags: ['buyer'] },
    { firstName: 'Carlos', lastName: 'Blanco', source: 'PHONE', status: 'CONTACTED', type: 'TENANT' },
  ];
  for (const [index, row] of rows.entries()) {
    const contact = await createContact(app, agency, { via: 'api', body: row });
    people[row.firstName as string] = contact as never;
    if (index === 0) {
      await wait(5);
      middle = new Date().toISOString();
      await wait(5);
    }
  }
  // Someone else's contact matching every filter: never listed.
  await createContact(app, other, {
    via: 'api',
    body: {
      firstName: 'Lucía',
      lastName: 'Fernández',
      source: 'WEBSITE',
      tags: ['buyer'],
    },
  });
});
afterAll(async () => {
  await app.close();
});

async function list(query: Record<string, string>, key = agency.secret.key) {
  return expectStatus(await api(app, 'GET', '/v1/contacts', { key, query }), 200) as {
    data: { id: string; firstName: string }[];
    meta: { total: number; page: number; pageSize: number; totalPages: number };
  };
}
async function names(query: Record<string, string>) {
  return (await list(query)).data.map((contact) => contact.firstName);
}

describe('GET /v1/contacts: paging and sorting', () => {
  it('lists newest first with the paging meta (default page size 20)', async () => {
    const body = await list({});
    expect(body.data.map((c) => c.firstName)).toStrictEqual(['Carlos', 'Bea', 'álvaro', 'Lucía']);
    expect(body.meta).toStrictEqual({ total: 4, page: 1, pageSize: 20, totalPages: 1 });
  });

  it('pages: pageSize and page, and a page past the end is empty with the true meta', async () => {
    const second = await list({ pageSize: '3', page: '2' });
    expect(second.data.map((c) => c.firstName)).toStrictEqual(['Lucía']);
    expect(second.meta).toStrictEqual({ total: 4, page: 2, pageSize: 3, totalPages: 2 });
    const past = await list({ pageSize: '3', page: '5' });
    expect(past).toStrictEqual({ data: [], meta: { total: 4, page: 5, pageSize: 3, totalPages: 2 } });
  });

  it('refuses pageSize over 100, page 0 and unknown sorts, naming the parameter', async () => {
    for (const [query, field] of [
      [{ pageSize: '101' }, 'pageSize'],
      [{ page: '0' }, 'page'],
      [{ sortBy: 'email' }, 'sortBy'],
      [{ sortOrder: 'up' }, 'sortOrder'],
      [{ status: 'HOT' }, 'status'],
      [{ optedOut: 'maybe' }, 'optedOut'],
      [{ unknown: '1' }, 'unknown'],
    ] as const) {
      const error = expectError(
        await api(app, 'GET', '/v1/contacts', { key: agency.secret.key, query }),
        400,
        'VALIDATION_ERROR',
      );
      expect(error.message).toContain(field);
    }
  });

  it('sorts by createdAt ascending, and by lastName (accent- and case-insensitive, asc by default)', async () => {
    expect(await names({ sortBy: 'createdAt', sortOrder: 'asc' })).toStrictEqual([
      'Lucía',
      'álvaro',
      'Bea',
      'Carlos',
    ]);
    // Álvarez, Blanco, Fernández, zamora: accents and case do not move a name to the end.
    expect(await names({ sortBy: 'lastName' })).toStrictEqual(['Bea', 'Carlos', 'Lucía', 'álvaro']);
    expect(await names({ sortBy: 'lastName', sortOrder: 'desc' })).toStrictEqual([
      'álvaro',
      'Lucía',
      'Carlos',
      'Bea',
    ]);
  });

  it('sorts by updatedAt: a changed contact comes first', async () => {
    await wait(5);
    expectStatus(
      await api(app, 'PATCH', `/v1/contacts/${people['álvaro']?.id}`, {
        key: agency.secret.key,
        body: { preferredCity: 'Ronda' },
      }),
      200,
    );
    expect((await names({ sortBy: 'updatedAt' }))[0]).toBe('álvaro');
    expect((await names({ sortBy: 'updatedAt', sortOrder: 'asc' }))[3]).toBe('álvaro');
  });

  it('sorts by score: a contact who sent a portal form ranks first', async () => {
    // A lead through the portal raises Bea's score (docs/contacts.md "Score").
    const phone = spanishPhone();
    expectStatus(
      await api(app, 'PATCH', `/v1/contacts/${people.Bea?.id}`, {
        key: agency.secret.key,
        body: { phone: phone.e164 },
      }),
      200,
    );
    expectStatus(
      await api(app, 'POST', '/v1/leads', {
        key: agency.publishable.key,
        body: { firstName: 'Bea', phone: phone.e164 },
      }),
      201,
    );
    const byScore = await list({ sortBy: 'score' });
    expect(byScore.data[0]?.firstName).toBe('Bea');
    expect((byScore.data[0] as unknown as { score: number }).score).toBeGreaterThan(0);
    expect((await names({ sortBy: 'score', sortOrder: 'asc' }))[3]).toBe('Bea');
  });
});

describe('GET /v1/contacts: filters', () => {
  it.each([
    [{ status: 'QUALIFIED' }, ['Lucía']],
    [{ status: 'NEW' }, ['Bea', 'álvaro']],
    [{ source: 'WEBSITE' }, ['Bea', 'Lucía']],
    [{ type: 'OWNER' }, ['álvaro']],
    [{ type: 'LEAD' }, ['Bea']],
    [{ tag: 'buyer' }, ['Bea', 'Lucía']],
    [{ tag: 'seller' }, ['álvaro']],
    [{ tag: 'buy' }, []],
    [{ optedOut: 'true' }, ['álvaro']],
    [{ optedOut: 'false' }, ['Carlos', 'Bea', 'Lucía']],
    [{ externalId: 'ext-1' }, ['álvaro']],
    [{ source: 'WEBSITE', tag: 'vip' }, ['Lucía']],
  ])('%j -> %j', async (query, expected) => {
    expect(await names(query as Record<string, string>)).toStrictEqual(expected);
  });

  it('filters by owner', async () => {
    expect(await names({ ownerId: agentId })).toStrictEqual(['Lucía']);
    expect(await names({ ownerId: 'agt_0000000000000000000000' })).toStrictEqual([]);
  });

  it('filters by creation time: createdAfter inclusive, createdBefore strict, dates as their UTC start', async () => {
    expect(await names({ createdBefore: middle })).toStrictEqual(['Lucía']);
    expect(await names({ createdAfter: middle })).toStrictEqual(['Carlos', 'Bea', 'álvaro']);
    const first = people['Lucía']?.createdAt as string;
    expect(await names({ createdBefore: first })).toStrictEqual([]);
    expect((await names({ createdAfter: first })).length).toBe(4);
    const today = new Date().toISOString().slice(0, 10);
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    expect((await names({ createdAfter: today })).length).toBe(4);
    expect(await names({ createdBefore: today })).toStrictEqual([]);
    expect((await names({ createdBefore: tomorrow, createdAfter: today })).length).toBe(4);
    expect(await names({ createdAfter: tomorrow })).toStrictEqual([]);
  });

  it('refuses dates that do not exist or are not dates, naming the parameter', async () => {
    for (const [name, value] of [
      ['createdAfter', '2026-02-30'],
      ['createdBefore', 'yesterday'],
      ['createdAfter', '2026-13-01T10:00:00Z'],
      ['createdBefore', '2026-02-30T10:00:00Z'],
      ['createdBefore', '2026-01-05T25:00:00+01:00'],
    ]) {
      const error = expectError(
        await api(app, 'GET', '/v1/contacts', {
          key: agency.secret.key,
          query: { [name as string]: value as string },
        }),
        400,
        'VALIDATION_ERROR',
      );
      expect(error.message).toContain(name);
      expect(error.details?.map((detail) => detail.field)).toContain(`query.${name}`);
    }
  });
});

describe('GET /v1/contacts: q', () => {
  it.each([
    ['lucia', ['Lucía']],
    ['LUCÍA', ['Lucía']],
    ['fernandez', ['Lucía']],
    ['Lucía Fernández', ['Lucía']],
    ['fern luc', ['Lucía']],
    ['alvar', ['Bea', 'álvaro']],
    ['lucia.f@example.com', ['Lucía']],
    ['EXAMPLE.ORG', ['Bea']],
    ['nobody', []],
    ['%', []],
  ])('q=%s -> %j', async (q, expected) => {
    expect(await names({ q })).toStrictEqual(expected);
  });

  it('finds a phone by its digits in any spelling', async () => {
    const national = lucia.national;
    for (const q of [
      national.slice(0, 6),
      national.slice(2),
      lucia.e164,
      lucia.spaced,
      `+34 ${lucia.spaced}`,
    ]) {
      expect(await names({ q }), q).toStrictEqual(['Lucía']);
    }
  });
});

describe('GET /v1/contacts and /{id}: security', () => {
  it('lets a read-only key list and read', async () => {
    expect((await list({}, agency.readOnly.key)).meta.total).toBe(4);
    const one = await api(app, 'GET', `/v1/contacts/${people.Carlos?.id}`, { key: agency.readOnly.key });
    expect(expectStatus(one, 200).data.firstName).toBe('Carlos');
  });

  it('refuses a publishable key (403)', async () => {
    expectError(await api(app, 'GET', '/v1/contacts', { key: agency.publishable.key }), 403, 'FORBIDDEN');
  });

  it("lists only the key's organization", async () => {
    const theirs = await list({ q: 'lucia' }, other.secret.key);
    expect(theirs.meta.total).toBe(1);
    expect(theirs.data[0]?.id).not.toBe(people['Lucía']?.id);
    expect(await list({ tag: 'seller' }, other.secret.key)).toMatchObject({ data: [], meta: { total: 0 } });
  });
});
