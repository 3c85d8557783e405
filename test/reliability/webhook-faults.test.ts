/**
 * Webhook deliveries under faults (docs/reliability.md "Faults"), with the worker as its own
 * process (`npm run worker`) on a PostgreSQL of the test's own and a real local receiver:
 * - durability: a backlog queued at once, PostgreSQL crashed and restarted under the worker, then
 *   the worker killed with SIGKILL and started again: every event reaches the receiver at least
 *   once (distinct `webhook-id`), and the delivery log ends with every delivery SUCCEEDED;
 * - isolation: a receiver that accepts and never answers does not slow deliveries to another
 *   subscription (its attempts time out; it holds only its own slots).
 */
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenant } from '../helpers/factories.ts';
import { PrivatePostgres } from '../helpers/private-services.ts';
import { Receiver } from '../features/webhooks/receiver.ts';
import {
  emit,
  emitMany,
  PROCESS_SECRETS_KEY,
  startWorkerProcess,
  stopProcess,
  subscribe,
} from '../features/webhooks/support.ts';
import { FAULT_TESTS, FULL, latencyFigures, report, serve, sleep, type Served } from './support.ts';

const DELIVERIES = FULL ? 10_000 : 1_000;
/** Receiver answer time in the durability test: the faults land while the worker is mid-backlog. */
const ANSWER_DELAY_MS = 25;
/** Events per phase of the isolation test, sent at EVENTS_PER_S. */
const EVENTS = FULL ? 1_000 : 100;
const EVENTS_PER_S = 50;
/** WEBHOOK_TIMEOUT_MS of the durability test's workers (lease = 2 x timeout + 1 s = 5 s). */
const TIMEOUT_MS = 2_000;
/** WEBHOOK_TIMEOUT_MS of the isolation test: the hanging receiver's attempts time out several times a run. */
const HANG_TIMEOUT_MS = 500;
/** Deliveries already queued for the hanging receiver when the measurement starts. */
const HANG_BACKLOG = FULL ? 20_000 : 5_000;

describe.skipIf(!FAULT_TESTS)('webhook deliveries under faults (private PostgreSQL, worker process)', () => {
  let postgres: PrivatePostgres;
  let databaseUrl: string;
  let service: Served;
  let receiver: Receiver;
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    postgres = await PrivatePostgres.create();
    databaseUrl = await postgres.createDatabase('agency');
    service = await serve(databaseUrl, {
      env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true', SECRETS_KEY: PROCESS_SECRETS_KEY },
    });
    receiver = await new Receiver().start();
  }, 120_000);

  afterAll(async () => {
    await Promise.all(children.map((child) => stopProcess(child, 'SIGKILL')));
    await receiver?.close();
    await service?.close();
    await postgres?.destroy();
  });

  const worker = (timeoutMs = TIMEOUT_MS) => {
    const child = startWorkerProcess(databaseUrl, { WEBHOOK_TIMEOUT_MS: String(timeoutMs) });
    children.push(child);
    return child;
  };

  const statusCounts = async (subscriptionId: string) => {
    const rows = await postgres.query<{ status: string; n: number }>(
      `SELECT status, count(*)::int AS n FROM webhook_deliveries WHERE subscription_id = '${subscriptionId}' GROUP BY status`,
      'agency',
    );
    return Object.fromEntries(rows.map((row) => [row.status, row.n])) as Record<string, number>;
  };

  const busyTenant = () =>
    createTenant(service.app, { secret: { rateLimitPerMinute: 100_000, writeLimitPerMinute: 100_000 } });

  it(
    `delivers all ${DELIVERIES} queued events at least once through a PostgreSQL crash and a worker SIGKILL`,
    async () => {
      const tenant = await busyTenant();
      const hook = await subscribe(service.app, tenant.secret.key, receiver.url('/durable'), ['deal.won']);
      receiver.script('/durable', { status: 200, delayMs: ANSWER_DELAY_MS });
      const ids = new Set(await emitMany(service.db, tenant.org.id, 'deal.won', DELIVERIES));
      expect(await statusCounts(hook.id)).toEqual({ PENDING: DELIVERIES });

      const started = performance.now();
      const elapsed = () => Math.round(performance.now() - started);
      const first = worker();

      // PostgreSQL crashes (stop -m immediate: no shutdown checkpoint, recovery at start) mid-backlog.
      await receiver.waitFor(Math.floor(DELIVERIES / 4), '/durable', 60_000);
      const crashAt = elapsed();
      await postgres.restart('immediate');
      const backAt = elapsed();

      // Then the worker itself is killed with deliveries in flight.
      await receiver.waitFor(Math.floor(DELIVERIES / 2), '/durable', 60_000);
      const killAt = elapsed();
      expect(first.exitCode, 'the worker must still be running after the database restart').toBeNull();
      await stopProcess(first, 'SIGKILL');
      const receivedAtKill = receiver.at('/durable').length;

      const second = worker();
      const deadline = Date.now() + (FULL ? 300_000 : 60_000);
      while ((await statusCounts(hook.id)).SUCCEEDED !== DELIVERIES) {
        if (Date.now() > deadline)
          throw new Error(`not all delivered: ${JSON.stringify(await statusCounts(hook.id))}`);
        await sleep(200);
      }
      const doneAt = elapsed();
      await stopProcess(second);

      const received = receiver.at('/durable').map((request) => request.headers['webhook-id'] as string);
      const distinct = new Set(received);
      // None lost: every event id arrived, and nothing else did.
      expect(distinct.size).toBe(DELIVERIES);
      expect(distinct).toEqual(ids);
      expect(await statusCounts(hook.id)).toEqual({ SUCCEEDED: DELIVERIES });

      report(`worker SIGKILL + PostgreSQL crash with ${DELIVERIES} deliveries queued`, {
        deliveries: DELIVERIES,
        receiverAnswerMs: ANSWER_DELAY_MS,
        postgresCrashAtMs: crashAt,
        postgresBackAtMs: backAt,
        workerKilledAtMs: killAt,
        receivedWhenKilled: receivedAtKill,
        allSucceededAtMs: doneAt,
        requestsReceived: received.length,
        distinctEvents: distinct.size,
        duplicates: received.length - distinct.size,
      });
    },
    FULL ? 600_000 : 120_000,
  );

  /**
   * Emits EVENTS deal.won at EVENTS_PER_S and returns the healthy receiver's latency per event:
   * arrival at the receiver minus the commit of the event.
   */
  async function healthyLatencies(organizationId: string, path: string): Promise<number[]> {
    const committedAt = new Map<string, number>();
    for (let i = 0; i < EVENTS; i++) {
      const id = await emit(service.db, organizationId, 'deal.won');
      committedAt.set(id, Date.now());
      await sleep(1_000 / EVENTS_PER_S);
    }
    await receiver.waitFor(EVENTS, path, 30_000);
    return receiver.at(path).map((request) => {
      const id = request.headers['webhook-id'] as string;
      return request.at - (committedAt.get(id) as number);
    });
  }

  it(
    'delivers to a healthy receiver as fast while another subscription hangs',
    async () => {
      const child = worker(HANG_TIMEOUT_MS);
      // Measured once the worker runs (a first delivery arrived), not while it starts.
      const warmup = await busyTenant();
      await subscribe(service.app, warmup.secret.key, receiver.url('/warmup'), ['deal.won']);
      await emit(service.db, warmup.org.id, 'deal.won');
      await receiver.waitFor(1, '/warmup', 30_000);

      // Without a hanging receiver.
      const alone = await busyTenant();
      await subscribe(service.app, alone.secret.key, receiver.url('/healthy-alone'), ['deal.won']);
      const baseline = await healthyLatencies(alone.org.id, '/healthy-alone');

      // The same traffic with a second subscription that accepts every request and never answers,
      // and already has a backlog (it has been hanging for a while: other events queued for it).
      const shared = await busyTenant();
      await subscribe(service.app, shared.secret.key, receiver.url('/healthy'), ['deal.won']);
      const hanging = await subscribe(service.app, shared.secret.key, receiver.url('/hanging'), [
        'deal.won',
        'contact.created',
      ]);
      receiver.script('/hanging', 'hang');
      await emitMany(service.db, shared.org.id, 'contact.created', HANG_BACKLOG);
      const withHanging = await healthyLatencies(shared.org.id, '/healthy');
      await stopProcess(child, 'SIGKILL');

      const before = latencyFigures(baseline);
      const after = latencyFigures(withHanging);
      // Every healthy delivery arrived, and the tail is within 250 ms or twice the baseline's,
      // whichever is larger: waiting for a slot, a pooled connection or a lock that the hanging
      // subscription's attempts hold would cost up to their time limit, each time.
      expect(withHanging).toHaveLength(EVENTS);
      expect(after.p99).toBeLessThanOrEqual(Math.max(before.p99 + 250, 2 * before.p99));
      // The hanging receiver got requests, and their attempts ended with the time limit.
      const [timeouts] = await postgres.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id
       WHERE d.subscription_id = '${hanging.id}' AND a.error = 'timeout after ${HANG_TIMEOUT_MS} ms'`,
        'agency',
      );
      expect(receiver.at('/hanging').length).toBeGreaterThan(0);
      expect(timeouts?.n).toBeGreaterThan(0);

      report('healthy receiver latency (commit -> receipt) without and with a hanging receiver', {
        events: EVENTS,
        eventsPerSecond: EVENTS_PER_S,
        webhookTimeoutMs: HANG_TIMEOUT_MS,
        hangingBacklog: HANG_BACKLOG,
        withoutHangingMs: before,
        withHangingMs: after,
        hangingRequestsReceived: receiver.at('/hanging').length,
        hangingAttemptsTimedOut: timeouts?.n,
      });
    },
    FULL ? 180_000 : 60_000,
  );
});
