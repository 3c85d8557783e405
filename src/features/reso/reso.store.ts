// The SQL of the RESO Property resource: every status of the organization's listings, and its deleted
// listings as Delete records (reso.deletions.ts), walked on the (organization_id, updated_at, id) index
// of migration 0021 and migration 0033's (organization_id, deleted_at, property_id) (or the primary keys
// by id), keyset after a $skiptoken or offset by $skip, with its bounded count in the page's own
// statement (decision 0229).
import { and, asc, desc, eq, gt, lt, sql, type SQL, type SQLWrapper } from 'drizzle-orm';
import { unionAll } from 'drizzle-orm/pg-core';
import { COUNT_LIMIT, type Tx } from '../../db/database.ts';
import { keysetPosition } from '../../db/keyset.ts';
import { properties } from '../../db/schema.ts';
import { deletedProperties, type WalkedRow } from './reso.deletions.ts';
import type { Filter } from './reso.filter.ts';
import { conditionOf } from './reso.filter-sql.ts';
import type { Order } from './reso.odata.ts';
import type { Position } from './reso.skiptoken.ts';

/** The columns RESO shows, each timestamp as UTC text to the microsecond (never a rounded JS Date). */
const resoColumns = {
  id: properties.id,
  code: properties.code,
  status: properties.status,
  transactionType: properties.transactionType,
  type: properties.type,
  price: properties.price,
  previousPrice: properties.previousPrice,
  currency: properties.currency,
  bedrooms: properties.bedrooms,
  bathrooms: properties.bathrooms,
  area: properties.area,
  address: properties.address,
  zipCode: properties.zipCode,
  city: properties.city,
  neighborhood: properties.neighborhood,
  latitude: properties.latitude,
  longitude: properties.longitude,
  description: properties.description,
  internalNotes: properties.internalNotes,
  agentId: properties.agentId,
  publishedOnPortal: properties.publishedOnPortal,
  addressVisibility: properties.addressVisibility,
  onMarketDate: properties.onMarketDate,
  amenities: properties.amenities,
  photos: properties.photos,
  createdAt: keysetPosition(properties.createdAt),
  updatedAt: keysetPosition(properties.updatedAt),
};

/**
 * The walk's columns: RESO's, the timestamps' text under names of their own (so the union can be read as
 * a subquery) and `updated_at` itself, which the merged pages are ordered by.
 */
const walkColumns = {
  ...resoColumns,
  createdAt: keysetPosition(properties.createdAt).as('created_at_text'),
  updatedAt: keysetPosition(properties.updatedAt).as('updated_at_text'),
  orderAt: properties.updatedAt,
};

function orderOf(order: Order, columns: { updatedAt: SQLWrapper; id: SQLWrapper }): SQL[] {
  const direction = order.direction === 'asc' ? asc : desc;
  return order.by === 'ListingKey'
    ? [direction(columns.id)]
    : [direction(columns.updatedAt), direction(columns.id)];
}

/** Rows strictly after `after` in the walk's order: a row comparison the index serves as one range. */
function afterOf(order: Order, after: Position): SQL {
  if (order.by === 'ListingKey') {
    return order.direction === 'asc' ? gt(properties.id, after.id) : lt(properties.id, after.id);
  }
  const beyond = sql.raw(order.direction === 'asc' ? '>' : '<');
  return sql`(${properties.updatedAt}, ${properties.id}) ${beyond} (${after.updatedAt}::timestamptz, ${after.id}::text)`;
}

/**
 * The listings and the Delete records (reso.deletions.ts) that meet `where`, each branch in the walk's
 * order on its own index and cut at `depth` rows, so a page costs the same at any depth.
 */
function walked(tx: Tx, where: SQL | undefined, order: Order, depth: number) {
  const listings = tx
    .select(walkColumns)
    .from(properties)
    .where(where)
    .orderBy(...orderOf(order, properties))
    .limit(depth);
  const deleted = tx
    .select(walkColumns)
    .from(deletedProperties())
    .where(where)
    .orderBy(...orderOf(order, properties))
    .limit(depth);
  return unionAll(listings, deleted).as('walked');
}

/** The union's RESO columns as the outer select reads them (`"walked"."price"`, decoded as the column is). */
function shownOf(union: ReturnType<typeof walked>) {
  const shown = Object.keys(resoColumns) as (keyof typeof resoColumns)[];
  return Object.fromEntries(shown.map((key) => [key, union[key]])) as Pick<
    typeof union,
    keyof typeof resoColumns
  >;
}

/** The bounded count (decision 0229) of the listings and Delete records that meet `where`. */
function countOfWalk(where: SQL | undefined): SQL.Aliased<number> {
  const matching = where ?? sql`true`;
  const limit = sql.raw(String(COUNT_LIMIT + 1));
  return sql<number>`(SELECT count(*) FROM (SELECT 1 FROM (
      SELECT 1 FROM ${properties} WHERE ${matching}
      UNION ALL SELECT 1 FROM ${deletedProperties()} WHERE ${matching}
    ) AS matched LIMIT ${limit}) AS counted)`
    .mapWith(Number)
    .as('total');
}

async function countWalk(tx: Tx, where: SQL | undefined): Promise<number> {
  const counted = await tx.select({ total: countOfWalk(where) }).from(sql`(SELECT 1) AS one`);
  return counted[0]?.total ?? 0;
}

/** What one page reads. */
export interface ResoPageRequest {
  filter: Filter | null;
  order: Order;
  /** $skiptoken's position, or none. */
  after?: Position;
  /** $skip (0 with a $skiptoken). */
  offset: number;
  /** Rows to read: the page size plus one, to know whether another page follows. */
  limit: number;
  /** $count=true: also count the filter's matches (bounded, decision 0229). */
  count: boolean;
}

/**
 * One page of the organization's listings and deleted listings (Delete records) in RESO's columns, in
 * the walk's order, and the count of the filter's matches.
 */
export async function listResoRows(
  tx: Tx,
  organizationId: string,
  page: ResoPageRequest,
): Promise<{ rows: WalkedRow[]; total: number | null }> {
  const matching = and(
    eq(properties.organizationId, organizationId),
    page.filter === null ? undefined : conditionOf(page.filter),
  );
  if (page.limit === 0) {
    return { rows: [], total: page.count ? await countWalk(tx, matching) : null };
  }
  const where = page.after === undefined ? matching : and(matching, afterOf(page.order, page.after));
  const union = walked(tx, where, page.order, page.offset + page.limit);
  const fields = shownOf(union);
  const rows = (await tx
    .select(page.count ? { ...fields, total: countOfWalk(matching) } : fields)
    .from(union)
    .orderBy(...orderOf(page.order, { updatedAt: union.orderAt, id: union.id }))
    .limit(page.limit)
    .offset(page.offset)) as (WalkedRow & { total?: number })[];
  if (!page.count) return { rows, total: null };
  // A page past the first reads past rows the count must still include: counted alone when it is empty.
  const first = rows[0];
  if (first !== undefined) return { rows, total: first.total ?? 0 };
  const deeper = page.after !== undefined || page.offset > 0;
  return { rows, total: deeper ? await countWalk(tx, matching) : 0 };
}

/**
 * One listing in RESO's columns, its Delete record when it was deleted, or null (unknown or another
 * organization's).
 */
export async function findResoRow(tx: Tx, organizationId: string, id: string): Promise<WalkedRow | null> {
  const where = and(eq(properties.organizationId, organizationId), eq(properties.id, id));
  const union = walked(tx, where, { by: 'ListingKey', direction: 'asc' }, 1);
  const rows = (await tx.select(shownOf(union)).from(union).limit(1)) as WalkedRow[];
  return rows[0] ?? null;
}
