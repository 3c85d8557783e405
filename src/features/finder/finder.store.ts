import { sql, type SQL } from 'drizzle-orm';
import { queryRows, type Tx } from '../../db/database.ts';
import { finderSearches } from '../../db/schema.ts';
import type { Actor } from '../../platform/events/catalog.ts';
import { jsonTimestampSql, recordEventsSql } from '../../platform/events/record.ts';
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

/** The answer's order: best score first, newest first among equals (the id settles the rest). */
const BEST_FIRST = sql`score DESC, created_at DESC, id DESC`;

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
    ORDER BY ${BEST_FIRST}
    LIMIT ${query.limit}::int`;
}

/** The scored listings of `rows` (of the scoring statement), with their levels and points per criterion. */
function toScoredProperties(query: ScoringQuery, rows: readonly Row[]): ScoredProperty[] {
  const given = FINDER_CRITERIA.filter((criterion) => query.weights[criterion] !== undefined);
  return rows.map((row): ScoredProperty => {
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
  const rows = await queryRows<Row>(tx, scoringStatement(organizationId, query));
  return { total: rows[0] ? Number(rows[0].total) : 0, properties: toScoredProperties(query, rows) };
}

/**
 * What the finder's one statement is made of besides its own SQL: the other features' parts, built
 * by their own code (the contact by contacts, the FINDER_SUBMIT count by analytics).
 */
export interface SubmissionParts {
  query: ScoringQuery;
  contact: { ctes: SQL; contact: SQL; events: SQL };
  analytics: { ctes: SQL; inserted: SQL };
  search: { id: string; criteria: Record<string, unknown>; subscribedToAlerts: boolean };
  /** `finder.submitted`: its id (made after the contact's events' ids) and who caused it. */
  event: { id: string; type: string; actor: Actor };
}

export interface SubmissionOutcome {
  /** The contact's id; null when the contact part could not be done in the statement: then nothing was saved. */
  contactId: string | null;
  total: number;
  properties: ScoredProperty[];
  /** Rows the analytics part wrote. */
  analyticsRows: number;
  /** The events built, in order, and how many were recorded. */
  events: { type: string; data: Record<string, unknown> }[];
  eventsRecorded: number;
}

type SubmissionRow = Row & {
  outcome_contact_id: string | null;
  outcome_analytics: number | string;
  outcome_events: { type: string; data: Record<string, unknown> }[] | string | null;
  outcome_recorded: number | string;
};

/**
 * A search submitted in ONE statement (decision 0226): scores the listings, upserts the contact and
 * records its consents and score (`parts.contact`), saves the search with what was shown, counts
 * FINDER_SUBMIT (`parts.analytics`) and records the events, the contact's and `finder.submitted`,
 * fanned out to webhooks. Every write depends on the contact's: when that part cannot be done here,
 * nothing is written (`contactId` null).
 */
export async function submitSearch(
  tx: Tx,
  organizationId: string,
  parts: SubmissionParts,
): Promise<SubmissionOutcome> {
  const { query, contact, analytics, search, event } = parts;
  const finderEvent = sql`
    SELECT 100 AS ord, ${event.id}::text AS id, ${event.type}::text AS type,
      jsonb_build_object('search', jsonb_build_object('id', s.id, 'contactId', s.contact_id,
        'criteria', s.criteria, 'subscribedToAlerts', s.subscribed_to_alerts, 'total', s.total,
        'propertyIds', to_jsonb(s.property_ids), 'createdAt', ${jsonTimestampSql(sql`s.created_at`)})) AS data
    FROM finder_search s`;
  const rows = await queryRows<SubmissionRow>(
    tx,
    sql`WITH finder_scored AS (${scoringStatement(organizationId, query)}),
    ${contact.ctes},
    finder_search AS (
      INSERT INTO finder_searches (id, organization_id, contact_id, criteria, subscribed_to_alerts, total, property_ids)
      SELECT ${search.id}::text, ${organizationId}::text, c.id, ${JSON.stringify(search.criteria)}::jsonb,
        ${search.subscribedToAlerts}::boolean, coalesce((SELECT max(total) FROM finder_scored), 0)::int,
        ARRAY(SELECT id FROM finder_scored ORDER BY ${BEST_FIRST})
      FROM ${contact.contact} c
      RETURNING *
    ),
    ${analytics.ctes},
    finder_events AS (${contact.events} UNION ALL ${finderEvent}),
    ${recordEventsSql(sql`SELECT * FROM finder_events`, { actor: event.actor, prefix: 'finder_' })}
    SELECT (SELECT id FROM ${contact.contact}) AS outcome_contact_id,
      (SELECT count(*) FROM ${analytics.inserted}) AS outcome_analytics,
      (SELECT json_agg(json_build_object('type', e.type, 'data', e.data) ORDER BY e.ord) FROM finder_events e) AS outcome_events,
      (SELECT count(*) FROM finder_event) AS outcome_recorded,
      scored.*
    FROM (SELECT 1) AS one
    LEFT JOIN finder_scored scored ON true
    ORDER BY ${BEST_FIRST}`,
  );
  const first = rows[0];
  if (!first) throw new Error('the finder statement returned no row');
  const scored = rows.filter((row) => row.id !== null);
  const events =
    typeof first.outcome_events === 'string' ? JSON.parse(first.outcome_events) : first.outcome_events;
  return {
    contactId: first.outcome_contact_id,
    total: scored[0] ? Number(scored[0].total) : 0,
    properties: toScoredProperties(query, scored),
    analyticsRows: Number(first.outcome_analytics),
    events: events ?? [],
    eventsRecorded: Number(first.outcome_recorded),
  };
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
