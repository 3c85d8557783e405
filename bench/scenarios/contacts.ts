/**
 * Scenario `contacts`: GET /v1/contacts?q= (secret keys) of the service on PostgreSQL with 1,000
 * organizations x 1,000 contacts, against a bare Fastify route on pg with its own hand-written SQL
 * and mapping (bench/lib/contacts-sql-server.ts; with `--baseline self`, the service's own
 * listContacts on a plain pool: bench/lib/contacts-bare-server.ts), in paired rounds; also
 * EXPLAIN (ANALYZE, BUFFERS) of the list and count statements at that size. See bench/README.md.
 */
import pg from 'pg';
import type { AutocannonRequest } from 'autocannon';
import { adminClient, request } from '../lib/admin-client.ts';
import { createBenchDatabase, requireDatabaseUrl } from '../lib/bench-database.ts';
import { startChild, type ChildServer } from '../lib/child.ts';
import type { ContactsBareServerOptions } from '../lib/contacts-bare-server.ts';
import { entry, KEY_LIMIT_PER_MINUTE, POOL_SIZE, profileDirFor } from '../lib/portal-stack.ts';
import { measureAgainstBaseline } from '../lib/against-baseline.ts';
import type { BarePgRouteOptions } from '../lib/bare-pg-route.ts';
import { machine, RESULTS_DIR, writeResult } from '../lib/report.ts';
import {
  BASELINE_USAGE,
  baselineKind,
  DATABASE_USAGE,
  LOAD_USAGE,
  parseScaleArguments,
  UsageError,
  type Scenario,
} from '../lib/scenario.ts';
import { keptDatabase, openGeneratedDatabase } from '../lib/scale-data.ts';
import type { ServiceServerOptions } from '../lib/service-server.ts';
import {
  CONTACT_SOURCES,
  CONTACT_STATUSES,
  CONTACT_TYPES,
} from '../../src/features/contacts/contacts.schema.ts';
import { fold } from '../../src/platform/text/fold.ts';
import { DOMAINS, FIRST, LAST, phoneOf } from '../lib/contacts-data.ts';
import { BASELINE_LABELS, baselineVerdict } from '../lib/verdict.ts';

const TARGET_P99_MS = 50;
const DEFAULTS = { orgs: 1000, perOrg: 1000, keys: 16 };
/** `--check`: two agencies; 520 contacts each, so the phone term (contact 500 + i) finds its contact. */
const CHECK_SCALE = { orgs: 2, perOrg: 520, keys: 2 };

// Every accented letter of the names, and its folded form (as fold() in the app).
const ACCENTED = [...new Set([...FIRST, ...LAST].join('').split(''))]
  .filter((c) => fold(c) !== c.toLowerCase())
  .join('');
const ACC_FROM = ACCENTED + ACCENTED.toUpperCase();
const ACC_TO = [...ACC_FROM].map(fold).join('');

const USAGE = `Usage: DATABASE_URL=postgres://USER@HOST:PORT/DB npm run bench -- contacts [options]

GET /v1/contacts?q=&pageSize=20 (secret keys) of the service vs a bare Fastify route on pg, on a fresh
database dropped at the end.
${LOAD_USAGE}
${BASELINE_USAGE}
  --orgs N         organizations (default ${DEFAULTS.orgs}; ${DEFAULTS.keys} through the admin API, the rest SQL)
  --per-org N      contacts per organization (default ${DEFAULTS.perOrg})
  --keys N         secret keys, one per organization (default ${DEFAULTS.keys})
${DATABASE_USAGE}`;

const sqlArray = (values: readonly string[]) =>
  `ARRAY[${values.map((v) => `'${v.replace(/'/g, "''")}'`).join(',')}]`;
const pick = (array: string, hash: string, length: number) => `(${array})[1 + (${hash} % ${length})]`;

async function loadContacts(url: string, orgIds: string[], perOrg: number, log: (l: string) => void) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const started = Date.now();
    await client.query('CREATE TEMP TABLE bench_orgs (idx int, id text)');
    await client.query(
      'INSERT INTO bench_orgs SELECT i - 1, id FROM unnest($1::text[]) WITH ORDINALITY AS t(id, i)',
      [orgIds],
    );
    const first = sqlArray(FIRST);
    const last = sqlArray(LAST);
    const f = pick(first, 'h1', FIRST.length);
    const l = pick(last, 'h2', LAST.length);
    const fk = `lower(translate(${f}, $1, $2))`;
    const lk = `lower(translate(${l}, $1, $2))`;
    await client.query(
      `INSERT INTO contacts (id, organization_id, code, first_name, last_name, email, email_key, phone,
         source, status, type, score, search_text, created_at, updated_at)
       SELECT 'ct_' || substr(md5(o.id || ':' || n), 1, 24), o.id, 'CT-' || lpad(n::text, 6, '0'),
         ${f}, ${l}, e.email, e.email, p.phone,
         ${pick(sqlArray(CONTACT_SOURCES), 'h3', CONTACT_SOURCES.length)},
         ${pick(sqlArray(CONTACT_STATUSES), 'h4', CONTACT_STATUSES.length)},
         ${pick(sqlArray(CONTACT_TYPES), 'h5', CONTACT_TYPES.length)},
         h3 % 100,
         ${fk} || ' ' || ${lk} || ' ' || e.email || ' ' || p.phone,
         now() - make_interval(secs => h6 % (730 * 86400)), now()
       FROM bench_orgs o CROSS JOIN generate_series(1, ${perOrg}) n
       CROSS JOIN LATERAL (SELECT abs(hashtext(o.id || 'a' || n)) h1, abs(hashtext(o.id || 'b' || n)) h2,
         abs(hashtext(o.id || 'c' || n)) h3, abs(hashtext(o.id || 'd' || n)) h4,
         abs(hashtext(o.id || 'e' || n)) h5, abs(hashtext(o.id || 'f' || n)) h6) h
       CROSS JOIN LATERAL (SELECT ${fk} || '.' || ${lk} || n || '@' ||
         ${pick(sqlArray(DOMAINS), 'h6', DOMAINS.length)} AS email) e
       CROSS JOIN LATERAL (SELECT '+346' || lpad((o.idx * 37 + n * 9973)::text, 8, '0') AS phone) p`,
      [ACC_FROM, ACC_TO],
    );
    // Statistics and the visibility map, as autovacuum leaves a table after a bulk insert.
    await client.query('VACUUM (ANALYZE) contacts');
    log(
      `loaded ${(orgIds.length * perOrg).toLocaleString('en')} contacts + VACUUM (ANALYZE) in ${((Date.now() - started) / 1000).toFixed(0)} s`,
    );
  } finally {
    await client.end();
  }
}

/**
 * Write scenarios (finder, leads, fanout, soak) add contacts to a generated database. The contacts
 * search is an index-only scan that skips the heap only where VACUUM has set the visibility map;
 * with autovacuum on, migration 0009 has `contacts` vacuumed after 1 % new rows. Where the server
 * runs with autovacuum off (this machine's PostgreSQL does), the scenario vacuums the table itself
 * once it is past that threshold, and says so.
 */
async function vacuumLikeAutovacuum(databaseUrl: string, log: (line: string) => void): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ autovacuum: string; inserted: string; live: string }>(
      `SELECT current_setting('autovacuum') AS autovacuum, n_ins_since_vacuum AS inserted, n_live_tup AS live
       FROM pg_stat_user_tables WHERE relname = 'contacts'`,
    );
    const row = rows[0];
    if (!row) return;
    const inserted = Number(row.inserted);
    const threshold = 1000 + 0.01 * Number(row.live);
    if (row.autovacuum === 'on' || inserted <= threshold) return;
    const started = Date.now();
    await client.query('VACUUM (ANALYZE) contacts');
    log(
      `autovacuum is off on this server and ${inserted.toLocaleString('en')} contacts were added since the last vacuum ` +
        `(threshold ${Math.round(threshold).toLocaleString('en')}): VACUUM (ANALYZE) contacts as autovacuum would (${((Date.now() - started) / 1000).toFixed(1)} s)`,
    );
  } finally {
    await client.end();
  }
}

async function run(args: string[]): Promise<void> {
  const { load, help, scale, text } = parseScaleArguments(
    args,
    DEFAULTS,
    { baseline: { type: 'string' } },
    CHECK_SCALE,
  );
  if (help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const kind = baselineKind(text('baseline'));
  const serverUrl = requireDatabaseUrl('contacts');
  const { orgs, perOrg } = scale;
  const keyCount = Math.min(orgs, scale.keys);
  const startedAt = new Date();
  const profileDir = profileDirFor(RESULTS_DIR, 'contacts', startedAt);
  const profile = (name: string) =>
    load.profile ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}/${name}`] : [];
  const log = (line: string) => process.stdout.write(`${line}\n`);
  log(
    `contacts: ${orgs} organizations x ${perOrg} contacts, ${load.check ? 'check only' : `${load.rounds} x (baseline, service), -c ${load.connections} -d ${load.durationS} (+${load.warmupS} s warm-up)`}, ${keyCount} secret keys; baseline: ${BASELINE_LABELS[kind]}`,
  );
  const generated =
    scale.database === undefined ? null : await openGeneratedDatabase(serverUrl, scale.database);
  const database = generated ? keptDatabase(generated) : await createBenchDatabase(serverUrl);
  let service: ChildServer | null = null;
  let baseline: ChildServer | null = null;
  try {
    service = await startChild<ServiceServerOptions>({
      name: 'service',
      entry: entry('service-server.ts'),
      options: { env: { DATABASE_URL: database.url } },
      nodeArgs: profile('service'),
    });
    const admin = adminClient(service.url);
    const secretKey = async (organizationId: string, i: number) => {
      const key = await admin.post<{ key: string; rateLimitPerMinute: number }>(
        `/admin/v1/organizations/${organizationId}/api-keys`,
        { type: 'secret', name: `bench ${i}`, rateLimitPerMinute: KEY_LIMIT_PER_MINUTE },
      );
      if (key.rateLimitPerMinute !== KEY_LIMIT_PER_MINUTE) throw new Error('key limit not raised');
      return { id: organizationId, key: key.key };
    };
    const keyed: Array<{ id: string; key: string }> = [];
    if (generated) {
      // The generated contacts of organization i have the phones phoneOf(i, n) the terms below use.
      if (generated.size.contactsPerOrg < 500 + keyCount)
        throw new UsageError(
          `--database ${generated.name} has ${generated.size.contactsPerOrg} contacts per organization; the phone terms need ${500 + keyCount}`,
        );
      for (const org of generated.organizations.slice(0, keyCount))
        keyed.push(await secretKey(org.id, org.idx));
      await vacuumLikeAutovacuum(database.url, log);
      log(
        `generated database ${generated.name}: ${generated.size.orgs} organizations x ${generated.size.contactsPerOrg} contacts; ` +
          `${keyed.length} secret keys through the admin API`,
      );
    } else {
      for (let i = 0; i < keyCount; i++) {
        const org = await admin.post<{ id: string }>('/admin/v1/organizations', {
          name: `Inmobiliaria CRM ${i + 1}`,
          plan: 'ENTERPRISE',
          defaultCountry: 'ES',
          defaultCurrency: 'EUR',
        });
        keyed.push(await secretKey(org.id, i));
      }
      const pgc = new pg.Client({ connectionString: database.url });
      await pgc.connect();
      // The other organizations: copies of the first one's row (live, no test twin, no keys).
      const template = keyed[0]?.id ?? '';
      await pgc.query(
        `INSERT INTO organizations
         SELECT (jsonb_populate_record(null::organizations, to_jsonb(o) || jsonb_build_object(
           'id', 'org_' || substr(md5('bench' || g), 1, 24), 'name', 'Inmobiliaria SQL ' || g,
           'live_organization_id', null))).*
         FROM organizations o, generate_series(1, $2::int) g WHERE o.id = $1`,
        [template, orgs - keyCount],
      );
      const others = (
        await pgc.query<{ id: string }>(
          `SELECT id FROM organizations WHERE name LIKE 'Inmobiliaria SQL %' ORDER BY id`,
        )
      ).rows.map((r) => r.id);
      await pgc.end();
      const orgIds = [...keyed.map((k) => k.id), ...others];
      log(
        `${keyCount} organizations (+ test twins, secret keys) through the admin API, ${others.length} by SQL`,
      );
      await loadContacts(database.url, orgIds, perOrg, log);
    }

    // q terms per key: a first-name piece as typed, an accented surname, an email fragment, phone digits.
    const requests: Array<AutocannonRequest & { path: string; headers: Record<string, string> }> = [];
    const terms = (i: number) => [
      FIRST[i % FIRST.length]?.slice(0, 4) ?? 'luc',
      LAST[(i * 7 + 13) % LAST.length] ?? 'Muñoz',
      `.${fold(LAST[(i * 3) % LAST.length] ?? '')}`,
      phoneOf(i, 500 + i).slice(-7, -1),
    ];
    for (let variant = 0; variant < 4; variant++)
      keyed.forEach((k, i) =>
        requests.push({
          method: 'GET',
          path: `/v1/contacts?q=${encodeURIComponent(terms(i)[variant] ?? '')}&pageSize=20`,
          headers: { 'x-api-key': k.key },
        }),
      );
    baseline = await startChild<ContactsBareServerOptions & BarePgRouteOptions>({
      name: 'baseline',
      entry: entry(kind === 'sql' ? 'contacts-sql-server.ts' : 'contacts-bare-server.ts'),
      options: {
        databaseUrl: database.url,
        poolSize: POOL_SIZE,
        keyOrganizations: Object.fromEntries(keyed.map((k) => [k.key, k.id])),
      },
      nodeArgs: profile('baseline'),
    });
    const totals: Record<string, number> = {};
    for (const r of requests) {
      const s = await request<{ meta: { total: number } }>(
        `${service.url}${r.path}`,
        { headers: r.headers },
        200,
      );
      const b = await request<unknown>(`${baseline.url}${r.path}`, { headers: r.headers }, 200);
      if (s.text !== b.text)
        throw new Error(
          `baseline body differs for ${r.path}:\n${b.text.slice(0, 2000)}\n${s.text.slice(0, 2000)}`,
        );
      if (s.body.meta.total === 0) throw new Error(`no match for ${r.path}`);
      totals[r.path.split('&')[0] ?? r.path] = s.body.meta.total;
    }
    log(
      `checked: ${requests.length} searches (first name, accented surname, e-mail piece, phone digits) answer 200 ` +
        `with a match and byte-identical bodies from the service and the baseline ` +
        `(${BASELINE_LABELS[kind]}); totals ${JSON.stringify(Object.values(totals))}`,
    );
    if (load.check) return;

    // EXPLAIN of the two statements (as drizzle sends them, under RLS) for one term of each kind.
    const explainer = new pg.Client({ connectionString: database.url });
    await explainer.connect();
    const explains: Record<string, string> = {};
    for (const q of terms(0)) {
      const word = /^[\d+\s().-]+$/.test(q) ? q.replace(/\D/g, '') : fold(q);
      for (const [label, statement] of [
        [
          'items',
          `SELECT * FROM contacts WHERE organization_id = $1 AND search_text LIKE $2 ORDER BY created_at DESC, id DESC LIMIT 20 OFFSET 0`,
        ],
        ['count', `SELECT count(*) FROM contacts WHERE organization_id = $1 AND search_text LIKE $2`],
      ] as const) {
        // As tenantTx runs it: row-level security on (role agency_app, the tenant set).
        await explainer.query(
          `BEGIN; SELECT set_config('app.organization_id', '${keyed[0]?.id}', true); SET LOCAL ROLE agency_app`,
        );
        const plan = await explainer.query(`EXPLAIN (ANALYZE, BUFFERS) ${statement}`, [
          keyed[0]?.id,
          `%${word}%`,
        ]);
        await explainer.query('ROLLBACK');
        explains[`${label} q=${q}`] = plan.rows.map((row) => row['QUERY PLAN'] as string).join('\n');
        log(`\nEXPLAIN ${label} q=${q}:\n${explains[`${label} q=${q}`]}`);
      }
    }
    await explainer.end();

    const measured = await measureAgainstBaseline(
      { name: 'baseline', url: baseline.url, pid: baseline.pid, requests },
      { name: 'service', url: service.url, pid: service.pid, requests },
      load,
      TARGET_P99_MS,
      log,
      BASELINE_LABELS[kind],
    );
    const file = writeResult('contacts', startedAt, {
      scenario: 'contacts',
      startedAt: startedAt.toISOString(),
      finishedAt: new Date().toISOString(),
      command: `npm run bench -- contacts ${args.join(' ')}`.trim(),
      machine: machine(),
      database: generated?.name ?? null,
      ...(load.profile ? { profiles: profileDir } : {}),
      settings: {
        ...load,
        organizations: orgs,
        perOrg,
        keys: keyCount,
        poolSize: POOL_SIZE,
        requests: requests.map((r) => r.path),
      },
      service: { pid: service.pid, ...service.info },
      baseline: { kind, label: BASELINE_LABELS[kind], pid: baseline.pid, ...baseline.info },
      summary: baselineVerdict({
        baseline: BASELINE_LABELS[kind],
        pairedRatio: measured.pairedRatio,
        rates: measured.rates,
        p99Ms: TARGET_P99_MS,
      }),
      totals,
      explains,
      ...measured,
    });
    log(`written ${file}`);
    if (measured.serviceFailures.non2xx > 0 || measured.serviceFailures.errors > 0) process.exitCode = 1;
  } finally {
    await baseline?.stop();
    await service?.stop();
    await database.drop();
  }
}

export const scenario: Scenario = {
  description:
    'GET /v1/contacts?q= on PostgreSQL (1,000 x 1,000 contacts) vs a hand-written SQL route (--baseline self: the service code)',
  run,
  check: ['--check'],
};
