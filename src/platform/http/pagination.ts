import { Type, type Static, type TSchema } from '@fastify/type-provider-typebox';
import { PageMetaSchema, ref } from './schemas.ts';

/** Pages past this are refused: deep OFFSET scans cost the database more than any client needs. */
export const MAX_PAGE = 10_000;
export const DEFAULT_PAGE_SIZE = 20;
export const DEFAULT_MAX_PAGE_SIZE = 100;

/**
 * The one paging contract: `page` (from 1) and `pageSize` (default 20, at most 100 unless a route
 * says less). A bad value is a 400 naming the parameter, never a silent clamp.
 */
export function pageQuery(options: { maxPageSize?: number; defaultPageSize?: number } = {}) {
  const max = options.maxPageSize ?? DEFAULT_MAX_PAGE_SIZE;
  return {
    page: Type.Optional(
      Type.Integer({ minimum: 1, maximum: MAX_PAGE, default: 1, description: 'Page number, from 1' }),
    ),
    pageSize: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: max,
        default: options.defaultPageSize ?? DEFAULT_PAGE_SIZE,
        description: `Items per page, at most ${max}`,
      }),
    ),
  };
}

/** A list's query that has nothing but the page: `?page=&pageSize=`. */
export const PageQuerySchema = Type.Object({ ...pageQuery() }, { additionalProperties: false });
export type PageQuery = Static<typeof PageQuerySchema>;

export interface PageRequest {
  page: number;
  pageSize: number;
  limit: number;
  offset: number;
}

export function pageRequest(
  query: { page?: number; pageSize?: number },
  defaultPageSize = DEFAULT_PAGE_SIZE,
): PageRequest {
  const page = query.page ?? 1;
  const pageSize = query.pageSize ?? defaultPageSize;
  return { page, pageSize, limit: pageSize, offset: (page - 1) * pageSize };
}

export type PageMeta = Static<typeof PageMetaSchema>;

export function pageMeta(total: number, request: Pick<PageRequest, 'page' | 'pageSize'>): PageMeta {
  return {
    total,
    page: request.page,
    pageSize: request.pageSize,
    totalPages: Math.ceil(total / request.pageSize),
  };
}

/** `{data: [...], meta}` of a paged list. */
export function ListOf<T extends TSchema>(item: T, options: { $id?: string; description?: string } = {}) {
  return Type.Object(
    { data: Type.Array(item), meta: ref(PageMetaSchema) },
    { additionalProperties: false, ...options },
  );
}

/** Pages an in-memory collection (small fixed sets such as the event catalog). */
export function pageArray<T>(items: readonly T[], request: PageRequest): { data: T[]; meta: PageMeta } {
  return {
    data: items.slice(request.offset, request.offset + request.limit),
    meta: pageMeta(items.length, request),
  };
}
