// GET /v1/contacts in cursor mode (incremental sync, docs/decisions/0190-0194).
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cursorPage, expectSyncOrder, walkCursor } from '../../helpers/cursor.ts';
import { createContact, createTenant, SPANISH_AGENCY, type SpanishAgency } from '../../helpers/factories.ts';
import { admin, api, expectError, expectStatus } from '../../helpers/http.ts';
import { buildTestApp } from '../../helpers/test-app.ts';
import { seedContacts, spanishPhone } from './support.ts';

let app: FastifyInstance;
let agency: SpanishAgency;
let other: SpanishAgency;
/** The agency's five contacts, in creation (and so update) order. */
let ids: string[] = [];

const EPOCH = '2000-01-01T00:00:00Z';
type Contact = { id: string; firstName: string; updatedAt: string; tags: string[]; status: string };

beforeAll(async () => {
  app = await buildTestApp();
  agency = await createTenant(app, SPANISH_AGENCY);
  other = await createTenant(app, SPANISH_AGENCY);
  for (const [index, status] of ['NEW', 'QUALIFIED', 'NEW', 'QUALIFIED', 'NEW'].entries()) {
    const contact = await createContact(app, agency, {
      via: 'api',
      body: { firstName: `Person ${index}`, status },
    });
    ids.push(contact.id);
  }
  await createContact(app, other, {
    via: 'api',
    body: { firstName: 'Someone Else', phone: spanishPhone().e164 },
  });
});
afterAll(async () => {
  await app.close();
});

const page = (query: Record<string, string>, key = agency.secret.key) =>
  cursorPage<Contact>(app, '/v1/contacts', key, query);
const badRequest = async (query: Record<string, string>, key = agency.secret.key) =>
  expectError(await api(app, 'GET', '/v1/contacts', { key, query }), 400, 'VALIDATION_ERROR');

describe('GET /v1/contacts in cursor mode', () => {
  it('lists every contact oldest change first with CursorMeta; page mode keeps SPEC meta', async () => {
    const { data, meta } = await page({ updatedAfter: EPOCH });
    expect(data.map((contact) => contact.id)).toEqual(ids);
    expect(meta).toEqual({ pageSize: 20, hasMore: false, nextCursor: null });
    const paged = expectStatus(await api(app, 'GET', '/v1/contacts', { key: agency.secret.key }), 200);
    expect(paged.meta).toEqual({ total: 5, page: 1, pageSize: 20, totalPages: 1 });
  });

  it('follows nextCursor page by page, and a change moves the contact to the end', async () => {
    const first = await page({ updatedAfter: EPOCH, pageSize: '2' });
    expect(first.data.map((contact) => contact.id)).toEqual(ids.slice(0, 2));
    expect(first.meta.hasMore).toBe(true);
    // Changed between two pages: the first contact comes again at the end, with its change.
    expectStatus(
      await api(app, 'PATCH', `/v1/contacts/${ids[0]}`, {
        key: agency.secret.key,
        body: { tags: ['moved'] },
      }),
      200,
    );
    const rest = await walkCursor<Contact>(app, '/v1/contacts', agency.secret.key, {
      updatedAfter: EPOCH,
      pageSize: '2',
      cursor: first.meta.nextCursor as string,
    });
    expect(rest.items.map((contact) => contact.id)).toEqual([...ids.slice(2), ids[0]]);
    expect(rest.items.at(-1)?.tags).toEqual(['moved']);
    expect(rest.pages).toBe(2);
    ids = [...ids.slice(1), ids[0]!];
  });

  it('takes updatedAfter strictly: the last updatedAt seen lists only later changes', async () => {
    const all = (await page({ updatedAfter: EPOCH })).data;
    const third = all[2]!;
    const after = await page({ updatedAfter: third.updatedAt });
    // Microseconds the answer does not show may put the third contact itself after its own updatedAt.
    const later = after.data.map((contact) => contact.id).filter((id) => id !== third.id);
    expect(later).toEqual(ids.slice(3));
    expect((await page({ updatedAfter: '2999-01-01' })).data).toEqual([]);
    // A date is its midnight UTC.
    expect((await page({ updatedAfter: '2000-01-01' })).data.map((contact) => contact.id)).toEqual(ids);
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    expect((await page({ updatedAfter: tomorrow })).data).toEqual([]);
  });

  it('applies every other filter with AND, on every page', async () => {
    const { items } = await walkCursor<Contact>(app, '/v1/contacts', agency.secret.key, {
      updatedAfter: EPOCH,
      status: 'QUALIFIED',
      pageSize: '1',
    });
    expect(items.map((contact) => contact.status)).toEqual(['QUALIFIED', 'QUALIFIED']);
    expect(items.map((contact) => contact.firstName).sort()).toEqual(['Person 1', 'Person 3']);
    const none = await page({ updatedAfter: EPOCH, q: 'nobody-by-that-name' });
    expect(none).toEqual({ data: [], meta: { pageSize: 20, hasMore: false, nextCursor: null } });
  });

  it('lists a contact again when its score changes (a message from them)', async () => {
    const before = (await page({ updatedAfter: EPOCH })).data;
    const target = before[0]!;
    expectStatus(
      await admin(
        app,
        'POST',
        `/admin/v1/organizations/${agency.org.id}/contacts/${target.id}/inbound-messages`,
        {
          body: 'Hola, ¿sigue disponible?',
        },
      ),
      201,
    );
    const after = await page({ updatedAfter: before.at(-1)!.updatedAt });
    const again = after.data.find((contact) => contact.id === target.id) as Contact & { score: number };
    expect(again, JSON.stringify(after.data)).toBeDefined();
    expect(again.score).toBeGreaterThan(0);
    ids = [...ids.filter((id) => id !== target.id), target.id];
  });

  it('accepts sortBy=updatedAt and sortOrder=asc, the order it lists in anyway', async () => {
    const { data } = await page({ updatedAfter: EPOCH, sortBy: 'updatedAt', sortOrder: 'asc' });
    expect(data.map((contact) => contact.id)).toEqual(ids);
  });
});

describe('GET /v1/contacts in cursor mode: errors', () => {
  it('refuses page, another sort and another order with a 400 naming the parameter', async () => {
    for (const [query, field] of [
      [{ updatedAfter: EPOCH, page: '2' }, 'query.page'],
      [{ updatedAfter: EPOCH, sortBy: 'createdAt' }, 'query.sortBy'],
      [{ updatedAfter: EPOCH, sortOrder: 'desc' }, 'query.sortOrder'],
      [{ updatedAfter: EPOCH, sortBy: 'updatedAt', sortOrder: 'desc' }, 'query.sortOrder'],
    ] as const) {
      const error = await badRequest(query);
      expect(error.details, JSON.stringify(query)).toEqual([{ field, message: expect.any(String) }]);
      expect(error.message).toContain(field);
    }
    const { meta } = await page({ updatedAfter: EPOCH, pageSize: '1' });
    const error = await badRequest({ cursor: meta.nextCursor as string, page: '3' });
    expect(error.details?.[0]?.field).toBe('query.page');
  });

  it('refuses a malformed, altered or foreign cursor with a 400 naming query.cursor', async () => {
    const { meta } = await page({ updatedAfter: EPOCH, pageSize: '1' });
    const cursor = meta.nextCursor as string;
    const decoded = Buffer.from(cursor, 'base64url').toString();
    const altered = Buffer.from(decoded.replace(/\.\d{6}Z/, '.000000Z')).toString('base64url');
    const impossible = Buffer.from(decoded.replace(/^1\|\d{4}-\d{2}/, '1|2026-13')).toString('base64url');
    for (const bad of [
      'abc',
      'not a cursor!',
      `${cursor}x`,
      cursor.slice(0, -3),
      altered,
      impossible,
      'x'.repeat(201),
    ]) {
      const error = await badRequest({ cursor: bad });
      expect(error.details?.[0]?.field, bad).toBe('query.cursor');
    }
    // Issued for other filters: the walk must keep its filters.
    const filtered = await page({ updatedAfter: EPOCH, status: 'NEW', pageSize: '1' });
    const error = await badRequest({ cursor: filtered.meta.nextCursor as string });
    expect(error.message).toContain('query.cursor');
    expect(
      (await badRequest({ cursor: filtered.meta.nextCursor as string, status: 'QUALIFIED' })).details?.[0]
        ?.field,
    ).toBe('query.cursor');
  });

  it('refuses a malformed updatedAfter with a 400 naming it', async () => {
    for (const bad of [
      'yesterday',
      '2026-02-30',
      '2026-01-01T10:00:00',
      '2026-01-01T10:00:61Z',
      '9999-12-31T23:00:00-05:00',
    ]) {
      const error = await badRequest({ updatedAfter: bad });
      expect(error.details?.[0]?.field, bad).toBe('query.updatedAfter');
    }
  });

  it("another organization's cursor is a 400 there, and never lists this one's contacts", async () => {
    const { meta } = await page({ updatedAfter: EPOCH, pageSize: '1' });
    const error = await badRequest({ cursor: meta.nextCursor as string }, other.secret.key);
    expect(error.details?.[0]?.field).toBe('query.cursor');
    const theirs = await page({ updatedAfter: EPOCH }, other.secret.key);
    expect(theirs.data.map((contact) => contact.firstName)).toEqual(['Someone Else']);
  });
});

describe('a cursor walk over 10,000 contacts while others change them (issue 20)', () => {
  it('sees every contact, and each one changed after it was seen again later', async () => {
    const started = Date.now();
    const bulk = await createTenant(app, SPANISH_AGENCY);
    const seeded = await seedContacts(bulk.org.id, 10_200, {
      tag: 'Walk',
      firstUpdatedAt: '2026-01-01T00:00:00Z',
    });
    const seen = new Map<string, Contact[]>();
    const walked: string[] = [];
    /** Changed after their first appearance, and before it (while the walk had not reached them). */
    const changedAfterSeen = new Set<string>();
    const changedBeforeSeen = new Set<string>();
    const change = async (id: string, tag: string) =>
      expectStatus(
        await api(app, 'PATCH', `/v1/contacts/${id}`, { key: bulk.secret.key, body: { tags: [tag] } }),
        200,
      );

    const { items, pages } = await walkCursor<Contact>(
      app,
      '/v1/contacts',
      bulk.secret.key,
      { updatedAfter: EPOCH, pageSize: '100' },
      async (data, pageNumber) => {
        for (const contact of data) {
          seen.set(contact.id, [...(seen.get(contact.id) ?? []), contact]);
          walked.push(contact.id);
        }
        if (pageNumber % 10 !== 0 || pageNumber > 100) return;
        // Another client writes while this one walks: one contact of this page, one seen long ago,
        // and one the walk has not reached yet (odd rows come after the even ones' shared instant).
        const [current, earlier] = [data[0]!.id, walked[pageNumber * 7]!];
        const ahead = seeded[seeded.length - 2 - pageNumber]!;
        for (const id of [current, earlier]) {
          changedAfterSeen.add(id);
          await change(id, `after-${pageNumber}`);
        }
        expect(seen.has(ahead), ahead).toBe(false);
        changedBeforeSeen.add(ahead);
        await change(ahead, `before-${pageNumber}`);
      },
    );

    expect(pages).toBeGreaterThan(100);
    expectSyncOrder(items);
    expect(new Set(items.map((contact) => contact.id))).toEqual(new Set(seeded));
    expect(changedAfterSeen.size).toBe(20);
    expect(changedBeforeSeen.size).toBe(10);
    for (const [id, appearances] of seen) {
      if (changedAfterSeen.has(id)) {
        expect(appearances.length, id).toBe(2);
        expect(appearances[1]!.updatedAt > appearances[0]!.updatedAt, id).toBe(true);
        expect(appearances[1]!.tags[0], id).toMatch(/^after-/);
      } else {
        expect(appearances.length, id).toBe(1);
        if (changedBeforeSeen.has(id)) expect(appearances[0]!.tags[0], id).toMatch(/^before-/);
      }
    }
    expect(items.length).toBe(seeded.length + changedAfterSeen.size);
    expect(Date.now() - started, 'the walk stays quick').toBeLessThan(60_000);
  }, 120_000);

  it('carries microseconds: rows a millisecond apart or less are each listed once', async () => {
    const fine = await createTenant(app, SPANISH_AGENCY);
    const seeded = await seedContacts(fine.org.id, 9, {
      tag: 'Fine',
      firstUpdatedAt: '2026-01-01T00:00:00.000500Z',
    });
    const { items, pages } = await walkCursor<Contact>(app, '/v1/contacts', fine.secret.key, {
      updatedAfter: '2026-01-01T00:00:00.000500Z',
      pageSize: '1',
    });
    // Strictly after .000500: the even rows (at .000500 exactly) are left out, the odd ones listed once each.
    expect(items.map((contact) => contact.id)).toEqual(seeded.filter((_, index) => index % 2 === 0));
    expect(new Set(items.map((contact) => contact.updatedAt))).toEqual(new Set(['2026-01-01T00:00:00.000Z']));
    expect(pages).toBe(5);
  });
});
