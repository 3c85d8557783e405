/** Cursor mode of the lists (docs/decisions/0190): one page, and a walk that follows nextCursor. */
import type { FastifyInstance } from 'fastify';
import { describe, expect, it } from 'vitest';
import { api, expectStatus } from './http.ts';

export interface SyncItem {
  id: string;
  updatedAt: string;
}

export interface CursorMeta {
  pageSize: number;
  hasMore: boolean;
  nextCursor: string | null;
}

/** One list answer in cursor mode (200 asserted, CursorMeta's exact keys checked). */
export async function cursorPage<T extends SyncItem = SyncItem>(
  app: FastifyInstance,
  path: string,
  key: string,
  query: Record<string, string>,
): Promise<{ data: T[]; meta: CursorMeta }> {
  const body = expectStatus(await api(app, 'GET', path, { key, query }), 200) as {
    data: T[];
    meta: CursorMeta;
  };
  expect(Object.keys(body.meta).sort()).toEqual(['hasMore', 'nextCursor', 'pageSize']);
  expect(body.meta.nextCursor === null, JSON.stringify(body.meta)).toBe(!body.meta.hasMore);
  return body;
}

/**
 * Follows nextCursor from `query` (which holds `updatedAfter`, or a `cursor` to start from) to the
 * last page, sending the same filters each time; `between` runs after each page (concurrent writes).
 * Returns every item in the order received, and how many pages it took.
 */
export async function walkCursor<T extends SyncItem = SyncItem>(
  app: FastifyInstance,
  path: string,
  key: string,
  query: Record<string, string>,
  between: (page: T[], pageNumber: number) => Promise<void> = async () => undefined,
): Promise<{ items: T[]; pages: number }> {
  const items: T[] = [];
  let next: Record<string, string> = query;
  for (let pages = 1; ; pages++) {
    const { data, meta } = await cursorPage<T>(app, path, key, next);
    expect(data.length, `page ${pages}`).toBeLessThanOrEqual(meta.pageSize);
    items.push(...data);
    await between(data, pages);
    if (!meta.hasMore) return { items, pages };
    next = { ...query, cursor: meta.nextCursor as string };
  }
}

/**
 * Items come oldest change first. (Within one instant they are in id order by the database's
 * collation, which need not be JavaScript's, and the answer's milliseconds hide finer steps.)
 */
export function expectSyncOrder(items: readonly SyncItem[]): void {
  for (let i = 1; i < items.length; i++) {
    const [a, b] = [items[i - 1]!, items[i]!];
    expect(a.updatedAt <= b.updatedAt, `${a.id} ${a.updatedAt} then ${b.id} ${b.updatedAt}`).toBe(true);
  }
}

/** A list's fixtures for the shared cursor-mode checks (`cursorModeChecks`). */
export interface CursorModeCase {
  app: FastifyInstance;
  path: string;
  key: string;
  /** A key of another organization with the same scopes. */
  otherKey: string;
  /** Every item the key's organization has in this list, oldest change first (one request each). */
  ids: string[];
  /** A filter of the list and the ids it keeps. */
  filter: Record<string, string>;
  filtered: string[];
  /** Changes the item through the API (its updatedAt moves). */
  change: (id: string) => Promise<void>;
  /** A `sortBy` the list takes in page mode, other than updatedAt. */
  otherSort: string;
}

const EPOCH = '2000-01-01T00:00:00Z';

/** The cursor-mode contract every list that has it keeps (docs/decisions/0190-0194). */
export function cursorModeChecks(fixtures: () => CursorModeCase) {
  const idsOf = (items: readonly SyncItem[]) => items.map((item) => item.id);
  const refused = async (c: CursorModeCase, query: Record<string, string>, key = c.key) => {
    const response = await api(c.app, 'GET', c.path, { key, query });
    const body = expectStatus(response, 400) as { error: { code: string; details: { field: string }[] } };
    expect(body.error.code).toBe('VALIDATION_ERROR');
    return body.error.details[0]?.field;
  };
  return {
    /** Every item oldest change first, over pages; an item changed between pages comes again last. */
    async walk() {
      const c = fixtures();
      const whole = await walkCursor(c.app, c.path, c.key, { updatedAfter: EPOCH });
      expect(idsOf(whole.items)).toEqual(c.ids);
      const first = await cursorPage(c.app, c.path, c.key, { updatedAfter: EPOCH, pageSize: '2' });
      expect(idsOf(first.data)).toEqual(c.ids.slice(0, 2));
      await c.change(c.ids[0]!);
      const rest = await walkCursor(c.app, c.path, c.key, {
        updatedAfter: EPOCH,
        pageSize: '2',
        cursor: first.meta.nextCursor as string,
      });
      expect(idsOf(rest.items)).toEqual([...c.ids.slice(2), c.ids[0]]);
      expectSyncOrder(rest.items);
      c.ids.push(c.ids.shift()!);
      // Strictly after: the last change seen lists nothing more (but that item, by its hidden microseconds).
      const last = rest.items.at(-1)!;
      const after = await cursorPage(c.app, c.path, c.key, { updatedAfter: last.updatedAt });
      expect(idsOf(after.data).filter((id) => id !== last.id)).toEqual([]);
    },
    /** The list's other filters apply with AND on every page. */
    async filters() {
      const c = fixtures();
      const query = { ...c.filter, updatedAfter: EPOCH, pageSize: '1' };
      const { items, pages } = await walkCursor(c.app, c.path, c.key, query);
      expect(new Set(idsOf(items))).toEqual(new Set(c.filtered));
      expect(items.length).toBe(c.filtered.length);
      expect(pages).toBe(Math.max(c.filtered.length, 1));
    },
    /** 400s naming the parameter: page, another sort or order, a bad, altered, re-filtered or foreign cursor. */
    async errors() {
      const c = fixtures();
      expect(await refused(c, { updatedAfter: EPOCH, page: '2' })).toBe('query.page');
      expect(await refused(c, { updatedAfter: EPOCH, sortBy: c.otherSort })).toBe('query.sortBy');
      expect(await refused(c, { updatedAfter: EPOCH, sortOrder: 'desc' })).toBe('query.sortOrder');
      expect(await refused(c, { updatedAfter: '2026-02-30' })).toBe('query.updatedAfter');
      expect(await refused(c, { cursor: 'bm90IGEgY3Vyc29y' })).toBe('query.cursor');
      const { meta } = await cursorPage(c.app, c.path, c.key, { updatedAfter: EPOCH, pageSize: '1' });
      const cursor = meta.nextCursor as string;
      const altered = `${cursor.slice(0, 20)}${cursor[20] === 'A' ? 'B' : 'A'}${cursor.slice(21)}`;
      expect(await refused(c, { cursor: altered })).toBe('query.cursor');
      expect(await refused(c, { cursor, ...c.filter })).toBe('query.cursor');
      expect(await refused(c, { cursor }, c.otherKey)).toBe('query.cursor');
      const theirs = await walkCursor(c.app, c.path, c.otherKey, { updatedAfter: EPOCH });
      expect(idsOf(theirs.items).filter((id) => c.ids.includes(id))).toEqual([]);
    },
  };
}

/** The three checks of `cursorModeChecks` as the tests of one list (`list` as in "GET /v1/tasks"). */
export function describeCursorMode(list: string, items: string, fixtures: () => CursorModeCase): void {
  describe(`${list} in cursor mode`, () => {
    const checks = cursorModeChecks(fixtures);
    it(`walks every ${items} oldest change first; one changed between pages comes again last`, () =>
      checks.walk());
    it('applies the other filters with AND on every page', () => checks.filters());
    it('answers 400 naming page, sortBy, sortOrder, updatedAfter or cursor (bad, altered, re-filtered, foreign)', () =>
      checks.errors());
  });
}
