import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { queryRows, type Database } from '../../../src/db/database.ts';
import type { RunningJobs } from '../../../src/platform/jobs/scheduler.ts';
import { createTenant, FAST } from '../../helpers/factories.ts';
import { buildTestApp, testDatabase } from '../../helpers/test-app.ts';
import { Receiver } from './receiver.ts';
import { emit, startWorker, subscribe } from './support.ts';

const PER_SUBSCRIPTION = 16;
let app: FastifyInstance;
let db: Database;
let receiver: Receiver;
let worker: RunningJobs;

beforeAll(async () => {
  app = await buildTestApp({ WEBHOOK_ALLOW_PRIVATE_URLS: 'true' });
  db = await testDatabase();
  receiver = await new Receiver().start();
  // A long time limit: the hanging receiver holds its slots for the whole test.
  worker = startWorker(db, { webhookTimeoutMs: 20_000, perSubscription: PER_SUBSCRIPTION });
});
afterAll(async () => {
  await receiver.close(); // drops the hanging connections, so the worker's attempts end
  await worker.stop();
  await app.close();
});

/** What the receiver got and where each delivery of `organizationId` stands, for a failure message. */
async function diagnosis(organizationId: string): Promise<string> {
  const byPath: Record<string, number> = {};
  for (const request of receiver.received) byPath[request.path] = (byPath[request.path] ?? 0) + 1;
  const states = await db.systemTx((tx) =>
    queryRows(
      tx,
      sql`SELECT s.url, d.status, d.attempt_count, d.locked_until IS NOT NULL AS locked, count(*)::int AS n
          FROM webhook_deliveries d JOIN webhook_subscriptions s ON s.id = d.subscription_id
          WHERE s.organization_id = ${organizationId} GROUP BY 1, 2, 3, 4`,
    ),
  );
  return `received ${JSON.stringify(byPath)}; deliveries ${JSON.stringify(states)}`;
}

let run = 0;

// A failure says what the receiver got and where each delivery stands. (On 2026-11-26 it failed in
// full runs: the fork's earlier files had left deliveries pending in the database they share, and this
// file's worker spent its slots on them; test/helpers/test-app.ts now ends those before each file.)
it(
  'delivers to a fast receiver while a hanging one holds only its own slots',
  { timeout: 90_000 },
  async () => {
    run += 1;
    const [hangingPath, fastPath] = [`/hanging-${run}`, `/fast-${run}`];
    const tenant = await createTenant(app, { secret: FAST });
    const hanging = await subscribe(app, tenant.secret.key, receiver.url(hangingPath), ['deal.won']);
    await subscribe(app, tenant.secret.key, receiver.url(fastPath), ['deal.won']);
    receiver.script(hangingPath, 'hang');
    for (let i = 0; i < 40; i++) await emit(db, tenant.org.id, 'deal.won');
    const explain = async (error: Error) => {
      throw new Error(`${error.message}; ${await diagnosis(tenant.org.id)}`);
    };

    // The worker holds the hanging receiver's share of slots (16 attempts, each waiting up to 20 s) ...
    await receiver.waitFor(PER_SUBSCRIPTION, hangingPath, 40_000).catch(explain);
    // ... and meanwhile every delivery to the fast receiver arrives.
    await receiver.waitFor(40, fastPath, 15_000).catch(explain);
    // No attempt to the hanging receiver has ended (its 20 s limit is not reached), yet the fast one got
    // all 40: they never waited for it. And it holds no more than its per-subscription share.
    const result = (await db.systemTx((tx) =>
      tx.execute(
        sql`SELECT count(*) FILTER (WHERE a.duration_ms IS NOT NULL)::int AS ended,
                   count(*) FILTER (WHERE a.duration_ms IS NULL)::int AS in_flight
            FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id
            WHERE d.subscription_id = ${hanging.id}`,
      ),
    )) as unknown as { rows: { ended: number; in_flight: number }[] };
    // The log shows them in flight (an attempt is logged when it starts).
    expect(result.rows[0]).toEqual({ ended: 0, in_flight: PER_SUBSCRIPTION });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.at(hangingPath)).toHaveLength(PER_SUBSCRIPTION);
  },
);
