// The portal listing's SQL: filters as index conditions under RLS, sorts, one statement per filter shape, facets.
import { and, asc, between, desc, eq, gte, lte, sql, type AnyColumn, type SQL } from 'drizzle-orm';
import { countOf, queryRows, totalOf, type Tx } from '../../db/database.ts';
import {
  keysetConditions,
  keysetOrder,
  keysetPosition,
  keysetShape,
  type Keyed,
  type Keyset,
} from '../../db/keyset.ts';
import { inline, StatementCache, type Bind } from '../../db/statements.ts';
import { agents, properties, type PropertyRow } from '../../db/schema.ts';
import { likeLiteral } from '../../platform/text/fold.ts';
import { containsAllWords, wordsOf } from '../../platform/text/search-sql.ts';
import { distanceKm, withinRadius } from './properties.geo.ts';
import { agentCard, portalColumns, portalVisible, type PortalPropertyWithAgent } from './properties.store.ts';

/** The portal's filters, already parsed and checked by the service. */
export interface PortalFilter {
  transactionTypes?: PropertyRow['transactionType'][];
  type?: PropertyRow['type'];
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

/** The coordinates the portal shows and searches on. */
const PORTAL_COORDINATES = { latitude: properties.portalLatitude, longitude: properties.portalLongitude };

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
  bind: Bind,
): SQL {
  const c = sql.identifier(column);
  const words = wordsOf(text);
  const matches =
    words.length === 0
      ? sql`true`
      : sql.join(
          words.map((word) => sql`v LIKE ${bind(`%${likeLiteral(word)}%`)}`),
          sql` AND `,
        );
  const organization = bind(organizationId);
  const next = (after: SQL) =>
    sql`SELECT r.${c} FROM properties AS r
        WHERE r.organization_id = ${organization} AND r.status = 'ACTIVE' AND r.published_on_portal${after}
        ORDER BY r.${c} LIMIT 1`;
  return sql`ARRAY(WITH RECURSIVE agency_values(v) AS (
      (${next(sql``)})
      UNION ALL
      SELECT (${next(sql` AND r.${c} > agency_values.v`)}) FROM agency_values WHERE agency_values.v IS NOT NULL
    ) SELECT v FROM agency_values WHERE v IS NOT NULL AND ${matches})`;
}

/** Every value is bound (`bind`): the statement's text depends only on `portalShape`'s key. */
function portalConditions(organizationId: string, filter: PortalFilter, bind: Bind): SQL[] {
  const c: SQL[] = [eq(properties.organizationId, bind(organizationId)), portalVisible];
  if (filter.transactionTypes)
    c.push(sql`${properties.transactionType} = ANY(${bind(filter.transactionTypes)}::text[])`);
  if (filter.type !== undefined) c.push(eq(properties.type, bind(filter.type)));
  if (filter.city !== undefined)
    c.push(
      sql`${properties.searchCity} = ANY(${agencyValuesContaining(organizationId, 'search_city', filter.city, bind)})`,
    );
  if (filter.neighborhood !== undefined)
    c.push(
      sql`${properties.searchNeighborhood} = ANY(${agencyValuesContaining(organizationId, 'search_neighborhood', filter.neighborhood, bind)})`,
    );
  if (filter.q !== undefined) c.push(containsAllWords(properties.searchText, filter.q, bind));
  // float8 copies: leakproof comparisons, so index conditions under RLS (numeric ones are not).
  if (filter.priceMin !== undefined) c.push(gte(properties.priceValue, bind(filter.priceMin)));
  if (filter.priceMax !== undefined) c.push(lte(properties.priceValue, bind(filter.priceMax)));
  if (filter.bedroomsMin !== undefined) c.push(gte(properties.bedrooms, bind(filter.bedroomsMin)));
  if (filter.bathroomsMin !== undefined) c.push(gte(properties.bathrooms, bind(filter.bathroomsMin)));
  if (filter.areaMin !== undefined) c.push(gte(properties.areaValue, bind(filter.areaMin)));
  if (filter.areaMax !== undefined) c.push(lte(properties.areaValue, bind(filter.areaMax)));
  if (filter.featured !== undefined) c.push(eq(properties.featured, bind(filter.featured)));
  if (filter.amenities && filter.amenities.length > 0)
    c.push(sql`${properties.amenities} @> ${bind(filter.amenities)}::text[]`);
  if (filter.bounds) {
    const b = filter.bounds;
    c.push(between(properties.portalLatitude, bind(b.south), bind(b.north)));
    c.push(between(properties.portalLongitude, bind(b.west), bind(b.east)));
  }
  if (filter.near) c.push(...withinRadius(PORTAL_COORDINATES, filter.near, bind));
  return c;
}

function portalOrder(filter: PortalFilter, sort: PortalSort, bind: Bind): SQL[] {
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
        ? [
            direction(
              distanceKm(PORTAL_COORDINATES, bind(filter.near.latitude), bind(filter.near.longitude)),
            ),
            tieBreak,
          ]
        : [desc(properties.createdAt), desc(properties.id)];
    default:
      return sort.order === 'asc'
        ? [asc(properties.createdAt), asc(properties.id)]
        : [desc(properties.createdAt), desc(properties.id)];
  }
}

/**
 * What changes the listing's text: the sort, which filters are present, and how many words the text
 * filters have (one test per word); every other value is bound.
 */
function portalShape(filter: PortalFilter, sort: PortalSort): string {
  const present = Object.entries(filter)
    .filter(([, value]) => value !== undefined)
    .map(([name, value]) => {
      if (typeof value === 'string') return `${name}:${wordsOf(value).length}`;
      if (Array.isArray(value)) return `${name}:${value.length > 0 ? 'some' : 'none'}`;
      return name;
    })
    .sort();
  return `${sort.by} ${sort.order} ${present.join(',')}`;
}

const listingStatements = new StatementCache();

/** One page of the published stock matching `filter`, and the count of all matches. */
export async function listPortalProperties(
  tx: Tx,
  organizationId: string,
  filter: PortalFilter,
  sort: PortalSort,
  page: { limit: number; offset: number },
): Promise<{ items: PortalPropertyWithAgent[]; total: number }> {
  let where: SQL | undefined;
  // The count rides along as an uncorrelated subquery (computed once): one statement, one round trip.
  const rows = await listingStatements.select(tx, portalShape(filter, sort), (bind) => {
    where = and(...portalConditions(organizationId, filter, bind));
    return tx
      .select({ property: portalColumns, agent: agentCard, total: countOf(properties, where) })
      .from(properties)
      .leftJoin(
        agents,
        and(eq(agents.organizationId, properties.organizationId), eq(agents.id, properties.agentId)),
      )
      .where(where)
      .orderBy(...portalOrder(filter, sort, bind))
      .limit(bind(page.limit))
      .offset(bind(page.offset));
  });
  const items = rows.map(({ property, agent }) => ({ property, agent }));
  // An empty page past the first counts on its own (rare): built again, with the values inline.
  if (rows.length === 0 && page.offset > 0) where = and(...portalConditions(organizationId, filter, inline));
  return { items, total: await totalOf(tx, rows, page, properties, where) };
}

/** The portal's walk is by the last change it can show (public_updated_at, migration 0034), then id. */
const shownChange = { updatedAt: properties.publicUpdatedAt, id: properties.id };

/**
 * A cursor page of the published stock matching `filter`, oldest change first, from the partial index
 * properties_portal_updated_at_idx (its predicate is the portal's visibility).
 */
export async function listPortalPropertiesByUpdatedAt(
  tx: Tx,
  organizationId: string,
  filter: PortalFilter,
  keyset: Keyset,
): Promise<Keyed<PortalPropertyWithAgent>[]> {
  const shape = `${keysetShape(keyset)} ${portalShape(filter, { by: 'createdAt', order: 'asc' })}`;
  const rows = await listingStatements.select(tx, shape, (bind) =>
    tx
      .select({ property: portalColumns, agent: agentCard, position: keysetPosition(shownChange.updatedAt) })
      .from(properties)
      .leftJoin(
        agents,
        and(eq(agents.organizationId, properties.organizationId), eq(agents.id, properties.agentId)),
      )
      .where(
        and(
          ...portalConditions(organizationId, filter, bind),
          ...keysetConditions(shownChange, keyset, bind),
        ),
      )
      .orderBy(...keysetOrder(shownChange))
      .limit(bind(keyset.limit)),
  );
  return rows.map(({ property, agent, position }) => ({
    row: { property, agent },
    key: { updatedAt: position, id: property.id },
  }));
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

/** One published property in the portal's columns with its agent's card, or null. */
export async function findPortalProperty(
  tx: Tx,
  organizationId: string,
  id: string,
): Promise<PortalPropertyWithAgent | null> {
  const rows = await tx
    .select({ property: portalColumns, agent: agentCard })
    .from(properties)
    .leftJoin(
      agents,
      and(eq(agents.organizationId, properties.organizationId), eq(agents.id, properties.agentId)),
    )
    .where(and(eq(properties.organizationId, organizationId), eq(properties.id, id), portalVisible))
    .limit(1);
  return rows[0] ?? null;
}
