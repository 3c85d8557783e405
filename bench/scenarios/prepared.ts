/**
 * Scenario `prepared`: what DATABASE_PREPARED_STATEMENTS=false costs (decision 0218, docs/scaling.md:
 * the setting PgBouncer before 1.21 needs in transaction mode). GET /v1/properties of two service
 * processes alike but for that setting, on a fresh PostgreSQL database (on DATABASE_URL's server,
 * dropped at the end), alternately in one invocation. The figure is unnamed/named req/s (the median of paired rounds); there is no target: it
 * is the price operators pay for the pooler. See bench/README.md.
 */
import { request } from '../lib/admin-client.ts';
import { createBenchDatabase, requireDatabaseUrl } from '../lib/bench-database.ts';
import { startChild, type ChildServer } from '../lib/child.ts';
import { KEY_LIMIT_PER_MINUTE, seedListing } from '../lib/listing-seed.ts';
import { machine, median, writeResult } from '../lib/report.ts';
import { failuresOf, mediansOf, pairedRounds, roundRatios, runsTable, type Target } from '../lib/rounds.ts';
import { LOAD_USAGE, parseLoadArguments, type Scenario } from '../lib/scenario.ts';
import type { ServiceServerOptions } from '../lib/service-server.ts';
import { fileURLToPath } from 'node:url';

const PATH = '/v1/properties?pageSize=20';
const DEFAULT_KEYS = 16;
const DEFAULT_PROPERTIES = 200;
/** `--check`: listings per service (one key each). */
const CHECK_PROPERTIES = 5;
const entry = fileURLToPath(new URL('../lib/service-server.ts', import.meta.url));

const USAGE = `Usage: DATABASE_URL=postgres://... npm run bench -- prepared [options]

GET ${PATH} of the service with DATABASE_PREPARED_STATEMENTS=true ("named") and =false ("unnamed"),
two child processes on one fresh PostgreSQL database (agency_bench_<pid>_<n> on DATABASE_URL's server,
dropped at the end), alternately; reports unnamed/named req/s.
${LOAD_USAGE}
  --keys N         publishable keys per service, each limited to ${KEY_LIMIT_PER_MINUTE}/min (default ${DEFAULT_KEYS})
  --properties N   properties per service (default ${DEFAULT_PROPERTIES})
  --quick          a smoke run: 1 round of 1 s, no warm-up, 2 connections, 5 properties, 1 key
With --check: ${CHECK_PROPERTIES} properties and 1 key per service; each service lists exactly its own listings.`;

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
  if (!process.env.DATABASE_URL)
    throw new Error('prepared: set DATABASE_URL (PostgreSQL); PGlite has no such setting');
  const serverUrl = requireDatabaseUrl('prepared');
  const quick = args.includes('--quick');
  if (quick) Object.assign(load, { rounds: 1, durationS: 1, warmupS: 0, connections: 2, rates: [] });
  const small = quick || load.check;
  const keyCount = small ? 1 : positive('keys', text('keys'), DEFAULT_KEYS, 1);
  const propertyCount = small
    ? load.check
      ? CHECK_PROPERTIES
      : 5
    : positive('properties', text('properties'), DEFAULT_PROPERTIES, 1);
  const startedAt = new Date();
  process.stdout.write(
    `prepared${load.check ? ' --check' : ''}: ` +
      (load.check
        ? ''
        : `${load.rounds} x (named, unnamed), -c ${load.connections} -d ${load.durationS} (+${load.warmupS} s warm-up), `) +
      `${propertyCount} properties and ${keyCount} key(s) per service, PostgreSQL (DATABASE_URL's server)\n`,
  );
  const database = await createBenchDatabase(serverUrl);
  const services: Record<'named' | 'unnamed', ChildServer | null> = { named: null, unnamed: null };
  try {
    for (const name of ['named', 'unnamed'] as const) {
      services[name] = await startChild<ServiceServerOptions>({
        name: `service-${name}`,
        entry,
        options: {
          env: {
            DATABASE_URL: database.url,
            DATABASE_PREPARED_STATEMENTS: name === 'named' ? 'true' : 'false',
          },
        },
      });
    }
    const named = services.named as ChildServer;
    const unnamed = services.unnamed as ChildServer;
    const targets: Target[] = [
      {
        name: 'named',
        url: named.url,
        pid: named.pid,
        requests: await seedListing(named, PATH, propertyCount, keyCount),
      },
      {
        name: 'unnamed',
        url: unnamed.url,
        pid: unnamed.pid,
        requests: await seedListing(unnamed, PATH, propertyCount, keyCount),
      },
    ];
    // Each service answers its own organization's listings, all of them (one page), through its setting.
    for (const target of targets) {
      for (const r of target.requests) {
        const answer = await request<{ data: unknown[]; meta: { total: number } }>(
          `${target.url}${r.path}`,
          { headers: r.headers as Record<string, string> },
          200,
        );
        if (
          answer.body.meta.total !== propertyCount ||
          answer.body.data.length !== Math.min(propertyCount, 20)
        )
          throw new Error(
            `${target.name} lists ${answer.body.meta.total} listings, not its ${propertyCount}`,
          );
      }
    }
    process.stdout.write(
      `checked: each service (named and unnamed statements) answers 200 with its own ${propertyCount} listings for each of its keys\n`,
    );
    if (load.check) return;
    const runs = await pairedRounds(targets, load, (line) => process.stdout.write(`${line}\n`));
    const medians = { named: mediansOf(runs, 'named'), unnamed: mediansOf(runs, 'unnamed') };
    const ratios = roundRatios(runs, 'named', 'unnamed', (r) => r.reqPerSec);
    const pairedRatio = Number(median(ratios.filter((r) => !Number.isNaN(r))).toFixed(3));
    const failures = { named: failuresOf(runs, 'named'), unnamed: failuresOf(runs, 'unnamed') };
    process.stdout.write(
      `\n${runsTable(runs, ['named', 'unnamed'])}\n\nunnamed/named req/s, median of paired rounds: ${pairedRatio.toFixed(3)} ` +
        `(per round ${ratios.join(', ')}); p99 named ${medians.named.p99Ms} ms, unnamed ${medians.unnamed.p99Ms} ms\n`,
    );
    const file = writeResult('prepared', startedAt, {
      scenario: 'prepared',
      startedAt: startedAt.toISOString(),
      finishedAt: new Date().toISOString(),
      command: `npm run bench -- prepared ${args.join(' ')}`.trim(),
      machine: machine(),
      settings: { ...load, quick, keysPerService: keyCount, properties: propertyCount, path: PATH },
      runs,
      medians,
      roundRatios: ratios,
      pairedRatio,
      failures,
    });
    process.stdout.write(`written ${file}\n`);
    const failed =
      failures.named.non2xx + failures.named.errors + failures.unnamed.non2xx + failures.unnamed.errors;
    if (failed > 0) process.exitCode = 1;
  } finally {
    await services.named?.stop();
    await services.unnamed?.stop();
    await database.drop();
  }
}

export const scenario: Scenario = {
  description: `GET ${PATH} on PostgreSQL: DATABASE_PREPARED_STATEMENTS true vs false (the pooler's price)`,
  run,
  check: ['--check'],
};
