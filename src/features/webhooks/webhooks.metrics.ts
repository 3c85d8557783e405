// Prometheus metrics of webhook delivery: what this process's worker sent, and the queue as the database has it.
import { sql } from 'drizzle-orm';
import { Counter, Gauge, Histogram, type Metric } from 'prom-client';
import { queryRows, type Database } from '../../db/database.ts';

/** An attempt's outcome as the metrics label it. */
export type AttemptOutcome = 'success' | 'retry' | 'failed' | 'not_sent';

/**
 * What this process's delivery worker did, for the life of the process (every worker of the process
 * adds to the same series): attempts by outcome, their latency, and deliveries finished by status.
 * Registered in no registry here: each /metrics registry (the app's, a worker's) registers them.
 */
export const deliveryMetrics = {
  attempts: new Counter({
    name: 'webhook_attempts_total',
    help: 'Webhook delivery attempts made by this process, by outcome (success, retry, failed, not_sent)',
    labelNames: ['outcome'],
    registers: [],
  }),
  latency: new Histogram({
    name: 'webhook_attempt_duration_seconds',
    help: "Webhook attempts' time from the request to the answer (or the error), by outcome",
    labelNames: ['outcome'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [],
  }),
  completed: new Counter({
    name: 'webhook_deliveries_completed_total',
    help: 'Webhook deliveries this process finished, by final status (SUCCEEDED, FAILED)',
    labelNames: ['status'],
    registers: [],
  }),
};

/** Counts one attempt (its duration in milliseconds) and, when it ended the delivery, the delivery. */
export function countAttempt(outcome: AttemptOutcome, durationMs: number): void {
  deliveryMetrics.attempts.inc({ outcome });
  if (outcome !== 'not_sent') deliveryMetrics.latency.observe({ outcome }, durationMs / 1000);
  if (outcome === 'success') deliveryMetrics.completed.inc({ status: 'SUCCEEDED' });
  if (outcome === 'failed') deliveryMetrics.completed.inc({ status: 'FAILED' });
}

interface QueueRow {
  scheduled: string | number;
  due: string | number;
  in_flight: string | number;
  oldest_due_seconds: string | number | null;
}

/**
 * The queue at scrape time, read from the database (every process reports the same figures: take
 * one, do not add them up): PENDING deliveries by state — `scheduled` (waiting for their next
 * attempt), `due` (waiting for a worker), `in_flight` (claimed by a worker) — and how long the oldest
 * due one has waited. One count over the PENDING rows' partial index; finished deliveries are
 * counted by `webhook_deliveries_completed_total` instead (their table only grows).
 */
export function queueMetrics(db: Database): Metric[] {
  let last: Promise<QueueRow | undefined> | null = null;
  // The gauges of one scrape share one query.
  const read = () => {
    last ??= db
      .systemTx((tx) =>
        queryRows<QueueRow>(
          tx,
          sql`SELECT count(*) FILTER (WHERE locked_until > now()) AS in_flight,
                     count(*) FILTER (WHERE next_attempt_at <= now()
                                        AND (locked_until IS NULL OR locked_until <= now())) AS due,
                     count(*) FILTER (WHERE next_attempt_at > now()
                                        AND (locked_until IS NULL OR locked_until <= now())) AS scheduled,
                     extract(epoch FROM now() - min(next_attempt_at) FILTER (
                       WHERE next_attempt_at <= now() AND (locked_until IS NULL OR locked_until <= now())
                     )) AS oldest_due_seconds
              FROM webhook_deliveries WHERE status = 'PENDING'`,
        ),
      )
      .then((rows) => rows[0])
      .finally(() => setTimeout(() => (last = null), 0).unref());
    return last;
  };
  const depth = new Gauge({
    name: 'webhook_deliveries_queued',
    help: 'PENDING webhook deliveries in the database by state (scheduled, due, in_flight)',
    labelNames: ['state'],
    registers: [],
    async collect() {
      const row = await read();
      if (!row) return;
      this.set({ state: 'scheduled' }, Number(row.scheduled));
      this.set({ state: 'due' }, Number(row.due));
      this.set({ state: 'in_flight' }, Number(row.in_flight));
    },
  });
  const oldest = new Gauge({
    name: 'webhook_oldest_due_seconds',
    help: 'How long the oldest due webhook delivery has waited for a worker (0 when none is due)',
    registers: [],
    async collect() {
      const row = await read();
      if (row) this.set(Number(row.oldest_due_seconds ?? 0));
    },
  });
  return [depth, oldest];
}

/** Every webhook metric a /metrics registry shows. */
export function webhookMetrics(db: Database): Metric[] {
  return [deliveryMetrics.attempts, deliveryMetrics.latency, deliveryMetrics.completed, ...queueMetrics(db)];
}
