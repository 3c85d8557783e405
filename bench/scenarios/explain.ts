/**
 * Scenario `explain`: writes docs/performance.md, the EXPLAIN (ANALYZE, BUFFERS) plans of the SQL
 * GET /v1/properties sends for each filter and sort, at 100,000 properties, on PostgreSQL. The
 * statements are recorded from the service's own search function (`searchPortalProperties` on
 * `openDatabase`, i.e. drizzle through the tenant transaction), then explained in the same kind of
 * transaction (set_config + SET LOCAL ROLE agency_app: row-level security on), and once more without
 * RLS (as the database owner) to show what the planner would do without it.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import * as prettier from 'prettier';
import { openDatabase } from '../../src/db/database.ts';
import { pageOnly } from '../../src/platform/http/pagination.ts';
import type { PortalListQuery } from '../../src/features/properties/properties.portal.schema.ts';
import { searchPortalProperties } from '../../src/features/properties/properties.portal.ts';
import type { Caller } from '../../src/platform/auth/caller.ts';
import { requireDatabaseUrl } from '../lib/bench-database.ts';
import { cityCentre, citiesOf } from '../lib/portal-data.ts';
import { startPortalStack } from '../lib/portal-stack.ts';
import { machine, writeResult } from '../lib/report.ts';
import { CHECK_USAGE, UsageError, type Scenario } from '../lib/scenario.ts';
import { recordStatements, type CapturedStatement } from '../lib/sql-capture.ts';

const DOC = fileURLToPath(new URL('../../docs/performance.md', import.meta.url));

const SHAPES = [
  { title: '100 agencies × 1,000 properties', organizations: 100, perOrg: 1000 },
  { title: 'one agency with 100,000 properties', organizations: 1, perOrg: 100_000 },
];
/** `--check`: both shapes, tiny. */
const CHECK_SHAPES = [
  { title: '2 agencies × 60 properties', organizations: 2, perOrg: 60 },
  { title: 'one agency with 120 properties', organizations: 1, perOrg: 120 },
];

const USAGE = `Usage: DATABASE_URL=postgres://USER@HOST:PORT/DB npm run bench -- explain [--check]

Loads 100,000 properties twice (100 organizations x 1,000, then one organization with 100,000) in fresh
databases (dropped at the end), records the SQL GET /v1/properties sends for each filter and sort, and
writes its EXPLAIN (ANALYZE, BUFFERS) plans to docs/performance.md.
${CHECK_USAGE}: the same on ${CHECK_SHAPES.map((s) => `${s.organizations} x ${s.perOrg}`).join(' and ')} properties, every case
                   recorded and explained and the page made, but nothing written`;

interface Case {
  /** What is exercised (the summary table's first column). */
  name: string;
  /** The query string, as a portal sends it. */
  qs: string;
  /** Columns of the filter: "served" when one appears in an index condition. */
  columns: string[];
  /** Partial indexes whose predicate is the filter itself. */
  predicateIndexes?: string[];
}

function cases(home: string): Case[] {
  const c = cityCentre(home);
  const box = [c.latitude - 0.02, c.longitude - 0.03, c.latitude + 0.02, c.longitude + 0.03].map((v) =>
    v.toFixed(4),
  );
  const near = `near=${c.latitude},${c.longitude}&radiusKm=2`;
  return [
    { name: 'no filter, default sort (createdAt desc)', qs: '', columns: [] },
    { name: 'city', qs: `city=${home}`, columns: ['search_city'] },
    { name: 'neighborhood', qs: 'neighborhood=ensanche', columns: ['search_neighborhood'] },
    { name: 'q (two words)', qs: 'q=terraza reformado', columns: ['search_text'] },
    { name: 'q (a reference)', qs: 'q=REF-000457', columns: ['search_text'] },
    {
      name: 'transactionType + type',
      qs: 'transactionType=SALE&type=APARTMENT',
      columns: ['transaction_type', 'type'],
    },
    { name: 'priceMin + priceMax', qs: 'priceMin=150000&priceMax=300000', columns: ['price_value'] },
    { name: 'bedroomsMin', qs: 'bedroomsMin=3', columns: ['bedrooms'] },
    { name: 'bathroomsMin', qs: 'bathroomsMin=2', columns: ['bathrooms'] },
    { name: 'areaMin + areaMax', qs: 'areaMin=80&areaMax=120', columns: ['area_value'] },
    { name: 'one amenity (hasPool)', qs: 'hasPool=1', columns: ['amenities'] },
    { name: 'two amenities (hasPool + hasSeaView)', qs: 'hasPool=1&hasSeaView=1', columns: ['amenities'] },
    {
      name: 'featured',
      qs: 'featured=true',
      columns: ['featured'],
      predicateIndexes: ['properties_portal_featured_idx'],
    },
    {
      name: 'bounds (map viewport)',
      qs: `bounds=${box.join(',')}`,
      columns: ['portal_latitude', 'portal_longitude'],
    },
    { name: 'near + radiusKm', qs: near, columns: ['portal_latitude', 'portal_longitude'] },
    {
      name: 'sortBy=distance',
      qs: `${near}&sortBy=distance`,
      columns: ['portal_latitude', 'portal_longitude'],
    },
    { name: 'sortBy=price (asc)', qs: 'sortBy=price', columns: [] },
    { name: 'sortBy=price&sortOrder=desc', qs: 'sortBy=price&sortOrder=desc', columns: [] },
    { name: 'sortBy=area (asc)', qs: 'sortBy=area', columns: [] },
    { name: 'sortBy=area&sortOrder=desc', qs: 'sortBy=area&sortOrder=desc', columns: [] },
    { name: 'sortBy=createdAt&sortOrder=asc', qs: 'sortBy=createdAt&sortOrder=asc', columns: [] },
    {
      name: 'the benchmark request (city + priceMax + sortBy=price)',
      qs: `city=${home}&priceMax=250000&sortBy=price&sortOrder=asc`,
      columns: ['search_city', 'price_value'],
    },
  ];
}

const NUMERIC = new Set([
  'priceMin',
  'priceMax',
  'bedroomsMin',
  'bathroomsMin',
  'areaMin',
  'areaMax',
  'radiusKm',
]);

/** The query object the route's schema makes of a query string (coerced numbers, defaults). */
function parsedQuery(qs: string): PortalListQuery {
  const query: Record<string, unknown> = { page: 1, pageSize: 12 };
  for (const [key, value] of new URLSearchParams(qs)) {
    query[key] = NUMERIC.has(key) ? Number(value) : key === 'featured' ? value === 'true' : value;
  }
  return query as PortalListQuery;
}

interface Plan {
  lines: string[];
  indexes: string[];
  sorted: boolean;
  seqScan: boolean;
  executionMs: number;
  indexConditions: string[];
}

const INDEX_NODE = /(?:Index Scan|Index Only Scan|Bitmap Index Scan)(?: Backward)? (?:using|on) (\w+)/;

/** The useful lines of a text plan: nodes without cost estimates, conditions, filters, times. */
function trim(raw: string[]): Plan {
  const lines: string[] = [];
  const indexes = new Set<string>();
  const indexConditions: string[] = [];
  let firstBuffers = true;
  let executionMs = Number.NaN;
  let sorted = false;
  let seqScan = false;
  let inIndexNode = false;
  for (const line of raw) {
    const body = line.trim().replace(/^->\s+/, '');
    const isNode = line.includes('(cost=') || line.includes('(actual time=');
    if (isNode) {
      const index = INDEX_NODE.exec(body)?.[1];
      if (index) indexes.add(index);
      inIndexNode = Boolean(index);
      if (/^Sort\b|Incremental Sort/.test(body)) sorted = true;
      if (/Seq Scan on properties/.test(body)) seqScan = true;
      lines.push(
        line
          .replace(/\s*\(cost=[^)]*\)/, '')
          .replace(
            /\(actual time=([\d.]+)\.\.([\d.]+) rows=(\d+) loops=(\d+)\)/,
            '(actual $2 ms, rows=$3, loops=$4)',
          ),
      );
      continue;
    }
    if (/^(Index Cond|Recheck Cond):/.test(body)) {
      if (inIndexNode || body.startsWith('Recheck')) indexConditions.push(body);
      lines.push(line);
      continue;
    }
    if (
      /^(Filter|One-Time Filter|Rows Removed by Filter|Rows Removed by Index Recheck|Sort Key|Join Filter|Hash Cond):/.test(
        body,
      )
    ) {
      lines.push(line.length > 260 ? `${line.slice(0, 257)}...` : line);
      continue;
    }
    if (body.startsWith('Buffers:') && firstBuffers) {
      firstBuffers = false;
      lines.push(line);
      continue;
    }
    const time = /^Execution Time: ([\d.]+) ms/.exec(body);
    if (time) executionMs = Number(time[1]);
    if (/^(Planning Time|Execution Time):/.test(body)) lines.push(line);
  }
  return { lines, indexes: [...indexes], sorted, seqScan, executionMs, indexConditions };
}

/** Plans one captured statement in a transaction like the service's (RLS) or as the owner (no RLS). */
async function explain(
  client: pg.Client,
  statement: CapturedStatement,
  organizationId: string,
  rls: boolean,
): Promise<Plan> {
  await client.query('BEGIN');
  try {
    if (rls) {
      await client.query(`SELECT set_config('app.organization_id', $1, true)`, [organizationId]);
      await client.query('SET LOCAL ROLE agency_app');
    }
    // Two executions first, so the plan shows a warm cache (what a busy portal sees).
    for (let i = 0; i < 2; i++) await client.query(statement.text, statement.values);
    const result = await client.query<{ 'QUERY PLAN': string }>(
      `EXPLAIN (ANALYZE, BUFFERS) ${statement.text}`,
      statement.values,
    );
    return trim(result.rows.map((row) => row['QUERY PLAN']));
  } finally {
    await client.query('ROLLBACK');
  }
}

interface CaseResult extends Case {
  items: CapturedStatement;
  count: CapturedStatement;
  total: number;
  rls: { items: Plan; count: Plan };
  noRls: { items: Plan; count: Plan };
}

/** The count subquery's opening: bounded (`countOf`, counts at most 10,001 rows) or, before that, whole. */
const COUNT_STARTS = [
  '(SELECT count(*) FROM (SELECT 1 FROM "properties" WHERE ',
  '(SELECT count(*) FROM "properties" WHERE ',
];

/**
 * The count the page statement carries (`countOf`: an uncorrelated subquery in its select list), as
 * a statement of its own, to plan it apart. The select list comes before the WHERE, so the
 * subquery's parameters are the first ones.
 */
function countPart(statement: CapturedStatement): CapturedStatement {
  const start = Math.max(...COUNT_STARTS.map((opening) => statement.text.indexOf(opening)));
  if (start < 0) throw new Error(`no count subquery in ${statement.text}`);
  let depth = 0;
  let end = start;
  for (; end < statement.text.length; end++) {
    if (statement.text[end] === '(') depth++;
    if (statement.text[end] === ')' && --depth === 0) break;
  }
  const text = statement.text.slice(start + 1, end);
  const used = Math.max(0, ...[...text.matchAll(/\$(\d+)/g)].map((m) => Number(m[1])));
  return { ...statement, text, values: statement.values.slice(0, used) };
}

/** Served by an index: one of the columns in an index condition, or a partial index that is the filter. */
function served(c: Case, plan: Plan): 'index' | 'filter' | '-' {
  if (c.columns.length === 0) return '-';
  if (c.predicateIndexes?.some((index) => plan.indexes.includes(index))) return 'index';
  return c.columns.some((column) => plan.indexConditions.some((cond) => cond.includes(column)))
    ? 'index'
    : 'filter';
}

async function runCases(databaseUrl: string, organizationId: string, list: Case[]): Promise<CaseResult[]> {
  // What the search reads of its caller: the organization.
  const caller = { organization: { id: organizationId } } as unknown as Caller;
  const db = await openDatabase({ databaseUrl, dataDir: 'memory://', poolSize: 1 });
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const results: CaseResult[] = [];
    for (const c of list) {
      const { result, statements } = await recordStatements('from "properties"', () =>
        searchPortalProperties(db, caller, parsedQuery(c.qs)),
      );
      const items = statements.find((s) => s.text.includes('left join "agents"'));
      if (!items || statements.length !== 1)
        throw new Error(`${c.qs}: expected one statement (page and count), got ${statements.length}`);
      const count = countPart(items);
      results.push({
        ...c,
        items,
        count,
        total: pageOnly(result).meta.total,
        rls: {
          items: await explain(client, items, organizationId, true),
          count: await explain(client, count, organizationId, true),
        },
        noRls: {
          items: await explain(client, items, organizationId, false),
          count: await explain(client, count, organizationId, false),
        },
      });
    }
    return results;
  } finally {
    await client.end();
    await db.close();
  }
}

interface Dataset {
  title: string;
  organizations: number;
  perOrg: number;
  results: CaseResult[];
  visibleStock: number;
}

const ms = (value: number) => (Number.isNaN(value) ? '?' : value < 10 ? value.toFixed(2) : value.toFixed(1));
const code = (text: string) => `\`${text.replace(/`/g, "'")}\``;

function summary(dataset: Dataset): string {
  const rows = dataset.results.map((r) => {
    const indexes = (plan: Plan) =>
      plan.indexes.length ? plan.indexes.join(', ') : plan.seqScan ? 'Seq Scan' : '-';
    const servedText = `${served(r, r.rls.items)} / ${served(r, r.rls.count)}`;
    return `| ${r.name} | ${r.qs ? code(r.qs) : ''} | ${r.total} | ${indexes(r.rls.items)} | ${indexes(r.rls.count)} | ${servedText} | ${r.rls.items.sorted ? 'Sort (top-N)' : 'index order'} | ${ms(r.rls.items.executionMs)} / ${ms(r.rls.count.executionMs)} | ${indexes(r.noRls.items)} / ${indexes(r.noRls.count)}; ${served(r, r.noRls.items)} / ${served(r, r.noRls.count)} |`;
  });
  return [
    '| filter or sort | query string | matches | indexes (statement: page and count) | index (count alone) | filter in an index condition (statement / count) | order | execution ms (statement / count alone) | without RLS: indexes (statement / count); filter in an index condition |',
    '| --- | --- | ---: | --- | --- | --- | --- | ---: | --- |',
    ...rows,
  ].join('\n');
}

/** The statement from WHERE on: the select list (every column, the agent's card) is the same in all. */
const tail = (text: string) => text.slice(text.indexOf(' where ') + 1);

function plans(dataset: Dataset): string {
  return dataset.results
    .map((r) =>
      [
        `#### ${r.name}${r.qs ? ` — ${code(r.qs)}` : ''}`,
        '',
        `${r.total} matches. The statement, from \`where\` on, and its parameters:`,
        '',
        '```sql',
        tail(r.items.text),
        `-- ${JSON.stringify(r.items.values)}`,
        '```',
        '',
        'The statement (page and count), with RLS (as the service runs it):',
        '',
        '```',
        ...r.rls.items.lines,
        '```',
        '',
        'Its count subquery alone, with RLS:',
        '',
        '```',
        ...r.rls.count.lines,
        '```',
      ].join('\n'),
    )
    .join('\n\n');
}

interface LeakRow {
  operator: string;
  types: string;
  fn: string;
  leakproof: boolean;
}

function document(
  datasets: Dataset[],
  leaks: LeakRow[],
  context: { version: string; commit: string; date: string },
) {
  const first = datasets[0]?.results[0];
  // A filter counts as served when the count statement (which must visit every match) searches an index with it.
  const unsortedByIndex = [
    ...new Set(
      datasets.flatMap((d) =>
        d.results.filter((r) => r.columns.length === 0 && r.rls.items.sorted).map((r) => r.name),
      ),
    ),
  ];
  const byService = (verdict: 'index' | 'filter') => [
    ...new Set(
      datasets.flatMap((d) =>
        d.results
          .filter((r) => r.columns.length > 0 && served(r, r.rls.count) === verdict)
          .map((r) => r.name),
      ),
    ),
  ];
  return `# Performance: the portal listing's SQL plans

<!-- Generated by \`DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm run bench -- explain\`
     (bench/scenarios/explain.ts). Do not edit by hand: change the script and run it again. -->

Generated ${context.date} on PostgreSQL ${context.version}, commit ${context.commit}. Load figures
(req/s, p99, scaling) are in [bench/README.md](../bench/README.md).

## How these plans were made

- **Data**: 100,000 properties made by \`bench/lib/portal-data.ts\` (the benchmark's stock: ~85 %
  ACTIVE and published, 8 cities per agency with accents, sale and rent prices, 4 agents per agency,
  3-8 photos, amenities), in two shapes: ${datasets
    .map(
      (d) =>
        `**${d.title}** (${d.organizations} × ${d.perOrg.toLocaleString('en')}; the agency planned for has ${d.visibleStock.toLocaleString('en')} visible listings)`,
    )
    .join(' and ')}. \`VACUUM (ANALYZE)\` after loading (what autovacuum does after a bulk insert).
- **The exact SQL the service sends**: each query string below is turned into the route's query object
  and passed to the service's own \`searchPortalProperties\` on \`openDatabase\` (drizzle, the real tenant
  transaction); the statements are recorded at the pg driver (text and parameters) as they leave.
  Every listing request sends **one** statement: the page
  (\`select <the portal's columns>, <agent card>, (select count(*) from properties where ...) as total
  from properties left join agents ... order by ... limit $n\`): the count is an uncorrelated
  subquery, computed once (an InitPlan). The summaries show the whole statement (page and count) and,
  to see what the count costs, its count subquery explained alone.
- **As the service runs them**: each statement is explained inside
  \`BEGIN; set_config('app.organization_id', <org>, true); SET LOCAL ROLE agency_app\` — row-level
  security on, exactly like \`tenantTx\` — with its parameters bound (a custom plan; the service
  sends named prepared statements, whose first five executions get custom plans too), after two
  warm-up executions, with \`EXPLAIN (ANALYZE, BUFFERS)\`.
  The last column of the summaries is the same statement explained as the database owner (RLS
  bypassed), to show what the indexes would do without it.
- Plans are trimmed to the nodes (cost estimates dropped, actual time and rows kept), their
  conditions and filters, the top node's buffers, and the planning and execution times.

## What the plans show

### 1. Every sort is an index order

Sorts in the summaries marked \`Sort (top-N)\` without any filter: ${unsortedByIndex.join('; ') || 'none'}.

The sort indexes are declared in the order the statements ask for, so a page is the first rows of
an index scan, forward or backward: \`(organization_id, created_at, id)\` serves \`created_at DESC, id
DESC\` backward and \`ASC, ASC\` forward (drizzle-kit writes \`t.createdAt.desc()\` as \`DESC NULLS
LAST\`, which matched neither); price sorts on \`price_value\` without a NULLS clause (NOT NULL);
\`area DESC NULLS LAST, id DESC\` has its own index. The back office's
\`properties_organization_id_created_at_idx\`, the featured index and
\`contacts_organization_id_created_at_idx\` got the same fix (migration \`0005_portal_perf\`).

### 2. Under row-level security, only leakproof conditions can use an index

PostgreSQL applies a row-level security policy before any condition of the query that is not
**leakproof** (a function that could reveal its arguments through an error or a side effect), and a
condition that must wait for the policy cannot be an index condition
(\`restriction_is_securely_promotable\` in the planner). \`tenant_isolation\` is such a policy, so the
planner may only search an index with leakproof conditions. The operators involved:

| operator | operand types | function | leakproof |
| --- | --- | --- | --- |
${leaks.map((l) => `| \`${l.operator}\` | ${l.types} | ${l.fn} | ${l.leakproof ? 'yes' : '**no**'} |`).join('\n')}

What the statements do about it (RLS stays on for every portal request):

- **The agency** (\`organization_id = $1\`, text equality) is an index condition of every plan, on a
  tenant-leading partial index (\`WHERE status = 'ACTIVE' AND published_on_portal\`): a request reads
  at most one agency's visible stock, never other agencies' rows.
- **Price and area** are compared on \`price_value\`/\`area_value\`, float8 columns generated from the
  numeric ones (float8 comparisons are leakproof): ranges are index conditions.
- **City and neighbourhood**: a substring test (\`LIKE\`) cannot be leakproof, but it matches only a
  few of the agency's distinct values. The statement finds them first (a loose index scan of the
  agency's distinct folded values: one index probe per value, \`>\` on text is leakproof, then \`LIKE\`
  on those few values), and filters with \`search_city = ANY(ARRAY(...))\` (text equality): an index
  condition on \`(organization_id, search_city, price_value, id)\`, with the price cap.
- **Filters in an index condition of the count, in at least one data shape**: ${byService('index').join('; ') || 'none'}.
- **Filters still evaluated as a Filter over the agency's visible rows, in at least one data shape**:
  ${byService('filter').join('; ') || 'none'}. \`q\` uses \`LIKE\` on the whole text and the amenity flags \`@>\`
  (\`arraycontains\`): no leakproof operator serves them, so they read the agency's visible stock
  (cheap at ~1,000 listings, a sequential scan of ~85,000 at 100,000 in one agency: second table). A
  filter that is an index condition only in the count may still walk the sort index for the page:
  the planner's choice, cheap either way (execution column).

### 3. The count is exact up to 10,000 matches: it costs what those matches cost

\`meta.total\` is \`count(*)\` of the matches, read at most 10,001 deep (decision 0229: past 10,000 it is a
lower bound with \`meta.totalIsLowerBound: true\`). With the filters in index conditions it is an
index-only scan of the matching entries (the visibility map set, as autovacuum leaves it), a few
microseconds per thousand matches: sub-millisecond for an agency of ~1,000 listings, 3-10 ms for
4,000-10,000 matches or more. Until 2026-11-27 the count was not capped and cost 3-45 ms for
4,000-85,000 matches in one agency of 100,000 listings (second table), ~38 ms for ~150,000 at 1M.

## What was changed, and what is left

Migration \`0005_portal_perf\` and the stores (\`properties.store.ts\`, \`contacts.store.ts\`,
\`finder.store.ts\`, \`src/db/database.ts\`):

1. Sort indexes in the statements' order (§1).
2. \`price_value\`/\`area_value\` (generated float8) with the portal's price, area, type, bedrooms and
   bathrooms indexes on them; the finder's price cap bounds \`price_value\` too (§2).
3. City and neighbourhood resolved to the agency's exact folded values, then \`= ANY(...)\` on
   \`properties_portal_city_idx\`/\`_neighborhood_idx\` (the trigram indexes on those two columns, used
   only without RLS, were dropped).
4. The page selects only what the portal returns (no internal notes, custom fields, exact location
   or search columns).
5. Page and count in one statement (\`countOf\`/\`totalOf\` in \`src/db/database.ts\`): a read is three
   round trips (the transaction frame, the statement, \`COMMIT\`) instead of four; the contacts list too.
6. Named prepared statements on PostgreSQL (\`serviceConnection\` in \`src/db/pg-statements.ts\`): each
   distinct statement text is parsed, rewritten and, once PostgreSQL's plan cache judges a generic
   plan as good, planned once per connection (planning was ~40 % of the portal's database time).
7. The statement is compiled once per filter shape, not per request (\`StatementCache\` in
   \`src/db/statements.ts\`; docs/decisions/0091-sql-compiled-once-per-shape.md): drizzle's compilation was ~450 µs of Node CPU per listing.
8. The transaction's opening rides with its first statement once that statement is prepared on the
   connection (\`BEGIN; <prelude>; EXECUTE s_...(<literals>)\` in one message, \`src/db/pg-statements.ts\`;
   docs/decisions/0228-opening-with-the-first-statement.md): a read is two round trips, not three.

9. The count stops at 10,001 matches (\`countOf\`, decision 0229): past 10,000 \`meta.total\` is a lower
   bound flagged \`meta.totalIsLowerBound\`, so a search in one agency of 1M listings counts what a search
   in an agency of 10,000 counts.

Left: \`q\` and the amenity flags in a very large agency (a Filter over its stock).

## Summary: ${datasets[0]?.title ?? ''}

${datasets[0] ? summary(datasets[0]) : ''}

## Summary: ${datasets[1]?.title ?? ''}

${datasets[1] ? summary(datasets[1]) : ''}

## The statement

Every statement has the same select list, count subquery shape and join; only the \`where\`, \`order by\` and the
parameters change (shown with each plan in the plans file, below). The first case in full:

\`\`\`sql
${first?.items.text ?? ''}
-- ${JSON.stringify(first?.items.values ?? [])}
${first?.count.text ?? ''}
-- ${JSON.stringify(first?.count.values ?? [])}
\`\`\`

## The plans

Every case's plan (\`EXPLAIN (ANALYZE, BUFFERS)\`, trimmed as above, with its statement's \`where\`,
\`order by\` and parameters) is written by the same command next to its JSON result, as
\`bench/results/explain-<time>.plans.md\`: this page keeps today's summaries, the plans of a run are one
command away, and their history is in git and the changelog.
`;
}

/** Every case's plan, by data shape: the file written next to the run's JSON result. */
function plansDocument(datasets: readonly Dataset[]): string {
  return `# The portal listing's SQL plans\n\n${datasets.map((d) => `## Plans: ${d.title}\n\n${plans(d)}`).join('\n\n')}\n`;
}

async function run(args: string[]): Promise<void> {
  if (args.includes('--help') || args.includes('-h')) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const check = args.includes('--check');
  const unknown = args.filter((arg) => arg !== '--check');
  if (unknown.length > 0)
    throw new UsageError(`explain takes no options but --check (got ${unknown.join(' ')})\n\n${USAGE}`);
  const serverUrl = requireDatabaseUrl('explain');
  const startedAt = new Date();
  const log = (line: string) => process.stdout.write(`${line}\n`);
  const shapes = check ? CHECK_SHAPES : SHAPES;
  const datasets: Dataset[] = [];
  let version = '';
  let leaks: LeakRow[] = [];
  for (const shape of shapes) {
    log(`explain: ${shape.title}`);
    const stack = await startPortalStack({
      serverUrl,
      organizations: shape.organizations,
      perOrg: shape.perOrg,
      keys: 0,
      keyOrganizations: 1,
      log,
    });
    try {
      const organization = stack.organizations[0];
      if (!organization) throw new Error('no organization');
      const client = new pg.Client({ connectionString: stack.database.url });
      await client.connect();
      try {
        version =
          (await client.query<{ v: string }>("SELECT current_setting('server_version') AS v")).rows[0]?.v ??
          '';
        const visible = await client.query<{ n: string }>(
          `SELECT count(*) AS n FROM properties WHERE organization_id = $1 AND status = 'ACTIVE' AND published_on_portal`,
          [organization.id],
        );
        leaks = (
          await client.query<LeakRow>(
            `SELECT o.oprname AS operator, format_type(o.oprleft, NULL) || ', ' || format_type(o.oprright, NULL) AS types,
                    p.proname AS fn, p.proleakproof AS leakproof
             FROM pg_operator o JOIN pg_proc p ON p.oid = o.oprcode
             WHERE (o.oprname, o.oprleft::regtype::text, o.oprright::regtype::text) IN (
               ('=', 'text', 'text'), ('=', 'boolean', 'boolean'), ('>=', 'integer', 'integer'),
               ('<=', 'numeric', 'numeric'), ('>=', 'numeric', 'numeric'), ('>=', 'double precision', 'double precision'),
               ('<=', 'double precision', 'double precision'), ('~~', 'text', 'text'), ('@>', 'anyarray', 'anyarray'))
             ORDER BY p.proleakproof DESC, o.oprname`,
          )
        ).rows;
        const home = citiesOf(0)[0] ?? '';
        log(`  explaining ${cases(home).length} query strings`);
        datasets.push({
          ...shape,
          visibleStock: Number(visible.rows[0]?.n ?? 0),
          results: await runCases(stack.database.url, organization.id, cases(home)),
        });
      } finally {
        await client.end();
      }
    } finally {
      await stack.stop();
    }
  }
  const info = machine();
  // Formatted as `npm run lint` (prettier --check .) expects it, with the repository's settings.
  const markdown = document(datasets, leaks, {
    version,
    commit: info.gitCommit,
    date: startedAt.toISOString().slice(0, 10),
  });
  const settings = (await prettier.resolveConfig(DOC)) ?? {};
  const page = await prettier.format(markdown, { ...settings, filepath: DOC });
  const planPage = plansDocument(datasets);
  if (check) {
    const cases = datasets.reduce((sum, d) => sum + d.results.length, 0);
    log(
      `checked: ${cases} cases recorded (one statement each, its count subquery found) and explained with and ` +
        `without RLS; docs/performance.md and the plans made (${page.split('\n').length} and ` +
        `${planPage.split('\n').length} lines), not written`,
    );
    return;
  }
  writeFileSync(DOC, page);
  const file = writeResult('explain', startedAt, {
    scenario: 'explain',
    startedAt: startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    machine: info,
    datasets: datasets.map((d) => ({
      title: d.title,
      visibleStock: d.visibleStock,
      cases: d.results.map((r) => ({
        name: r.name,
        qs: r.qs,
        total: r.total,
        rls: {
          items: r.rls.items.indexes,
          count: r.rls.count.indexes,
          servedItems: served(r, r.rls.items),
          servedCount: served(r, r.rls.count),
          ms: [r.rls.items.executionMs, r.rls.count.executionMs],
        },
        noRls: {
          items: r.noRls.items.indexes,
          count: r.noRls.count.indexes,
          ms: [r.noRls.items.executionMs, r.noRls.count.executionMs],
        },
      })),
    })),
  });
  const plansFile = file.replace(/\.json$/, '.plans.md');
  writeFileSync(plansFile, planPage);
  log(`written ${DOC}\nwritten ${file}\nwritten ${plansFile}`);
}

export const scenario: Scenario = {
  description:
    'EXPLAIN (ANALYZE, BUFFERS) of every GET /v1/properties filter and sort at 100k -> docs/performance.md',
  run,
  check: ['--check'],
};
