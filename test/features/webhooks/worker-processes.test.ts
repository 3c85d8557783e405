/**
 * The delivery worker as separate processes (`npm run worker`) on PostgreSQL: killed with SIGKILL
 * in the middle of deliveries and restarted, nothing is lost; two workers side by side never send
 * a delivery twice. PGlite serves one process only, so this file runs on the PostgreSQL leg.
 */
import type { ChildProcess } from 'node:child_process';
import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../../src/db/database.ts';
import { createTenant, FAST } from '../../helpers/factories.ts';
import { buildTestApp, openTestDatabase, TEST_DATABASE_URL } from '../../helpers/test-app.ts';
import { Receiver } from './receiver.ts';
import {
  emit,
  eventually,
  PROCESS_SECRETS_KEY,
  startWorkerProcess as startWorker,
  stopProcess,
  subscribe,
} from './support.ts';

async function statusCounts(db: Database, subscriptionId: string): Promise<Record<string, number>> {
  const result = (await db.systemTx((tx) =>
    tx.execute(
      sql`SELECT status, count(*)::int AS n FROM webhook_deliveries WHERE subscription_id = ${subscriptionId} GROUP BY status`,
    ),
  )) as unknown as { rows: { status: string; n: number }[] };
  return Object.fromEntries(result.rows.map((row) => [row.status, row.n]));
}

describe.skipIf(TEST_DATABASE_URL === undefined)('worker processes (PostgreSQL)', () => {
  let app: FastifyInstance;
  let db: Database;
  let receiver: Receiver;
  const children: ChildProcess[] = [];
  // This file's own copy: a worker process refuses to start while a secret in its database is sealed
  // under a key it does not hold, and the shared one may hold other files' in-memory-key secrets.
  const databaseUrl = process.env.TEST_DATABASE_URL as string;
  const startWorkerProcess = () => startWorker(databaseUrl);

  beforeAll(async () => {
    db = await openTestDatabase(databaseUrl);
    app = await buildTestApp(
      { WEBHOOK_ALLOW_PRIVATE_URLS: 'true', SECRETS_KEY: PROCESS_SECRETS_KEY },
      { db },
    );
    receiver = await new Receiver().start();
  });
  afterAll(async () => {
    await Promise.all(children.map((child) => stopProcess(child, 'SIGKILL')));
    await receiver.close();
    await app.close();
    await db.close();
  });

  it('loses nothing when the worker is killed with SIGKILL mid-delivery and started again', async () => {
    const tenant = await createTenant(app, { secret: FAST });
    const hook = await subscribe(app, tenant.secret.key, receiver.url('/crash'), ['deal.won']);
    receiver.script('/crash', 'hang');
    const ids = new Set<string>();
    for (let i = 0; i < 30; i++) ids.add(await emit(db, tenant.org.id, 'deal.won'));

    const first = startWorkerProcess();
    children.push(first);
    await receiver.waitFor(5, '/crash', 30_000);
    await stopProcess(first, 'SIGKILL');
    receiver.script('/crash', { status: 200 });

    const second = startWorkerProcess();
    children.push(second);
    await eventually(async () => expect(await statusCounts(db, hook.id)).toEqual({ SUCCEEDED: 30 }), 60_000);
    const answered = new Set(receiver.at('/crash').map((request) => request.headers['webhook-id'] as string));
    expect(answered).toEqual(ids);
    await stopProcess(second);
  });

  it('never sends a delivery twice with two workers running side by side', async () => {
    const tenant = await createTenant(app, { secret: FAST });
    const hook = await subscribe(app, tenant.secret.key, receiver.url('/pair'), ['contact.*']);
    const ids = new Set<string>();
    for (let i = 0; i < 200; i++) ids.add(await emit(db, tenant.org.id, 'contact.updated'));
    const pair = [startWorkerProcess(), startWorkerProcess()];
    children.push(...pair);
    await eventually(async () => expect(await statusCounts(db, hook.id)).toEqual({ SUCCEEDED: 200 }), 60_000);
    const received = receiver.at('/pair').map((request) => request.headers['webhook-id'] as string);
    expect(received).toHaveLength(200);
    expect(new Set(received)).toEqual(ids);
    await Promise.all(pair.map((child) => stopProcess(child)));
  });
});
