/**
 * Scenario `properties-scale`: the latency of GET /v1/properties (the `properties` scenario's
 * requests) with 10,000 and with 100,000 properties, two services on two fresh databases measured
 * alternately in one invocation. Two ways to grow the table (`--mode`):
 *   tenants  10 vs 100 organizations x 1,000 properties: the table grows, each agency's stock does
 *            not (what the tenant-leading indexes are for); both databases hold identical stock for
 *            the ten agencies the keys belong to, so both answer byte-identical bodies.
 *   agency   one organization with 10,000 vs 100,000 properties: the agency itself grows, and so do
 *            the matches each request must count.
 * See bench/README.md.
 */
import { request } from '../lib/admin-client.ts';
import { requireDatabaseUrl } from '../lib/bench-database.ts';
import { listingRequests, startPortalStack, type PortalStack } from '../lib/portal-stack.ts';
import { machine, median, writeResult } from '../lib/report.ts';
import { failuresOf, mediansOf, pairedRounds, roundRatios, runsTable } from '../lib/rounds.ts';
import { LOAD_USAGE, parseLoadArguments, UsageError, type Scenario } from '../lib/scenario.ts';

const TARGET_FACTOR = 1.5;
const KEYS = 16;
const MODES = {
  tenants: { small: { orgs: 10, perOrg: 1000 }, large: { orgs: 100, perOrg: 1000 }, keyOrganizations: 10 },
  agency: { small: { orgs: 1, perOrg: 10_000 }, large: { orgs: 1, perOrg: 100_000 }, keyOrganizations: 1 },
} as const;
type Mode = keyof typeof MODES;

const USAGE = `Usage: DATABASE_URL=postgres://USER@HOST:PORT/DB npm run bench -- properties-scale [options]

GET /v1/properties?city=&priceMax=&sortBy=price&sortOrder=asc of two services (child processes), one on
10,000 and one on 100,000 properties (two fresh databases, dropped at the end), measured alternately.
${LOAD_USAGE}
  --mode M         tenants: 10 vs 100 organizations x 1,000 properties (default)
                   agency:  1 organization with 10,000 vs 100,000 properties`;

const fmt = (value: number, digits = 3) => Number(value.toFixed(digits));

async function run(args: string[]): Promise<void> {
  const { load, help, text } = parseLoadArguments(args, { mode: { type: 'string' } });
  if (help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const mode = (text('mode') ?? 'tenants') as Mode;
  if (!(mode in MODES)) throw new UsageError(`--mode must be tenants or agency, got ${mode}`);
  const serverUrl = requireDatabaseUrl('properties-scale');
  const setup = MODES[mode];
  const startedAt = new Date();
  const log = (line: string) => process.stdout.write(`${line}\n`);
  const sizes = {
    small: setup.small.orgs * setup.small.perOrg,
    large: setup.large.orgs * setup.large.perOrg,
  };
  const names = { small: `${sizes.small / 1000}k`, large: `${sizes.large / 1000}k` };
  log(
    `properties-scale --mode ${mode}: ${setup.small.orgs} x ${setup.small.perOrg} vs ${setup.large.orgs} x ${setup.large.perOrg} ` +
      `properties, ${load.rounds} x (${names.small}, ${names.large}), -c ${load.connections} -d ${load.durationS} ` +
      `(+${load.warmupS} s warm-up), ${KEYS} publishable keys over ${setup.keyOrganizations} organization(s)`,
  );

  const stacks: PortalStack[] = [];
  try {
    for (const size of ['small', 'large'] as const) {
      stacks.push(
        await startPortalStack({
          serverUrl,
          organizations: setup[size].orgs,
          perOrg: setup[size].perOrg,
          keys: KEYS,
          keyOrganizations: setup.keyOrganizations,
          log,
        }),
      );
    }
    const [small, large] = stacks as [PortalStack, PortalStack];
    const requests = {
      small: listingRequests(small.keys, small.organizations),
      large: listingRequests(large.keys, large.organizations),
    };
    // Both request lists name the same organization indexes, cities and price caps, in the same order.
    const totals: Array<{ path: string; small: number; large: number }> = [];
    let identical = 0;
    for (let i = 0; i < requests.small.length; i++) {
      const [rs, rl] = [requests.small[i], requests.large[i]];
      if (!rs || !rl || rs.path !== rl.path) throw new Error('request lists differ');
      const answers = await Promise.all([
        request<{ meta: { total: number } }>(`${small.service.url}${rs.path}`, { headers: rs.headers }, 200),
        request<{ meta: { total: number } }>(`${large.service.url}${rl.path}`, { headers: rl.headers }, 200),
      ]);
      if (answers[0].text === answers[1].text) identical++;
      totals.push({ path: rs.path, small: answers[0].body.meta.total, large: answers[1].body.meta.total });
    }
    if (mode === 'tenants' && identical !== requests.small.length)
      throw new Error(
        `tenants mode: ${requests.small.length - identical} requests answer differently at 10k and 100k`,
      );
    const medianTotal = (size: 'small' | 'large') => median(totals.map((t) => t[size]));
    log(
      `checked: ${identical} of ${totals.length} requests answer byte-identical bodies on both databases; ` +
        `median matches counted per request: ${medianTotal('small')} (${names.small}) vs ${medianTotal('large')} (${names.large})`,
    );

    const runs = await pairedRounds(
      [
        { name: names.small, url: small.service.url, pid: small.service.pid, requests: requests.small },
        { name: names.large, url: large.service.url, pid: large.service.pid, requests: requests.large },
      ],
      load,
      log,
    );
    const medians = {
      [names.small]: mediansOf(runs, names.small),
      [names.large]: mediansOf(runs, names.large),
    };
    const factor = (value: (r: (typeof runs)[number]) => number) => {
      const perRound = roundRatios(runs, names.small, names.large, value);
      return { perRound, median: fmt(median(perRound.filter((r) => !Number.isNaN(r)))) };
    };
    const p50Factor = factor((r) => r.latencyMs.p50);
    const p99Factor = factor((r) => r.latencyMs.p99);
    const throughputFactor = factor((r) => r.reqPerSec);
    const failures = [failuresOf(runs, names.small), failuresOf(runs, names.large)];
    const meets = p50Factor.median <= TARGET_FACTOR && p99Factor.median <= TARGET_FACTOR;
    log(
      `\n${runsTable(runs, [names.small, names.large])}\n\n` +
        `${names.large} / ${names.small}, median of paired rounds: p50 x${p50Factor.median} (per round ${p50Factor.perRound.join(', ')}), ` +
        `p99 x${p99Factor.median} (per round ${p99Factor.perRound.join(', ')}), req/s x${throughputFactor.median}; ` +
        `target latency within x${TARGET_FACTOR}: ${meets ? 'meets' : 'MISSES'}\n` +
        `responses not 2xx: ${failures.map((f) => f.non2xx).join(' / ')}, socket errors/timeouts: ${failures.map((f) => f.errors).join(' / ')}`,
    );
    const file = writeResult(`properties-scale-${mode}`, startedAt, {
      scenario: 'properties-scale',
      mode,
      startedAt: startedAt.toISOString(),
      finishedAt: new Date().toISOString(),
      command: `npm run bench -- properties-scale ${args.join(' ')}`.trim(),
      machine: machine(),
      settings: { ...load, ...setup, keys: KEYS, requests: requests.small.map((r) => r.path) },
      services: { [names.small]: small.service.info, [names.large]: large.service.info },
      identicalBodies: identical,
      matchesCounted: totals,
      runs,
      medians,
      p50Factor,
      p99Factor,
      throughputFactor,
      target: TARGET_FACTOR,
      meetsTarget: meets,
      failures,
    });
    log(`written ${file}`);
    if (failures.some((f) => f.non2xx > 0 || f.errors > 0)) process.exitCode = 1;
  } finally {
    for (const stack of stacks) await stack.stop();
  }
}

export const scenario: Scenario = {
  description: 'GET /v1/properties latency at 10k vs 100k properties (--mode tenants | agency), PostgreSQL',
  run,
};
