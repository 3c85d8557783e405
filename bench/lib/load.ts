import autocannon, { type AutocannonRequest, type AutocannonResult } from 'autocannon';
import { cpuSnapshot, cpuUsage, type CpuUsage } from './cpu.ts';
import { runOpenLoop } from './open-loop.ts';

export interface LoadOptions {
  /** Several URLs: the connections (and the offered rate) are split evenly across them. */
  url: string | string[];
  connections: number;
  durationS: number;
  warmupS: number;
  /** Cycled by every connection; the same list for every target keeps the client's work equal. */
  requests: AutocannonRequest[];
  /** Processes whose CPU use is reported for the measured run (the client is added as `client`). */
  cpuPids?: Record<string, number>;
  /**
   * Offered rate in requests per second over all connections, sent open-loop at evenly spaced
   * instants (bench/lib/open-loop.ts; autocannon's own `overallRate` sends bursts); unset: a closed
   * loop, as fast as answered.
   */
  overallRate?: number;
  /** The status every answer should have (closed loop): 304 for revalidations. Default: any 2xx. */
  expectedStatus?: number;
}

export interface LoadSummary {
  /** Average of autocannon's per-second samples (what its CLI prints as Req/Sec Avg). */
  reqPerSec: number;
  /** Completed requests / measured seconds. */
  completedPerSec: number;
  /** Latency of 2xx responses in ms, exact (from every response, not autocannon's 1 ms buckets). */
  latencyMs: { mean: number; p50: number; p90: number; p99: number; max: number };
  /** The same percentiles as autocannon reports them (integer milliseconds). */
  autocannonLatencyMs: { p50: number; p99: number };
  completed: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  statusCodes: Record<string, number>;
  /** CPU use during the measured run, in percent of one core (the machine has os.cpus().length). */
  cpu: CpuUsage;
  warmup: { completed: number; non2xx: number; errors: number; statusCodes: Record<string, number> };
}

function statusCounts(result: AutocannonResult): Record<string, number> {
  return Object.fromEntries(Object.entries(result.statusCodeStats).map(([code, { count }]) => [code, count]));
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return 0;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index] ?? 0;
}

const round = (value: number, digits = 2) => Number(value.toFixed(digits));

function latencySummary(latencies: Float64Array): LoadSummary['latencyMs'] {
  const sorted = latencies.sort();
  let total = 0;
  for (const value of sorted) total += value;
  return {
    mean: round(sorted.length === 0 ? 0 : total / sorted.length, 3),
    p50: round(percentile(sorted, 50), 3),
    p90: round(percentile(sorted, 90), 3),
    p99: round(percentile(sorted, 99), 3),
    max: round(percentile(sorted, 100), 3),
  };
}

const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);

function mergedCounts(results: AutocannonResult[]): Record<string, number> {
  const merged: Record<string, number> = {};
  for (const result of results)
    for (const [code, count] of Object.entries(statusCounts(result)))
      merged[code] = (merged[code] ?? 0) + count;
  return merged;
}

/**
 * Runs autocannon: a warm-up run (discarded), then the measured run. With several URLs, one
 * autocannon instance per URL runs at the same time with its share of the connections and rate;
 * the figures are summed, the latency percentiles computed over every response of all of them.
 */
export async function runLoad(options: LoadOptions): Promise<LoadSummary> {
  if (options.overallRate !== undefined) return runAtRate(options, options.overallRate);
  const urls = Array.isArray(options.url) ? options.url : [options.url];
  const share = (total: number, i: number) =>
    Math.floor(total / urls.length) + (i < total % urls.length ? 1 : 0);
  const instances = (durationS: number) =>
    urls.map((url, i) =>
      autocannon({
        url,
        connections: share(options.connections, i),
        requests: options.requests,
        duration: durationS,
      }),
    );
  const warmup = options.warmupS > 0 ? await Promise.all(instances(options.warmupS)) : null;

  const expected = (status: number) =>
    options.expectedStatus === undefined ? status >= 200 && status < 300 : status === options.expectedStatus;
  /** Answers with another status than expected (autocannon's own non2xx counts a 304 too). */
  const unexpected = (list: AutocannonResult[]) =>
    options.expectedStatus === undefined
      ? sum(list.map((r) => r.non2xx))
      : sum(
          Object.entries(mergedCounts(list))
            .filter(([code]) => !expected(Number(code)))
            .map(([, n]) => n),
        );
  // Every expected answer's latency, in ms with microsecond resolution (autocannon's histogram keeps whole ms).
  let latencies = new Float64Array(1 << 20);
  let count = 0;
  const pids = { client: process.pid, ...options.cpuPids };
  const cpuStart = cpuSnapshot(pids);
  const measured = instances(options.durationS);
  for (const instance of measured) {
    instance.on('response', (_client: unknown, statusCode: number, _bytes: number, responseTime: number) => {
      if (!expected(statusCode)) return;
      if (count === latencies.length) {
        const grown = new Float64Array(latencies.length * 2);
        grown.set(latencies);
        latencies = grown;
      }
      latencies[count++] = responseTime;
    });
  }
  const results = await Promise.all(measured);
  const cpu = cpuUsage(pids, cpuStart);

  const completed = sum(results.map((r) => r.requests.total));
  return {
    reqPerSec: round(sum(results.map((r) => r.requests.average)), 1),
    completedPerSec: round(sum(results.map((r) => r.requests.total / r.duration)), 1),
    latencyMs: latencySummary(latencies.subarray(0, count)),
    // Whole milliseconds as autocannon reports them; with several instances, the highest of theirs.
    autocannonLatencyMs: {
      p50: Math.max(...results.map((r) => r.latency.p50)),
      p99: Math.max(...results.map((r) => r.latency.p99)),
    },
    completed,
    non2xx: unexpected(results),
    errors: sum(results.map((r) => r.errors)),
    timeouts: sum(results.map((r) => r.timeouts)),
    statusCodes: mergedCounts(results),
    cpu,
    warmup: {
      completed: sum(warmup?.map((r) => r.requests.total) ?? []),
      non2xx: warmup ? unexpected(warmup) : 0,
      errors: sum(warmup?.map((r) => r.errors) ?? []),
      statusCodes: warmup ? mergedCounts(warmup) : {},
    },
  };
}

/**
 * The open-loop run at `ratePerSec` (bench/lib/open-loop.ts): a warm-up at the same rate
 * (discarded), then the measured run. Latencies are from each request's due instant; req/s is the
 * answers over the time from the first due instant to the last answer.
 */
async function runAtRate(options: LoadOptions, ratePerSec: number): Promise<LoadSummary> {
  const urls = Array.isArray(options.url) ? options.url : [options.url];
  const run = (durationS: number) =>
    runOpenLoop({
      urls,
      connections: options.connections,
      durationS,
      ratePerSec,
      requests: options.requests,
    });
  const warmup = options.warmupS > 0 ? await run(options.warmupS) : null;
  const pids = { client: process.pid, ...options.cpuPids };
  const cpuStart = cpuSnapshot(pids);
  const result = await run(options.durationS);
  const cpu = cpuUsage(pids, cpuStart);
  const latencyMs = latencySummary(result.latencies);
  const perSec = round(result.completed / result.elapsedS, 1);
  return {
    reqPerSec: perSec,
    completedPerSec: perSec,
    latencyMs,
    // Not autocannon's here: the open loop's own percentiles in whole milliseconds.
    autocannonLatencyMs: { p50: Math.round(latencyMs.p50), p99: Math.round(latencyMs.p99) },
    completed: result.completed,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    statusCodes: result.statusCodes,
    cpu,
    warmup: {
      completed: warmup?.completed ?? 0,
      non2xx: warmup?.non2xx ?? 0,
      errors: (warmup?.errors ?? 0) + (warmup?.timeouts ?? 0),
      statusCodes: warmup?.statusCodes ?? {},
    },
  };
}
