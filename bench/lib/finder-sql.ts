/**
 * POST /v1/finder written by hand for the `finder` scenario's baseline (finder-sql-server.ts): the
 * rules of docs/finder.md as plain SQL and TypeScript, and what the service writes, as ONE
 * data-modifying statement sent as a named prepared statement (one round trip, autocommit):
 *
 * - scoring: the organization's published listings of a suitable transaction type under the price
 *   cap (budgetMax + 10 %), each criterion given a level (2 match, 1 partial, 0 miss; amenities: how
 *   many wanted ones it has) and points (weights rescaled to 100; half, rounded down, for a partial;
 *   amenities in proportion), the best 12 scoring at least 60, best first then newest, and the count;
 * - the person as a contact: found by phone (locked) and updated, or created (NEW, LEAD, source
 *   FINDER, tag `finder`, the next CT- code from the organization's counter), preferences from the
 *   criteria, score recomputed from the contact's activity with this search counted;
 * - the search row (criteria, what was shown), a FINDER_SUBMIT analytics event and its daily count;
 * - the events `contact.created`/`contact.updated` and `finder.submitted`, fanned out to the
 *   organization's matching webhook subscriptions.
 */

/** The criteria, in breakdown order, and their base weights (they add up to 100). */
export const CRITERIA = [
  ['transactionType', 10],
  ['propertyType', 20],
  ['budget', 25],
  ['location', 25],
  ['bedrooms', 10],
  ['amenities', 10],
] as const;
export type Criterion = (typeof CRITERIA)[number][0];

const MIN_SCORE = 60;
const MAX_RESULTS = 12;
/** Types that stand in for each other (a partial match). */
const FAMILIES = [
  ['APARTMENT', 'STUDIO', 'PENTHOUSE', 'DUPLEX'],
  ['HOUSE', 'VILLA', 'TOWNHOUSE'],
  ['COMMERCIAL', 'OFFICE', 'WAREHOUSE'],
];
/** Listing transaction types a buyer or a renter is shown. */
const SUITABLE: Record<string, string[]> = { SALE: ['SALE', 'SALE_OR_RENT'], RENT: ['RENT', 'SALE_OR_RENT'] };
const ALL_TRANSACTIONS = ['SALE', 'RENT', 'SALE_OR_RENT'];

export interface Criteria {
  transactionType?: string;
  propertyType?: string;
  city?: string;
  neighborhood?: string;
  budgetMin?: number;
  budgetMax?: number;
  minBedrooms?: number;
  amenities?: string[];
}

/** The criteria a search gives, in breakdown order. */
export function givenOf(c: Criteria): Criterion[] {
  const given: Record<Criterion, boolean> = {
    transactionType: c.transactionType !== undefined,
    propertyType: c.propertyType !== undefined,
    budget: c.budgetMin !== undefined || c.budgetMax !== undefined,
    location: c.city !== undefined || c.neighborhood !== undefined,
    bedrooms: c.minBedrooms !== undefined,
    amenities: (c.amenities?.length ?? 0) > 0,
  };
  return CRITERIA.map(([name]) => name).filter((name) => given[name]);
}

/** Whole-number weights of the given criteria adding up to 100: floors, then the largest remainders. */
export function weightsOf(given: readonly Criterion[]): Record<Criterion, number> {
  const base = Object.fromEntries(CRITERIA) as Record<Criterion, number>;
  const sum = given.reduce((total, name) => total + base[name], 0);
  const shares = given.map((name) => {
    const exact = (base[name] * 100) / sum;
    return { name, weight: Math.floor(exact), rest: exact - Math.floor(exact) };
  });
  let left = 100 - shares.reduce((total, s) => total + s.weight, 0);
  for (const share of [...shares].sort((a, b) => b.rest - a.rest)) {
    if (left-- <= 0) break;
    share.weight += 1;
  }
  const weights = Object.fromEntries(CRITERIA.map(([name]) => [name, 0])) as Record<Criterion, number>;
  for (const share of shares) weights[share.name] = share.weight;
  return weights;
}

/** The scoring parameters ($2-$11) of the statement. */
export function scoringValues(
  c: Criteria,
  fold: (text: string) => string,
  weights: Record<Criterion, number>,
) {
  const family = FAMILIES.find((members) => members.includes(c.propertyType ?? ''));
  return [
    c.transactionType === undefined ? ALL_TRANSACTIONS : (SUITABLE[c.transactionType] ?? []),
    c.propertyType ?? null,
    (family ?? []).filter((type) => type !== c.propertyType),
    c.budgetMin ?? null,
    c.budgetMax ?? null,
    c.city === undefined ? null : fold(c.city),
    c.neighborhood === undefined ? null : fold(c.neighborhood),
    c.minBedrooms ?? null,
    [...new Set(c.amenities ?? [])],
    CRITERIA.map(([name]) => weights[name]),
  ];
}

const level = {
  transactionType: `CASE WHEN p.transaction_type = ANY ($2::text[]) THEN 2 ELSE 0 END`,
  propertyType: `CASE WHEN p.type = $3::text THEN 2 WHEN p.type = ANY ($4::text[]) THEN 1 ELSE 0 END`,
  budget: `CASE
      WHEN ($5::numeric IS NULL OR p.price >= $5::numeric) AND ($6::numeric IS NULL OR p.price <= $6::numeric) THEN 2
      WHEN (p.price < $5::numeric AND p.price >= $5::numeric * 0.9)
        OR (p.price > $6::numeric AND p.price <= $6::numeric * 1.1) THEN 1
      ELSE 0 END`,
  location: `CASE
      WHEN $7::text IS NOT NULL AND $8::text IS NOT NULL THEN
        CASE WHEN p.search_city = $7::text AND p.search_neighborhood = $8::text THEN 2
             WHEN p.search_city = $7::text THEN 1 ELSE 0 END
      WHEN $7::text IS NOT NULL THEN CASE WHEN p.search_city = $7::text THEN 2 ELSE 0 END
      WHEN p.search_neighborhood = $8::text THEN 2 ELSE 0 END`,
  bedrooms: `CASE WHEN p.bedrooms >= $9::int THEN 2 WHEN p.bedrooms = $9::int - 1 THEN 1 ELSE 0 END`,
  amenities: `(SELECT count(*) FROM unnest($10::text[]) AS wanted(name) WHERE wanted.name = ANY (p.amenities))::int`,
};

/** Points of criterion i (1-based in $11) from its level column. */
const points = (name: Criterion, i: number) =>
  name === 'amenities'
    ? `($11::int[])[${i}] * l${i} / greatest(cardinality($10::text[]), 1)`
    : `CASE l${i} WHEN 2 THEN ($11::int[])[${i}] WHEN 1 THEN ($11::int[])[${i}] / 2 ELSE 0 END`;

const ids = CRITERIA.map((_, i) => i + 1);
const BEST_FIRST = 'score DESC, created_at DESC, id DESC';
const iso = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
const contactJson = (c: string) => `jsonb_build_object('id', ${c}.id, 'code', ${c}.code,
    'firstName', ${c}.first_name, 'lastName', ${c}.last_name,
    'fullName', concat_ws(' ', nullif(${c}.first_name, ''), nullif(${c}.last_name, '')),
    'email', ${c}.email, 'phone', ${c}.phone, 'source', ${c}.source, 'status', ${c}.status, 'type', ${c}.type,
    'score', ${c}.score_before, 'ownerId', ${c}.owner_id, 'preferredCity', ${c}.preferred_city,
    'preferredLanguage', ${c}.preferred_language, 'preferredType', ${c}.preferred_type, 'budget', ${c}.budget::float8, 'currency', ${c}.currency,
    'tags', to_jsonb(${c}.tags), 'optedOut', ${c}.opted_out, 'externalId', ${c}.external_id,
    'createdAt', ${iso(`${c}.created_at`)}, 'updatedAt', ${iso(`${c}.updated_at`)})`;
const count = (table: string, extra = '') =>
  `(SELECT count(*) FROM ${table} x WHERE x.organization_id = $1 AND x.contact_id = f.id${extra})`;

/**
 * Parameters: $1 organization; $2-$11 scoring (`scoringValues`); $12 new contact id, $13 first name,
 * $14 E.164 phone, $15 preferred city (as typed), $16 search_text of a new contact, $17 search id,
 * $18 criteria (JSON), $19 subscribedToAlerts, $20 contact event id, $21 finder event id, $22 actor.
 */
export const SUBMIT = {
  name: 'bench_finder_submit',
  text: `WITH org AS (
    SELECT default_currency, live_organization_id IS NULL AS livemode FROM organizations WHERE id = $1::text
  ), levels AS (
    SELECT p.id, p.title, p.price, p.currency, p.transaction_type, p.type, p.city, p.neighborhood, p.bedrooms,
      p.area, p.photos -> 0 ->> 'url' AS photo_url, p.created_at,
      ${CRITERIA.map(([name], i) => `${level[name]} AS l${i + 1}`).join(',\n      ')}
    FROM properties p
    WHERE p.organization_id = $1::text AND p.status = 'ACTIVE' AND p.published_on_portal
      AND p.transaction_type = ANY ($2::text[])
      AND p.price_value <= coalesce($6::numeric::float8 * 1.1 * (1 + 1e-9), 'Infinity'::float8)
      AND p.price <= coalesce($6::numeric * 1.1, 'Infinity'::numeric)
  ), scored AS (
    SELECT s.*, (${ids.map((i) => `s${i}`).join(' + ')})::int AS score FROM (
      SELECT levels.*, ${CRITERIA.map(([name], i) => `${points(name, i + 1)} AS s${i + 1}`).join(', ')} FROM levels
    ) s
  ), matches AS (
    SELECT scored.*, count(*) OVER ()::int AS total FROM scored
    WHERE score >= ${MIN_SCORE} ORDER BY ${BEST_FIRST} LIMIT ${MAX_RESULTS}
  ), found AS (
    SELECT * FROM contacts WHERE organization_id = $1::text AND phone = $14::text LIMIT 1 FOR UPDATE
  ), found_score AS (
    -- The contact's activity, this search included: points per kind up to a cap, and the recency
    -- bonus (15) that this search, made now, always earns; at most 100.
    SELECT least(100, 15 + least(30, 10 * ${count('leads')}) + least(30, 15 * ${count('visit_requests')})
      + least(40, 20 * ${count('appointments', ` AND x.status NOT IN ('CANCELLED', 'NO_SHOW')`)})
      + least(15, 5 * (1 + ${count('finder_searches')}))
      + least(20, 2 * (SELECT count(DISTINCT day) FROM usage_daily x WHERE x.organization_id = $1 AND x.contact_id = f.id
          AND x.day > (now() AT TIME ZONE 'UTC')::date - 30))
      + least(20, 5 * ${count('messages', ` AND x.direction = 'INBOUND'`)}))::int AS score
    FROM found f
  ), code AS (
    INSERT INTO organization_counters (organization_id, name, value)
    SELECT $1::text, 'contact', 1 WHERE NOT EXISTS (SELECT 1 FROM found)
    ON CONFLICT (organization_id, name) DO UPDATE SET value = organization_counters.value + 1
    RETURNING value
  ), inserted AS (
    INSERT INTO contacts (id, organization_id, code, first_name, last_name, phone, source, status, type,
      preferred_city, preferred_type, budget, currency, tags, search_text, last_activity_at, score)
    SELECT $12::text, $1::text, 'CT-' || lpad(code.value::text, greatest(6, length(code.value::text)), '0'),
      $13::text, '', $14::text, 'FINDER', 'NEW', 'LEAD', $15::text, $3::text, $6::numeric,
      CASE WHEN $6::numeric IS NULL THEN NULL ELSE (SELECT default_currency FROM org) END, '{finder}',
      $16::text, now(),
      20 -- this search (5 points) and the recency bonus (15)
    FROM code
    ON CONFLICT DO NOTHING
    RETURNING *, 0 AS score_before, NULL::text[] AS changes
  ), updated AS (
    UPDATE contacts c SET
      preferred_city = coalesce($15::text, c.preferred_city), preferred_type = coalesce($3::text, c.preferred_type),
      budget = coalesce($6::numeric, c.budget),
      currency = CASE WHEN $6::numeric IS NULL THEN c.currency ELSE (SELECT default_currency FROM org) END,
      tags = CASE WHEN 'finder' = ANY (c.tags) THEN c.tags ELSE c.tags || '{finder}'::text[] END,
      last_activity_at = now(), updated_at = now(), score = (SELECT score FROM found_score)
    FROM found f
    WHERE c.organization_id = $1::text AND c.id = f.id
    RETURNING c.*, f.score AS score_before, array_remove(ARRAY[
      CASE WHEN c.preferred_city IS DISTINCT FROM f.preferred_city THEN 'preferredCity' END,
      CASE WHEN c.preferred_type IS DISTINCT FROM f.preferred_type THEN 'preferredType' END,
      CASE WHEN c.budget IS DISTINCT FROM f.budget THEN 'budget' END,
      CASE WHEN c.currency IS DISTINCT FROM f.currency THEN 'currency' END,
      CASE WHEN c.tags IS DISTINCT FROM f.tags THEN 'tags' END], NULL) || '{lastActivityAt}'::text[] AS changes
  ), contact AS (
    SELECT *, true AS created FROM inserted UNION ALL SELECT *, false FROM updated
  ), search AS (
    INSERT INTO finder_searches (id, organization_id, contact_id, criteria, subscribed_to_alerts, total, property_ids)
    SELECT $17::text, $1::text, contact.id, $18::jsonb, $19::boolean, coalesce((SELECT max(total) FROM matches), 0),
      ARRAY(SELECT id FROM matches ORDER BY ${BEST_FIRST})
    FROM contact
    RETURNING *
  ), counted AS (
    INSERT INTO analytics_events (organization_id, type, occurred_at)
    SELECT $1::text, 'FINDER_SUBMIT', now() FROM search
    RETURNING organization_id, occurred_at
  ), daily AS (
    INSERT INTO analytics_daily AS d (organization_id, day, property_id, type, count)
    SELECT organization_id, (occurred_at AT TIME ZONE 'UTC')::date, '', 'FINDER_SUBMIT', 1 FROM counted
    ON CONFLICT (organization_id, day, property_id, type) DO UPDATE SET count = d.count + excluded.count
  ), recorded AS (
    INSERT INTO events (id, organization_id, type, livemode, actor, data, created_at)
    SELECT e.id, $1::text, e.type, org.livemode, $22::jsonb, e.data, now()
    FROM org, (
      SELECT 1 AS ord, $20::text AS id, CASE WHEN c.created THEN 'contact.created' ELSE 'contact.updated' END AS type,
        CASE WHEN c.created THEN jsonb_build_object('contact', ${contactJson('c')})
          ELSE jsonb_build_object('contact', ${contactJson('c')}, 'changes', to_jsonb(c.changes)) END AS data
      FROM contact c
      UNION ALL
      SELECT 2, $21::text, 'finder.submitted', jsonb_build_object('search', jsonb_build_object('id', s.id,
        'contactId', s.contact_id, 'criteria', s.criteria, 'subscribedToAlerts', s.subscribed_to_alerts,
        'total', s.total, 'propertyIds', to_jsonb(s.property_ids), 'createdAt', ${iso('s.created_at')}))
      FROM search s
    ) e
    ORDER BY e.ord
    RETURNING id, organization_id, type
  ), fanned AS (
    INSERT INTO webhook_deliveries (id, organization_id, subscription_id, event_id, event_type, next_attempt_at)
    SELECT 'whd_' || substr(e.id, 5, 9) || substr(md5(random()::text || e.id || s.id), 1, 13),
      e.organization_id, s.id, e.id, e.type, now()
    FROM recorded e
    JOIN webhook_subscriptions s ON s.organization_id = e.organization_id
    WHERE s.enabled AND s.event_types && ARRAY[e.type, split_part(e.type, '.', 1) || '.*', '*']::text[]
  )
  SELECT (SELECT id FROM contact) AS contact_id, m.*
  FROM (SELECT 1) AS one LEFT JOIN matches m ON true
  ORDER BY m.${BEST_FIRST.replaceAll(', ', ', m.')}`,
};

export interface SubmitRow {
  contact_id: string | null;
  id: string | null;
  title: string;
  price: string;
  currency: string;
  transaction_type: string;
  type: string;
  city: string;
  neighborhood: string | null;
  bedrooms: number;
  area: string | null;
  photo_url: string | null;
  score: number;
  total: number;
  [levelOrPoints: `${'l' | 's'}${number}`]: number;
}

/** How a level reads: amenities match when the listing has every wanted one, partly with some. */
function stateOf(name: Criterion, reached: number, wantedAmenities: number): 'match' | 'partial' | 'miss' {
  if (name === 'amenities') return reached >= wantedAmenities ? 'match' : reached > 0 ? 'partial' : 'miss';
  return reached >= 2 ? 'match' : reached === 1 ? 'partial' : 'miss';
}

/** One scored listing as the answer shows it (FinderMatch), with its breakdown over the given criteria. */
export function matchJson(
  row: SubmitRow,
  given: readonly Criterion[],
  weights: Record<Criterion, number>,
  wantedAmenities: number,
) {
  return {
    id: row.id,
    title: row.title,
    price: Number(row.price),
    currency: row.currency,
    transactionType: row.transaction_type,
    type: row.type,
    city: row.city,
    neighborhood: row.neighborhood,
    bedrooms: row.bedrooms,
    area: row.area === null ? null : Number(row.area),
    photoUrl: row.photo_url,
    matchScore: row.score,
    breakdown: given.map((name) => {
      const i = CRITERIA.findIndex(([criterion]) => criterion === name) + 1;
      return {
        criterio: name,
        puntos: row[`s${i}`] ?? 0,
        peso: weights[name],
        estado: stateOf(name, row[`l${i}`] ?? 0, wantedAmenities),
      };
    }),
  };
}
