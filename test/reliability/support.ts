/**
 * Shared parts of the fault tests (docs/reliability.md): when they run, how big, a traffic
 * generator that records every answer, and the figures they print.
 */
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.ts';
import { openDatabase, type Database, type OpenDatabaseOptions } from '../../src/db/database.ts';
import type { DestinationStream } from 'pino';
import { testConfig } from '../helpers/test-app.ts';

/**
 * The fault tests start their own PostgreSQL and Redis and assert latencies, so they run on their
 * own: `npm run test:faults` (FAULT_TESTS=1), a step of its own in `.ci/run`, never beside the other
 * test files, whose load would blur those figures. Skipped by `npm test` and `npm run test:pg`.
 */
export const FAULT_TESTS = process.env.FAULT_TESTS === '1';

/** `FAULTS_SIZE=full` runs the bigger sizes documented in docs/reliability.md; the default fits CI. */
export const FULL = process.env.FAULTS_SIZE === 'full';

export interface Served {
  app: FastifyInstance;
  db: Database;
  baseUrl: string;
  close(): Promise<void>;
}

/**
 * The service as `npm start` runs it on PostgreSQL, listening on a free port: the same database
 * opening, migration and app; the delivery worker is not started here (tests start their own).
 */
export async function serve(
  databaseUrl: string,
  options: {
    env?: Record<string, string>;
    logStream?: DestinationStream;
    timeouts?: OpenDatabaseOptions['timeouts'];
  } = {},
): Promise<Served> {
  const config = testConfig({ DATABASE_URL: databaseUrl, ...options.env });
  const db = await openDatabase({ databaseUrl, dataDir: config.dataDir, timeouts: options.timeouts });
  await db.migrate();
  const app = await buildApp(config, { db, logStream: options.logStream });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    app,
    db,
    baseUrl: `http://127.0.0.1:${port}`,
    async close() {
      await app.close();
      await db.close();
    },
  };
}

/** One answer seen by the traffic generator. */
export interface Sample {
  /** Start, in ms since the traffic began. */
  at: number;
  ms: number;
  method: string;
  /** HTTP status; 0 when no answer came (network error or the client's own time limit). */
  status: number;
  code: string | null;
  retryAfter: string | null;
  requestId: string | null;
  envelopeRequestId: string | null;
  error: string | null;
}

export interface TrafficOptions {
  baseUrl: string;
  key: string;
  clients: number;
  /** A client gives up on an answer after this long (a hang shows up as status 0). */
  clientTimeoutMs?: number;
  /** Pause of each client between requests. */
  thinkMs?: number;
  /** Searches only (no contact creations). */
  readOnly?: boolean;
}

/**
 * Closed-loop clients, each alternating a contact search (read) and a contact creation (write)
 * over real HTTP (searches only with `readOnly`), until `stop()`: every answer is kept with its
 * time, status, code and headers.
 */
export function startTraffic(options: TrafficOptions) {
  const samples: Sample[] = [];
  const started = performance.now();
  let running = true;
  let sequence = 0;

  const once = async (): Promise<void> => {
    const write = !options.readOnly && sequence++ % 2 === 1;
    const at = performance.now() - started;
    const init: RequestInit = {
      method: write ? 'POST' : 'GET',
      headers: { 'x-api-key': options.key, ...(write ? { 'content-type': 'application/json' } : {}) },
      signal: AbortSignal.timeout(options.clientTimeoutMs ?? 30_000),
      ...(write ? { body: JSON.stringify({ firstName: `Fault ${sequence}` }) } : {}),
    };
    const url = `${options.baseUrl}/v1/contacts${write ? '' : '?pageSize=5'}`;
    try {
      const response = await fetch(url, init);
      const body = (await response.json().catch(() => null)) as {
        error?: { code?: string; requestId?: string };
      } | null;
      samples.push({
        at,
        ms: performance.now() - started - at,
        method: init.method as string,
        status: response.status,
        code: body?.error?.code ?? null,
        retryAfter: response.headers.get('retry-after'),
        requestId: response.headers.get('x-request-id'),
        envelopeRequestId: body?.error?.requestId ?? null,
        error: null,
      });
    } catch (error) {
      samples.push({
        at,
        ms: performance.now() - started - at,
        method: init.method as string,
        status: 0,
        code: null,
        retryAfter: null,
        requestId: null,
        envelopeRequestId: null,
        error: (error as Error).message,
      });
    }
  };

  const clients = Array.from({ length: options.clients }, async () => {
    while (running) {
      await once();
      if (options.thinkMs) await new Promise((resolve) => setTimeout(resolve, options.thinkMs));
    }
  });

  return {
    samples,
    /** Milliseconds since the traffic began. */
    now: () => performance.now() - started,
    async stop(): Promise<Sample[]> {
      running = false;
      await Promise.all(clients);
      return samples;
    },
  };
}

export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number;
}

/** p50, p95, p99 and max of some durations, in whole milliseconds. */
export function latencyFigures(values: readonly number[]) {
  return {
    p50: Math.round(percentile(values, 50)),
    p95: Math.round(percentile(values, 95)),
    p99: Math.round(percentile(values, 99)),
    max: Math.round(Math.max(0, ...values)),
  };
}

/** Count of samples by `status code` ("200", "503 SERVICE_UNAVAILABLE", "0 fetch failed", ...). */
export function tally(samples: readonly Sample[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const sample of samples) {
    const label = [sample.status, sample.code ?? sample.error].filter((part) => part !== null).join(' ');
    counts[label] = (counts[label] ?? 0) + 1;
  }
  return counts;
}

/** The figures of a run, printed so CI logs and docs/reliability.md can quote them. */
export function report(title: string, figures: Record<string, unknown>): void {
  process.stdout.write(`\n[reliability] ${title}\n${JSON.stringify(figures, null, 2)}\n`);
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
