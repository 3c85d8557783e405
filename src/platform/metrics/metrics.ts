import { Type } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Counter, Gauge, Registry, collectDefaultMetrics, type Metric } from 'prom-client';
import type { PoolStats, ReplicaStatus } from '../../db/database.ts';

const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

interface Series {
  labels: { operation_id: string; method: string; status: string };
  count: number;
  sum: number;
  /** Observations per bucket (not cumulative); the last slot is +Inf. */
  buckets: number[];
}

/**
 * Request counts and latency by operationId, method and status. The request path only bumps plain
 * numbers in a map (prom-client's own counters hash the label object on every call, which cost a
 * measurable share of the cheapest route in bench/); prom-client formats them at scrape time
 * through its custom-metric interface, beside its default process metrics.
 */
class HttpMetrics {
  private readonly series = new Map<string, Series>();

  record(operationId: string, method: string, status: number, seconds: number): void {
    const id = `${operationId} ${method} ${status}`;
    let series = this.series.get(id);
    if (!series) {
      series = {
        labels: { operation_id: operationId, method, status: String(status) },
        count: 0,
        sum: 0,
        buckets: new Array<number>(BUCKETS.length + 1).fill(0),
      };
      this.series.set(id, series);
    }
    series.count += 1;
    series.sum += seconds;
    let slot = 0;
    while (slot < BUCKETS.length && seconds > (BUCKETS[slot] as number)) slot += 1;
    series.buckets[slot] = (series.buckets[slot] as number) + 1;
  }

  counter() {
    return {
      name: 'http_requests_total',
      help: 'HTTP requests by operationId, method and status',
      type: 'counter',
      get: async () => ({
        name: 'http_requests_total',
        help: 'HTTP requests by operationId, method and status',
        type: 'counter',
        aggregator: 'sum',
        values: [...this.series.values()].map((s) => ({ value: s.count, labels: s.labels })),
      }),
    };
  }

  histogram() {
    const name = 'http_request_duration_seconds';
    return {
      name,
      help: 'HTTP request latency by operationId, method and status',
      type: 'histogram',
      get: async () => {
        const values: Array<{ metricName: string; value: number; labels: Record<string, string | number> }> =
          [];
        for (const s of this.series.values()) {
          let cumulative = 0;
          BUCKETS.forEach((le, i) => {
            cumulative += s.buckets[i] as number;
            values.push({ metricName: `${name}_bucket`, value: cumulative, labels: { le, ...s.labels } });
          });
          values.push({ metricName: `${name}_bucket`, value: s.count, labels: { le: '+Inf', ...s.labels } });
          values.push({ metricName: `${name}_sum`, value: s.sum, labels: s.labels });
          values.push({ metricName: `${name}_count`, value: s.count, labels: s.labels });
        }
        return {
          name,
          help: 'HTTP request latency by operationId, method and status',
          type: 'histogram',
          aggregator: 'sum',
          values,
        };
      },
    };
  }
}

/** A registry with the Node.js process metrics and `extra`. */
export function metricsRegistry(extra: readonly Metric[]): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  for (const metric of extra) registry.registerMetric(metric);
  return registry;
}

/**
 * Prometheus metrics at GET /metrics (admin token). One registry per app instance; `extra` are
 * metrics of the platform's other parts (the rate limiter's Redis fallbacks).
 */
export function registerMetrics(app: FastifyInstance, extra: readonly Metric[], tag: string) {
  const registry = metricsRegistry(extra);
  const http = new HttpMetrics();
  registry.registerMetric(http.counter() as never);
  registry.registerMetric(http.histogram() as never);

  // A callback hook, not async: no promise per request on the hot path.
  app.addHook('onResponse', (request, reply, done) => {
    const operationId =
      (request.routeOptions.schema?.operationId as string | undefined) ??
      (request.routeOptions.url === undefined ? 'not_found' : 'other');
    http.record(operationId, request.method, reply.statusCode, reply.elapsedTime / 1000);
    done();
  });

  app.get(
    '/metrics',
    {
      config: { admin: true },
      schema: {
        operationId: 'ops.metrics',
        summary: 'Prometheus metrics',
        description:
          'Admin bearer token. (401 without it, in the JSON error envelope). Prometheus text: the Node.js ' +
          'process metrics, `http_requests_total` and `http_request_duration_seconds` by operationId, ' +
          'method and status, and, with `REDIS_URL`, `rate_limit_fallbacks_total`; webhook delivery: ' +
          '`webhook_attempts_total` and `webhook_attempt_duration_seconds` by outcome and ' +
          "`webhook_deliveries_completed_total` by status (this process's worker), `webhook_deliveries_queued` " +
          'by state and `webhook_oldest_due_seconds` (the queue in the database: the same from every process). ' +
          "The counters are this process's own: scrape every API process (and worker, WORKER_METRICS_PORT).",
        tags: [tag],
        // Text on success only: the failures are the JSON error envelope, as everywhere.
        response: {
          200: {
            description: 'Prometheus text exposition format',
            content: { 'text/plain': { schema: Type.String() } },
          },
        },
      },
    },
    async (_request, reply) => {
      reply.type(registry.contentType);
      return registry.metrics();
    },
  );
}

/**
 * The database pool at scrape time (PostgreSQL; nothing for the embedded database):
 * `db_pool_connections{state="open"|"idle"}`, `db_pool_max_connections` and
 * `db_pool_waiting_transactions`, the figure to watch when sizing DATABASE_POOL_SIZE (docs/scaling.md).
 */
export function poolMetrics(stats: () => PoolStats | null): Metric[] {
  const connections = new Gauge({
    name: 'db_pool_connections',
    help: 'Database connections of this process by state',
    labelNames: ['state'],
    registers: [],
    collect() {
      const now = stats();
      if (!now) return;
      this.set({ state: 'open' }, now.open);
      this.set({ state: 'idle' }, now.idle);
    },
  });
  const max = new Gauge({
    name: 'db_pool_max_connections',
    help: 'DATABASE_POOL_SIZE: connections this process opens at most',
    registers: [],
    collect() {
      const now = stats();
      if (now) this.set(now.max);
    },
  });
  const waiting = new Gauge({
    name: 'db_pool_waiting_transactions',
    help: 'Transactions waiting for a free database connection',
    registers: [],
    collect() {
      const now = stats();
      if (now) this.set(now.waiting);
    },
  });
  return [connections, max, waiting];
}

/**
 * Each read replica at scrape time (DATABASE_READ_URL): `db_replica_up` (1 while it serves reads),
 * `db_replica_lag_seconds` and `db_replica_reads_total`, labelled with its host:port/database.
 */
export function replicaMetrics(status: () => ReplicaStatus[]): Metric[] {
  const up = new Gauge({
    name: 'db_replica_up',
    help: 'Whether the read replica serves reads (1) or is lagging, down or starting (0)',
    labelNames: ['replica'],
    registers: [],
    collect() {
      for (const replica of status()) this.set({ replica: replica.name }, replica.state === 'ok' ? 1 : 0);
    },
  });
  const lag = new Gauge({
    name: 'db_replica_lag_seconds',
    help: 'How far the read replica is behind the primary (absent while down)',
    labelNames: ['replica'],
    registers: [],
    collect() {
      this.reset();
      for (const replica of status()) {
        if (replica.lagMs !== null) this.set({ replica: replica.name }, replica.lagMs / 1000);
      }
    },
  });
  const reads = new Counter({
    name: 'db_replica_reads_total',
    help: 'Read transactions the replica served',
    labelNames: ['replica'],
    registers: [],
    collect() {
      this.reset();
      for (const replica of status()) this.inc({ replica: replica.name }, replica.reads);
    },
  });
  return [up, lag, reads];
}
