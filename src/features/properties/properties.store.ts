import {
  and,
  asc,
  between,
  count,
  desc,
  eq,
  gte,
  inArray,
  lte,
  sql,
  type AnyColumn,
  type SQL,
} from 'drizzle-orm';
import { countOf, queryRows, totalOf, type Tx } from '../../db/database.ts';
import { agents, properties, type AgentRow, type PropertyRow } from '../../db/schema.ts';
import { fold, likeLiteral } from '../../platform/text/fold.ts';

/** Visible on the portal: ACTIVE and published (the partial indexes' predicate). */
export const portalVisible = sql`${properties.status} = 'ACTIVE' AND ${properties.publishedOnPortal}`;

export interface PropertyRef {
  id: string;
  title: string;
  agentId: string | null;
  price: number;
  currency: string;
}

/** A published property's id, title, agent and price, or null (unknown, other tenant, unpublished). */
export async function findPortalPropertyRef(
  tx: Tx,
  organizationId: string,
  id: string,
): Promise<PropertyRef | null> {
  const rows = await tx
    .select({
      id: properties.id,
      title: properties.title,
      agentId: properties.agentId,
      price: properties.price,
      currency: properties.currency,
    })
    .from(properties)
    .where(and(eq(properties.organizationId, organizationId), eq(properties.id, id), portalVisible))
    .limit(1);
  return rows[0] ?? null;
}

export type NewProperty = typeof properties.$inferInsert;

/** A property row with its agent's public card (left join: agents are optional). */
export interface PropertyWithAgent {
  property: PropertyRow;
  agent: Pick<AgentRow, 'id' | 'firstName' | 'lastName' | 'phone' | 'email' | 'photoUrl'> | null;
}

const agentCard = {
  id: agents.id,
  firstName: agents.firstName,
  lastName: agents.lastName,
  phone: agents.phone,
  email: agents.email,
  photoUrl: agents.photoUrl,
};

/** The columns the portal shows (no internal notes, custom fields, exact location or search columns). */
const portalColumns = {
  id: properties.id,
  code: properties.code,
  title: properties.title,
  description: properties.description,
  transactionType: properties.transactionType,
  type: properties.type,
  status: properties.status,
  featured: properties.featured,
  price: properties.price,
  currency: properties.currency,
  city: properties.city,
  neighborhood: properties.neighborhood,
  address: properties.address,
  zipCode: properties.zipCode,
  approximateLocation: properties.approximateLocation,
  portalLatitude: properties.portalLatitude,
  portalLongitude: properties.portalLongitude,
  bedrooms: properties.bedrooms,
  bathrooms: properties.bathrooms,
  area: properties.area,
  amenities: properties.amenities,
  photos: properties.photos,
  createdAt: properties.createdAt,
  updatedAt: properties.updatedAt,
};

export type PortalPropertyRow = Pick<PropertyRow, keyof typeof portalColumns>;

/** A portal listing row with its agent's public card. */
export interface PortalPropertyWithAgent {
  property: PortalPropertyRow;
  agent: PropertyWithAgent['agent'];
}

function withAgent(tx: Tx) {
  return tx
    .select({ property: properties, agent: agentCard })
    .from(properties)
    .leftJoin(agents, eq(agents.id, properties.agentId));
}

export async function findPropertyById(
  tx: Tx,
  organizationId: string,
  id: string,
  options: { portal: boolean },
): Promise<PropertyWithAgent | null> {
  const conditions = [eq(properties.organizationId, organizationId), eq(properties.id, id)];
  if (options.portal) conditions.push(portalVisible);
  const rows = await withAgent(tx)
    .where(and(...conditions))
    .limit(1);
  return rows[0] ?? null;
}

export async function insertProperty(tx: Tx, row: NewProperty): Promise<PropertyRow | null> {
  const rows = await tx.insert(properties).values(row).onConflictDoNothing().returning();
  return rows[0] ?? null;
}

export async function updateProperty(
  tx: Tx,
  organizationId: string,
  id: string,
  changes: Partial<NewProperty>,
): Promise<PropertyRow | null> {
  const rows = await tx
    .update(properties)
    .set({ ...changes, updatedAt: sql`now()` })
    .where(and(eq(properties.organizationId, organizationId), eq(properties.id, id)))
    .returning();
  return rows[0] ?? null;
}

export async function deleteProperty(
  tx: Tx,
  organizationId: string,
  id: string,
): Promise<PropertyRow | null> {
  const rows = await tx
    .delete(properties)
    .where(and(eq(properties.organizationId, organizationId), eq(properties.id, id)))
    .returning();
  return rows[0] ?? null;
}

export async function findPropertyByCode(
  tx: Tx,
  organizationId: string,
  code: string,
): Promise<PropertyRow | null> {
  const rows = await tx
    .select()
    .from(properties)
    .where(and(eq(properties.organizationId, organizationId), eq(properties.code, code)))
    .limit(1);
  return rows[0] ?? null;
}

export interface AdminPropertyFilter {
  status?: string;
  publishedOnPortal?: boolean;
  agentId?: string;
  code?: string;
  q?: string;
}

export async function listProperties(
  tx: Tx,
  organizationId: string,
  filter: AdminPropertyFilter,
  page: { limit: number; offset: number },
): Promise<{ items: PropertyWithAgent[]; total: number }> {
  const conditions: SQL[] = [eq(properties.organizationId, organizationId)];
  if (filter.status !== undefined) conditions.push(eq(properties.status, filter.status));
  if (filter.publishedOnPortal !== undefined)
    conditions.push(eq(properties.publishedOnPortal, filter.publishedOnPortal));
  if (filter.agentId !== undefined) conditions.push(eq(properties.agentId, filter.agentId));
  if (filter.code !== undefined) conditions.push(eq(properties.code, filter.code));
  if (filter.q !== undefined) conditions.push(containsAllWords(properties.searchText, filter.q));
  const where = and(...conditions);
  const [items, totals] = await Promise.all([
    withAgent(tx)
      .where(where)
      .orderBy(desc(properties.createdAt), desc(properties.id))
      .limit(page.limit)
      .offset(page.offset),
    tx.select({ total: count() }).from(properties).where(where),
  ]);
  return { items, total: Number(totals[0]?.total ?? 0) };
}

/** Every word of `text` (folded) appears in `column` (a folded search column): trigram-indexable. */
export function containsAllWords(column: AnyColumn, text: string): SQL {
  const words = fold(text).split(/\s+/).filter(Boolean);
  return and(...words.map((word) => sql`${column} LIKE ${`%${likeLiteral(word)}%`}`)) as SQL;
}

/** The portal's filters, already parsed and checked by the service. */
export interface PortalFilter {
  transactionTypes?: string[];
  type?: string;
  city?: string;
  neighborhood?: string;
  q?: string;
  priceMin?: number;
  priceMax?: number;
  bedroomsMin?: number;
  bathroomsMin?: number;
  areaMin?: number;
  areaMax?: number;
  featured?: boolean;
  amenities?: string[];
  bounds?: { south: number; west: number; north: number; east: number };
  near?: { latitude: number; longitude: number; radiusKm: number };
}

export interface PortalSort {
  by: 'price' | 'createdAt' | 'area' | 'distance';
  order: 'asc' | 'desc';
}

const EARTH_RADIUS_KM = 6371;

/** Great-circle distance in km from a point to the property's portal coordinates (haversine). */
function distanceKm(latitude: number, longitude: number): SQL {
  return sql`(2 * ${EARTH_RADIUS_KM} * asin(sqrt(
    power(sin(radians(${properties.portalLatitude} - ${latitude}) / 2), 2) +
    cos(radians(${latitude})) * cos(radians(${properties.portalLatitude})) *
    power(sin(radians(${properties.portalLongitude} - ${longitude}) / 2), 2))))`;
}

/**
 * The agency's distinct visible values of a folded search column that contain every word of `text`,
 * as an array subquery. `LIKE` is not leakproof, so under row-level security it can never be an index
 * condition; the few distinct values (cities, neighbourhoods) are found instead by a loose index scan
 * (one probe per distinct value, `>` on text is leakproof) and matched there, and the listing then
 * filters with `= ANY(...)` (text equality: an index condition). Same matches as the substring test.
 */
function agencyValuesContaining(
  organizationId: string,
  column: 'search_city' | 'search_neighborhood',
  text: string,
): SQL {
  const c = sql.identifier(column);
  const words = fold(text).split(/\s+/).filter(Boolean);
  const matches =
    words.length === 0
      ? sql`true`
      : sql.join(
          words.map((word) => sql`v LIKE ${`%${likeLiteral(word)}%`}`),
          sql` AND `,
        );
  const next = (after: SQL) =>
    sql`SELECT r.${c} FROM properties AS r
        WHERE r.organization_id = ${organizationId} AND r.status = 'ACTIVE' AND r.published_on_portal${after}
        ORDER BY r.${c} LIMIT 1`;
  return sql`ARRAY(WITH RECURSIVE agency_values(v) AS (
      (${next(sql``)})
      UNION ALL
      SELECT (${next(sql` AND r.${c} > agency_values.v`)}) FROM agency_values WHERE agency_values.v IS NOT NULL
    ) SELECT v FROM agency_values WHERE v IS NOT NULL AND ${matches})`;
}

function portalConditions(organizationId: string, filter: PortalFilter): SQL[] {
  const c: SQL[] = [eq(properties.organizationId, organizationId), portalVisible];
  if (filter.transactionTypes) c.push(inArray(properties.transactionType, filter.transactionTypes));
  if (filter.type !== undefined) c.push(eq(properties.type, filter.type));
  if (filter.city !== undefined)
    c.push(
      sql`${properties.searchCity} = ANY(${agencyValuesContaining(organizationId, 'search_city', filter.city)})`,
    );
  if (filter.neighborhood !== undefined)
    c.push(
      sql`${properties.searchNeighborhood} = ANY(${agencyValuesContaining(organizationId, 'search_neighborhood', filter.neighborhood)})`,
    );
  if (filter.q !== undefined) c.push(containsAllWords(properties.searchText, filter.q));
  // float8 copies: leakproof comparisons, so index conditions under RLS (numeric ones are not).
  if (filter.priceMin !== undefined) c.push(gte(properties.priceValue, filter.priceMin));
  if (filter.priceMax !== undefined) c.push(lte(properties.priceValue, filter.priceMax));
  if (filter.bedroomsMin !== undefined) c.push(gte(properties.bedrooms, filter.bedroomsMin));
  if (filter.bathroomsMin !== undefined) c.push(gte(properties.bathrooms, filter.bathroomsMin));
  if (filter.areaMin !== undefined) c.push(gte(properties.areaValue, filter.areaMin));
  if (filter.areaMax !== undefined) c.push(lte(properties.areaValue, filter.areaMax));
  if (filter.featured !== undefined) c.push(eq(properties.featured, filter.featured));
  if (filter.amenities && filter.amenities.length > 0)
    c.push(sql`${properties.amenities} @> ${sql.param(filter.amenities)}::text[]`);
  if (filter.bounds) {
    const b = filter.bounds;
    c.push(between(properties.portalLatitude, b.south, b.north));
    c.push(between(properties.portalLongitude, b.west, b.east));
  }
  if (filter.near) {
    const { latitude, longitude, radiusKm } = filter.near;
    // A bounding box the index can use first, then the exact circle.
    const dLat = (radiusKm / EARTH_RADIUS_KM) * (180 / Math.PI);
    const cosLat = Math.max(Math.cos((latitude * Math.PI) / 180), 0.01);
    const dLng = Math.min(180, dLat / cosLat);
    c.push(between(properties.portalLatitude, latitude - dLat, latitude + dLat));
    c.push(between(properties.portalLongitude, longitude - dLng, longitude + dLng));
    c.push(sql`${distanceKm(latitude, longitude)} <= ${radiusKm}`);
  }
  return c;
}

function portalOrder(filter: PortalFilter, sort: PortalSort): SQL[] {
  const direction = (column: SQL | AnyColumn) =>
    sort.order === 'asc' ? sql`${column} ASC NULLS LAST` : sql`${column} DESC NULLS LAST`;
  const tieBreak = sort.order === 'asc' ? asc(properties.id) : desc(properties.id);
  // Each order is exactly an index's forward or backward scan (properties_portal_*_idx).
  switch (sort.by) {
    case 'price':
      // NOT NULL: no NULLS clause, so the backward scan of (organization_id, price_value, id) serves desc.
      return sort.order === 'asc'
        ? [asc(properties.priceValue), asc(properties.id)]
        : [desc(properties.priceValue), desc(properties.id)];
    case 'area':
      return [direction(properties.areaValue), tieBreak];
    case 'distance':
      return filter.near
        ? [direction(distanceKm(filter.near.latitude, filter.near.longitude)), tieBreak]
        : [desc(properties.createdAt), desc(properties.id)];
    default:
      return sort.order === 'asc'
        ? [asc(properties.createdAt), asc(properties.id)]
        : [desc(properties.createdAt), desc(properties.id)];
  }
}

/** One page of the published stock matching `filter`, and the count of all matches. */
export async function listPortalProperties(
  tx: Tx,
  organizationId: string,
  filter: PortalFilter,
  sort: PortalSort,
  page: { limit: number; offset: number },
): Promise<{ items: PortalPropertyWithAgent[]; total: number }> {
  const where = and(...portalConditions(organizationId, filter));
  // The count rides along as an uncorrelated subquery (computed once): one statement, one round trip.
  const rows = await tx
    .select({ property: portalColumns, agent: agentCard, total: countOf(properties, where) })
    .from(properties)
    .leftJoin(agents, eq(agents.id, properties.agentId))
    .where(where)
    .orderBy(...portalOrder(filter, sort))
    .limit(page.limit)
    .offset(page.offset);
  const items = rows.map(({ property, agent }) => ({ property, agent }));
  return { items, total: await totalOf(tx, rows, page, properties, where) };
}

interface FacetRow {
  facet: string;
  key1: string | null;
  key2: string | null;
  n: string | number;
  min: string | number | null;
  max: string | number | null;
}

/** Facet counts of the published stock in one statement (one scan of the organization's rows). */
export async function portalFacets(tx: Tx, organizationId: string): Promise<FacetRow[]> {
  return queryRows<FacetRow>(
    tx,
    sql`
    WITH stock AS (
      SELECT transaction_type, type, city, neighborhood, bedrooms, amenities, price, currency, area
      FROM properties
      WHERE organization_id = ${organizationId} AND status = 'ACTIVE' AND published_on_portal
    )
    SELECT 'total' AS facet, NULL AS key1, NULL AS key2, count(*) AS n, min(area) AS min, max(area) AS max FROM stock
    UNION ALL
    SELECT 'transactionType', transaction_type, NULL, count(*), NULL, NULL FROM stock GROUP BY transaction_type
    UNION ALL
    SELECT 'type', type, NULL, count(*), NULL, NULL FROM stock GROUP BY type
    UNION ALL
    SELECT 'city', city, NULL, count(*), NULL, NULL FROM stock GROUP BY city
    UNION ALL
    SELECT 'neighborhood', city, neighborhood, count(*), NULL, NULL FROM stock
      WHERE neighborhood IS NOT NULL GROUP BY city, neighborhood
    UNION ALL
    SELECT 'bedrooms', bedrooms::text, NULL, count(*), NULL, NULL FROM stock GROUP BY bedrooms
    UNION ALL
    SELECT 'amenity', a, NULL, count(*), NULL, NULL FROM stock, unnest(amenities) AS a GROUP BY a
    UNION ALL
    SELECT 'price', transaction_type, currency, count(*), min(price), max(price) FROM stock
      GROUP BY transaction_type, currency`,
  );
}
