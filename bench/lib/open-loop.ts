import { Pool, errors as undiciErrors } from 'undici';
import type { AutocannonRequest } from 'autocannon';

/**
 * An open-loop load generator: requests are sent at evenly spaced instants whatever the server
 * answers (the arrival schedule of wrk2 or k6's constant-arrival-rate), and each latency is
 * measured from the instant the request was due, not from when a connection was free to send it.
 *
 * Why not autocannon's `overallRate`: autocannon gives each connection a quota per second that a
 * one-second `setInterval` resets, so every connection sends its whole quota back to back at the
 * top of each second. At 210 req/s over 50 connections that is a burst of 210 requests at once,
 * then nothing: the p99 it reports is the time to drain the burst (~90 ms for the portal listing
 * at 20 % of a core), not the latency at that rate. Measured from the due instant, a server that
 * cannot keep up shows its queue in the latencies (no coordinated omission).
 */
export interface OpenLoopOptions {
  /** With several URLs, arrival i goes to URL i mod n (each gets its share of the rate). */
  urls: string[];
  /** Connections in all, split across the URLs; a request due while all are busy waits for one. */
  connections: number;
  durationS: number;
  /** Requests per second over all URLs. */
  ratePerSec: number;
  /** Arrival i sends requests[i mod length] (after its `setupRequest`, as autocannon would). */
  requests: AutocannonRequest[];
  /** Per request, headers and body included; a request still unanswered then counts as a timeout. */
  timeoutMs?: number;
  /** Called with each answer: ms from the start to its due instant, its latency in ms, its status. */
  onAnswer?: (dueAtMs: number, latencyMs: number, statusCode: number) => void;
  /** Called with each request that got no answer: a socket error, or a timeout. */
  onError?: (timedOut: boolean) => void;
}

export interface OpenLoopResult {
  /** Latency of each 2xx answer in ms from its due instant, in completion order. */
  latencies: Float64Array;
  scheduled: number;
  completed: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  statusCodes: Record<string, number>;
  /** From the first due instant to the last answer (>= durationS when the server fell behind). */
  elapsedS: number;
}

const NS_PER_MS = 1e6;

export async function runOpenLoop(options: OpenLoopOptions): Promise<OpenLoopResult> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const pools = options.urls.map((url, i) => {
    const share =
      Math.floor(options.connections / options.urls.length) +
      (i < options.connections % options.urls.length ? 1 : 0);
    return new Pool(new URL(url).origin, {
      connections: Math.max(1, share),
      pipelining: 1,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      keepAliveTimeout: 60_000,
    });
  });
  const total = Math.max(1, Math.round(options.ratePerSec * options.durationS));
  const intervalNs = 1e9 / options.ratePerSec;
  const statusCodes: Record<string, number> = {};
  let latencies = new Float64Array(Math.max(1024, total));
  let count = 0;
  let completed = 0;
  let non2xx = 0;
  let errorCount = 0;
  let timeouts = 0;
  let lastAnswer = 0n;
  const inFlight = new Set<Promise<void>>();
  const context: Record<string, unknown> = {};

  let start = 0n;
  const send = (index: number, due: bigint): void => {
    const template = options.requests[index % options.requests.length] ?? {};
    const request = template.setupRequest ? template.setupRequest({ ...template }, context) : template;
    const pool = pools[index % pools.length]!;
    const done = pool
      .request({
        method: (request.method ?? 'GET') as 'GET',
        path: request.path ?? '/',
        headers: request.headers ?? {},
        body: request.body ?? null,
      })
      .then(async (response) => {
        await response.body.arrayBuffer();
        const now = process.hrtime.bigint();
        lastAnswer = now;
        completed++;
        statusCodes[response.statusCode] = (statusCodes[response.statusCode] ?? 0) + 1;
        options.onAnswer?.(
          Number(due - start) / NS_PER_MS,
          Number(now - due) / NS_PER_MS,
          response.statusCode,
        );
        if (response.statusCode < 200 || response.statusCode >= 300) {
          non2xx++;
          return;
        }
        if (count === latencies.length) {
          const grown = new Float64Array(latencies.length * 2);
          grown.set(latencies);
          latencies = grown;
        }
        latencies[count++] = Number(now - due) / NS_PER_MS;
      })
      .catch((error: unknown) => {
        const timedOut =
          error instanceof undiciErrors.HeadersTimeoutError || error instanceof undiciErrors.BodyTimeoutError;
        if (timedOut) timeouts++;
        else errorCount++;
        options.onError?.(timedOut);
      })
      .finally(() => inFlight.delete(done));
    inFlight.add(done);
  };

  start = process.hrtime.bigint();
  let sent = 0;
  await new Promise<void>((resolve) => {
    // A 1 ms tick sends every arrival that has come due; a late tick sends them in a small batch,
    // each still timed from its own due instant.
    const tick = () => {
      const elapsed = Number(process.hrtime.bigint() - start);
      const due = Math.min(total, Math.floor(elapsed / intervalNs) + 1);
      while (sent < due) {
        send(sent, start + BigInt(Math.round(sent * intervalNs)));
        sent++;
      }
      if (sent >= total) {
        clearInterval(timer);
        resolve();
      }
    };
    const timer = setInterval(tick, 1);
    tick();
  });
  while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
  await Promise.all(pools.map((pool) => pool.close()));

  const elapsedS = Math.max(options.durationS, Number((lastAnswer || start) - start) / 1e9);
  return {
    latencies: latencies.subarray(0, count),
    scheduled: total,
    completed,
    non2xx,
    errors: errorCount,
    timeouts,
    statusCodes,
    elapsedS,
  };
}
