/**
 * `npm run topology [-- --seconds=90 --concurrency=12]`: the multi-process topology of
 * docs/scaling.md, run for real on this machine (issue 23, item 4).
 *
 * A PostgreSQL primary and a streaming replica (their own clusters, initdb + pg_basebackup), PgBouncer
 * in transaction mode in front of the primary, this machine's Redis (database 7, emptied first), two API
 * processes and two delivery workers. A mixed load runs for `--seconds` while one API process and one
 * worker are killed with SIGKILL (and started again) and PgBouncer is restarted. Then it prints the
 * answers by status, p50/p99, writes acknowledged vs found, events recorded vs delivered (duplicates
 * counted), the replica's largest lag and the reads it served, and exits 1 when an acknowledged write
 * or an event was lost, or any answer was a 500.
 */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Redis } from 'ioredis';
import pg from 'pg';
import { FEATURES } from '../src/features.ts';
import { SCOPES } from '../src/platform/auth/scopes.ts';
import { installFeatures } from '../src/platform/features/manifest.ts';
import { startReplicatedCluster } from './lib/pg-cluster.ts';
import { startPgbouncer } from './lib/pgbouncer.ts';
import { freePort } from './lib/ports.ts';
import { Balancer, emptyStats, oneOperation, percentile, type LoadKeys } from './lib/topology-load.ts';

// The scope lists the keys below are given (the service processes install the features themselves).
installFeatures(FEATURES);
import { serviceProcess, type ServiceProcess } from './lib/topology-processes.ts';

const option = (name: string, fallback: number) => {
  const given = process.argv.find((arg) => arg.startsWith(`--${name}=`));
  return given === undefined ? fallback : Number(given.split('=')[1]);
};
const SECONDS = option('seconds', 90);
const CONCURRENCY = option('concurrency', 12);
const ADMIN_TOKEN = `adm_${randomBytes(24).toString('base64url')}`;
const REDIS_URL = process.env.TOPOLOGY_REDIS_URL || 'redis://127.0.0.1:6379/7';
const log = (line: string) => console.log(`[topology ${new Date().toISOString().slice(11, 19)}] ${line}`);

/** The webhook receiver: answers 200 and counts each event id it gets. */
async function startReceiver() {
  const received = new Map<string, number>();
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      const id = String(request.headers['webhook-id']);
      received.set(id, (received.get(id) ?? 0) + 1);
      response.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    received,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function admin(base: string, method: string, path: string, body?: unknown) {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${ADMIN_TOKEN}`,
      ...(body ? { 'content-type': 'application/json' } : {}),
    },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  if (response.status >= 300)
    throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
  return (await response.json()) as { data: { key: string; organization: { id: string } } };
}

/** Replica reads this API process has served since it started (its /metrics). */
async function replicaReads(api: ServiceProcess): Promise<number> {
  const response = await fetch(`${api.url}/metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  const text = await response.text();
  return [...text.matchAll(/^db_replica_reads_total\{[^}]*\} (\d+)/gm)].reduce(
    (sum, m) => sum + Number(m[1]),
    0,
  );
}

async function main() {
  log('starting a primary and a streaming replica (initdb, pg_basebackup)');
  const cluster = await startReplicatedCluster();
  const cleanups: (() => Promise<unknown>)[] = [() => cluster.stop()];
  try {
    await cluster.primary('CREATE DATABASE agency');
    const primaryPort = new URL(cluster.primaryUrl('agency')).port;
    const bouncer = await startPgbouncer({
      server: `127.0.0.1:${primaryPort}`,
      poolMode: 'transaction',
      serverPool: 10,
    });
    cleanups.unshift(() => bouncer.stop());
    const redis = new Redis(REDIS_URL);
    await redis.flushdb();
    await redis.quit();
    const receiver = await startReceiver();
    cleanups.unshift(() => receiver.close());

    const env = {
      NODE_ENV: 'production',
      DATABASE_URL: bouncer.url('agency'),
      DATABASE_PREPARED_STATEMENTS: 'false',
      DATABASE_MIGRATION_URL: cluster.primaryUrl('agency'),
      DATABASE_READ_URL: cluster.replicaUrl('agency'),
      DATABASE_POOL_SIZE: '8',
      REDIS_URL,
      ADMIN_TOKEN,
      SECRETS_KEY: randomBytes(32).toString('base64'),
      LOG_LEVEL: 'error',
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      WEBHOOK_TIMEOUT_MS: '5000',
      WEBHOOK_RETRY_DELAYS_MS: '0,500,1000,2000,4000,8000',
    };
    const apis = [
      serviceProcess('api-1', 'api', env, await freePort()),
      serviceProcess('api-2', 'api', env, await freePort()),
    ];
    const workers = [serviceProcess('worker-1', 'worker', env), serviceProcess('worker-2', 'worker', env)];
    cleanups.unshift(() => Promise.all([...apis, ...workers].map((service) => service.stop())));
    log('starting 2 API processes and 2 workers behind PgBouncer (transaction mode)');
    await (apis[0] as ServiceProcess).start(); // migrates first (through DATABASE_MIGRATION_URL)
    await Promise.all([(apis[1] as ServiceProcess).start(), ...workers.map((worker) => worker.start())]);

    const base = apis[0]?.url as string;
    const demo = (await admin(base, 'POST', '/admin/v1/demo-seed')).data;
    const orgId = demo.organization.id as string;
    await admin(base, 'PATCH', `/admin/v1/organizations/${orgId}`, { writeLimitPerMinute: 100_000 });
    const limits = { rateLimitPerMinute: 100_000 };
    const secret = (
      await admin(base, 'POST', `/admin/v1/organizations/${orgId}/api-keys`, {
        type: 'secret',
        accessLevel: 3,
        ...limits,
        writeLimitPerMinute: 100_000,
        scopes: [...SCOPES],
      })
    ).data.key as string;
    const publishable = (
      await admin(base, 'POST', `/admin/v1/organizations/${orgId}/api-keys`, {
        type: 'publishable',
        ...limits,
        writeLimitPerMinute: 100_000,
      })
    ).data.key as string;
    // A second agency whose portal is only read: with no recent write, its reads can go to the replica.
    const quiet = (await admin(base, 'POST', '/admin/v1/demo-seed')).data;
    const readOnlyPortal = (
      await admin(base, 'POST', `/admin/v1/organizations/${quiet.organization.id}/api-keys`, {
        type: 'publishable',
        ...limits,
        writeLimitPerMinute: 100_000,
      })
    ).data.key;
    const keys: LoadKeys = { secret, publishable, readOnlyPortal };
    const hook = await fetch(`${base}/v1/webhooks`, {
      method: 'POST',
      headers: { 'x-api-key': secret, 'content-type': 'application/json' },
      body: JSON.stringify({ url: receiver.url, eventTypes: ['*'] }),
    });
    if (hook.status !== 201) throw new Error(`POST /v1/webhooks: ${hook.status} ${await hook.text()}`);
    const subscriptionId = ((await hook.json()) as { data: { id: string } }).data.id;
    const agents = await fetch(`${base}/v1/booking/agents`, { headers: { 'x-api-key': publishable } });
    // SPEC's booking answers are doubly wrapped: {data: {data: [...]}}.
    const slugs = ((await agents.json()) as { data: { data: { slug: string }[] } }).data.data.map(
      (agent) => agent.slug,
    );

    const stats = emptyStats();
    const balancer = new Balancer(() => apis.filter((api) => api.serving()).map((api) => api.url as string));
    let maxLagMs = 0;
    let servedByReplica = 0;
    const deadline = Date.now() + SECONDS * 1000;
    const sampler = setInterval(() => {
      void fetch(`${apis[1]?.url}/readyz`)
        .then((response) => response.json() as Promise<{ replicas?: { lagMs: number | null }[] }>)
        .then((ready) => (maxLagMs = Math.max(maxLagMs, ready.replicas?.[0]?.lagMs ?? 0)))
        .catch(() => undefined);
    }, 250);
    const at = (fraction: number) => new Promise((resolve) => setTimeout(resolve, SECONDS * 1000 * fraction));
    const chaos = (async () => {
      await at(0.25);
      servedByReplica += await replicaReads(apis[0] as ServiceProcess);
      log('SIGKILL api-1');
      await apis[0]?.kill();
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      await apis[0]?.start();
      log('api-1 serves again');
      await at(0.2);
      log('SIGKILL worker-1');
      await workers[0]?.kill();
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      await workers[0]?.start();
      await at(0.2);
      log('restarting PgBouncer');
      await bouncer.restart();
    })();
    log(`mixed load for ${SECONDS} s, ${CONCURRENCY} clients`);
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (Date.now() < deadline) await oneOperation(balancer, stats, keys, slugs);
      }),
    );
    await chaos;
    clearInterval(sampler);
    for (const api of apis) servedByReplica += await replicaReads(api);

    log('load done; waiting for the deliveries to drain');
    const primary = new pg.Client({ connectionString: cluster.primaryUrl('agency') });
    await primary.connect();
    cleanups.unshift(() => primary.end());
    const pending = async () =>
      Number(
        (
          await primary.query(
            `SELECT count(*) AS n FROM webhook_deliveries WHERE subscription_id = $1 AND status = 'PENDING'`,
            [subscriptionId],
          )
        ).rows[0].n,
      );
    const drainBy = Date.now() + 120_000;
    while ((await pending()) > 0 && Date.now() < drainBy)
      await new Promise((resolve) => setTimeout(resolve, 500));

    const found = async (table: string, ids: Set<string>) =>
      Number(
        (await primary.query(`SELECT count(*) AS n FROM ${table} WHERE id = ANY($1)`, [[...ids]])).rows[0].n,
      );
    const writes = {
      contacts: [stats.acked.contacts.size, await found('contacts', stats.acked.contacts)],
      leads: [
        stats.acked.leadPhones.size,
        Number(
          (
            await primary.query(
              `SELECT count(DISTINCT c.phone) AS n FROM leads l JOIN contacts c ON c.id = l.contact_id
               WHERE c.phone = ANY($1)`,
              [[...stats.acked.leadPhones]],
            )
          ).rows[0].n,
        ),
      ],
      appointments: [stats.acked.appointments.size, await found('appointments', stats.acked.appointments)],
    };
    // Every event recorded for the organization since the subscription (which takes '*') must arrive.
    const recorded = (
      await primary.query(
        `SELECT e.id FROM events e JOIN webhook_subscriptions s ON s.id = $1
         WHERE e.organization_id = s.organization_id AND e.created_at >= s.created_at AND e.type <> 'webhook.created'`,
        [subscriptionId],
      )
    ).rows.map((row: { id: string }) => row.id);
    const lostEvents = recorded.filter((id) => !receiver.received.has(id));
    // Attempts whose worker was killed before writing their outcome: the log keeps them (LOST_ATTEMPT).
    const interrupted = Number(
      (
        await primary.query(
          `SELECT count(*) AS n FROM webhook_attempts WHERE subscription_id = $1 AND error LIKE 'no outcome recorded%'`,
          [subscriptionId],
        )
      ).rows[0].n,
    );
    const deliveries = [...receiver.received.values()].reduce((sum, n) => sum + n, 0);
    const fiveHundreds = stats.statuses.get(500) ?? 0;
    const lostWrites = Object.values(writes).reduce(
      (sum, [acked, seen]) => sum + (acked as number) - (seen as number),
      0,
    );

    const statuses = [...stats.statuses.entries()]
      .sort(([a], [b]) => a - b)
      .map(([s, n]) => `${s || 'none'}: ${n}`);
    console.log(
      '\n==== topology: 2 API + 2 workers, PgBouncer (transaction), primary + streaming replica, Redis ====',
    );
    console.log(`load               ${SECONDS} s, ${CONCURRENCY} clients, ${stats.latencies.length} answers`);
    console.log(`statuses           ${statuses.join(', ')}`);
    console.log(
      `latency            p50 ${percentile(stats.latencies, 50).toFixed(1)} ms, p99 ${percentile(stats.latencies, 99).toFixed(1)} ms`,
    );
    console.log(`retried on a new connection  ${stats.retried}`);
    const unusual = [...stats.byOperation.entries()].filter(([name]) => !/ 20[01]$/.test(name));
    if (unusual.length > 0)
      console.log(`non-2xx by operation  ${unusual.map(([name, n]) => `${name}: ${n}`).join(', ')}`);
    for (const [kind, [acked, seen]] of Object.entries(writes)) {
      console.log(`writes ${kind.padEnd(12)} acknowledged ${acked}, found ${seen}`);
    }
    console.log(
      `events             recorded ${recorded.length}, delivered ${recorded.length - lostEvents.length}, lost ${lostEvents.length}, duplicates ${deliveries - receiver.received.size}, attempts logged without outcome ${interrupted}`,
    );
    console.log(`replica            max lag ${maxLagMs} ms, reads served ${servedByReplica}`);
    const failures = [
      ...(lostWrites > 0 ? [`${lostWrites} acknowledged writes not found`] : []),
      ...(lostEvents.length > 0
        ? [`${lostEvents.length} events never delivered (${lostEvents.slice(0, 3).join(', ')})`]
        : []),
      ...(fiveHundreds > 0 ? [`${fiveHundreds} answers were 500`] : []),
      ...(servedByReplica === 0 ? ['the replica served no read'] : []),
    ];
    if (failures.length > 0) {
      for (const service of [...apis, ...workers])
        if (service.errors()) console.error(`--- ${service.name} stderr\n${service.errors()}`);
      throw new Error(`topology failed: ${failures.join('; ')}`);
    }
    console.log('topology: passed (0 acknowledged writes lost, 0 events lost, no 500)');
  } finally {
    for (const cleanup of cleanups) await cleanup().catch(() => undefined);
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
