// The SQL of the RESO Property resource: every status of the organization's listings, walked on the
// (organization_id, updated_at, id) index of migration 0021 (or the primary key by id), keyset after a
// $skiptoken or offset by $skip, with its bounded count in the page's own statement (decision 0229).
import { and, asc, desc, eq, gt, lt, sql, type SQL } from 'drizzle-orm';
import { countMatches, countOf, totalOf, type Tx } from '../../db/database.ts';
import { keysetPosition } from '../../db/keyset.ts';
import { properties } from '../../db/schema.ts';
import type { ResoRow } from './reso.mapping.ts';
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

function orderOf(order: Order): SQL[] {
  const direction = order.direction === 'asc' ? asc : desc;
  return order.by === 'ListingKey'
    ? [direction(properties.id)]
    : [direction(properties.updatedAt), direction(properties.id)];
}

/** Rows strictly after `after` in the walk's order: a row comparison the index serves as one range. */
function afterOf(order: Order, after: Position): SQL {
  if (order.by === 'ListingKey') {
    return order.direction === 'asc' ? gt(properties.id, after.id) : lt(properties.id, after.id);
  }
  const beyond = sql.raw(order.direction === 'asc' ? '>' : '<');
  return sql`(${properties.updatedAt}, ${properties.id}) ${beyond} (${after.updatedAt}::timestamptz, ${after.id}::text)`;
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

/** One page of the organization's listings in RESO's columns, and the count of the filter's matches. */
export async function listResoRows(
  tx: Tx,
  organizationId: string,
  page: ResoPageRequest,
): Promise<{ rows: ResoRow[]; total: number | null }> {
  const matching = and(
    eq(properties.organizationId, organizationId),
    page.filter === null ? undefined : conditionOf(page.filter),
  );
  if (page.limit === 0) {
    return { rows: [], total: page.count ? await countMatches(tx, properties, matching) : null };
  }
  const where = page.after === undefined ? matching : and(matching, afterOf(page.order, page.after));
  const query = tx
    .select(page.count ? { ...resoColumns, total: countOf(properties, matching) } : resoColumns)
    .from(properties)
    .where(where)
    .orderBy(...orderOf(page.order))
    .limit(page.limit)
    .offset(page.offset);
  const rows = (await query) as (ResoRow & { total?: number })[];
  if (!page.count) return { rows, total: null };
  // A page past the first reads past rows the count must still include: totalOf counts those alone.
  const deeper = { offset: page.after === undefined ? page.offset : 1 };
  const total = await totalOf(tx, rows as { total: number }[], deeper, properties, matching);
  return { rows, total };
}

/** One listing in RESO's columns, or null (unknown or another organization's). */
export async function findResoRow(tx: Tx, organizationId: string, id: string): Promise<ResoRow | null> {
  const rows = await tx
    .select(resoColumns)
    .from(properties)
    .where(and(eq(properties.organizationId, organizationId), eq(properties.id, id)))
    .limit(1);
  return rows[0] ?? null;
}
