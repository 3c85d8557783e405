/**
 * Scenario `processes`: two API processes behind one PostgreSQL and one Redis against one process.
 * The service is started twice on the same database with the same REDIS_URL (shared rate-limit
 * counts, docs/scaling.md); each round measures the portal listing (the `properties` scenario's
 * requests) sent to the first process alone ("one"), then split evenly across both ("two", one
 * autocannon instance per process, half the connections each), then the fixed offered rates.
 * The figure is the throughput ratio two / one, median of the paired rounds. See bench/README.md.
 */
import { request } from '../lib/admin-client.ts';
import {
  listingRequests,
  scaleStackOptions,
  portalScaleUsage,
  startPortalStack,
  startScaleScenario,
} from '../lib/portal-stack.ts';
import { machine, median, writeResult } from '../lib/report.ts';
import {
  failuresOf,
  mediansOf,
  pairedRounds,
  rateRuns,
  ratesTable,
  roundRatios,
  runsTable,
} from '../lib/rounds.ts';
import { DATABASE_USAGE, LOAD_USAGE, type Scenario } from '../lib/scenario.ts';

const DEFAULTS = { orgs: 100, perOrg: 1000, keys: 16 };
const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';
/** The portal's p99 target (the `properties` scenario's), for the fixed-rate table. */
const TARGET_P99_MS = 50;

const USAGE = `Usage: DATABASE_URL=postgres://USER@HOST:PORT/DB [REDIS_URL=redis://HOST:PORT] npm run bench -- processes [options]

GET /v1/properties?city=&priceMax=&sortBy=price&sortOrder=asc sent to one service process, then split
across two service processes on the same PostgreSQL database and Redis (REDIS_URL, default
${DEFAULT_REDIS_URL}), alternately; a fresh database dropped at the end.
${LOAD_USAGE}
${portalScaleUsage(DEFAULTS)}
${DATABASE_USAGE}
The fixed offered rates (--rates) are shares of the single process's maximum.
With --check: both processes answer every request 200 with identical bodies, on the tiny stock.`;

const fmt = (value: number, digits = 3) => Number(value.toFixed(digits));

async function run(args: string[]): Promise<void> {
  const start = startScaleScenario('processes', args, DEFAULTS, USAGE);
  if (start === null) return;
  const { load, scale, serverUrl, startedAt, log } = start;
  const redisUrl = process.env.REDIS_URL ?? DEFAULT_REDIS_URL;
  log(
    `processes${load.check ? ' --check' : ''}: ${scale.database ?? `${scale.orgs} organizations x ${scale.perOrg} properties`}, Redis ${redisUrl}, ` +
      (load.check
        ? ''
        : `${load.rounds} x (one, two), -c ${load.connections} -d ${load.durationS} (+${load.warmupS} s warm-up), `) +
      `${scale.keys} publishable keys`,
  );
  const stack = await startPortalStack({
    ...scaleStackOptions(serverUrl, scale, log),
    services: 2,
    env: { REDIS_URL: redisUrl },
  });
  try {
    const [first, second] = stack.services;
    if (!first || !second) throw new Error('two service processes expected');
    const requests = listingRequests(stack.keys, stack.organizations);
    for (const r of requests) {
      const answers = await Promise.all(
        [first, second].map((s) => request<unknown>(`${s.url}${r.path}`, { headers: r.headers }, 200)),
      );
      if (answers[0]?.text !== answers[1]?.text)
        throw new Error(`the two processes answer ${r.path} differently`);
    }
    log(`checked: ${requests.length} requests answer 200 with identical bodies from both processes`);
    if (load.check) return;

    const pids = { 'service 2': second.pid };
    const targets = [
      { name: 'one', url: first.url, pid: first.pid, pids, requests },
      { name: 'two', url: [first.url, second.url], pid: first.pid, pids, requests },
    ];
    const runs = await pairedRounds(targets, load, log);
    const medians = { one: mediansOf(runs, 'one'), two: mediansOf(runs, 'two') };
    const rates = await rateRuns(targets, load, medians.one.reqPerSec, log);
    const ratios = roundRatios(runs, 'one', 'two', (r) => r.reqPerSec);
    const throughputRatio = fmt(median(ratios.filter((r) => !Number.isNaN(r))));
    const failures = {
      one: failuresOf([...runs, ...rates], 'one'),
      two: failuresOf([...runs, ...rates], 'two'),
    };
    log(
      `\n${runsTable(runs, ['one', 'two'])}\n` +
        `(cpu% srv is the first process; the second's is in the result file as "service 2")\n\n` +
        `two processes / one, req/s, median of paired rounds: ${throughputRatio} (per round ${ratios.join(', ')})\n` +
        `responses not 2xx: one ${failures.one.non2xx}, two ${failures.two.non2xx}; socket errors/timeouts: one ${failures.one.errors}, two ${failures.two.errors}`,
    );
    if (rates.length > 0)
      log(
        `\nfixed offered rates, ${load.connections} connections in all:\n${ratesTable(rates, TARGET_P99_MS)}`,
      );
    const file = writeResult('processes', startedAt, {
      scenario: 'processes',
      startedAt: startedAt.toISOString(),
      finishedAt: new Date().toISOString(),
      command: `npm run bench -- processes ${args.join(' ')}`.trim(),
      machine: machine(),
      stock: stack.stock,
      settings: { ...load, keys: scale.keys, redisUrl, requests: requests.map((r) => r.path) },
      services: stack.services.map((s) => ({ pid: s.pid, ...s.info })),
      runs,
      medians,
      rates,
      roundRatios: ratios,
      throughputRatio,
      failures,
    });
    log(`written ${file}`);
    if (Object.values(failures).some((f) => f.non2xx > 0 || f.errors > 0)) process.exitCode = 1;
  } finally {
    await stack.stop();
  }
}

export const scenario: Scenario = {
  description: 'GET /v1/properties split across two API processes (one PostgreSQL, one Redis) vs one',
  run,
  check: ['--check'],
};
