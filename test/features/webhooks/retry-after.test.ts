/**
 * A receiver's `Retry-After` on 429 and 503 (issue 23, item 6): the next attempt waits as long as it
 * asks, within the retry schedule's longest delay; other statuses and unreadable values keep the
 * schedule.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../../src/db/database.ts';
import { nextDelay, retryAfterMs } from '../../../src/features/webhooks/webhooks.worker.ts';
import type { SendOutcome } from '../../../src/features/webhooks/webhooks.sender.ts';
import type { RunningJobs } from '../../../src/platform/jobs/scheduler.ts';
import { createTenant, FAST, type Tenant } from '../../helpers/factories.ts';
import { buildTestApp, testDatabase } from '../../helpers/test-app.ts';
import { Receiver } from './receiver.ts';
import { deliveriesOf, emit, eventually, startWorker, subscribe } from './support.ts';

const SCHEDULE = [0, 100, 6_000];
let app: FastifyInstance;
let db: Database;
let receiver: Receiver;
let worker: RunningJobs;
let tenant: Tenant;

beforeAll(async () => {
  app = await buildTestApp({ WEBHOOK_ALLOW_PRIVATE_URLS: 'true' });
  db = await testDatabase();
  receiver = await new Receiver().start();
  worker = startWorker(db, { webhookRetryDelaysMs: SCHEDULE });
  tenant = await createTenant(app, { secret: FAST });
});
afterAll(async () => {
  await worker.stop();
  await receiver.close();
  await app.close();
});

describe('Retry-After', () => {
  it('delays the next attempt as the receiver asks (seconds), not the 100 ms of the schedule', async () => {
    const hook = await subscribe(app, tenant.secret.key, receiver.url('/busy'), ['deal.won']);
    receiver.script('/busy', { status: 429, headers: { 'retry-after': '2' } }, { status: 200 });
    await emit(db, tenant.org.id, 'deal.won');
    await receiver.waitFor(2, '/busy', 20_000);
    const [first, second] = receiver.at('/busy');
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(1_900);
    await eventually(async () => {
      const [delivery] = await deliveriesOf(app, tenant.secret.key, hook.id);
      expect(delivery?.status).toBe('SUCCEEDED');
      expect(delivery?.attempts.map((attempt) => attempt.statusCode)).toEqual([429, 200]);
    });
  });

  it('never waits longer than the schedule allows: a 503 asking for an hour is tried again within 6 s', async () => {
    const hook = await subscribe(app, tenant.secret.key, receiver.url('/down'), ['deal.won']);
    receiver.script('/down', { status: 503, headers: { 'retry-after': '3600' } }, { status: 200 });
    const sent = Date.now();
    await emit(db, tenant.org.id, 'deal.won');
    await receiver.waitFor(1, '/down');
    const [delivery] = await eventually(async () => {
      const found = await deliveriesOf(app, tenant.secret.key, hook.id);
      expect(found[0]?.attemptCount).toBe(1);
      return found;
    });
    const next = Date.parse((delivery as unknown as { nextAttemptAt: string }).nextAttemptAt);
    expect(next - sent).toBeGreaterThan(5_000);
    expect(next - sent).toBeLessThan(6_000 + 5_000);
  });

  it('reads delay-seconds and HTTP-dates, and ignores it on other statuses and when unreadable', () => {
    const now = Date.parse('2026-11-26T12:00:00Z');
    expect(retryAfterMs('120', now)).toBe(120_000);
    expect(retryAfterMs('Thu, 26 Nov 2026 12:00:30 GMT', now)).toBe(30_000);
    expect(retryAfterMs('Thu, 26 Nov 2026 11:00:00 GMT', now)).toBe(0);
    expect(retryAfterMs('soon', now)).toBeNull();
    expect(retryAfterMs(undefined, now)).toBeNull();
    const outcome = (statusCode: number, retryAfter?: string): SendOutcome => ({
      statusCode,
      durationMs: 5,
      error: null,
      responseBody: '',
      responseHeaders: retryAfter === undefined ? {} : { 'retry-after': retryAfter },
      blocked: false,
    });
    expect(nextDelay(outcome(429, '3'), 100, SCHEDULE)).toBe(3_000);
    expect(nextDelay(outcome(503, '1'), 100, SCHEDULE)).toBe(1_000);
    expect(nextDelay(outcome(429, '0'), 100, SCHEDULE)).toBe(100);
    expect(nextDelay(outcome(503, '99999'), 100, SCHEDULE)).toBe(6_000);
    expect(nextDelay(outcome(500, '3'), 100, SCHEDULE)).toBe(100);
    expect(nextDelay(outcome(429), 100, SCHEDULE)).toBe(100);
    expect(nextDelay(outcome(429, 'later'), 100, SCHEDULE)).toBe(100);
  });
});
