import { sql, type SQL } from 'drizzle-orm';
import { queryRows, type Tx } from '../../db/database.ts';
import { finderSearches } from '../../db/schema.ts';
import { FINDER_CRITERIA, type FinderCriterion } from './finder.schema.ts';

/**
 * The finder's query, ready for SQL: what the service decided from the person's criteria. A
 * criterion is scored when it has a weight; its filter values are then present too.
 */
export interface ScoringQuery {
  /** Points a full match of each given criterion earns (they add up to 100). */
  weights: Partial<Record<FinderCriterion, number>>;
  /** Listing transaction types that suit the person; the others are not candidates at all. */
  transactionTypes?: readonly string[];
  /** The type asked for, and the types of its family (a partial match). */
  propertyType?: { exact: string; related: readonly string[] };
  /** Price range; `tolerance` (0.1 = 10%) outside it is a partial match, beyond `max` by more is excluded. */
  budget?: { min: number | null; max: number | null; tolerance: number };
  /** Folded (lowercase, accent-free) city and neighborhood, compared with the `search_*` columns. */
  location?: { city: string | null; neighborhood: string | null };
  minBedrooms?: number;
  /** Distinct amenity names wanted (at least one). */
  amenities?: readonly string[];
  /** Candidates scoring less are neither counted nor listed. */
  minScore: number;
  limit: number;
}

/** A scored candidate: `levels` 2 = match, 1 = partial, 0 = miss (amenities: how many it has). */
export interface ScoredProperty {
  id: string;
  title: string;
  price: number;
  currency: string;
  transactionType: string;
  type: string;
  city: string;
  neighborhood: string | null;
  bedrooms: number;
  area: number | null;
  photoUrl: string | null;
  levels: Partial<Record<FinderCriterion, number>>;
  points: Partial<Record<FinderCriterion, number>>;
  score: number;
}

type Row = Record<string, unknown> & {
  id: string;
  title: string;
  price: string | number;
  currency: string;
  transaction_type: string;
  type: string;
  city: string;
  neighborhood: string | null;
  bedrooms: number;
  area: string | number | null;
  photo_url: string | null;
  score: number | string;
  total: number | string;
};

const list = (values: readonly (string | number)[]) =>
  sql.join(
    values.map((value) => sql`${value}`),
    sql`, `,
  );

/**
 * Per criterion: the SQL of its level for one listing `p` (2 match, 1 partial, 0 miss; amenities
 * count the wanted ones the listing has), and of its points from that level and the weight.
 */
function criterionSql(
  query: ScoringQuery,
  criterion: FinderCriterion,
): { level: SQL; points: (level: SQL) => SQL } {
  const weight = sql`${query.weights[criterion] ?? 0}::int`;
  // Half the weight, rounded down, for a partial match.
  const byLevel = (level: SQL) =>
    sql`CASE ${level} WHEN 2 THEN ${weight} WHEN 1 THEN ${weight} / 2 ELSE 0 END`;
  switch (criterion) {
    case 'transactionType':
      return {
        level: sql`CASE WHEN p.transaction_type IN (${list(query.transactionTypes ?? [])}) THEN 2 ELSE 0 END`,
        points: byLevel,
      };
    case 'propertyType': {
      const { exact, related } = query.propertyType ?? { exact: '', related: [] };
      const partial = related.length > 0 ? sql` WHEN p.type IN (${list(related)}) THEN 1` : sql``;
      return { level: sql`CASE WHEN p.type = ${exact} THEN 2${partial} ELSE 0 END`, points: byLevel };
    }
    case 'budget': {
      const { min, max, tolerance } = query.budget ?? { min: null, max: null, tolerance: 0 };
      const inside: SQL[] = [];
      const near: SQL[] = [];
      if (min !== null) {
        inside.push(sql`p.price >= ${min}::numeric`);
        near.push(
          sql`(p.price < ${min}::numeric AND p.price >= ${min}::numeric * ${1 - tolerance}::numeric)`,
        );
      }
      if (max !== null) {
        inside.push(sql`p.price <= ${max}::numeric`);
        near.push(
          sql`(p.price > ${max}::numeric AND p.price <= ${max}::numeric * ${1 + tolerance}::numeric)`,
        );
      }
      return {
        level: sql`CASE WHEN ${sql.join(inside, sql` AND `)} THEN 2 WHEN ${sql.join(near, sql` OR `)} THEN 1 ELSE 0 END`,
        points: byLevel,
      };
    }
    case 'location': {
      const { city, neighborhood } = query.location ?? { city: null, neighborhood: null };
      const level =
        city !== null && neighborhood !== null
          ? sql`CASE WHEN p.search_city = ${city} AND p.search_neighborhood = ${neighborhood} THEN 2
                     WHEN p.search_city = ${city} THEN 1 ELSE 0 END`
          : city !== null
            ? sql`CASE WHEN p.search_city = ${city} THEN 2 ELSE 0 END`
            : sql`CASE WHEN p.search_neighborhood = ${neighborhood} THEN 2 ELSE 0 END`;
      return { level, points: byLevel };
    }
    case 'bedrooms': {
      const min = query.minBedrooms ?? 0;
      return {
        level: sql`CASE WHEN p.bedrooms >= ${min}::int THEN 2 WHEN p.bedrooms = ${min - 1}::int THEN 1 ELSE 0 END`,
        points: byLevel,
      };
    }
    case 'amenities': {
      const wanted = query.amenities ?? [];
      return {
        level: sql`(SELECT count(*) FROM unnest(ARRAY[${list(wanted)}]::text[]) AS wanted(name)
                     WHERE wanted.name = ANY (p.amenities))::int`,
        // Proportional: the share of the wanted amenities the listing has, rounded down.
        points: (hits) => sql`(${weight} * ${hits}) / ${wanted.length}::int`,
      };
    }
  }
}

/**
 * The scoring statement: candidates prefiltered by the index-backed predicates (published,
 * organization, transaction type, price cap), each criterion's level and points from CASE
 * expressions, the best `limit` rows with the count of all that reach `minScore`. Exported for
 * the query-plan check in docs/finder.md.
 */
export function scoringStatement(organizationId: string, query: ScoringQuery): SQL {
  const given = FINDER_CRITERIA.filter((criterion) => query.weights[criterion] !== undefined);
  const alias = (prefix: string, criterion: FinderCriterion) =>
    sql.raw(`${prefix}_${FINDER_CRITERIA.indexOf(criterion)}`);
  const parts = given.map((criterion) => ({ criterion, ...criterionSql(query, criterion) }));

  const filters: SQL[] = [
    sql`p.organization_id = ${organizationId}`,
    // The partial indexes' predicate: only what the portal shows.
    sql`p.status = 'ACTIVE' AND p.published_on_portal`,
  ];
  if (query.transactionTypes) filters.push(sql`p.transaction_type IN (${list(query.transactionTypes)})`);
  const max = query.budget?.max;
  if (max !== undefined && max !== null) {
    const tolerance = query.budget?.tolerance ?? 0;
    // The float8 copy bounds the index range (leakproof, so an index condition under RLS); a
    // hair of slack for float rounding, and the exact numeric cap decides.
    filters.push(sql`p.price_value <= ${max * (1 + tolerance) * (1 + 1e-9)}::float8`);
    filters.push(sql`p.price <= ${max}::numeric * ${1 + tolerance}::numeric`);
  }

  const levels = parts.map(({ criterion, level }) => sql`, ${level} AS ${alias('l', criterion)}`);
  const points = parts.map(
    ({ criterion, points: of }) => sql`, ${of(alias('l', criterion))} AS ${alias('s', criterion)}`,
  );
  const score =
    parts.length > 0
      ? sql.join(
          parts.map(({ criterion }) => alias('s', criterion)),
          sql` + `,
        )
      : sql`0`;

  return sql`
    WITH levels AS (
      SELECT p.id, p.title, p.price, p.currency, p.transaction_type, p.type, p.city, p.neighborhood,
             p.bedrooms, p.area, p.photos -> 0 ->> 'url' AS photo_url, p.created_at ${sql.join(levels)}
      FROM properties p
      WHERE ${sql.join(filters, sql` AND `)}
    ), points AS (
      SELECT levels.* ${sql.join(points)} FROM levels
    ), scored AS (
      SELECT points.*, (${score})::int AS score FROM points
    )
    SELECT scored.*, count(*) OVER () AS total
    FROM scored
    WHERE score >= ${query.minScore}::int
    ORDER BY score DESC, created_at DESC, id DESC
    LIMIT ${query.limit}::int`;
}

/**
 * Scores the organization's published listings against one search, entirely in SQL, so no more
 * than `limit` rows come back to Node whatever the size of the stock.
 */
export async function scorePublishedProperties(
  tx: Tx,
  organizationId: string,
  query: ScoringQuery,
): Promise<{ total: number; properties: ScoredProperty[] }> {
  const given = FINDER_CRITERIA.filter((criterion) => query.weights[criterion] !== undefined);
  const rows = await queryRows<Row>(tx, scoringStatement(organizationId, query));

  const properties = rows.map((row): ScoredProperty => {
    const rowLevels: Partial<Record<FinderCriterion, number>> = {};
    const rowPoints: Partial<Record<FinderCriterion, number>> = {};
    for (const criterion of given) {
      const index = FINDER_CRITERIA.indexOf(criterion);
      rowLevels[criterion] = Number(row[`l_${index}`]);
      rowPoints[criterion] = Number(row[`s_${index}`]);
    }
    return {
      id: row.id,
      title: row.title,
      price: Number(row.price),
      currency: row.currency,
      transactionType: row.transaction_type,
      type: row.type,
      city: row.city,
      neighborhood: row.neighborhood,
      bedrooms: Number(row.bedrooms),
      area: row.area === null ? null : Number(row.area),
      photoUrl: row.photo_url,
      levels: rowLevels,
      points: rowPoints,
      score: Number(row.score),
    };
  });
  return { total: rows[0] ? Number(rows[0].total) : 0, properties };
}

export type NewFinderSearch = typeof finderSearches.$inferInsert;

/** Saves a search; returns its creation time. */
export async function insertFinderSearch(tx: Tx, search: NewFinderSearch): Promise<Date> {
  const [row] = await tx
    .insert(finderSearches)
    .values(search)
    .returning({ createdAt: finderSearches.createdAt });
  if (!row) throw new Error('finder search insert returned no row');
  return row.createdAt;
}
