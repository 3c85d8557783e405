import { createHash } from 'node:crypto';
import {
  Type,
  type Static,
  type TObject,
  type TProperties,
  type TSchema,
} from '@fastify/type-provider-typebox';
import { COUNT_LIMIT } from '../../db/database.ts';
import type { Keyed, Keyset, KeysetPosition } from '../../db/keyset.ts';
import { Errors } from '../errors/errors.ts';
import { DATE_OR_DATE_TIME, parseDateOrDateTime } from './dates.ts';
import { CursorMetaSchema, PageMetaSchema, ref } from './schemas.ts';

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

/**
 * `meta` of a page whose total was counted with `countOf` (src/db/database.ts), so at most
 * COUNT_LIMIT + 1. Past COUNT_LIMIT the total is a lower bound flagged as such: COUNT_LIMIT, or the
 * matches a non-empty page proves exist when it lies deeper (its offset plus its rows, one more when it
 * is full), so `totalPages` never ends before a page that has rows (docs/decisions/0229).
 */
export function countedPageMeta(
  counted: number,
  request: Pick<PageRequest, 'page' | 'pageSize' | 'offset'>,
  shown: number,
): PageMeta {
  if (counted <= COUNT_LIMIT) return pageMeta(counted, request);
  const proven = shown === 0 ? 0 : request.offset + shown + (shown === request.pageSize ? 1 : 0);
  return { ...pageMeta(Math.max(COUNT_LIMIT, proven), request), totalIsLowerBound: true };
}

/**
 * `{data: [...], meta}` of a paged list. `cursorMode`: the list also answers in cursor mode, so
 * `meta` is one of PageMeta and CursorMeta (`oneOf`: exactly one matches, their required fields differ).
 */
export function ListOf<T extends TSchema, C extends boolean = false>(
  item: T,
  options: { $id?: string; description?: string; cursorMode?: C } = {},
) {
  const { cursorMode, ...rest } = options;
  const meta = Type.Unsafe<C extends true ? ListMeta : PageMeta>(
    cursorMode
      ? {
          oneOf: [ref(PageMetaSchema), ref(CursorMetaSchema)],
          description: 'PageMeta in page mode; CursorMeta with `updatedAfter` or `cursor`',
        }
      : ref(PageMetaSchema),
  );
  return Type.Object({ data: Type.Array(item), meta }, { additionalProperties: false, ...rest });
}

/** Pages an in-memory collection (small fixed sets such as the event catalog). */
export function pageArray<T>(items: readonly T[], request: PageRequest): { data: T[]; meta: PageMeta } {
  return {
    data: items.slice(request.offset, request.offset + request.limit),
    meta: pageMeta(items.length, request),
  };
}

// ---------------------------------------------------------------------------------------------
// Cursor mode (incremental sync, docs/decisions/0190): `updatedAfter` or `cursor` lists the items by
// (updatedAt, id), oldest change first, one keyset page after another (src/db/keyset.ts).

export type CursorMeta = Static<typeof CursorMetaSchema>;
/** `meta` of a list that answers in both modes. */
export type ListMeta = PageMeta | CursorMeta;

/** What a list's route description says of cursor mode (appended to the list's own rules). */
export const CURSOR_MODE_DESCRIPTION =
  'Incremental sync: with `updatedAfter` (strictly later) or `cursor` the list is in cursor mode. Items come ' +
  'by (updatedAt, id), oldest change first, with every other filter still applied; `meta` is ' +
  '`{pageSize, hasMore, nextCursor}`, and `cursor=<nextCursor>` with the same filters gives the next page ' +
  '(null on the last), however deep, skipping and repeating nothing however the rows change between pages. ' +
  'An item changed during the walk comes again later with its new updatedAt. A malformed cursor, or one ' +
  'issued for other filters, is a 400 naming `cursor`; `page` (other than 1), a `sortBy` other than updatedAt ' +
  'or a `sortOrder` other than asc is a 400 naming that parameter.';

/** The parameters that switch a list to cursor mode; every other filter of the list still applies. */
export const SYNC_PARAMETERS = ['updatedAfter', 'cursor'] as const;

/** `updatedAfter` and `cursor`, for a list's query schema (beside `pageQuery()` and its filters). */
export function syncQuery() {
  return {
    updatedAfter: Type.Optional(
      Type.String({
        pattern: DATE_OR_DATE_TIME,
        maxLength: 40,
        description:
          'Cursor mode: only items whose updatedAt is strictly later (a date means its start, UTC; precision ' +
          'to the microsecond). Items come by (updatedAt, id), oldest change first; `meta` is CursorMeta',
        examples: ['2026-11-01T00:00:00Z'],
      }),
    ),
    cursor: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        pattern: '^[A-Za-z0-9_-]+$',
        description:
          'Cursor mode: the `meta.nextCursor` of the previous page, unchanged, sent with the same filters. ' +
          'Not with `page`; `sortBy`/`sortOrder` only as updatedAt/asc',
        examples: [
          'MXwyMDI2LTExLTI2VDA5OjMwOjAwLjEyMzQ1Nlp8Y3RfMFZoSjNrUTJadDhtWDFwUjRzVDZ1RHxuTzNxUnBXQ3h5ZjJBd0VC',
        ],
      }),
    ),
  };
}

/** A list query without the cursor parameters (the MCP tools page only). */
export function pageModeQuery<P extends TProperties>(schema: TObject<P>) {
  const properties = Object.fromEntries(
    Object.entries(schema.properties).filter(
      ([name]) => !(SYNC_PARAMETERS as readonly string[]).includes(name),
    ),
  ) as Omit<P, (typeof SYNC_PARAMETERS)[number]>;
  return Type.Object(properties, { additionalProperties: false });
}

/** What a list query may hold besides its filters. */
export interface SyncQuery {
  page?: number;
  pageSize?: number;
  updatedAfter?: string;
  cursor?: string;
  sortBy?: string;
  sortOrder?: string;
}

/** A cursor page to read: the keyset, the page size asked for, and the seal its next cursor carries. */
export interface CursorRequest extends Keyset {
  mode: 'cursor';
  pageSize: number;
  /** The list, organization and filters the cursors of this walk are valid for (a hash). */
  seal: string;
}
export type ListRequest = (PageRequest & { mode: 'page' }) | CursorRequest;

/** Which list is walked, and whose: a cursor is valid only there, with the filters it was issued for. */
export interface ListScope {
  list: string;
  organizationId: string;
  defaultPageSize?: number;
}

/** Not filters: the paging and order parameters (`updatedAfter` is implied by any later cursor). */
const NOT_FILTERS = new Set(['page', 'pageSize', 'cursor', 'updatedAfter', 'sortBy', 'sortOrder']);
const CURSOR_ONLY = 'cannot be combined with cursor or updatedAfter';

/**
 * The page or cursor page a list query asks for. Page mode unless `updatedAfter` or `cursor` is
 * given; then `page` (other than its default 1), a `sortBy` other than updatedAt and a `sortOrder`
 * other than asc are 400s naming the parameter, and a cursor that is not this list's, this
 * organization's, with these filters, is a 400 naming `query.cursor`.
 */
export function listRequest(query: SyncQuery & Record<string, unknown>, scope: ListScope): ListRequest {
  if (query.cursor === undefined && query.updatedAfter === undefined) {
    return { mode: 'page', ...pageRequest(query, scope.defaultPageSize) };
  }
  if ((query.page ?? 1) !== 1) {
    throw Errors.invalidField('query.page', `${CURSOR_ONLY}: follow meta.nextCursor instead`);
  }
  if (query.sortBy !== undefined && query.sortBy !== 'updatedAt') {
    throw Errors.invalidField('query.sortBy', `${CURSOR_ONLY}: cursor mode lists by updatedAt, then id`);
  }
  if (query.sortOrder !== undefined && query.sortOrder !== 'asc') {
    throw Errors.invalidField('query.sortOrder', `${CURSOR_ONLY}: cursor mode lists oldest change first`);
  }
  const pageSize = query.pageSize ?? scope.defaultPageSize ?? DEFAULT_PAGE_SIZE;
  const seal = sealOf(scope, query);
  return {
    mode: 'cursor',
    pageSize,
    limit: pageSize + 1,
    seal,
    updatedAfter: query.updatedAfter === undefined ? undefined : instantText(query.updatedAfter),
    after: query.cursor === undefined ? undefined : openCursor(query.cursor, seal),
  };
}

/** A cursor page from the store's rows (one more than the page, when there is more). */
function cursorPage<R, T>(
  rows: readonly Keyed<R>[],
  request: CursorRequest,
  toItem: (row: R) => T,
): { data: T[]; meta: CursorMeta } {
  const page = rows.slice(0, request.pageSize);
  const hasMore = rows.length > request.pageSize;
  const last = page.at(-1);
  return {
    data: page.map((keyed) => toItem(keyed.row)),
    meta: {
      pageSize: request.pageSize,
      hasMore,
      nextCursor: hasMore && last ? sealCursor(last.key, request.seal) : null,
    },
  };
}

/** How a list that answers in both modes reads its rows: the store's two list functions, bound. */
export interface ListReads<R> {
  /** The rows after the cursor's position, oldest change first: one more than the page when there is more. */
  cursor: (request: CursorRequest) => Promise<readonly Keyed<R>[]>;
  /** The page's rows and the total of every match. */
  page: (request: PageRequest) => Promise<{ items: readonly R[]; total: number }>;
  /**
   * How `page` counts: `bounded` (the default) with `countOf`, at most COUNT_LIMIT + 1, so `meta` is
   * countedPageMeta's; `exact` with a plain count, so `meta` is pageMeta's.
   */
  total?: 'bounded' | 'exact';
}

/**
 * The answer of a list in either mode: a cursor page (CursorMeta) when the request is in cursor mode,
 * else a page with its PageMeta. Every page-or-cursor list answers through here, so both modes read,
 * map and describe their page the same way in every feature.
 */
export async function listPage<R, T>(
  request: ListRequest,
  reads: ListReads<R>,
  toItem: (row: R) => T,
): Promise<{ data: T[]; meta: ListMeta }> {
  if (request.mode === 'cursor') return cursorPage(await reads.cursor(request), request, toItem);
  const { items, total } = await reads.page(request);
  return {
    data: items.map((row) => toItem(row)),
    meta: reads.total === 'exact' ? pageMeta(total, request) : countedPageMeta(total, request, items.length),
  };
}

/** The answer of a caller that never asks for cursor mode (the MCP tools): its page meta, typed. */
export function pageOnly<T>(result: { data: T[]; meta: ListMeta }): { data: T[]; meta: PageMeta } {
  if ('nextCursor' in result.meta) throw new Error('a page-mode caller got a cursor page');
  return result as { data: T[]; meta: PageMeta };
}

const hash = (text: string) => createHash('sha256').update(text).digest('base64url');

function sealOf(scope: ListScope, query: Record<string, unknown>): string {
  const filters = Object.keys(query)
    .filter((name) => !NOT_FILTERS.has(name) && query[name] !== undefined)
    .sort()
    .map((name) => [name, query[name]]);
  return hash(`${scope.list}|${scope.organizationId}|${JSON.stringify(filters)}`);
}

const CURSOR_VERSION = '1';
const checkOf = (seal: string, position: KeysetPosition) =>
  hash(`${seal}|${position.updatedAt}|${position.id}`).slice(0, 16);

/** Opaque to clients: base64url of version, position and a check over the position and the seal. */
function sealCursor(position: KeysetPosition, seal: string): string {
  const text = [CURSOR_VERSION, position.updatedAt, position.id, checkOf(seal, position)].join('|');
  return Buffer.from(text).toString('base64url');
}

const POSITION_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
const POSITION_ID = /^[A-Za-z0-9_]{1,64}$/;

function openCursor(cursor: string, seal: string): KeysetPosition {
  const text = Buffer.from(cursor, 'base64url').toString('latin1');
  const [version, updatedAt = '', id = '', check, ...rest] = text.split('|');
  const instant = Date.parse(updatedAt);
  if (
    // Base64 decoding skips what it cannot read: only the exact text of a cursor is one.
    Buffer.from(text, 'latin1').toString('base64url') !== cursor ||
    version !== CURSOR_VERSION ||
    rest.length > 0 ||
    !POSITION_TIME.test(updatedAt) ||
    !POSITION_ID.test(id) ||
    Number.isNaN(instant) ||
    new Date(instant).toISOString().slice(0, 23) !== updatedAt.slice(0, 23)
  ) {
    throw Errors.invalidField('query.cursor', 'is malformed: send meta.nextCursor exactly as received');
  }
  if (check !== checkOf(seal, { updatedAt, id })) {
    throw Errors.invalidField(
      'query.cursor',
      'was not issued for this list with these filters: send the filters of the request that returned it',
    );
  }
  return { updatedAt, id };
}

/** A date or date-time as UTC text to the microsecond (digits past the microsecond are dropped). */
function instantText(value: string): string {
  const instant = parseDateOrDateTime(value, 'query.updatedAfter');
  if (instant.getUTCFullYear() > 9999) {
    throw Errors.invalidField('query.updatedAfter', 'must be before the year 10000');
  }
  // A Date keeps milliseconds (V8 truncates the rest): the next three digits come from the text.
  const fraction = /T\d{2}:\d{2}:\d{2}\.(\d+)/.exec(value)?.[1] ?? '';
  const micros = fraction.padEnd(6, '0').slice(3, 6);
  return `${instant.toISOString().slice(0, 23)}${micros}Z`;
}
