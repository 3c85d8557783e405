import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows, type Database } from '../../../src/db/database.ts';
import type { RunningJobs } from '../../../src/platform/jobs/scheduler.ts';
import { createTenant, FAST } from '../../helpers/factories.ts';
import { api, expectError, expectStatus } from '../../helpers/http.ts';
import { buildTestApp, testDatabase } from '../../helpers/test-app.ts';
import { Receiver } from './receiver.ts';
import { emit, emitMany, eventually, startWorker, subscribe } from './support.ts';

let app: FastifyInstance;
let db: Database;
let receiver: Receiver;
let worker: RunningJobs;

beforeAll(async () => {
  app = await buildTestApp({ WEBHOOK_ALLOW_PRIVATE_URLS: 'true' });
  db = await testDatabase();
  receiver = await new Receiver().start();
  // 1.5 s: an answer on a machine busy with the whole suite (a timed-out attempt is retried: a duplicate).
  worker = startWorker(db, { webhookRetryDelaysMs: [0, 300, 300] });
});
afterAll(async () => {
  await worker.stop();
  await receiver.close();
  await app.close();
});

/** The event ids received at `path`, each once, in the order they first came (deliveries are at least once). */
const idsAt = (path: string) => [
  ...new Set(receiver.at(path).map((r) => (JSON.parse(r.body) as { id: string }).id)),
];

async function setEnabled(key: string, id: string, enabled: boolean) {
  expectStatus(await api(app, 'PATCH', `/v1/webhooks/${id}`, { key, body: { enabled } }), 200);
}

async function recover(key: string, id: string, since: string) {
  return expectStatus(await api(app, 'POST', `/v1/webhooks/${id}/recover`, { key, body: { since } }), 202)
    .data as {
    requeued: number;
    retried: number;
    added: number;
    hasMore: boolean;
  };
}

describe('POST /v1/webhooks/{id}/recover: backfill from the event log', () => {
  it('delivers the 50 events recorded while a subscription was disabled, with their own ids, paced', async () => {
    const tenant = await createTenant(app, { secret: FAST });
    const key = tenant.secret.key;
    const hook = await subscribe(app, key, receiver.url('/backfill'), ['deal.*']);
    const since = new Date().toISOString();
    await setEnabled(key, hook.id, false);
    const missed = await emitMany(db, tenant.org.id, 'deal.won', 50);
    // Not matched by deal.*: never backfilled.
    await emit(db, tenant.org.id, 'contact.created');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.at('/backfill')).toHaveLength(0);

    await setEnabled(key, hook.id, true);
    expect(await recover(key, hook.id, since)).toEqual({
      requeued: 50,
      retried: 0,
      added: 50,
      hasMore: false,
    });
    // Paced: due times 50 ms apart in event order, so a live event due now passes between them.
    const due = await db.tenantTx(tenant.org.id, (tx) =>
      queryRows<{ event_id: string; ms: string | number }>(
        tx,
        sql`SELECT d.event_id, extract(epoch FROM d.next_attempt_at) * 1000 AS ms
            FROM webhook_deliveries d JOIN events e ON e.id = d.event_id
            WHERE d.subscription_id = ${hook.id} ORDER BY e.sequence`,
      ),
    );
    expect(due.map((row) => row.event_id)).toEqual(missed);
    const spread = Number(due.at(-1)?.ms) - Number(due[0]?.ms);
    expect(spread).toBeGreaterThanOrEqual(49 * 50 - 5);
    const live = await emit(db, tenant.org.id, 'deal.lost');

    await eventually(async () => expect(idsAt('/backfill')).toHaveLength(51), 30_000);
    const order = idsAt('/backfill');
    expect([...order].sort()).toEqual([...missed, live].sort());
    expect(order.indexOf(live)).toBeLessThan(50);
    // Everything received: a second recover finds nothing to send.
    await eventually(async () => {
      expect(await recover(key, hook.id, since)).toEqual({
        requeued: 0,
        retried: 0,
        added: 0,
        hasMore: false,
      });
    });
  }, 40_000);

  it('retries FAILED deliveries and adds missed ones in one call; refuses a disabled subscription', async () => {
    const tenant = await createTenant(app, { secret: FAST });
    const key = tenant.secret.key;
    const hook = await subscribe(app, key, receiver.url('/mixed'), ['task.created']);
    receiver.script('/mixed', { status: 400 });
    const since = new Date().toISOString();
    const failed = await emit(db, tenant.org.id, 'task.created');
    await eventually(async () => {
      const page = expectStatus(
        await api(app, 'GET', `/v1/webhooks/${hook.id}/deliveries?status=FAILED`, { key }),
        200,
      );
      expect(page.data).toHaveLength(1);
    });
    await setEnabled(key, hook.id, false);
    expectError(
      await api(app, 'POST', `/v1/webhooks/${hook.id}/recover`, { key, body: { since } }),
      409,
      'DUPLICATE',
    );
    const missed = await emit(db, tenant.org.id, 'task.created');
    await setEnabled(key, hook.id, true);
    receiver.script('/mixed', { status: 200 });
    expect(await recover(key, hook.id, since)).toEqual({ requeued: 2, retried: 1, added: 1, hasMore: false });
    // After the refused first attempt, both events arrive (each at least once).
    const resent = () => [
      ...new Set(
        receiver
          .at('/mixed')
          .slice(1)
          .map((r) => (JSON.parse(r.body) as { id: string }).id),
      ),
    ];
    await eventually(async () => expect(resent().sort()).toEqual([failed, missed].sort()), 15_000);
  });

  it('never reaches another organization’s events or subscriptions', async () => {
    const owner = await createTenant(app, { secret: FAST });
    const stranger = await createTenant(app, { secret: FAST });
    const hook = await subscribe(app, owner.secret.key, receiver.url('/isolated'), ['*']);
    const since = new Date().toISOString();
    await emit(db, stranger.org.id, 'deal.won');
    expect(await recover(owner.secret.key, hook.id, since)).toMatchObject({ added: 0 });
    expectError(
      await api(app, 'POST', `/v1/webhooks/${hook.id}/recover`, {
        key: stranger.secret.key,
        body: { since },
      }),
      404,
      'NOT_FOUND',
    );
  });
});
