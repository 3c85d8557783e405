/**
 * Scenario `scaling` (issue 23, item 7): what each step of docs/scaling.md gives, in one run. On a
 * PostgreSQL primary and a streaming replica of its own (initdb + pg_basebackup, scripts/lib/pg-cluster.ts),
 * with Redis, six service processes wait: two on the primary directly, two through PgBouncer 1.18 in
 * transaction mode (no named prepared statements), two on the primary with the replica as
 * DATABASE_READ_URL. Each round measures, one configuration after the other (the others idle):
 *   one        the first direct process alone
 *   two        both direct processes (the load split evenly)
 *   pooled     both PgBouncer processes
 *   replica    both replica processes
 * for the portal listing (GET /v1/properties, the `properties` requests) and for lead capture
 * (POST /v1/leads, a new person each time). The figures are each configuration's throughput as a
 * ratio to `one` in the same round, median of the rounds. See bench/README.md.
 */
import { request } from '../lib/admin-client.ts';
import { startChild, type ChildServer } from '../lib/child.ts';
import { leadBodies, leadRequests, nextPhone } from '../lib/lead-requests.ts';
import {
  entry,
  KEY_LIMIT_PER_MINUTE,
  listingRequests,
  portalScaleUsage,
  publishedListings,
  startPortalStack,
} from '../lib/portal-stack.ts';
import type { ServiceServerOptions } from '../lib/service-server.ts';
import { machine, median, writeResult } from '../lib/report.ts';
import { failuresOf, mediansOf, pairedRounds, roundRatios, runsTable, type Target } from '../lib/rounds.ts';
import { LOAD_USAGE, parseScaleArguments, type Scenario } from '../lib/scenario.ts';
import { startReplicatedCluster } from '../../scripts/lib/pg-cluster.ts';
import { pgbouncerInstalled, startPgbouncer } from '../../scripts/lib/pgbouncer.ts';

const DEFAULTS = { orgs: 20, perOrg: 1000, keys: 16 };
const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';
const WRITE_LIMIT_PER_MINUTE = 100_000;
const CONFIGURATIONS = ['one', 'two', 'pooled', 'replica'] as const;

const USAGE = `Usage: [REDIS_URL=redis://HOST:PORT] npm run bench -- scaling [options]

The portal listing and lead capture on one service process, two, two through PgBouncer (transaction
mode) and two reading from a streaming replica, on a PostgreSQL primary and replica made for the run
(this machine's PostgreSQL binaries, removed at the end) and Redis (REDIS_URL, default ${DEFAULT_REDIS_URL}).
${LOAD_USAGE}
${portalScaleUsage(DEFAULTS)}
Fixed offered rates are not run (--rates is ignored).
With --check: on tiny stock, every configuration answers the listing with identical bodies (the replica
processes from the replica) and takes a lead; no load.`;

const fmt = (value: number, digits = 3) => Number(value.toFixed(digits));

async function run(args: string[]): Promise<void> {
  const { load, help, scale } = parseScaleArguments(args, DEFAULTS);
  if (help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  if (!pgbouncerInstalled()) throw new Error('PgBouncer is not installed: apt-get install -y pgbouncer');
  const redisUrl = process.env.REDIS_URL ?? DEFAULT_REDIS_URL;
  const startedAt = new Date();
  const log = (line: string) => process.stdout.write(`${line}\n`);
  log(
    `scaling${load.check ? ' --check' : ''}: ${scale.orgs} organizations x ${scale.perOrg} properties, Redis ${redisUrl}` +
      (load.check
        ? ''
        : `, ${load.rounds} x (${CONFIGURATIONS.join(', ')}) x (listing, leads), -c ${load.connections} -d ${load.durationS} (+${load.warmupS} s warm-up)`),
  );
  const cluster = await startReplicatedCluster();
  const extra: ChildServer[] = [];
  let stopStack: (() => Promise<void>) | null = null;
  let stopBouncer: (() => Promise<void>) | null = null;
  try {
    const env = { REDIS_URL: redisUrl };
    const stack = await startPortalStack({
      serverUrl: cluster.primaryUrl('postgres'),
      organizations: scale.orgs,
      perOrg: scale.perOrg,
      keys: scale.keys,
      keyOrganizations: scale.keys,
      writeLimitPerMinute: KEY_LIMIT_PER_MINUTE,
      organizationWriteLimitPerMinute: WRITE_LIMIT_PER_MINUTE,
      services: 2,
      env,
      log,
    });
    stopStack = stack.stop;
    const name = stack.database.name;
    const bouncer = await startPgbouncer({
      server: new URL(cluster.primaryUrl('postgres')).host,
      serverPool: 10,
    });
    stopBouncer = bouncer.stop;
    const start = async (label: string, serviceEnv: Record<string, string>) => {
      const child = await startChild<ServiceServerOptions>({
        name: label,
        entry: entry('service-server.ts'),
        options: { env: { ...env, ...serviceEnv } },
      });
      extra.push(child);
      return child;
    };
    const direct = stack.services as [ChildServer, ChildServer];
    const pooledEnv = {
      DATABASE_URL: bouncer.url(name),
      DATABASE_MIGRATION_URL: cluster.primaryUrl(name),
      DATABASE_PREPARED_STATEMENTS: 'false',
    };
    const replicaEnv = {
      DATABASE_URL: cluster.primaryUrl(name),
      DATABASE_READ_URL: cluster.replicaUrl(name),
    };
    const pooled = [await start('pooled 1', pooledEnv), await start('pooled 2', pooledEnv)];
    const replica = [await start('replica 1', replicaEnv), await start('replica 2', replicaEnv)];
    await cluster.caughtUp();

    const listing = listingRequests(stack.keys, stack.organizations);
    const organizationIds = [...new Set(stack.keys.map((k) => k.organizationId))];
    const leads = leadRequests(
      leadBodies(stack.keys, await publishedListings(stack.database.url, organizationIds, 8)),
    );
    // The replica processes read from the replica once they see it caught up (probed every 200 ms).
    await replicasServing(replica);
    // Every configuration answers the same listing bodies (the replica ones from the replica).
    for (const r of listing.slice(0, 8)) {
      const bodies = await Promise.all(
        [direct[0], ...pooled, ...replica].map(
          async (s) => (await request<unknown>(`${s.url}${r.path}`, { headers: r.headers }, 200)).text,
        ),
      );
      if (new Set(bodies).size !== 1) throw new Error(`the configurations answer ${r.path} differently`);
    }
    log('checked: the configurations answer identical listing bodies');
    if (load.check) {
      // Each configuration takes a lead (its writes go to the primary, through PgBouncer for `pooled`).
      const [lead] = leadBodies(stack.keys, await publishedListings(stack.database.url, organizationIds, 1));
      if (!lead) throw new Error('no lead to send');
      for (const s of [direct[0], direct[1], ...pooled, ...replica]) {
        const answer = await fetch(`${s.url}/v1/leads`, {
          method: 'POST',
          headers: { 'x-api-key': lead.key, 'content-type': 'application/json' },
          body: JSON.stringify({ ...lead.body, phone: nextPhone() }),
        });
        const text = await answer.text();
        if (answer.status < 200 || answer.status > 299)
          throw new Error(`${s.name}: POST /v1/leads answered ${answer.status}: ${text}`);
      }
      const reads = await replicaReads(replica);
      if (reads === 0) throw new Error('the replica processes served no read from the replica');
      log(
        `checked: every process (direct, pooled, replica) takes a lead; the replica processes served ${reads} reads from the replica`,
      );
      return;
    }

    const urls: Record<(typeof CONFIGURATIONS)[number], ChildServer[]> = {
      one: [direct[0]],
      two: direct,
      pooled,
      replica,
    };
    const pids = Object.fromEntries(
      [...direct.slice(1), ...pooled, ...replica].map((s, i) => [`service ${i + 2}`, s.pid]),
    );
    const targetsOf = (workload: string, requests: Target['requests']): Target[] =>
      CONFIGURATIONS.map((configuration) => ({
        name: `${workload} ${configuration}`,
        url: urls[configuration].map((s) => s.url),
        pid: direct[0].pid,
        pids,
        requests,
      }));
    const results: Record<string, unknown> = {};
    const summary: string[] = [];
    for (const [workload, requests] of [
      ['listing', listing],
      ['leads', leads],
    ] as const) {
      const targets = targetsOf(workload, requests);
      const runs = await pairedRounds(targets, load, log);
      const ratios = Object.fromEntries(
        CONFIGURATIONS.slice(1).map((configuration) => {
          const perRound = roundRatios(
            runs,
            `${workload} one`,
            `${workload} ${configuration}`,
            (r) => r.reqPerSec,
          );
          return [configuration, { median: fmt(median(perRound.filter((r) => !Number.isNaN(r)))), perRound }];
        }),
      );
      const medians = Object.fromEntries(targets.map((t) => [t.name, mediansOf(runs, t.name)]));
      const failures = Object.fromEntries(targets.map((t) => [t.name, failuresOf(runs, t.name)]));
      log(
        `\n${runsTable(
          runs,
          targets.map((t) => t.name),
        )}`,
      );
      for (const configuration of CONFIGURATIONS.slice(1)) {
        const ratio = ratios[configuration] as { median: number; perRound: number[] };
        const line = `${workload}: ${configuration} / one = ${ratio.median} (per round ${ratio.perRound.join(', ')})`;
        summary.push(line);
      }
      results[workload] = { runs, medians, ratios, failures };
    }
    const served = await Promise.all(replica.map((s) => replicaReads([s])));
    log(`\n${summary.join('\n')}\nreads served by the replica: ${served.reduce((a, b) => a + b, 0)}`);
    const file = writeResult('scaling', startedAt, {
      scenario: 'scaling',
      startedAt: startedAt.toISOString(),
      finishedAt: new Date().toISOString(),
      command: `npm run bench -- scaling ${args.join(' ')}`.trim(),
      machine: machine(),
      settings: { ...load, ...scale, redisUrl },
      results,
      replicaReads: served,
    });
    log(`written ${file}`);
  } finally {
    for (const child of extra) await child.stop().catch(() => undefined);
    await stopStack?.().catch(() => undefined);
    await stopBouncer?.().catch(() => undefined);
    await cluster.stop();
  }
}

interface Readiness {
  replicas?: { state: string; reads: number }[];
}

/** Reads the replicas of these processes have served (GET /readyz). */
async function replicaReads(processes: ChildServer[]): Promise<number> {
  let reads = 0;
  for (const s of processes) {
    const ready = await request<Readiness>(`${s.url}/readyz`, {}, 200);
    reads += ready.body.replicas?.reduce((sum, r) => sum + r.reads, 0) ?? 0;
  }
  return reads;
}

/** Waits (at most 15 s) until every replica of these processes is `ok` (serving reads). */
async function replicasServing(processes: ChildServer[]): Promise<void> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const states = [];
    for (const s of processes) {
      const ready = await request<Readiness>(`${s.url}/readyz`, {}, 200);
      states.push(...(ready.body.replicas ?? []).map((r) => r.state));
    }
    if (states.length > 0 && states.every((state) => state === 'ok')) return;
    if (Date.now() > deadline) throw new Error(`the replicas are not serving: ${states.join(', ')}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

export const scenario: Scenario = {
  description: 'listing and lead capture: 1 process vs 2, 2 through PgBouncer, 2 reading a replica',
  run,
  check: ['--check'],
};
