/**
 * Scenario `properties`: GET /v1/properties (publishable keys; city + priceMax + sort by price) of
 * the service on PostgreSQL with 100 organizations x 1,000 properties, against a bare Fastify route
 * on pg with its own hand-written SQL and mapping (bench/lib/properties-sql-server.ts; with
 * `--baseline self`, the service's own search on a plain pool: bench/lib/bare-sql-server.ts),
 * alternately in one invocation; see bench/README.md.
 */
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fold } from '../../src/platform/text/fold.ts';
import { foldText, type BarePgRouteOptions } from '../lib/bare-pg-route.ts';
import { requireDatabaseUrl } from '../lib/bench-database.ts';
import type { BareSqlServerOptions } from '../lib/bare-sql-server.ts';
import { startChild, type ChildServer } from '../lib/child.ts';
import { request } from '../lib/admin-client.ts';
import {
  entry,
  listingRequests,
  POOL_SIZE,
  PRICE_MAXIMA,
  profileDirFor,
  startPortalStack,
  KEY_LIMIT_PER_MINUTE,
} from '../lib/portal-stack.ts';
import { machine, median, RESULTS_DIR, writeResult } from '../lib/report.ts';
import {
  failuresOf,
  highestRateUnder,
  mediansOf,
  pairedRounds,
  rateRuns,
  ratesTable,
  roundRatios,
  runsTable,
} from '../lib/rounds.ts';
import {
  BASELINE_USAGE,
  baselineKind,
  CHECK_SCALE,
  DATABASE_USAGE,
  LOAD_USAGE,
  parseScaleArguments,
  type Scenario,
} from '../lib/scenario.ts';
import type { CapturedStatement } from '../lib/sql-capture.ts';
import { BASELINE_LABELS, baselineVerdict } from '../lib/verdict.ts';

/** Issue 24: the listing at least as fast as the hand-written bare route (1.0 x). */
const TARGET_RATIO = 1.0;
const TARGET_P99_MS = 50;
const DEFAULTS = { orgs: 100, perOrg: 1000, keys: 16 };
/** The first requests of each server whose statements are captured and compared. */
const SQL_CHECKED_REQUESTS = 4;
const MATCH = 'from "properties"';

const USAGE = `Usage: DATABASE_URL=postgres://USER@HOST:PORT/DB npm run bench -- properties [options]

GET /v1/properties?city=&priceMax=&sortBy=price&sortOrder=asc of the service (child process) vs a bare
Fastify route on pg (child process), on a fresh PostgreSQL database (agency_bench_<pid>_<n>, created on
DATABASE_URL's server and dropped at the end).
${LOAD_USAGE}
${BASELINE_USAGE}
  --orgs N         organizations (default ${DEFAULTS.orgs})
  --per-org N      properties per organization (default ${DEFAULTS.perOrg})
  --keys N         publishable keys, one per organization from the first (default ${DEFAULTS.keys}),
                   each limited to ${KEY_LIMIT_PER_MINUTE}/min
${DATABASE_USAGE}
With --check: ${CHECK_SCALE.orgs} organizations x ${CHECK_SCALE.perOrg} properties and ${CHECK_SCALE.keys} keys unless given; every request
(and each again with lang=en) answers byte-identical bodies with matches from both servers.`;

const fmt = (value: number, digits = 3) => Number(value.toFixed(digits));

async function run(args: string[]): Promise<void> {
  const { load, help, scale, text } = parseScaleArguments(args, DEFAULTS, { baseline: { type: 'string' } });
  if (help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const kind = baselineKind(text('baseline'));
  const serverUrl = requireDatabaseUrl('properties');
  const { orgs, perOrg, keys: keyCount } = scale;
  const startedAt = new Date();
  const log = (line: string) => process.stdout.write(`${line}\n`);
  const profileDir = profileDirFor(RESULTS_DIR, 'properties', startedAt);
  const captureDir = join(tmpdir(), `agency-bench-sql-${process.pid}`);
  const captureFile = (name: string) => join(captureDir, `${name}.json`);
  const capture = (name: string) => ({
    file: captureFile(name),
    match: MATCH,
    // One statement per request: the page with its count (an uncorrelated subquery).
    limit: SQL_CHECKED_REQUESTS,
  });

  log(
    `properties${load.check ? ' --check' : ''}: ${orgs} organizations x ${perOrg} properties, ` +
      (load.check
        ? ''
        : `${load.rounds} x (baseline, service), -c ${load.connections} -d ${load.durationS} (+${load.warmupS} s warm-up), `) +
      `${keyCount} publishable keys; baseline: ${BASELINE_LABELS[kind]}`,
  );
  mkdirSync(captureDir, { recursive: true });
  const stack = await startPortalStack({
    serverUrl,
    database: scale.database,
    organizations: orgs,
    perOrg,
    keys: keyCount,
    keyOrganizations: keyCount,
    captureSql: capture('service'),
    nodeArgs: load.profile ? ['--cpu-prof', `--cpu-prof-dir=${join(profileDir, 'service')}`] : [],
    log,
  });
  let baseline: ChildServer | null = null;
  try {
    const requests = listingRequests(stack.keys, stack.organizations);
    const bare: BarePgRouteOptions = {
      databaseUrl: stack.database.url,
      poolSize: POOL_SIZE,
      keyOrganizations: Object.fromEntries(stack.keys.map((k) => [k.key, k.organizationId])),
    };
    const nodeArgs = load.profile ? ['--cpu-prof', `--cpu-prof-dir=${join(profileDir, 'baseline')}`] : [];
    if (kind === 'sql') {
      // The hand-written baseline folds the city itself: it must fold every city sent as the service does.
      for (const r of requests) {
        const city = new URL(r.path, 'http://bench').searchParams.get('city') ?? '';
        if (foldText(city) !== fold(city))
          throw new Error(`the baseline folds ${city} to ${foldText(city)}, the service to ${fold(city)}`);
      }
      baseline = await startChild<BarePgRouteOptions>({
        name: 'baseline',
        entry: entry('properties-sql-server.ts'),
        options: bare,
        nodeArgs,
      });
    } else {
      baseline = await startChild<BareSqlServerOptions>({
        name: 'baseline',
        entry: entry('bare-sql-server.ts'),
        options: { ...bare, captureSql: capture('baseline') },
        nodeArgs,
      });
    }

    // Same answer, byte for byte, for every request of the load; the first ones one at a time so
    // each server's captured statements are those of these requests, in order. Then the same requests
    // in the organizations' other language (not in the load): the English translations where a listing
    // has one (the "self" baseline's function is given no language, so only the hand-written one).
    const translated = kind === 'sql' ? requests.map((r) => ({ ...r, path: `${r.path}&lang=en` })) : [];
    let sample: { path: string; body: unknown; headers: Record<string, string> } | null = null;
    for (const r of [...requests, ...translated]) {
      const init = { headers: r.headers };
      const fromService = await request<{ meta: { total: number } }>(
        `${stack.service.url}${r.path}`,
        init,
        200,
      );
      const fromBaseline = await request<unknown>(`${baseline.url}${r.path}`, init, 200);
      if (fromService.text !== fromBaseline.text)
        throw new Error(
          `baseline body differs from the service's for ${r.path}:\n${fromBaseline.text}\n${fromService.text}`,
        );
      if (fromService.body.meta.total === 0)
        throw new Error(`no match for ${r.path}: the load would measure nothing`);
      sample ??= { path: r.path, body: fromService.body, headers: Object.fromEntries(fromService.headers) };
    }
    const statements = (name: string) =>
      JSON.parse(readFileSync(captureFile(name), 'utf8')) as CapturedStatement[];
    const serviceSql = statements('service');
    if (kind === 'self') {
      // Per request one statement (page and count), sent one request at a time: compare in order.
      const baselineSql = statements('baseline');
      const pairs = (list: CapturedStatement[]) => list.map((s) => JSON.stringify(s));
      if (JSON.stringify(pairs(serviceSql)) !== JSON.stringify(pairs(baselineSql)))
        throw new Error(
          `baseline statements differ from the service's:\n${JSON.stringify(baselineSql, null, 1)}\n${JSON.stringify(serviceSql, null, 1)}`,
        );
    }
    rmSync(captureDir, { recursive: true, force: true });
    log(
      `checked: ${requests.length} distinct requests${translated.length > 0 ? ` (and again with lang=en)` : ''} ` +
        `answer 200 with byte-identical bodies, each with matches, from the service and the ` +
        `baseline (${BASELINE_LABELS[kind]})` +
        (kind === 'self'
          ? `; the first ${SQL_CHECKED_REQUESTS} sent the same statements (text and parameters) from both servers`
          : ''),
    );
    if (load.check) return;

    const targets = [
      { name: 'baseline', url: baseline.url, pid: baseline.pid, requests },
      { name: 'service', url: stack.service.url, pid: stack.service.pid, requests },
    ];
    const runs = await pairedRounds(targets, load, log);
    const medians = { baseline: mediansOf(runs, 'baseline'), service: mediansOf(runs, 'service') };
    const rates = await rateRuns(targets, load, medians.baseline.reqPerSec, log);
    const p99HoldsUpTo = {
      baseline: highestRateUnder(rates, 'baseline', TARGET_P99_MS),
      service: highestRateUnder(rates, 'service', TARGET_P99_MS),
    };
    const ratios = roundRatios(runs, 'baseline', 'service', (r) => r.reqPerSec);
    const pairedRatio = fmt(median(ratios.filter((r) => !Number.isNaN(r))));
    const ratioOfMedians = fmt(medians.service.reqPerSec / medians.baseline.reqPerSec);
    const serviceFailures = failuresOf([...runs, ...rates], 'service');
    const meetsRatio = pairedRatio >= TARGET_RATIO;
    const meetsP99 = medians.service.p99Ms < TARGET_P99_MS;
    log(
      `\n${runsTable(runs, ['baseline', 'service'])}\n\n` +
        `service/baseline req/s (baseline: ${BASELINE_LABELS[kind]}), median of paired rounds: ${pairedRatio.toFixed(3)} (per round ${ratios.join(', ')}); ` +
        `ratio of medians: ${ratioOfMedians.toFixed(3)}; target >= ${TARGET_RATIO}: ${meetsRatio ? 'meets' : 'BELOW'}\n` +
        `service p99 (median of rounds): ${medians.service.p99Ms.toFixed(2)} ms at ${load.connections} connections; ` +
        `target < ${TARGET_P99_MS} ms: ${meetsP99 ? 'meets' : 'ABOVE'}\n` +
        `service responses not 2xx: ${serviceFailures.non2xx}, socket errors/timeouts: ${serviceFailures.errors}`,
    );
    if (rates.length > 0)
      log(
        `\nfixed offered rates, ${load.connections} connections:\n${ratesTable(rates, TARGET_P99_MS)}\n` +
          `service p99 < ${TARGET_P99_MS} ms up to ${p99HoldsUpTo.service ?? 'none of the'} req/s offered ` +
          `(baseline: ${p99HoldsUpTo.baseline ?? 'none'})`,
      );
    const file = writeResult('properties', startedAt, {
      scenario: 'properties',
      startedAt: startedAt.toISOString(),
      finishedAt: new Date().toISOString(),
      command: `npm run bench -- properties ${args.join(' ')}`.trim(),
      machine: machine(),
      stock: stack.stock,
      settings: {
        ...load,
        organizations: orgs,
        perOrg,
        keys: keyCount,
        keyLimitPerMinute: KEY_LIMIT_PER_MINUTE,
        poolSize: POOL_SIZE,
        priceMaxima: PRICE_MAXIMA,
        requests: requests.map((r) => r.path),
      },
      service: { pid: stack.service.pid, ...stack.service.info },
      baseline: { kind, label: BASELINE_LABELS[kind], pid: baseline.pid, ...baseline.info },
      summary: baselineVerdict({
        baseline: BASELINE_LABELS[kind],
        pairedRatio,
        rates,
        p99Ms: TARGET_P99_MS,
        minRatio: TARGET_RATIO,
      }),
      sql: serviceSql.slice(0, 2),
      sample,
      runs,
      medians,
      rates,
      p99HoldsUpTo,
      roundRatios: ratios,
      pairedRatio,
      ratioOfMedians,
      targets: { ratio: TARGET_RATIO, p99Ms: TARGET_P99_MS },
      meetsRatio,
      meetsP99,
      serviceFailures,
      ...(load.profile ? { profiles: profileDir } : {}),
    });
    log(`written ${file}`);
    if (serviceFailures.non2xx > 0 || serviceFailures.errors > 0) process.exitCode = 1;
  } finally {
    rmSync(captureDir, { recursive: true, force: true });
    await baseline?.stop();
    await stack.stop();
  }
}

export const scenario: Scenario = {
  description:
    'GET /v1/properties on PostgreSQL (100 x 1,000 properties) vs a hand-written SQL route (--baseline self: the service code)',
  run,
  check: ['--check'],
};
