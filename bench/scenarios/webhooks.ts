/**
 * Scenario `webhooks`: webhook deliveries on PostgreSQL, one organization with N subscriptions
 * (default 3) pointing at a local receiver, the delivery worker in its own process (`src/worker.ts`,
 * as `npm run worker` runs it). Two phases:
 * 1. throughput: 10,000 events recorded up front (30,000 deliveries queued), then the worker
 *    started: deliveries per second until the queue is empty;
 * 2. latency: events recorded at a fixed rate (default 500 deliveries/s) while the worker runs:
 *    commit-to-receipt time (event transaction committed -> receiver got the POST), p50/p99.
 * See bench/README.md.
 */
import type { ChildProcess } from 'node:child_process';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { openDatabase, type Database } from '../../src/db/database.ts';
import { eventCatalog } from '../../src/platform/events/catalog.ts';
import { recordEvent } from '../../src/platform/events/record.ts';
import { createBenchDatabase, requireDatabaseUrl } from '../lib/bench-database.ts';
import { BENCH_ADMIN_TOKEN as ADMIN_TOKEN, BENCH_SECRETS_KEY } from '../lib/protocol.ts';
import { startReceiver, startWorker, stopWorker } from '../lib/webhook-receiver.ts';
import { machine, table, writeResult } from '../lib/report.ts';
import { CHECK_USAGE, positive, UsageError, type Scenario } from '../lib/scenario.ts';
import { parseArgs } from 'node:util';
import type { ScenarioSummary } from '../lib/verdict.ts';

const DEFAULTS = { events: 10_000, subscriptions: 3, rate: 1_000, latencyEvents: 4_000 };
// Issue 24, item 6 (was 500/s in issue 6).
const TARGETS = { deliveriesPerSecond: 1_000, p99Ms: 1_000 };
/** `--check`: a backlog of a few events, no latency phase. */
const CHECK_EVENTS = 20;

const USAGE = `Usage: DATABASE_URL=postgres://USER@HOST:PORT/DB npm run bench -- webhooks [options]

Webhook deliveries from a worker process to a local receiver, on a fresh PostgreSQL database.
  --events N          events recorded up front for the throughput phase (default ${DEFAULTS.events})
  --subscriptions N   subscriptions, each matching every event (default ${DEFAULTS.subscriptions})
  --rate N            deliveries per second offered in the latency phase (default ${DEFAULTS.rate})
  --latency-events N  events recorded in the latency phase (default ${DEFAULTS.latencyEvents})
${CHECK_USAGE}
                      (a backlog of ${CHECK_EVENTS} events: every delivery reaches the receiver)`;

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number;
}

async function emitBatch(
  db: Database,
  organizationId: string,
  count: number,
  committed: Map<string, number>,
) {
  const example = eventCatalog.get('deal.won')?.example as Record<string, unknown>;
  const ids = await db.tenantTx(organizationId, async (tx) => {
    const made: string[] = [];
    for (let i = 0; i < count; i++) {
      const event = await recordEvent(tx, {
        type: 'deal.won',
        data: example,
        actor: { kind: 'API', userId: null },
      });
      made.push(event.id);
    }
    return made;
  });
  const at = Date.now();
  for (const id of ids) committed.set(id, at);
}

async function waitUntil(check: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function run(args: string[]): Promise<void> {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args,
      strict: true,
      options: {
        events: { type: 'string' },
        subscriptions: { type: 'string' },
        rate: { type: 'string' },
        'latency-events': { type: 'string' },
        check: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    }) as { values: Record<string, string | boolean | undefined> });
  } catch (error) {
    throw new UsageError(`${(error as Error).message} (--help lists the options)`);
  }
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const text = (name: string) => (typeof values[name] === 'string' ? (values[name] as string) : undefined);
  const check = values.check === true;
  const events = positive('events', text('events'), check ? CHECK_EVENTS : DEFAULTS.events, 1);
  const subscriptions = positive('subscriptions', text('subscriptions'), DEFAULTS.subscriptions, 1);
  const rate = positive('rate', text('rate'), DEFAULTS.rate, 1);
  const latencyEvents = positive('latency-events', text('latency-events'), DEFAULTS.latencyEvents, 1);

  const serverUrl = requireDatabaseUrl('webhooks');
  const startedAt = new Date();
  const host = machine();
  const database = await createBenchDatabase(serverUrl);
  const db = await openDatabase({ databaseUrl: database.url, dataDir: 'memory://', poolSize: 10 });
  const receiver = await startReceiver();
  let worker: ChildProcess | undefined;
  try {
    await db.migrate();
    const config = loadConfig({
      NODE_ENV: 'test',
      ADMIN_TOKEN,
      SECRETS_KEY: BENCH_SECRETS_KEY,
      LOG_LEVEL: 'silent',
      DATA_DIR: 'memory://',
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
    });
    const app = await buildApp(config, { db });
    const call = async (method: 'POST', url: string, body: unknown, headers: Record<string, string>) => {
      const response = await app.inject({ method, url, payload: body as object, headers });
      if (response.statusCode >= 300)
        throw new Error(`${method} ${url}: ${response.statusCode} ${response.body}`);
      return response.json().data;
    };
    const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
    const org = await call(
      'POST',
      '/admin/v1/organizations',
      { name: 'Bench Realty', plan: 'ENTERPRISE' },
      admin,
    );
    const key = await call(
      'POST',
      `/admin/v1/organizations/${org.id}/api-keys`,
      { type: 'secret', scopes: ['webhooks:write'], accessLevel: 3 },
      admin,
    );
    for (let i = 0; i < subscriptions; i++) {
      await call(
        'POST',
        '/v1/webhooks',
        { url: `http://127.0.0.1:${receiver.port}/s${i}`, eventTypes: ['*'] },
        { 'x-api-key': key.key },
      );
    }
    await app.close();

    // Phase 1: the backlog, then the worker.
    const committed = new Map<string, number>();
    for (let done = 0; done < events; done += 500)
      await emitBatch(db, org.id, Math.min(500, events - done), committed);
    const backlog = events * subscriptions;
    process.stdout.write(`queued ${backlog} deliveries; starting the worker\n`);
    const workerStarted = Date.now();
    worker = startWorker(database.url);
    await waitUntil(() => receiver.arrivals.size > 0, 60_000, 'the first delivery');
    const firstAt = Math.min(...receiver.arrivals.values());
    await waitUntil(() => receiver.arrivals.size >= backlog, 600_000, `${backlog} deliveries`);
    const lastAt = Math.max(...receiver.arrivals.values());
    const throughput = backlog / ((lastAt - firstAt) / 1000);
    const startupMs = firstAt - workerStarted;
    if (check) {
      process.stdout.write(
        `checked: ${events} events x ${subscriptions} subscriptions: all ${backlog} deliveries reached the receiver ` +
          `(${receiver.total() - receiver.arrivals.size} repeated), the first ${startupMs} ms after the worker started\n`,
      );
      return;
    }

    // Phase 2: a steady rate of events while the worker runs; commit-to-receipt per delivery.
    const latencyCommitted = new Map<string, number>();
    const eventsPerSecond = rate / subscriptions;
    const tickMs = 20;
    const started = Date.now();
    let emitted = 0;
    while (emitted < latencyEvents) {
      const due = Math.min(latencyEvents, Math.floor(((Date.now() - started) / 1000) * eventsPerSecond));
      if (due > emitted) {
        await emitBatch(db, org.id, due - emitted, latencyCommitted);
        emitted = due;
      }
      await new Promise((resolve) => setTimeout(resolve, tickMs));
    }
    const expected = backlog + latencyEvents * subscriptions;
    await waitUntil(() => receiver.arrivals.size >= expected, 120_000, `${expected} deliveries`);
    const latencies: number[] = [];
    for (const [key, at] of receiver.arrivals) {
      const commit = latencyCommitted.get(key.split(' ')[0] as string);
      if (commit !== undefined) latencies.push(at - commit);
    }
    latencies.sort((a, b) => a - b);
    const offered = (latencyEvents * subscriptions) / ((Date.now() - started) / 1000);

    const result = {
      throughput: {
        deliveries: backlog,
        deliveriesPerSecond: Math.round(throughput),
        workerStartupMs: startupMs,
        duplicates: receiver.total() - receiver.arrivals.size,
      },
      latency: {
        offeredDeliveriesPerSecond: Math.round(offered),
        deliveries: latencies.length,
        p50Ms: percentile(latencies, 50),
        p90Ms: percentile(latencies, 90),
        p99Ms: percentile(latencies, 99),
        maxMs: latencies.at(-1),
      },
      targets: TARGETS,
      summary: {
        baseline: 'none',
        ratio: null,
        targetText: `≥ ${TARGETS.deliveriesPerSecond} deliveries/s (backlog: ${Math.round(throughput)}); p99 < ${TARGETS.p99Ms} ms at ${rate}/s`,
        met: throughput >= TARGETS.deliveriesPerSecond && percentile(latencies, 99) <= TARGETS.p99Ms,
        p50At75: latencies.length === 0 ? null : percentile(latencies, 50),
        p99At75: latencies.length === 0 ? null : percentile(latencies, 99),
        latencyNote: `commit-to-receipt at ${rate} deliveries/s offered, not a share of a maximum`,
      } satisfies ScenarioSummary,
      settings: { events, subscriptions, rate, latencyEvents },
      machine: host,
    };
    process.stdout.write(
      `\n${table([
        ['phase', 'deliveries', 'deliveries/s', 'p50 ms', 'p90 ms', 'p99 ms', 'max ms'],
        ['backlog', backlog, result.throughput.deliveriesPerSecond, '', '', '', ''],
        [
          `steady ${rate}/s`,
          latencies.length,
          result.latency.offeredDeliveriesPerSecond,
          result.latency.p50Ms,
          result.latency.p90Ms,
          result.latency.p99Ms,
          result.latency.maxMs ?? '',
        ],
      ])}\n`,
    );
    process.stdout.write(`result: ${writeResult('webhooks', startedAt, result)}\n`);
    if (throughput < TARGETS.deliveriesPerSecond || (result.latency.p99Ms ?? Infinity) > TARGETS.p99Ms)
      process.stdout.write('below target\n');
  } finally {
    if (worker) await stopWorker(worker);
    await receiver.close();
    await db.close();
    await database.drop();
  }
}

export const scenario: Scenario = {
  description: 'webhook deliveries on PostgreSQL: backlog throughput and commit-to-receipt p50/p99',
  run,
  check: ['--check'],
};
