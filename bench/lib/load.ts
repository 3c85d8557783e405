import autocannon, { type AutocannonRequest, type AutocannonResult } from 'autocannon';
import { cpuSnapshot, cpuUsage, type CpuUsage } from './cpu.ts';

export interface LoadOptions {
  url: string;
  connections: number;
  durationS: number;
  warmupS: number;
  /** Cycled by every connection; the same list for every target keeps the client's work equal. */
  requests: AutocannonRequest[];
  /** Processes whose CPU use is reported for the measured run (the client is added as `client`). */
  cpuPids?: Record<string, number>;
  /** Offered rate in requests per second over all connections (autocannon's overallRate); unset: as fast as answered. */
  overallRate?: number;
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

/** Runs autocannon: a warm-up run (discarded), then the measured run. */
export async function runLoad(options: LoadOptions): Promise<LoadSummary> {
  const base = {
    url: options.url,
    connections: options.connections,
    requests: options.requests,
    ...(options.overallRate === undefined ? {} : { overallRate: options.overallRate }),
  };
  const warmup = options.warmupS > 0 ? await autocannon({ ...base, duration: options.warmupS }) : null;

  // Every 2xx latency, in ms with microsecond resolution (autocannon's histogram keeps whole ms).
  let latencies = new Float64Array(1 << 20);
  let count = 0;
  const pids = { client: process.pid, ...options.cpuPids };
  const cpuStart = cpuSnapshot(pids);
  const instance = autocannon({ ...base, duration: options.durationS });
  instance.on('response', (_client: unknown, statusCode: number, _bytes: number, responseTime: number) => {
    if (statusCode < 200 || statusCode >= 300) return;
    if (count === latencies.length) {
      const grown = new Float64Array(latencies.length * 2);
      grown.set(latencies);
      latencies = grown;
    }
    latencies[count++] = responseTime;
  });
  const result = await instance;
  const cpu = cpuUsage(pids, cpuStart);

  const sorted = latencies.subarray(0, count).sort();
  let sum = 0;
  for (const value of sorted) sum += value;
  return {
    reqPerSec: round(result.requests.average, 1),
    completedPerSec: round(result.requests.total / result.duration, 1),
    latencyMs: {
      mean: round(count === 0 ? 0 : sum / count, 3),
      p50: round(percentile(sorted, 50), 3),
      p90: round(percentile(sorted, 90), 3),
      p99: round(percentile(sorted, 99), 3),
      max: round(percentile(sorted, 100), 3),
    },
    autocannonLatencyMs: { p50: result.latency.p50, p99: result.latency.p99 },
    completed: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    statusCodes: statusCounts(result),
    cpu,
    warmup: {
      completed: warmup?.requests.total ?? 0,
      non2xx: warmup?.non2xx ?? 0,
      errors: warmup?.errors ?? 0,
      statusCodes: warmup ? statusCounts(warmup) : {},
    },
  };
}
