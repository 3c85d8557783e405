/**
 * Scenario `request-log`: GET /v1/properties of two service processes alike but for
 * REQUEST_LOG_ENABLED (on: every request buffered and written in batches, decision 0213; off:
 * nothing recorded), alternately in one invocation. The figure is on/off req/s, target >= 0.95:
 * recording must not slow the request path. See bench/README.md.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { KEY_LIMIT_PER_MINUTE, seedListing } from '../lib/listing-seed.ts';
import { startChild, type ChildServer } from '../lib/child.ts';
import { BENCH_ADMIN_TOKEN } from '../lib/protocol.ts';
import { machine, median, RESULTS_DIR, writeResult } from '../lib/report.ts';
import { failuresOf, mediansOf, pairedRounds, roundRatios, runsTable, type Target } from '../lib/rounds.ts';
import { LOAD_USAGE, parseLoadArguments, type Scenario } from '../lib/scenario.ts';
import type { ServiceServerOptions } from '../lib/service-server.ts';
import type { ScenarioSummary } from '../lib/verdict.ts';

const PATH = '/v1/properties?pageSize=20';
const TARGET_RATIO = 0.95;
const DEFAULT_KEYS = 16;
const DEFAULT_PROPERTIES = 50;
/** `--check`: requests sent to each service, whose lines the "on" one must record. */
const CHECK_REQUESTS = 20;

const entry = (file: string) => fileURLToPath(new URL(`../lib/${file}`, import.meta.url));

const USAGE = `Usage: npm run bench -- request-log [options]

GET ${PATH} of the service with REQUEST_LOG_ENABLED=false ("off") and =true ("on"), two child
processes, alternately; reports on/off req/s (target >= ${TARGET_RATIO}).
${LOAD_USAGE}
  --keys N         publishable keys per service, each limited to ${KEY_LIMIT_PER_MINUTE}/min (default ${DEFAULT_KEYS})
  --properties N   properties per service (default ${DEFAULT_PROPERTIES})
  --quick          a smoke run: 1 round of 1 s, no warm-up, 2 connections, 5 properties, 1 key
                   (with BENCH_QUIET_TIMEOUT_S=1 it does not wait for a quiet machine either)

DATABASE_URL set: PostgreSQL (migrated in place; each service its own organization); unset: each
service its own in-memory PGlite.`;

const fmt = (value: number, digits = 3) => Number(value.toFixed(digits));

/** The request_logs_* counters of a service's /metrics. */
async function counters(service: ChildServer): Promise<Record<string, number>> {
  const response = await fetch(`${service.url}/metrics`, {
    headers: { authorization: `Bearer ${BENCH_ADMIN_TOKEN}` },
  });
  const text = await response.text();
  const found: Record<string, number> = {};
  for (const name of ['request_logs_written_total', 'request_logs_dropped_total']) {
    const match = new RegExp(`^${name} (\\d+)`, 'm').exec(text);
    found[name] = match ? Number(match[1]) : Number.NaN;
  }
  return found;
}

/**
 * `--check`: CHECK_REQUESTS listings from each service answer 200; then the "on" service has
 * written (not dropped) at least those lines, the "off" one none.
 */
async function checkRecording(targets: Target[], services: { off: ChildServer; on: ChildServer }) {
  for (const target of targets) {
    const [sample] = target.requests;
    const url = `${target.url as string}${sample?.path ?? PATH}`;
    for (let i = 0; i < CHECK_REQUESTS; i++) {
      const response = await fetch(url, { headers: (sample?.headers ?? {}) as Record<string, string> });
      await response.arrayBuffer();
      if (response.status !== 200) throw new Error(`${target.name}: GET ${PATH} answered ${response.status}`);
    }
  }
  // The buffer is written every 500 ms: wait for the last lines before reading the counters.
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  const on = await counters(services.on);
  const off = await counters(services.off);
  if (!((on.request_logs_written_total ?? 0) >= CHECK_REQUESTS) || on.request_logs_dropped_total !== 0)
    throw new Error(
      `REQUEST_LOG_ENABLED=true recorded ${JSON.stringify(on)} after ${CHECK_REQUESTS} requests`,
    );
  if (off.request_logs_written_total !== 0)
    throw new Error(`REQUEST_LOG_ENABLED=false recorded ${JSON.stringify(off)}`);
  process.stdout.write(
    `checked: GET ${PATH} answers 200 from both services ${CHECK_REQUESTS} times; the "on" one wrote ` +
      `${on.request_logs_written_total} request-log lines (none dropped), the "off" one none\n`,
  );
}

async function run(args: string[]): Promise<void> {
  const { load, help, text, positive } = parseLoadArguments(args, {
    keys: { type: 'string' },
    properties: { type: 'string' },
    quick: { type: 'boolean' },
  });
  if (help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const quick = args.includes('--quick');
  if (quick) Object.assign(load, { rounds: 1, durationS: 1, warmupS: 0, connections: 2, rates: [] });
  const small = quick || load.check;
  const keyCount = small ? 1 : positive('keys', text('keys'), DEFAULT_KEYS, 1);
  const propertyCount = small ? 5 : positive('properties', text('properties'), DEFAULT_PROPERTIES, 1);

  const startedAt = new Date();
  const databaseUrl = process.env.DATABASE_URL;
  const profileDir = join(
    RESULTS_DIR,
    'profiles',
    `request-log-${startedAt.toISOString().replace(/[:.]/g, '-')}`,
  );
  if (load.profile) mkdirSync(profileDir, { recursive: true });
  process.stdout.write(
    `request-log: ${load.check ? 'check only' : `${load.rounds} x (off, on), -c ${load.connections} -d ${load.durationS} (+${load.warmupS} s warm-up)`}, ` +
      `${propertyCount} properties and ${keyCount} key(s) per service, database ${databaseUrl ? 'PostgreSQL (DATABASE_URL)' : 'PGlite (memory://)'}\n`,
  );

  const services: Record<'off' | 'on', ChildServer | null> = { off: null, on: null };
  try {
    for (const name of ['off', 'on'] as const) {
      services[name] = await startChild<ServiceServerOptions>({
        name: `service-${name}`,
        entry: entry('service-server.ts'),
        options: { env: { REQUEST_LOG_ENABLED: name === 'on' ? 'true' : 'false' } },
        nodeArgs: load.profile ? ['--cpu-prof', `--cpu-prof-dir=${join(profileDir, name)}`] : [],
      });
    }
    const off = services.off as ChildServer;
    const on = services.on as ChildServer;
    const targets: Target[] = [
      {
        name: 'off',
        url: `${off.url}`,
        pid: off.pid,
        requests: await seedListing(off, PATH, propertyCount, keyCount),
      },
      {
        name: 'on',
        url: `${on.url}`,
        pid: on.pid,
        requests: await seedListing(on, PATH, propertyCount, keyCount),
      },
    ];
    if (load.check) {
      await checkRecording(targets, { off, on });
      return;
    }

    const runs = await pairedRounds(targets, load, (line) => process.stdout.write(`${line}\n`));
    const medians = { off: mediansOf(runs, 'off'), on: mediansOf(runs, 'on') };
    const ratios = roundRatios(runs, 'off', 'on', (r) => r.reqPerSec);
    // Each "on" run is paired with the "off" run just before it (same host conditions): the median
    // of the paired ratios is the figure judged; the ratio of medians is shown too.
    const pairedRatio = fmt(median(ratios.filter((r) => !Number.isNaN(r))));
    const ratioOfMedians = fmt(medians.on.reqPerSec / medians.off.reqPerSec);
    // The buffer is written every 500 ms: wait for the last lines before reading the counters.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const recorded = { off: await counters(off), on: await counters(on) };
    const failures = { off: failuresOf(runs, 'off'), on: failuresOf(runs, 'on') };
    const verdict = pairedRatio >= TARGET_RATIO ? 'meets' : 'BELOW';
    process.stdout.write(
      `\n${runsTable(runs, ['off', 'on'])}\n\non/off req/s, median of paired rounds: ${pairedRatio.toFixed(3)} ` +
        `(per round ${ratios.join(', ')}); ratio of medians: ${ratioOfMedians.toFixed(3)}; ` +
        `target >= ${TARGET_RATIO}: ${verdict}\n` +
        `request log lines: on written ${recorded.on.request_logs_written_total}, dropped ${recorded.on.request_logs_dropped_total}; ` +
        `off written ${recorded.off.request_logs_written_total}\n`,
    );
    const file = writeResult('request-log', startedAt, {
      scenario: 'request-log',
      startedAt: startedAt.toISOString(),
      finishedAt: new Date().toISOString(),
      command: `npm run bench -- request-log ${args.join(' ')}`.trim(),
      machine: machine(),
      settings: { ...load, quick, keysPerService: keyCount, properties: propertyCount, path: PATH },
      services: { off: { pid: off.pid, ...off.info }, on: { pid: on.pid, ...on.info } },
      runs,
      medians,
      roundRatios: ratios,
      pairedRatio,
      ratioOfMedians,
      target: TARGET_RATIO,
      meetsTarget: pairedRatio >= TARGET_RATIO,
      summary: {
        baseline: 'the same service with REQUEST_LOG_ENABLED off',
        ratio: Number.isNaN(pairedRatio) ? null : pairedRatio,
        ratioOf: 'on / off req/s',
        targetText: `on/off ≥ ${TARGET_RATIO}`,
        met: pairedRatio >= TARGET_RATIO,
        p50At75: null,
        p99At75: null,
        latencyNote: 'closed loop only',
      } satisfies ScenarioSummary,
      recorded,
      failures,
      ...(load.profile ? { profiles: profileDir } : {}),
    });
    process.stdout.write(`written ${file}\n`);
    const failed = failures.off.non2xx + failures.off.errors + failures.on.non2xx + failures.on.errors;
    if (failed > 0 || recorded.off.request_logs_written_total !== 0) process.exitCode = 1;
  } finally {
    await services.on?.stop();
    await services.off?.stop();
  }
}

export const scenario: Scenario = {
  description: `GET ${PATH}: REQUEST_LOG_ENABLED on vs off, alternated rounds (target on/off >= ${TARGET_RATIO})`,
  run,
  check: ['--check'],
};
