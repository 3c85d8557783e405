/**
 * Scenario `properties-scale`: the latency of GET /v1/properties (the `properties` scenario's
 * requests) with 10,000 and with 100,000 properties, two services on two fresh databases measured
 * alternately in one invocation. Two ways to grow the table (`--mode`):
 *   tenants  10 vs 100 organizations x 1,000 properties: the table grows, each agency's stock does
 *            not (what the tenant-leading indexes are for); both databases hold identical stock for
 *            the ten agencies the keys belong to, so both answer byte-identical bodies.
 *   agency   one organization with 10,000 vs 100,000 properties: the agency itself grows, and so do
 *            the matches each request must count.
 * `--database NAME` adds a third service on a database made by `npm run bench -- generate` (the 1M
 * point: 1,000 organizations x 1,000 in tenants mode, one organization x 1M in agency mode); its
 * first agencies' stock is the same recipe's, so tenants mode still checks byte-identical bodies.
 * After the rounds, the fixed offered rates (--rates) are shares of the smallest size's maximum.
 * See bench/README.md.
 */
import { request } from '../lib/admin-client.ts';
import { requireDatabaseUrl } from '../lib/bench-database.ts';
import { listingRequests, startPortalStack, type PortalStack } from '../lib/portal-stack.ts';
import { machine, median, writeResult } from '../lib/report.ts';
import {
  failuresOf,
  mediansOf,
  pairedRounds,
  rateRuns,
  ratesTable,
  roundRatios,
  runsTable,
  type RateRecord,
} from '../lib/rounds.ts';
import { LOAD_USAGE, parseLoadArguments, UsageError, type Scenario } from '../lib/scenario.ts';
import { latencyAt75, type ScenarioSummary } from '../lib/verdict.ts';

const TARGET_FACTOR = 1.5;
/** The portal's p99 target (the `properties` scenario's), for the fixed-rate table. */
const TARGET_P99_MS = 50;
const KEYS = 16;
const MODES = {
  tenants: { small: { orgs: 10, perOrg: 1000 }, large: { orgs: 100, perOrg: 1000 }, keyOrganizations: 10 },
  agency: { small: { orgs: 1, perOrg: 10_000 }, large: { orgs: 1, perOrg: 100_000 }, keyOrganizations: 1 },
} as const;
type Mode = keyof typeof MODES;
/** `--check`: the same two-database comparison on tiny stock (the larger twice the smaller), 2 keys. */
const CHECK_MODES = {
  tenants: { small: { orgs: 1, perOrg: 60 }, large: { orgs: 2, perOrg: 60 }, keyOrganizations: 1 },
  agency: { small: { orgs: 1, perOrg: 60 }, large: { orgs: 1, perOrg: 120 }, keyOrganizations: 1 },
} as const;
const CHECK_KEYS = 2;

const USAGE = `Usage: DATABASE_URL=postgres://USER@HOST:PORT/DB npm run bench -- properties-scale [options]

GET /v1/properties?city=&priceMax=&sortBy=price&sortOrder=asc of two services (child processes), one on
10,000 and one on 100,000 properties (two fresh databases, dropped at the end), measured alternately;
with --database, a third service on a generated database (the 1M point).
${LOAD_USAGE}
  --mode M         tenants: 10 vs 100 organizations x 1,000 properties (default)
                   agency:  1 organization with 10,000 vs 100,000 properties
  --database NAME  a third size: database NAME made by \`npm run bench -- generate\` (kept), e.g.
                   tenants: --orgs 1000 --properties 1000000; agency: --orgs 1 --properties 1000000.
                   The fixed offered rates (--rates) are shares of the 10k service's maximum
With --check: two fresh databases of ${CHECK_MODES.tenants.small.perOrg} and ${CHECK_MODES.tenants.large.orgs * CHECK_MODES.tenants.large.perOrg} properties (tenants: 1 vs 2 organizations; agency: one
organization), ${CHECK_KEYS} keys; every request answers 200 from each (tenants: byte-identical bodies).`;

const fmt = (value: number, digits = 3) => Number(value.toFixed(digits));
const sizeName = (properties: number) =>
  properties >= 1_000_000
    ? `${properties / 1_000_000}M`
    : properties >= 1000
      ? `${properties / 1000}k`
      : String(properties);

async function run(args: string[]): Promise<void> {
  const { load, help, text } = parseLoadArguments(args, {
    mode: { type: 'string' },
    database: { type: 'string' },
  });
  if (help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const mode = (text('mode') ?? 'tenants') as Mode;
  if (!(mode in MODES)) throw new UsageError(`--mode must be tenants or agency, got ${mode}`);
  const serverUrl = requireDatabaseUrl('properties-scale');
  const setup = load.check ? CHECK_MODES[mode] : MODES[mode];
  const keyCount = load.check ? CHECK_KEYS : KEYS;
  const startedAt = new Date();
  const log = (line: string) => process.stdout.write(`${line}\n`);
  const sizes: Array<{ orgs: number; perOrg: number; database?: string }> = [setup.small, setup.large];
  const generated = text('database');
  if (generated !== undefined) sizes.push({ orgs: 0, perOrg: 0, database: generated });
  log(
    `properties-scale --mode ${mode}${load.check ? ' --check' : ''}: ${setup.small.orgs} x ${setup.small.perOrg} vs ${setup.large.orgs} x ${setup.large.perOrg} ` +
      `properties${generated ? ` vs generated database ${generated}` : ''}, ` +
      (load.check
        ? ''
        : `${load.rounds} rounds, -c ${load.connections} -d ${load.durationS} (+${load.warmupS} s warm-up), `) +
      `${keyCount} publishable keys over ${setup.keyOrganizations} organization(s)`,
  );

  const stacks: PortalStack[] = [];
  try {
    for (const size of sizes) {
      stacks.push(
        await startPortalStack({
          serverUrl,
          database: size.database,
          organizations: size.orgs,
          perOrg: size.perOrg,
          keys: keyCount,
          keyOrganizations: setup.keyOrganizations,
          log,
        }),
      );
    }
    const names = stacks.map((s) => sizeName(s.stock.organizations * s.stock.perOrg));
    if (new Set(names).size !== names.length)
      throw new Error(`two sizes have the same name: ${names.join(', ')}`);
    const requests = stacks.map((s) => listingRequests(s.keys, s.organizations));
    const [first] = requests;
    if (!first || requests.some((r) => r.length !== first.length)) throw new Error('request lists differ');
    // Every request list names the same organization indexes, cities and price caps, in the same order.
    const totals: Array<{ path: string; totals: number[] }> = [];
    let identical = 0;
    for (let i = 0; i < first.length; i++) {
      const path = first[i]?.path ?? '';
      if (requests.some((r) => r[i]?.path !== path)) throw new Error('request lists differ');
      const answers = await Promise.all(
        stacks.map((stack, k) =>
          request<{ meta: { total: number } }>(
            `${stack.service.url}${path}`,
            { headers: requests[k]?.[i]?.headers ?? {} },
            200,
          ),
        ),
      );
      if (answers.every((a) => a.text === answers[0]?.text)) identical++;
      totals.push({ path, totals: answers.map((a) => a.body.meta.total) });
    }
    if (mode === 'tenants' && identical !== first.length)
      throw new Error(
        `tenants mode: ${first.length - identical} requests answer differently at ${names.join(', ')}`,
      );
    log(
      `checked: ${identical} of ${totals.length} requests answer byte-identical bodies on all databases; ` +
        `median matches counted per request: ${names.map((n, k) => `${median(totals.map((t) => t.totals[k] ?? 0))} (${n})`).join(' vs ')}`,
    );
    if (load.check) return;

    const targets = stacks.map((stack, k) => ({
      name: names[k] ?? '',
      url: stack.service.url,
      pid: stack.service.pid,
      requests: requests[k] ?? [],
    }));
    const runs = await pairedRounds(targets, load, log);
    const medians = Object.fromEntries(names.map((name) => [name, mediansOf(runs, name)]));
    const smallest = names[0] ?? '';
    const rates = await rateRuns(targets, load, medians[smallest]?.reqPerSec ?? 0, log);
    // Each larger size against the smallest, round by round.
    const factors = Object.fromEntries(
      names.slice(1).map((name) => {
        const factor = (value: (r: (typeof runs)[number]) => number) => {
          const perRound = roundRatios(runs, smallest, name, value);
          return { perRound, median: fmt(median(perRound.filter((r) => !Number.isNaN(r)))) };
        };
        return [
          name,
          {
            p50: factor((r) => r.latencyMs.p50),
            p99: factor((r) => r.latencyMs.p99),
            reqPerSec: factor((r) => r.reqPerSec),
          },
        ];
      }),
    );
    // At a fixed offered rate, the same factors run by run (each size once per rate).
    const rateFactors = load.rates.length === 0 ? [] : rateFactorsOf(rates, smallest, names.slice(1));
    const failures = names.map((name) => failuresOf([...runs, ...rates], name));
    const meets = Object.values(factors).every(
      (f) => f.p50.median <= TARGET_FACTOR && f.p99.median <= TARGET_FACTOR,
    );
    log(
      `\n${runsTable(runs, names)}\n\n` +
        Object.entries(factors)
          .map(
            ([name, f]) =>
              `${name} / ${smallest}, median of paired rounds: p50 x${f.p50.median} (per round ${f.p50.perRound.join(', ')}), ` +
              `p99 x${f.p99.median} (per round ${f.p99.perRound.join(', ')}), req/s x${f.reqPerSec.median}`,
          )
          .join('\n') +
        `\ntarget latency within x${TARGET_FACTOR} at the maximum rate: ${meets ? 'meets' : 'MISSES'}\n` +
        `responses not 2xx: ${failures.map((f) => f.non2xx).join(' / ')}, socket errors/timeouts: ${failures.map((f) => f.errors).join(' / ')}`,
    );
    if (rates.length > 0)
      log(
        `\nfixed offered rates, ${load.connections} connections:\n${ratesTable(rates, TARGET_P99_MS)}\n` +
          rateFactors
            .map((f) => `at ${f.offeredPerSec}/s ${f.name} / ${smallest}: p50 x${f.p50}, p99 x${f.p99}`)
            .join('\n'),
      );
    const file = writeResult(`properties-scale-${mode}`, startedAt, {
      scenario: 'properties-scale',
      mode,
      startedAt: startedAt.toISOString(),
      finishedAt: new Date().toISOString(),
      command: `npm run bench -- properties-scale ${args.join(' ')}`.trim(),
      machine: machine(),
      settings: { ...load, ...setup, keys: keyCount, requests: first.map((r) => r.path) },
      stocks: Object.fromEntries(stacks.map((stack, k) => [names[k], stack.stock])),
      services: Object.fromEntries(stacks.map((stack, k) => [names[k], stack.service.info])),
      identicalBodies: identical,
      matchesCounted: totals,
      runs,
      medians,
      rates,
      factors,
      rateFactors,
      target: TARGET_FACTOR,
      meetsTarget: meets,
      summary: scaleSummary(mode, names, factors, rates),
      failures,
    });
    log(`written ${file}`);
    if (failures.some((f) => f.non2xx > 0 || f.errors > 0)) process.exitCode = 1;
  } finally {
    for (const stack of stacks) await stack.stop();
  }
}

/** The verdict for `npm run bench -- summary`: the largest size against the smallest. */
function scaleSummary(
  mode: Mode,
  names: string[],
  factors: Record<string, { p50: { median: number }; p99: { median: number } }>,
  rates: RateRecord[],
): ScenarioSummary {
  const [smallest = '', largest = ''] = [names[0], names.at(-1)];
  const factor = factors[largest];
  return {
    baseline: `the ${smallest} database (${mode} mode)`,
    ratio: factor?.p99.median ?? null,
    ratioOf: `p99 ${largest} ÷ ${smallest}, closed loop; p50 x${factor?.p50.median ?? '?'}`,
    targetText: `p50 and p99 at ${names.slice(1).join(' and ')} within x${TARGET_FACTOR} of ${smallest}`,
    met: Object.values(factors).every((f) => f.p50.median <= TARGET_FACTOR && f.p99.median <= TARGET_FACTOR),
    ...latencyAt75(rates, largest),
    latencyNote: `the ${largest} service at 75 % of the ${smallest} service's maximum`,
  };
}

/** Per offered rate, each larger size's p50 and p99 over the smallest's at that rate. */
function rateFactorsOf(rates: RateRecord[], smallest: string, larger: string[]) {
  const offered = [...new Set(rates.map((r) => r.offeredPerSec))];
  return offered.flatMap((offeredPerSec) => {
    const base = rates.find((r) => r.offeredPerSec === offeredPerSec && r.target === smallest);
    return larger.flatMap((name) => {
      const run = rates.find((r) => r.offeredPerSec === offeredPerSec && r.target === name);
      return base && run
        ? [
            {
              offeredPerSec,
              name,
              p50: fmt(run.latencyMs.p50 / base.latencyMs.p50),
              p99: fmt(run.latencyMs.p99 / base.latencyMs.p99),
            },
          ]
        : [];
    });
  });
}

export const scenario: Scenario = {
  description:
    'GET /v1/properties latency at 10k vs 100k (vs a generated 1M with --database) properties, PostgreSQL',
  run,
  check: ['--check'],
};
