/**
 * Redis failing under traffic (docs/reliability.md "Faults"; docs/decisions/0016-redis-unavailable.md):
 * two API processes share rate limits through a Redis of the test's own; it is killed, then started
 * again. While it is gone each process counts on its own (fail open to per-process limits, never to
 * no limit), says so once in a warning and counts it in a metric; requests keep succeeding; when it
 * is back the two processes share one count again.
 */
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.ts';
import { createTenant, createApiKey, type Tenant } from '../helpers/factories.ts';
import { PrivateRedis } from '../helpers/private-services.ts';
import { ADMIN_TOKEN, testConfig, testDatabase } from '../helpers/test-app.ts';
import { FAULT_TESTS, FULL, latencyFigures, report, sleep, startTraffic, tally } from './support.ts';

const LIMIT = 10;
const OUTAGE_MS = FULL ? 10_000 : 1_500;
const FALLBACK_WARNING = /Redis is unreachable: rate limits fall back to per-process counters/;
const RESUMED = /Redis answers again: rate limits are shared again/;

interface Process {
  app: FastifyInstance;
  baseUrl: string;
  lines: { level: number; msg: string }[];
}

/** An API process (buildApp + listen) on the shared test database and the private Redis, logs captured. */
async function startProcess(redisUrl: string): Promise<Process> {
  const lines: { level: number; msg: string }[] = [];
  const logStream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) {
        const parsed = JSON.parse(line) as { level: number; msg?: string };
        lines.push({ level: parsed.level, msg: parsed.msg ?? '' });
      }
      done();
    },
  });
  const app = await buildApp(testConfig({ REDIS_URL: redisUrl, LOG_LEVEL: 'info' }), {
    db: await testDatabase(),
    logStream,
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return { app, baseUrl: `http://127.0.0.1:${port}`, lines };
}

/** `count` requests alternating between the processes with one key; the statuses in order. */
async function alternate(processes: Process[], key: string, count: number): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < count; i++) {
    const target = processes[i % processes.length] as Process;
    const response = await fetch(`${target.baseUrl}/v1/me`, { headers: { 'x-api-key': key } });
    await response.arrayBuffer();
    statuses.push(response.status);
  }
  return statuses;
}

const count = (statuses: number[], status: number) => statuses.filter((s) => s === status).length;

async function fallbacksCounted(process: Process): Promise<number> {
  const response = await fetch(`${process.baseUrl}/metrics`, {
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
  });
  const match = /^rate_limit_fallbacks_total (\d+)$/m.exec(await response.text());
  return Number(match?.[1] ?? NaN);
}

describe.skipIf(!FAULT_TESTS)('Redis faults under traffic (private Redis)', () => {
  let redis: PrivateRedis;
  let processes: Process[];
  let tenant: Tenant;

  beforeAll(async () => {
    redis = await PrivateRedis.create();
    processes = [await startProcess(redis.url), await startProcess(redis.url)];
    tenant = await createTenant((processes[0] as Process).app);
  }, 60_000);

  afterAll(async () => {
    for (const process of processes ?? []) await process.app.close();
    await redis?.destroy();
  });

  const keyWithLimit = async () =>
    (
      await createApiKey((processes[0] as Process).app, tenant.org.id, {
        type: 'secret',
        rateLimitPerMinute: LIMIT,
      })
    ).key;

  it('falls back to per-process limits while Redis is down, then shares them again', async () => {
    const [first, second] = processes as [Process, Process];
    // Background traffic on an unthrottled key, across both processes, for the whole test.
    const busyKey = (
      await createApiKey(first.app, tenant.org.id, { type: 'secret', rateLimitPerMinute: 100_000 })
    ).key;
    const traffic = [first, second].map((p) =>
      startTraffic({ baseUrl: p.baseUrl, key: busyKey, clients: 2, readOnly: true }),
    );

    // Shared: one count for both processes.
    const before = await alternate(processes, await keyWithLimit(), 2 * LIMIT);
    expect(count(before, 200)).toBe(LIMIT);
    expect(count(before, 429)).toBe(LIMIT);
    expect(await fallbacksCounted(first)).toBe(0);

    const killed = traffic[0]?.now() ?? 0;
    await redis.stop();
    await sleep(OUTAGE_MS / 2);
    // Down: each process counts on its own, so the key gets its limit once per process, not more.
    const during = await alternate(processes, await keyWithLimit(), 3 * LIMIT);
    expect(count(during, 200)).toBe(2 * LIMIT);
    expect(count(during, 429)).toBe(LIMIT);
    await sleep(OUTAGE_MS / 2);
    const fallbacks = [await fallbacksCounted(first), await fallbacksCounted(second)];
    expect(fallbacks[0]).toBeGreaterThan(0);
    expect(fallbacks[1]).toBeGreaterThan(0);

    const restarting = traffic[0]?.now() ?? 0;
    await redis.start();
    const deadline = Date.now() + 15_000;
    while (!processes.every((p) => p.lines.some((line) => RESUMED.test(line.msg)))) {
      if (Date.now() > deadline) throw new Error('the processes did not report Redis back within 15 s');
      await sleep(50);
    }
    const resumedAfterMs = (traffic[0]?.now() ?? 0) - restarting;
    // Back: shared again.
    const after = await alternate(processes, await keyWithLimit(), 2 * LIMIT);
    expect(count(after, 200)).toBe(LIMIT);
    expect(count(after, 429)).toBe(LIMIT);

    const samples = (await Promise.all(traffic.map((t) => t.stop()))).flat();
    // Requests kept succeeding throughout, without waiting for Redis.
    expect(tally(samples)).toEqual({ 200: samples.length });
    const outage = samples.filter((s) => s.at >= killed && s.at < restarting);
    expect(outage.length).toBeGreaterThan(0);
    const slowest = Math.max(...outage.map((s) => s.ms));
    expect(slowest).toBeLessThan(1_000);
    // One warning per process for the whole outage, at level warn (40).
    for (const process of processes) {
      const warnings = process.lines.filter((line) => FALLBACK_WARNING.test(line.msg));
      expect(warnings).toHaveLength(1);
      expect(warnings[0]?.level).toBe(40);
    }

    report('Redis killed (SIGKILL) and started again under traffic, two API processes', {
      limitPerMinute: LIMIT,
      outageMs: Math.round(restarting - killed),
      allowedBefore: count(before, 200),
      allowedDuringOutage: count(during, 200),
      allowedAfter: count(after, 200),
      fallbackDecisions: fallbacks,
      warningsPerProcess: 1,
      sharedAgainAfterRestartMs: Math.round(resumedAfterMs),
      backgroundAnswers: tally(samples),
      latencyDuringOutageMs: latencyFigures(outage.map((s) => s.ms)),
    });
  }, 90_000);
});
