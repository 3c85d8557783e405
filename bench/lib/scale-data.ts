/**
 * The scale data set: organizations through the admin API (the service makes their test twins),
 * then agents, properties, contacts and portal analytics events streamed from Node with COPY
 * (bench/lib/copy.ts, rows from bench/lib/scale-recipes.ts), the daily analytics aggregates
 * computed from the raw events, statistics and the visibility map. A database made this way keeps
 * a manifest (schema `bench_scale`: the size, the organizations by index, the load's figures), so
 * scenarios run on it with `--database <name>` instead of loading their own stock.
 */
import pg from 'pg';
import { adminClient, type BenchOrganization } from './admin-client.ts';
import { withDatabase, type BenchDatabase } from './bench-database.ts';
import { copyInto } from './copy.ts';
import { searchText as contactSearchText } from '../../src/features/contacts/contacts.service.ts';
import { createOrganizations, verifyDerivedColumns } from './portal-data.ts';
import {
  AGENT_COLUMNS,
  agentRows,
  ANALYTICS_COLUMNS,
  analyticsRows,
  CONTACT_COLUMNS,
  contactRows,
  loadExpTable,
  PROPERTY_COLUMNS,
  propertyRows,
} from './scale-recipes.ts';
import { UsageError } from './scenario.ts';

export interface ScaleSize {
  orgs: number;
  propertiesPerOrg: number;
  contactsPerOrg: number;
  eventsPerOrg: number;
}

/**
 * during: the migrated indexes and foreign-key checks stay live while rows arrive (the service's
 * own state throughout). after: the bulk tables' secondary indexes are dropped first and rebuilt
 * from their saved definitions after the COPY, foreign keys are checked by one query per key
 * afterwards instead of one trigger per row (needs a superuser: session_replication_role).
 */
export type IndexMode = 'during' | 'after';

export interface PhaseFigure {
  phase: string;
  /** Rows written; null for phases that write none (indexes, checks, VACUUM). */
  rows: number | null;
  seconds: number;
  rowsPerSecond: number | null;
}

export interface ScaleSummary {
  size: ScaleSize;
  indexes: IndexMode;
  anchor: string;
  phases: PhaseFigure[];
  totalSeconds: number;
  tableBytes: Record<string, number>;
}

export interface GeneratedDatabase {
  name: string;
  url: string;
  size: ScaleSize;
  organizations: Array<{ idx: number; id: string }>;
  summary: ScaleSummary | null;
}

const BULK_TABLES = ['agents', 'properties', 'contacts', 'analytics_events', 'analytics_daily'];
const MANIFEST_SCHEMA = 'bench_scale';

/** Foreign keys of the bulk tables, checked by one anti-join each when the triggers were off. */
const FOREIGN_KEYS: Array<[table: string, column: string, target: string]> = [
  ['agents', 'organization_id', 'organizations'],
  ['properties', 'organization_id', 'organizations'],
  ['properties', 'agent_id', 'agents'],
  ['contacts', 'organization_id', 'organizations'],
  ['contacts', 'owner_id', 'agents'],
  ['analytics_events', 'organization_id', 'organizations'],
  ['analytics_daily', 'organization_id', 'organizations'],
  ['organization_counters', 'organization_id', 'organizations'],
];

interface SavedIndex {
  name: string;
  definition: string;
}

/** Secondary indexes (not backing a primary key or constraint) of the bulk tables. */
async function secondaryIndexes(client: pg.Client): Promise<SavedIndex[]> {
  const { rows } = await client.query<SavedIndex>(
    `SELECT c.relname AS name, pg_get_indexdef(i.indexrelid) AS definition
     FROM pg_index i
     JOIN pg_class c ON c.oid = i.indexrelid
     JOIN pg_class t ON t.oid = i.indrelid
     WHERE t.relname = ANY($1) AND t.relnamespace = 'public'::regnamespace
       AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = i.indexrelid)
     ORDER BY t.relname, c.relname`,
    [BULK_TABLES],
  );
  return rows;
}

/** Midnight UTC of today, in microseconds: contacts and events lie before it. */
function todayMicros(): number {
  const now = new Date();
  return Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()) * 1000;
}

export interface GenerateOptions {
  databaseUrl: string;
  /** The service running on that database (for the admin API). */
  serviceUrl: string;
  size: ScaleSize;
  indexes: IndexMode;
  log: (line: string) => void;
}

/**
 * Loads the data set into a freshly migrated database (the service at `serviceUrl` migrated it)
 * and records its manifest; answers the figures of each phase.
 */
export async function generateScaleData(options: GenerateOptions): Promise<ScaleSummary> {
  const { size, log } = options;
  const phases: PhaseFigure[] = [];
  const started = performance.now();
  const timed = async (phase: string, work: () => Promise<number | null>) => {
    const at = performance.now();
    const rows = await work();
    const seconds = (performance.now() - at) / 1000;
    const figure: PhaseFigure = {
      phase,
      rows,
      seconds: Number(seconds.toFixed(1)),
      rowsPerSecond: rows === null ? null : Math.round(rows / Math.max(seconds, 0.001)),
    };
    phases.push(figure);
    log(
      `  ${phase.padEnd(36)} ${(rows === null ? '' : `${rows.toLocaleString('en')} rows`).padStart(16)}` +
        `${figure.seconds.toFixed(1).padStart(8)} s` +
        `${figure.rowsPerSecond === null ? '' : `${figure.rowsPerSecond.toLocaleString('en').padStart(11)} rows/s`}`,
    );
  };

  let organizations: BenchOrganization[] = [];
  await timed('organizations (admin API)', async () => {
    organizations = await createOrganizations(options.serviceUrl, size.orgs, { concurrency: 4 });
    return organizations.length;
  });
  const orgs = organizations.map((o, idx) => ({ idx, id: o.id }));
  const anchorMicros = todayMicros();

  const client = new pg.Client({ connectionString: options.databaseUrl, application_name: 'bench-generate' });
  await client.connect();
  try {
    await client.query(`CREATE SCHEMA ${MANIFEST_SCHEMA}`);
    await client.query(
      `CREATE TABLE ${MANIFEST_SCHEMA}.organizations (idx int PRIMARY KEY, id text NOT NULL UNIQUE)`,
    );
    await client.query(
      `CREATE TABLE ${MANIFEST_SCHEMA}.manifest (only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
         size jsonb NOT NULL, summary jsonb, generated_at timestamptz NOT NULL DEFAULT now())`,
    );
    await client.query(
      `INSERT INTO ${MANIFEST_SCHEMA}.organizations SELECT * FROM unnest($1::int[], $2::text[])`,
      [orgs.map((o) => o.idx), orgs.map((o) => o.id)],
    );
    await client.query(`INSERT INTO ${MANIFEST_SCHEMA}.manifest (size) VALUES ($1)`, [JSON.stringify(size)]);
    // This session's sorts: index builds (server default 64 MB) and the daily aggregation (4 MB).
    await client.query(`SET maintenance_work_mem = '1GB'`);
    await client.query(`SET work_mem = '256MB'`);

    const { rows: roles } = await client.query<{ rolsuper: boolean }>(
      'SELECT rolsuper FROM pg_roles WHERE rolname = current_user',
    );
    const triggersOff = options.indexes === 'after' && roles[0]?.rolsuper === true;
    const saved = options.indexes === 'after' ? await secondaryIndexes(client) : [];
    if (saved.length > 0) {
      for (const index of saved) await client.query(`DROP INDEX ${index.name}`);
      log(
        `  dropped ${saved.length} secondary indexes of ${BULK_TABLES.join(', ')} (rebuilt after the COPY)`,
      );
    }
    // Foreign-key triggers off: each row of a COPY would otherwise look its organization up once.
    if (triggersOff) await client.query(`SET session_replication_role = replica`);

    const exp = await loadExpTable((text) => client.query(text));
    await timed('agents (COPY)', () => copyInto(client, 'agents', AGENT_COLUMNS, agentRows(orgs)));
    await timed('properties (COPY)', () =>
      copyInto(client, 'properties', PROPERTY_COLUMNS, propertyRows(orgs, size.propertiesPerOrg, exp)),
    );
    await timed('contacts (COPY)', () =>
      copyInto(client, 'contacts', CONTACT_COLUMNS, contactRows(orgs, size.contactsPerOrg, anchorMicros)),
    );
    // The codes the service gives new contacts continue after the generated ones.
    if (size.contactsPerOrg > 0)
      await client.query(
        `INSERT INTO organization_counters (organization_id, name, value)
         SELECT id, 'contact', $1 FROM ${MANIFEST_SCHEMA}.organizations`,
        [size.contactsPerOrg],
      );
    await timed('analytics_events (COPY)', () =>
      copyInto(
        client,
        'analytics_events',
        ANALYTICS_COLUMNS,
        analyticsRows(orgs, size.eventsPerOrg, size.propertiesPerOrg, anchorMicros),
      ),
    );
    // The aggregates the reports read, from the raw rows (what appendEvents keeps in step).
    await timed('analytics_daily (INSERT ... SELECT)', async () => {
      const result = await client.query(
        `INSERT INTO analytics_daily (organization_id, day, property_id, type, count)
         SELECT organization_id, (occurred_at AT TIME ZONE 'UTC')::date, coalesce(property_id, ''), type, count(*)
         FROM analytics_events GROUP BY 1, 2, 3, 4`,
      );
      return result.rowCount ?? 0;
    });
    if (triggersOff) await client.query(`SET session_replication_role = origin`);

    if (saved.length > 0) {
      await timed(`${saved.length} secondary indexes rebuilt`, async () => {
        for (const index of saved) await client.query(index.definition);
        return null;
      });
      const rebuilt = await secondaryIndexes(client);
      if (JSON.stringify(rebuilt) !== JSON.stringify(saved))
        throw new Error('the rebuilt indexes differ from the migrated ones');
    }
    if (triggersOff) {
      await timed(`${FOREIGN_KEYS.length} foreign keys checked`, async () => {
        for (const [table, column, target] of FOREIGN_KEYS) {
          const { rows } = await client.query<{ missing: number }>(
            `SELECT count(*)::int AS missing FROM ${table} r
             WHERE r.${column} IS NOT NULL AND NOT EXISTS (SELECT 1 FROM ${target} t WHERE t.id = r.${column})`,
          );
          if ((rows[0]?.missing ?? 0) > 0)
            throw new Error(`${rows[0]?.missing} rows of ${table}.${column} name no ${target} row`);
        }
        return null;
      });
    }
    await timed('VACUUM (ANALYZE)', async () => {
      for (const table of BULK_TABLES) await client.query(`VACUUM (ANALYZE) ${table}`);
      return null;
    });
    await verify(client, size, log);

    const { rows: sizes } = await client.query<{ table: string; bytes: string }>(
      `SELECT relname AS table, pg_total_relation_size(oid)::text AS bytes FROM pg_class
       WHERE relname = ANY($1) AND relnamespace = 'public'::regnamespace`,
      [BULK_TABLES],
    );
    const summary: ScaleSummary = {
      size,
      indexes: triggersOff || saved.length > 0 ? 'after' : 'during',
      anchor: new Date(anchorMicros / 1000).toISOString(),
      phases,
      totalSeconds: Number(((performance.now() - started) / 1000).toFixed(1)),
      tableBytes: Object.fromEntries(sizes.map((s) => [s.table, Number(s.bytes)])),
    };
    await client.query(`UPDATE ${MANIFEST_SCHEMA}.manifest SET summary = $1`, [JSON.stringify(summary)]);
    return summary;
  } finally {
    await client.end();
  }
}

const SAMPLE_ROWS = 2000;

/**
 * Read back after the load: each table holds the rows the size says, the daily aggregates add up
 * to the raw events, and a sample of properties and contacts has the derived columns the
 * application's own functions compute from the stored fields (what COPY's escaping must preserve).
 */
async function verify(client: pg.Client, size: ScaleSize, log: (line: string) => void): Promise<void> {
  const { rows } = await client.query<Record<string, string>>(
    `SELECT (SELECT count(*) FROM properties)::text AS properties, (SELECT count(*) FROM contacts)::text AS contacts,
            (SELECT count(*) FROM analytics_events)::text AS events,
            (SELECT coalesce(sum(count), 0) FROM analytics_daily)::text AS daily`,
  );
  const counts = rows[0] ?? {};
  const expected = {
    properties: size.orgs * size.propertiesPerOrg,
    contacts: size.orgs * size.contactsPerOrg,
    events: size.orgs * size.eventsPerOrg,
    daily: size.orgs * size.eventsPerOrg,
  };
  for (const [table, count] of Object.entries(expected))
    if (Number(counts[table]) !== count)
      throw new Error(`${table}: ${counts[table]} rows, expected ${count}`);
  await verifyDerivedColumns(client, log, SAMPLE_ROWS);
  const { rows: contacts } = await client.query<{
    id: string;
    first_name: string;
    last_name: string;
    email: string | null;
    phone: string | null;
    search_text: string;
  }>(
    `SELECT id, first_name, last_name, email, phone, search_text FROM contacts ORDER BY md5(id) LIMIT ${SAMPLE_ROWS}`,
  );
  const wrong = contacts.filter(
    (c) =>
      contactSearchText({
        firstName: c.first_name,
        lastName: c.last_name,
        email: c.email,
        phone: c.phone,
      }) !== c.search_text,
  );
  if (wrong.length > 0)
    throw new Error(`contacts.search_text differs from the service's for ${wrong[0]?.id}`);
  log(
    `  contacts.search_text of a sample of ${contacts.length.toLocaleString('en')} rows matches the service's`,
  );
}

/** The manifest of a generated database, or a UsageError saying how to make one. */
export async function openGeneratedDatabase(serverUrl: string, name: string): Promise<GeneratedDatabase> {
  const url = withDatabase(serverUrl, name);
  const client = new pg.Client({ connectionString: url });
  try {
    await client.connect();
  } catch (error) {
    throw new UsageError(
      `--database ${name}: cannot connect (${(error as Error).message}); make it with\n` +
        `  npm run bench -- generate --database ${name} ...`,
    );
  }
  try {
    const { rows: present } = await client.query<{ present: boolean }>(
      `SELECT to_regclass('${MANIFEST_SCHEMA}.manifest') IS NOT NULL AS present`,
    );
    if (!present[0]?.present)
      throw new UsageError(`--database ${name} was not made by \`npm run bench -- generate\` (no manifest)`);
    const { rows } = await client.query<{ size: ScaleSize; summary: ScaleSummary | null }>(
      `SELECT size, summary FROM ${MANIFEST_SCHEMA}.manifest`,
    );
    const manifest = rows[0];
    if (!manifest?.summary)
      throw new UsageError(`--database ${name}: its generation did not finish (no summary in the manifest)`);
    const { rows: organizations } = await client.query<{ idx: number; id: string }>(
      `SELECT idx, id FROM ${MANIFEST_SCHEMA}.organizations ORDER BY idx`,
    );
    return { name, url, size: manifest.size, organizations, summary: manifest.summary };
  } finally {
    await client.end();
  }
}

/** A generated database as a scenario's database: kept at the end (`drop` does nothing). */
export function keptDatabase(generated: GeneratedDatabase): BenchDatabase {
  return { name: generated.name, url: generated.url, drop: async () => undefined };
}

/**
 * The organizations of a generated database in index order, as the admin API shows them: the
 * first `count` read through it (and given `writeLimitPerMinute` when asked, for write scenarios:
 * the change stays in the database, harmless for later runs), the others from the manifest alone.
 */
export async function generatedOrganizations(
  serviceUrl: string,
  generated: GeneratedDatabase,
  count: number,
  writeLimitPerMinute?: number,
): Promise<BenchOrganization[]> {
  const admin = adminClient(serviceUrl);
  const organizations: BenchOrganization[] = [];
  for (const { idx, id } of generated.organizations) {
    if (idx >= count) {
      organizations.push({ id, name: '', testOrganizationId: null, effectiveWriteLimitPerMinute: 0 });
      continue;
    }
    const path = `/admin/v1/organizations/${id}`;
    organizations.push(
      writeLimitPerMinute === undefined
        ? await admin.get<BenchOrganization>(path)
        : await admin.patch<BenchOrganization>(path, { writeLimitPerMinute }),
    );
  }
  return organizations;
}
