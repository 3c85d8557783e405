/**
 * Scenario `leads`: POST /v1/leads (publishable keys; every request a person never seen before,
 * half of them about a published listing) of the service on PostgreSQL against a bare Fastify route
 * running the service's own captureLead in one transaction on a plain pg Pool
 * (bench/lib/leads-bare-server.ts), in paired rounds, then at fixed offered rates.
 * With `--subscriptions N` every agency the keys belong to has N webhook subscriptions matching
 * every event, so each lead fans out 2 x N deliveries in its transaction (both servers run the
 * same statement); with `--workers M` delivery workers run meanwhile against a local receiver.
 * The `fanout` scenario is this one with 3 subscriptions and a worker. See bench/README.md.
 */
import pg from 'pg';
import type { ChildProcess } from 'node:child_process';
import { adminClient, request } from '../lib/admin-client.ts';
import { measureAgainstBaseline } from '../lib/against-baseline.ts';
import { requireDatabaseUrl } from '../lib/bench-database.ts';
import { startChild, type ChildServer } from '../lib/child.ts';
import type { LeadsBareServerOptions } from '../lib/leads-bare-server.ts';
import {
  entry,
  KEY_LIMIT_PER_MINUTE,
  POOL_SIZE,
  publishedListings,
  scaleStackOptions,
  startPortalStack,
} from '../lib/portal-stack.ts';
import { machine, writeResult } from '../lib/report.ts';
import { DATABASE_USAGE, LOAD_USAGE, parseScaleArguments, positive, type Scenario } from '../lib/scenario.ts';
import { baselineVerdict } from '../lib/verdict.ts';
import { startReceiver, startWorker, stopWorker } from '../lib/webhook-receiver.ts';
import { leadBodies, leadRequests, nextPhone } from '../lib/lead-requests.ts';

const TARGET_P99_MS = 100;
const DEFAULTS = { orgs: 100, perOrg: 1000, keys: 16 };
/** The admin API's maximum: organization-wide writes per minute (the plan's 1,200 would throttle). */
const WRITE_LIMIT_PER_MINUTE = 100_000;
/** The baseline runs the service's own captureLead (no hand-written one yet). */
const BASELINE_LABEL = "service's captureLead in one transaction on a bare pool (self)";
/** How long the workers may take to deliver what is left after the load. */
const DRAIN_TIMEOUT_S = 120;
/** `--check`: how long the worker may take to deliver the check's few leads (it starts meanwhile). */
const CHECK_DELIVERY_TIMEOUT_S = 60;

const usage = (
  name: string,
  defaults: { subscriptions: number; workers: number },
) => `Usage: DATABASE_URL=postgres://USER@HOST:PORT/DB npm run bench -- ${name} [options]

POST /v1/leads of the service (child process) vs a bare Fastify route running the service's captureLead
in one transaction on a plain pg Pool (child process), on a fresh PostgreSQL database (dropped at the
end). Every request is a new person (a phone number never sent before).
${LOAD_USAGE}
  --orgs N           organizations (default ${DEFAULTS.orgs})
  --per-org N        properties per organization (default ${DEFAULTS.perOrg})
  --keys N           publishable keys, one per organization from the first (default ${DEFAULTS.keys}), each
                     limited to ${KEY_LIMIT_PER_MINUTE}/min and as many writes
  --subscriptions N  webhook subscriptions (every event) per agency with keys (default ${defaults.subscriptions}):
                     each lead then fans out 2 x N deliveries in its transaction
  --workers N        delivery workers (src/worker.ts) running during the load, delivering to a local
                     receiver (default ${defaults.workers})
${DATABASE_USAGE}
                     (write scenarios add their contacts, leads and events to it; subscriptions are removed)`;

export async function runLeads(
  args: string[],
  name: string,
  defaults: { subscriptions: number; workers: number },
): Promise<void> {
  const { load, help, scale, text } = parseScaleArguments(args, DEFAULTS, {
    subscriptions: { type: 'string' },
    workers: { type: 'string' },
  });
  if (help) {
    process.stdout.write(`${usage(name, defaults)}\n`);
    return;
  }
  const subscriptions = positive('subscriptions', text('subscriptions'), defaults.subscriptions, 0);
  const workerCount = positive('workers', text('workers'), defaults.workers, 0);
  const serverUrl = requireDatabaseUrl(name);
  const startedAt = new Date();
  const log = (line: string) => process.stdout.write(`${line}\n`);
  log(
    `${name}: ${scale.database ?? `${scale.orgs} organizations x ${scale.perOrg} properties`}, ${subscriptions} subscriptions per agency, ` +
      `${workerCount} workers, ` +
      (load.check
        ? 'check only'
        : `${load.rounds} x (baseline, service), -c ${load.connections} -d ${load.durationS} (+${load.warmupS} s warm-up)`) +
      `, ${scale.keys} publishable keys`,
  );
  const stack = await startPortalStack({
    ...scaleStackOptions(serverUrl, scale, log),
    writeLimitPerMinute: KEY_LIMIT_PER_MINUTE,
    organizationWriteLimitPerMinute: WRITE_LIMIT_PER_MINUTE,
    env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true' },
  });
  const receiver = subscriptions > 0 ? await startReceiver() : null;
  const subscriptionIds: string[] = [];
  const workers: ChildProcess[] = [];
  let baseline: ChildServer | null = null;
  const db = new pg.Client({ connectionString: stack.database.url });
  await db.connect();
  try {
    const organizationIds = [...new Set(stack.keys.map((k) => k.organizationId))];
    for (const organization of stack.organizations.slice(0, scale.keys)) {
      if (organization.effectiveWriteLimitPerMinute !== WRITE_LIMIT_PER_MINUTE)
        throw new Error(`organization write limit not raised: ${organization.effectiveWriteLimitPerMinute}`);
    }
    if (receiver) {
      const admin = adminClient(stack.service.url);
      for (const organizationId of organizationIds) {
        const key = await admin.post<{ key: string }>(`/admin/v1/organizations/${organizationId}/api-keys`, {
          type: 'secret',
          name: 'bench webhooks',
          scopes: ['webhooks:write'],
          accessLevel: 3,
        });
        for (let i = 0; i < subscriptions; i++) {
          const created = await request<{ data: { id: string } }>(
            `${stack.service.url}/v1/webhooks`,
            {
              method: 'POST',
              headers: { 'x-api-key': key.key, 'content-type': 'application/json' },
              body: JSON.stringify({ url: `http://127.0.0.1:${receiver.port}/s${i}`, eventTypes: ['*'] }),
            },
            201,
          );
          subscriptionIds.push(created.body.data.id);
        }
      }
      log(`${subscriptionIds.length} webhook subscriptions (every event) to a local receiver`);
      for (let i = 0; i < workerCount; i++) workers.push(startWorker(stack.database.url));
    }

    const listings = await publishedListings(stack.database.url, organizationIds, 8);
    const bodies = leadBodies(stack.keys, listings);
    const requests = leadRequests(bodies);
    baseline = await startChild<LeadsBareServerOptions>({
      name: 'baseline',
      entry: entry('leads-bare-server.ts'),
      options: {
        databaseUrl: stack.database.url,
        poolSize: POOL_SIZE,
        keyOrganizations: Object.fromEntries(stack.keys.map((k) => [k.key, k.organizationId])),
      },
    });
    const count = async () =>
      Number(
        (
          await db.query<{ n: string }>('SELECT count(*) AS n FROM leads WHERE organization_id = ANY($1)', [
            organizationIds,
          ])
        ).rows[0]?.n,
      );
    const before = await count();
    // Deliveries queued before the leads (the subscriptions' own events, to the ones made earlier).
    const deliveriesBefore = receiver ? total(await deliveryStatuses(db, subscriptionIds)) : 0;
    for (const entry of bodies) {
      for (const url of [stack.service.url, baseline.url]) {
        const init = {
          method: 'POST',
          headers: { 'x-api-key': entry.key, 'content-type': 'application/json' },
          body: JSON.stringify({ ...entry.body, phone: nextPhone() }),
        };
        const answer = await request<unknown>(`${url}/v1/leads`, init, 201);
        if (answer.text !== '{"data":{"success":true}}') throw new Error(`unexpected answer ${answer.text}`);
      }
    }
    const made = (await count()) - before;
    if (made !== 2 * bodies.length) throw new Error(`${2 * bodies.length} leads sent, ${made} stored`);
    log(
      `checked: ${bodies.length} lead forms answer 201 {"data":{"success":true}} from both servers, each stored once`,
    );
    if (load.check) {
      if (receiver)
        await checkDeliveries(db, receiver, subscriptionIds, {
          perAgency: subscriptions,
          leads: made,
          before: deliveriesBefore,
          workers: workers.length,
          log,
        });
      return;
    }

    const measured = await measureAgainstBaseline(
      { name: 'baseline', url: baseline.url, pid: baseline.pid, requests },
      { name: 'service', url: stack.service.url, pid: stack.service.pid, requests },
      load,
      TARGET_P99_MS,
      log,
      BASELINE_LABEL,
    );

    let fanout: Record<string, unknown> | null = null;
    if (receiver) {
      const deliveries = () => deliveryStatuses(db, subscriptionIds);
      const atEnd = await deliveries();
      const drainStarted = performance.now();
      let drained = atEnd;
      while (
        workers.length > 0 &&
        (drained.PENDING ?? 0) > 0 &&
        performance.now() - drainStarted < DRAIN_TIMEOUT_S * 1000
      ) {
        await new Promise((resolve) => setTimeout(resolve, 500));
        drained = await deliveries();
      }
      const leads = (await count()) - before;
      const queued = total(drained);
      fanout = {
        subscriptions: subscriptionIds.length,
        workers: workers.length,
        leadsStored: leads,
        deliveriesQueued: queued,
        deliveriesPerLead: Number((queued / Math.max(1, leads)).toFixed(2)),
        atEndOfLoad: atEnd,
        afterDrain: drained,
        drainSeconds: Number(((performance.now() - drainStarted) / 1000).toFixed(1)),
        receivedUnique: receiver.arrivals.size,
        receivedTotal: receiver.total(),
      };
      log(
        `\nfan-out: ${leads} leads queued ${queued} deliveries (${fanout.deliveriesPerLead} per lead); at the end of the load ` +
          `${JSON.stringify(atEnd)}; ${workers.length} worker(s) then left ${drained.PENDING ?? 0} pending after ${fanout.drainSeconds} s; ` +
          `receiver got ${receiver.arrivals.size} distinct deliveries (${receiver.total()} requests)`,
      );
    }
    const file = writeResult(name, startedAt, {
      scenario: name,
      startedAt: startedAt.toISOString(),
      finishedAt: new Date().toISOString(),
      command: `npm run bench -- ${name} ${args.join(' ')}`.trim(),
      machine: machine(),
      stock: stack.stock,
      settings: {
        ...load,
        keys: scale.keys,
        keyLimitPerMinute: KEY_LIMIT_PER_MINUTE,
        organizationWriteLimitPerMinute: WRITE_LIMIT_PER_MINUTE,
        poolSize: POOL_SIZE,
        subscriptionsPerAgency: subscriptions,
        workers: workerCount,
        forms: bodies.map((b) => b.body),
      },
      service: { pid: stack.service.pid, ...stack.service.info },
      baseline: { kind: 'self', label: BASELINE_LABEL, pid: baseline.pid, ...baseline.info },
      summary: baselineVerdict({
        baseline: BASELINE_LABEL,
        pairedRatio: measured.pairedRatio,
        rates: measured.rates,
        p99Ms: TARGET_P99_MS,
      }),
      fanout,
      ...measured,
    });
    log(`written ${file}`);
    if (measured.serviceFailures.non2xx > 0 || measured.serviceFailures.errors > 0) process.exitCode = 1;
  } finally {
    for (const worker of workers) await stopWorker(worker);
    // A generated database is kept: its agencies must not keep fanning out to a receiver that is gone.
    if (subscriptionIds.length > 0)
      await db.query('DELETE FROM webhook_subscriptions WHERE id = ANY($1)', [subscriptionIds]);
    await db.end();
    await receiver?.close();
    await baseline?.stop();
    await stack.stop();
  }
}

/** The webhook deliveries of these subscriptions, counted by status. */
async function deliveryStatuses(db: pg.Client, subscriptionIds: string[]): Promise<Record<string, number>> {
  const { rows } = await db.query<{ status: string; n: string }>(
    `SELECT status, count(*) AS n FROM webhook_deliveries WHERE subscription_id = ANY($1) GROUP BY status`,
    [subscriptionIds],
  );
  return Object.fromEntries(rows.map((row) => [row.status, Number(row.n)]));
}

const total = (counts: Record<string, number>) => Object.values(counts).reduce((a, b) => a + b, 0);

/**
 * `--check` with subscriptions: the leads just sent queued deliveries (at least one per lead and
 * subscription, both servers alike), and with a worker every one of them reaches the receiver.
 */
async function checkDeliveries(
  db: pg.Client,
  receiver: { arrivals: Map<string, number> },
  subscriptionIds: string[],
  expected: {
    perAgency: number;
    leads: number;
    before: number;
    workers: number;
    log: (line: string) => void;
  },
): Promise<void> {
  const { perAgency, leads, before, workers, log } = expected;
  const deliveries = () => deliveryStatuses(db, subscriptionIds);
  let statuses = await deliveries();
  const queued = total(statuses);
  const byLeads = queued - before;
  // Every lead records events matching its agency's subscriptions (each matches every event).
  if (byLeads < leads * perAgency)
    throw new Error(
      `${leads} leads to agencies with ${perAgency} subscriptions each queued only ${byLeads} webhook deliveries: ${JSON.stringify(statuses)}`,
    );
  if (workers === 0) {
    log(`checked: ${leads} leads queued ${byLeads} webhook deliveries (no worker to deliver them)`);
    return;
  }
  const started = performance.now();
  while (
    ((statuses.PENDING ?? 0) > 0 || receiver.arrivals.size < queued) &&
    performance.now() - started < CHECK_DELIVERY_TIMEOUT_S * 1000
  ) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    statuses = await deliveries();
  }
  if ((statuses.PENDING ?? 0) > 0 || receiver.arrivals.size < queued)
    throw new Error(
      `after ${CHECK_DELIVERY_TIMEOUT_S} s the worker had delivered ${receiver.arrivals.size} of ${queued} deliveries: ${JSON.stringify(statuses)}`,
    );
  log(
    `checked: ${leads} leads queued ${byLeads} webhook deliveries (${(byLeads / leads).toFixed(1)} per lead, ${perAgency} subscriptions per agency); ` +
      `the worker delivered all ${queued} queued to the receiver ` +
      `in ${((performance.now() - started) / 1000).toFixed(1)} s (${JSON.stringify(statuses)})`,
  );
}

export const scenario: Scenario = {
  description:
    'POST /v1/leads on PostgreSQL vs the same statements in one transaction in a bare Fastify route',
  run: (args) => runLeads(args, 'leads', { subscriptions: 0, workers: 0 }),
  check: ['--check'],
};
