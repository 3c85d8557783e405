/**
 * Hostile input on every operation of GET /v1/openapi.json (docs/reliability.md "Hostile input").
 *
 * For each operation the document lists, fast-check generates requests from its parameters and
 * body schema — mostly plausible (real ids, valid keys of the right kind), often hostile (NUL, lone
 * surrogates, huge numbers, deep JSON, 1 MB strings, malformed JSON, invalid UTF-8, odd headers,
 * wrong credentials) — and every answer must: come within FUZZ_TIME_LIMIT_MS, never be a 5xx,
 * be the error envelope when it is a failure, and match the documented schema when it is a 2xx.
 *
 * CI size: FUZZ_RUNS (12) requests per operation with a fixed seed; `FUZZ_RUNS=2000` is the long run.
 */
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { api } from '../helpers/http.ts';
import { buildTestApp } from '../helpers/test-app.ts';
import { problemWith } from './support/checks.ts';
import { loadApi } from './support/operations.ts';
import { requestFor, type FuzzRequest } from './support/requests.ts';
import {
  FUZZ_ONLY,
  FUZZ_REPORT,
  FUZZ_RUNS,
  FUZZ_SEED,
  FUZZ_TIME_LIMIT_MS,
  testTimeoutMs,
} from './support/settings.ts';
import { BOUNCE_SECRET, FUZZ_DNS, HOOK_SECRET, seedWorld } from './support/world.ts';

// Built at collection time: the document decides which tests exist.
const app = await buildTestApp(
  {
    // Hostile credentials are part of the input: the IP block would end the run early.
    AUTH_FAILURE_LIMIT: '1000000',
    MESSAGING_WEBHOOK_SECRET: HOOK_SECRET,
    EMAIL_BOUNCE_SECRET: BOUNCE_SECRET,
  },
  { lookup: FUZZ_DNS },
);
const document = await loadApi(app);
const world = await seedWorld(app);
const operations = document.operations.filter((op) => op.operationId.includes(FUZZ_ONLY));

/** Status counts per operation, and the slowest answer, for the report. */
const histogram = new Map<string, Map<string, number>>();
let slowest = { ms: 0, where: '' };

/** Operations too slow for the full count (the demo seed builds a whole agency: ~2 s a call). */
const RUN_SHARE: Record<string, number> = { 'admin.demoSeed.create': 0.05 };
const TIME_SHARE: Record<string, number> = { 'admin.demoSeed.create': 6 };

function timeLimitOf(operationId: string): number {
  return FUZZ_TIME_LIMIT_MS * (TIME_SHARE[operationId] ?? 1);
}

function runsOf(operationId: string): number {
  return Math.max(2, Math.round(FUZZ_RUNS * (RUN_SHARE[operationId] ?? 1)));
}

/** `201`, or `403 FORBIDDEN`: the report tells refusals apart. */
function outcomeOf(status: number, body: string): string {
  if (status < 400) return String(status);
  const code = /"code":"([A-Z_]+)"/.exec(body)?.[1];
  return code ? `${status}:${code}` : String(status);
}

function seedOf(operationId: string): number {
  let hash = FUZZ_SEED;
  for (const char of operationId) hash = (Math.imul(hash, 31) + char.charCodeAt(0)) | 0;
  return hash;
}

/**
 * The answer, or a failure once `limitMs` has passed. PGlite runs inside this process and can hold
 * the event loop, so a late answer is also checked by its measured time, not only by the timer.
 */
async function send(request: FuzzRequest, limitMs: number) {
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${limitMs} ms`)), limitMs);
  });
  try {
    const response = await Promise.race([
      app.inject({
        method: request.method as 'GET',
        url: request.url,
        headers: request.headers,
        payload: request.payload,
      }),
      limit,
    ]);
    return { response, ms: performance.now() - started };
  } finally {
    clearTimeout(timer);
  }
}

afterAll(async () => {
  if (FUZZ_REPORT) {
    const lines = [...histogram].map(([id, counts]) => {
      const statuses = [...counts].sort(([a], [b]) => a.localeCompare(b)).map(([s, n]) => `${s}×${n}`);
      return `${id.padEnd(36)} ${statuses.join(' ')}`;
    });
    const total = [...histogram.values()].reduce((n, m) => n + [...m.values()].reduce((a, b) => a + b, 0), 0);
    console.log(
      `hostile input: ${total} requests, ${histogram.size} operations, seed ${FUZZ_SEED}, ` +
        `slowest ${slowest.ms.toFixed(0)} ms (${slowest.where})\n${lines.join('\n')}`,
    );
  }
  await app.close();
});

describe('hostile input on every operation of /v1/openapi.json', () => {
  it('covers every documented route', () => {
    const documented = app.routeTable.filter((route) => !route.hidden).map((r) => r.operationId);
    expect(document.operations.map((op) => op.operationId).sort()).toEqual([...new Set(documented)].sort());
  });

  for (const operation of operations) {
    it(
      `${operation.operationId}: ${operation.method} ${operation.path}`,
      async () => {
        const counts = new Map<string, number>();
        histogram.set(operation.operationId, counts);
        try {
          await fc.assert(
            fc.asyncProperty(requestFor(operation, world), async (request) => {
              const limitMs = timeLimitOf(operation.operationId);
              const { response, ms } = await send(request, limitMs);
              if (ms > limitMs) throw new Error(`answered after ${ms.toFixed(0)} ms (limit ${limitMs} ms)`);
              const outcome = outcomeOf(response.statusCode, response.body);
              counts.set(outcome, (counts.get(outcome) ?? 0) + 1);
              if (ms > slowest.ms) slowest = { ms, where: `${operation.operationId} ${response.statusCode}` };
              const problem = problemWith(document, operation, response);
              if (problem) throw new Error(problem);
            }),
            { seed: seedOf(operation.operationId), numRuns: runsOf(operation.operationId) },
          );
        } catch (error) {
          // fast-check's report names its own seed; this line says how to replay the whole case.
          const cause = (error as Error).cause as Error | undefined;
          throw new Error(
            `${cause?.message ?? 'failed'}\n` +
              `Reproduce: FUZZ_SEED=${FUZZ_SEED} FUZZ_ONLY=${operation.operationId} FUZZ_RUNS=${FUZZ_RUNS} ` +
              `npx vitest run test/fuzz/openapi-fuzz.test.ts\n${(error as Error).message}`,
          );
        }
      },
      testTimeoutMs(FUZZ_RUNS),
    );
  }

  it('still serves the tenant normally afterwards', async () => {
    const me = await api(app, 'GET', '/v1/me', { key: world.tenant.keys.secret });
    expect(me.statusCode, me.body).toBe(200);
    const ready = await app.inject({ method: 'GET', url: '/readyz' });
    expect(ready.statusCode, ready.body).toBe(200);
  });
});
