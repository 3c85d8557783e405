/**
 * Deliveries under pressure (issue 23, item 6): every attempt is in the delivery log from the moment
 * it starts, so an attempt whose worker was killed is logged (the duplicate a receiver may then see is
 * accounted for); finished deliveries are purged after WEBHOOK_LOG_RETENTION_DAYS; /metrics counts
 * attempts and shows the queue by state.
 */
import type { FastifyInstance } from 'fastify';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows, type Database } from '../../../src/db/database.ts';
import { purgeDeliveryLog } from '../../../src/features/webhooks/index.ts';
import { claimDue, LOST_ATTEMPT } from '../../../src/features/webhooks/webhooks.queue.store.ts';
import { newId } from '../../../src/platform/ids/ids.ts';
import { serveMetrics } from '../../../src/platform/metrics/metrics-server.ts';
import { webhookMetrics } from '../../../src/features/webhooks/webhooks.metrics.ts';
import { createTenant, FAST, type Tenant } from '../../helpers/factories.ts';
import { admin } from '../../helpers/http.ts';
import { ADMIN_TOKEN, buildTestApp, testDatabase } from '../../helpers/test-app.ts';
import { Receiver } from './receiver.ts';
import { deliveriesOf, emit, emitMany, eventually, startWorker, subscribe } from './support.ts';

let app: FastifyInstance;
let db: Database;
let receiver: Receiver;
let tenant: Tenant;

beforeAll(async () => {
  app = await buildTestApp({ WEBHOOK_ALLOW_PRIVATE_URLS: 'true' });
  db = await testDatabase();
  receiver = await new Receiver().start();
  tenant = await createTenant(app, { secret: FAST });
});
afterAll(async () => {
  await receiver.close();
  await app.close();
});

/** One metric's value in Prometheus text (0 when the series is absent). */
function metric(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
}

async function scrape(): Promise<string> {
  const response = await admin(app, 'GET', '/metrics');
  expect(response.statusCode).toBe(200);
  return response.body;
}

describe('the delivery log', () => {
  it('shows an attempt while it is in flight (no duration yet), then its outcome', async () => {
    const hook = await subscribe(app, tenant.secret.key, receiver.url('/slow'), ['deal.won']);
    receiver.script('/slow', { status: 200, delayMs: 1_500 });
    const worker = startWorker(db);
    try {
      await emit(db, tenant.org.id, 'deal.won');
      await receiver.waitFor(1, '/slow');
      const [during] = await deliveriesOf(app, tenant.secret.key, hook.id);
      expect(during?.status).toBe('PENDING');
      expect(during?.attempts).toMatchObject([
        { attempt: 1, durationMs: null, statusCode: null, error: null },
      ]);
      await eventually(async () => {
        const [after] = await deliveriesOf(app, tenant.secret.key, hook.id);
        expect(after?.status).toBe('SUCCEEDED');
        expect(after?.attempts).toHaveLength(1);
        expect(after?.attempts[0]).toMatchObject({ attempt: 1, statusCode: 200, error: null });
        expect(after?.attempts[0]?.durationMs).toBeGreaterThanOrEqual(1_400);
      });
    } finally {
      await worker.stop();
    }
  });

  it('keeps the attempt of a worker killed mid-send, and the next worker sends it again', async () => {
    const hook = await subscribe(app, tenant.secret.key, receiver.url('/after-crash'), ['deal.won']);
    receiver.script('/after-crash', { status: 200 });
    const eventId = await emit(db, tenant.org.id, 'deal.won');
    // What a worker killed with SIGKILL leaves: its claim (a 300 ms lease) and its attempt, opened and
    // never finished. The request may have reached the receiver; nothing recorded its answer.
    const claimed = await db.systemTx((tx) =>
      claimDue(tx, {
        limit: 64,
        perSubscription: 16,
        inFlight: {},
        leaseMs: 300,
        claimId: 'killed-worker',
        attemptIds: Array.from({ length: 64 }, () => newId('wha')),
      }),
    );
    expect(claimed.map((delivery) => delivery.event.id)).toContain(eventId);
    const worker = startWorker(db);
    try {
      await receiver.waitFor(1, '/after-crash');
      const [delivery] = await eventually(async () => {
        const found = await deliveriesOf(app, tenant.secret.key, hook.id);
        expect(found[0]?.status).toBe('SUCCEEDED');
        return found;
      });
      expect(delivery?.attempts).toMatchObject([
        { attempt: 1, durationMs: null, statusCode: null, error: LOST_ATTEMPT },
        { attempt: 2, statusCode: 200, error: null },
      ]);
      // Counted once as an attempt of the schedule: the lost one is logged, not charged to the receiver.
      expect(delivery?.attemptCount).toBe(1);
    } finally {
      await worker.stop();
    }
  });
});

describe('WEBHOOK_LOG_RETENTION_DAYS', () => {
  it('purges finished deliveries older than the retention with their attempts; keeps recent and PENDING ones', async () => {
    const other = await createTenant(app, { secret: FAST });
    const hook = await subscribe(app, other.secret.key, receiver.url('/kept'), ['deal.won']);
    receiver.script('/kept', { status: 200 }, { status: 200 });
    const worker = startWorker(db);
    try {
      await emitMany(db, other.org.id, 'deal.won', 2);
      await eventually(async () => {
        const found = await deliveriesOf(app, other.secret.key, hook.id);
        expect(found.map((d) => d.status)).toEqual(['SUCCEEDED', 'SUCCEEDED']);
      });
    } finally {
      await worker.stop();
    }
    // A third delivery stays PENDING (no worker runs), created long ago.
    await emit(db, other.org.id, 'deal.won');
    const [old, recent, pending] = (await deliveriesOf(app, other.secret.key, hook.id)).sort((a, b) =>
      a.status === 'PENDING' ? 1 : b.status === 'PENDING' ? -1 : a.id.localeCompare(b.id),
    );
    await db.systemTx((tx) =>
      queryRows(
        tx,
        sql`UPDATE webhook_deliveries SET completed_at = now() - interval '31 days', created_at = now() - interval '31 days'
            WHERE id = ${old!.id}`,
      ),
    );
    await db.systemTx((tx) =>
      queryRows(
        tx,
        sql`UPDATE webhook_deliveries SET created_at = now() - interval '40 days' WHERE id = ${pending!.id}`,
      ),
    );

    expect(await purgeDeliveryLog(db, 30, { batchSize: 1 })).toBeGreaterThanOrEqual(1);

    const left = await deliveriesOf(app, other.secret.key, hook.id);
    expect(left.map((d) => d.id).sort()).toEqual([recent!.id, pending!.id].sort());
    const attempts = await db.systemTx((tx) =>
      queryRows<{ n: number }>(
        tx,
        sql`SELECT count(*)::int AS n FROM webhook_attempts WHERE delivery_id = ${old!.id}`,
      ),
    );
    expect(attempts[0]?.n).toBe(0);
  });
});

describe('GET /metrics', () => {
  it('counts attempts by outcome with their latency, and finished deliveries by status', async () => {
    const before = await scrape();
    const hook = await subscribe(app, tenant.secret.key, receiver.url('/counted'), ['deal.won']);
    receiver.script('/counted', { status: 500 }, { status: 200 });
    const worker = startWorker(db);
    try {
      await emit(db, tenant.org.id, 'deal.won');
      await eventually(async () => {
        const [delivery] = await deliveriesOf(app, tenant.secret.key, hook.id);
        expect(delivery?.status).toBe('SUCCEEDED');
      });
    } finally {
      await worker.stop();
    }
    const after = await scrape();
    const grew = (series: string) => metric(after, series) - metric(before, series);
    expect(grew('webhook_attempts_total{outcome="retry"}')).toBeGreaterThanOrEqual(1);
    expect(grew('webhook_attempts_total{outcome="success"}')).toBeGreaterThanOrEqual(1);
    expect(grew('webhook_attempt_duration_seconds_count{outcome="success"}')).toBeGreaterThanOrEqual(1);
    expect(grew('webhook_deliveries_completed_total{status="SUCCEEDED"}')).toBeGreaterThanOrEqual(1);
  });

  it('shows the queue by state from the database, and the wait of the oldest due delivery', async () => {
    const busy = await createTenant(app, { secret: FAST });
    await subscribe(app, busy.secret.key, receiver.url('/queued'), ['deal.won']);
    // No worker runs: the deliveries wait, due.
    await emitMany(db, busy.org.id, 'deal.won', 3);
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const text = await scrape();
    expect(metric(text, 'webhook_deliveries_queued{state="due"}')).toBeGreaterThanOrEqual(3);
    expect(metric(text, 'webhook_oldest_due_seconds')).toBeGreaterThanOrEqual(1);
    expect(text).toMatch(/^webhook_deliveries_queued\{state="in_flight"\} \d+$/m);
    expect(text).toMatch(/^webhook_deliveries_queued\{state="scheduled"\} \d+$/m);
  });

  it('of a worker-only process (WORKER_METRICS_PORT): the admin token, then the same series', async () => {
    const server = await serveMetrics({
      host: '127.0.0.1',
      port: 0,
      adminToken: ADMIN_TOKEN,
      metrics: webhookMetrics(db),
    });
    try {
      const url = `http://127.0.0.1:${server.port}`;
      expect((await fetch(`${url}/metrics`)).status).toBe(401);
      const wrong = await fetch(`${url}/metrics`, { headers: { authorization: 'Bearer nope' } });
      expect(wrong.status).toBe(401);
      expect(
        (await fetch(`${url}/other`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).status,
      ).toBe(404);
      const ok = await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
      expect(ok.status).toBe(200);
      const text = await ok.text();
      expect(text).toContain('# TYPE webhook_attempts_total counter');
      expect(text).toMatch(/^webhook_deliveries_queued\{state="due"\} \d+$/m);
      expect(text).toContain('process_cpu_user_seconds_total');
    } finally {
      await server.close();
    }
  });
});
