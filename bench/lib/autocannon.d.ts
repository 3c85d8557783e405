/**
 * The part of autocannon 9's programmatic API the benchmarks use (the package ships no types and
 * @types/autocannon is not a dependency).
 */
declare module 'autocannon' {
  import type { EventEmitter } from 'node:events';

  // CommonJS (`module.exports = autocannon`): the function, with its types in a namespace.
  function autocannon(options: autocannon.AutocannonOptions): autocannon.Instance;
  export = autocannon;

  namespace autocannon {
    export interface AutocannonRequest {
      method?: string;
      path?: string;
      headers?: Record<string, string>;
      body?: string | Buffer;
      /** Called before each send of this request (per connection): answers the request to send. */
      setupRequest?: (request: AutocannonRequest, context: Record<string, unknown>) => AutocannonRequest;
    }

    export interface AutocannonOptions {
      url: string;
      connections?: number;
      duration?: number;
      amount?: number;
      pipelining?: number;
      timeout?: number;
      method?: string;
      headers?: Record<string, string>;
      body?: string | Buffer;
      requests?: AutocannonRequest[];
      /** Requests per second over all connections (an open model); unset: as fast as answered. */
      overallRate?: number;
      title?: string;
    }

    /** Percentiles as autocannon reports them: p50, p90, p97_5, p99, ... plus the summary fields. */
    export interface Histogram {
      average: number;
      mean: number;
      stddev: number;
      min: number;
      max: number;
      total: number;
      p0_001: number;
      p0_01: number;
      p0_1: number;
      p1: number;
      p2_5: number;
      p10: number;
      p25: number;
      p50: number;
      p75: number;
      p90: number;
      p97_5: number;
      p99: number;
      p99_9: number;
      p99_99: number;
      p99_999: number;
    }

    export interface AutocannonResult {
      title?: string;
      url: string;
      connections: number;
      duration: number;
      start: Date;
      finish: Date;
      errors: number;
      timeouts: number;
      mismatches: number;
      non2xx: number;
      resets: number;
      '1xx': number;
      '2xx': number;
      '3xx': number;
      '4xx': number;
      '5xx': number;
      statusCodeStats: Record<string, { count: number }>;
      latency: Histogram & { totalCount: number };
      /** Per-second samples of completed requests; `total` is the number completed. */
      requests: Histogram & { sent: number };
      throughput: Histogram;
    }

    export interface Instance extends EventEmitter, PromiseLike<AutocannonResult> {
      stop(): void;
    }
  }
}
