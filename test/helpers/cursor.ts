/** Cursor mode of the lists (docs/decisions/0190): one page, and a walk that follows nextCursor. */
import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';
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
